/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * Progress of a run: a line on stderr each second (not with --quiet) and,
 * with --histogram, the count of round trips done every 100 ms, for
 * FILE.rate.csv. The workloads call rpcperf_progress() from their loops,
 * outside what they time. Most calls only count down: the TSC is read
 * every "stride" calls, a stride that adapts so that it is read about
 * every 100 us whatever a call costs. No system call on the way.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_branch_prediction.h>
#include <rte_cycles.h>

#include "rpcperf.h"

#define TICK_MS 100		/* step of the time series */
#define LINE_MS 1000		/* a progress line this often */
#define CHECK_US 100		/* read the TSC about this often */
#define STRIDE_MAX (1u << 20)

struct progress_point {
	uint64_t tsc;
	uint64_t done;
};

struct progress_state {
	uint32_t countdown;	/* calls until the TSC is read */
	uint32_t stride;
	bool active;		/* lines or a time series are wanted */
	bool print;
	bool record;
	bool started;		/* the run's first call came */
	uint64_t hz;
	uint64_t check;		/* cycles: CHECK_US */
	uint64_t tick;		/* cycles: TICK_MS */
	uint64_t last_check;
	uint64_t next_tick;
	uint64_t next_line;
	uint64_t line_tsc;	/* at the last line */
	uint64_t line_done;
	struct progress_point *pts;
	unsigned int nb_pts;
	unsigned int cap_pts;
};

static struct progress_state prog = { .countdown = UINT32_MAX };

void
rpcperf_progress_begin(const struct rpcperf_config *cfg)
{
	prog.print = !cfg->quiet;
	prog.record = cfg->histogram != NULL;
	prog.active = prog.print || prog.record;
	prog.started = false;
	prog.stride = 1;
	prog.countdown = prog.active ? 1 : UINT32_MAX;
	prog.hz = rte_get_tsc_hz();
	prog.check = prog.hz / (1000000 / CHECK_US);
	prog.tick = prog.hz / (1000 / TICK_MS);
	prog.nb_pts = 0;
}

static void
record(uint64_t now, uint64_t done)
{
	struct progress_point *p;

	if (prog.nb_pts == prog.cap_pts) {
		p = realloc(prog.pts, (prog.cap_pts + 64) * sizeof(*p));
		if (p == NULL)
			return;		/* a shorter series */
		prog.pts = p;
		prog.cap_pts += 64;
	}
	prog.pts[prog.nb_pts++] = (struct progress_point){ now, done };
}

/* "1.52 M/s", "153.2 k/s", "12 /s". */
static void
print_line(const char *wl, uint64_t done, uint64_t total, uint64_t now)
{
	double secs = (double)(now - prog.line_tsc) / (double)prog.hz;
	double rate = secs > 0 ? (double)(done - prog.line_done) / secs : 0;
	double pct = total != 0 ? 100.0 * (double)done / (double)total : 0;

	if (rate >= 1e6)
		fprintf(stderr, "rpcperf: %s %" PRIu64 "/%" PRIu64
			" (%.0f%%), %.2f M/s\n", wl, done, total, pct,
			rate / 1e6);
	else if (rate >= 1e3)
		fprintf(stderr, "rpcperf: %s %" PRIu64 "/%" PRIu64
			" (%.0f%%), %.1f k/s\n", wl, done, total, pct,
			rate / 1e3);
	else
		fprintf(stderr, "rpcperf: %s %" PRIu64 "/%" PRIu64
			" (%.0f%%), %.0f /s\n", wl, done, total, pct, rate);
	prog.line_tsc = now;
	prog.line_done = done;
}

void
rpcperf_progress(const struct rpcperf_config *cfg, const char *wl,
		uint64_t done, uint64_t total)
{
	uint64_t now, since;

	RTE_SET_USED(cfg);
	if (likely(--prog.countdown != 0))
		return;
	if (!prog.active) {
		prog.countdown = UINT32_MAX;
		return;
	}
	now = rte_rdtsc();
	if (!prog.started) {
		prog.started = true;
		prog.last_check = now;
		prog.next_tick = now + prog.tick;
		prog.next_line = now + prog.tick * (LINE_MS / TICK_MS);
		prog.line_tsc = now;
		prog.line_done = done;
		if (prog.record)
			record(now, done);
		prog.countdown = prog.stride;
		return;
	}
	/* Calls this stride took: read the TSC about every CHECK_US. */
	since = now - prog.last_check;
	prog.last_check = now;
	if (since < prog.check && prog.stride < STRIDE_MAX)
		prog.stride *= 2;
	else if (since > 4 * prog.check && prog.stride > 1)
		prog.stride /= 2;
	prog.countdown = prog.stride;
	if (now < prog.next_tick)
		return;

	prog.next_tick += prog.tick;
	if (prog.next_tick <= now)	/* a call took over a tick */
		prog.next_tick = now + prog.tick;
	if (prog.record)
		record(now, done);
	if (prog.print && now >= prog.next_line) {
		print_line(wl, done, total, now);
		prog.next_line = now + prog.tick * (LINE_MS / TICK_MS);
	}
}

int
rpcperf_progress_end(FILE *rate_csv, const char *wl)
{
	unsigned int i;
	int ret = 0;

	for (i = 1; rate_csv != NULL && i < prog.nb_pts; i++) {
		const struct progress_point *a = &prog.pts[i - 1];
		const struct progress_point *b = &prog.pts[i];
		double secs = (double)(b->tsc - a->tsc) / (double)prog.hz;

		if (fprintf(rate_csv, "%s,%.3f,%" PRIu64 ",%.6f\n", wl,
				(double)(b->tsc - prog.pts[0].tsc) /
				(double)prog.hz, b->done,
				(double)(b->done - a->done) / secs / 1e6) < 0)
			ret = -EIO;
	}
	free(prog.pts);
	prog.pts = NULL;
	prog.nb_pts = 0;
	prog.cap_pts = 0;
	prog.active = false;
	prog.countdown = UINT32_MAX;
	return ret;
}
