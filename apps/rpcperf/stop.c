/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * SIGINT and SIGTERM: the first asks the run to stop (clients send no
 * more and finish what is in flight, a --server prints its table), and
 * rpcperf ends with what it did; a second one ends the process as the
 * signal would have, for a run that cannot finish.
 */

#include <signal.h>

#include "rpcperf.h"

static volatile sig_atomic_t stop_asked;

static void
on_stop_signal(int sig)
{
	if (stop_asked) {
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	stop_asked = 1;
}

void
rpcperf_stop_signals(void)
{
	signal(SIGINT, on_stop_signal);
	signal(SIGTERM, on_stop_signal);
}

bool
rpcperf_stop_asked(void)
{
	return stop_asked != 0;
}
