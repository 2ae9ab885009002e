/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * rpcperf_corrupt: rpcperf with rpcperf_test_corrupt() defined, so that
 * the tests see --verify catch a changed byte (check_rpcperf.py verify).
 * RPCPERF_CORRUPT=req:N changes one byte of the N-th request its client
 * lcores fill with their pattern (counted from 1, all lcores together),
 * before it is sent; resp:N one byte of the N-th echo its server workers
 * copy, before it is returned. The byte is the middle one of the message
 * (its length / 2), its bits flipped. Unset, or another value, changes
 * nothing: this binary then runs as rpcperf does.
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpcperf.h"

static uint64_t seen[2];

void
rpcperf_test_corrupt(enum rpcperf_corrupt_at at, void *data, uint32_t len)
{
	static const char *const names[] = {
		[RPCPERF_CORRUPT_REQ] = "req",
		[RPCPERF_CORRUPT_RESP] = "resp",
	};
	const char *spec = getenv("RPCPERF_CORRUPT");
	size_t nl = strlen(names[at]);
	unsigned long long nth;
	uint64_t n;
	char *end;

	if (spec == NULL || strncmp(spec, names[at], nl) != 0 ||
	    spec[nl] != ':')
		return;
	nth = strtoull(spec + nl + 1, &end, 10);
	n = __atomic_add_fetch(&seen[at], 1, __ATOMIC_RELAXED);
	if (*end != '\0' || n != nth || len == 0)
		return;
	((uint8_t *)data)[len / 2] ^= 0xff;
	fprintf(stderr, "rpcperf_corrupt: %s %llu: byte %u of %u changed\n",
		names[at], nth, len / 2, len);
}
