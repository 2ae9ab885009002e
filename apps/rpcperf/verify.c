/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * --verify: payloads whose every byte a reader can check. Word 0 (the
 * first 8 bytes) is the seed: the client lcore and the request's
 * sequence number (rpcperf_verify_seed()). Word i > 0 is base + i * K,
 * base a hash of the seed, K odd: each word differs from every other of
 * the message (a block moved or repeated shows) and from the words of
 * other requests (stale bytes of an earlier message show). Words are
 * little-endian, the message cut at its length. Writing it is an add per
 * word; checking, an add and a compare.
 */

#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_byteorder.h>
#include <rte_common.h>

#include "rpcperf.h"

#define PATTERN_K UINT64_C(0x9e3779b97f4a7c15)

/* splitmix64's finaliser: nearby seeds give unrelated bases. */
static inline uint64_t
pattern_base(uint64_t seed)
{
	uint64_t z = seed + PATTERN_K;

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* Word i of the pattern, little-endian. */
static inline uint64_t
pattern_word(uint64_t seed, uint64_t base, uint64_t i)
{
	return rte_cpu_to_le_64(i == 0 ? seed : base + i * PATTERN_K);
}

void
rpcperf_pattern_fill(void *data, uint32_t len, uint64_t seed)
{
	uint64_t base = pattern_base(seed), w;
	uint8_t *p = data;
	uint32_t i, n = len / 8;

	for (i = 0; i < n; i++) {
		w = pattern_word(seed, base, i);
		memcpy(p + 8 * (size_t)i, &w, 8);
	}
	if (len % 8 != 0) {
		w = pattern_word(seed, base, n);
		memcpy(p + 8 * (size_t)n, &w, len % 8);
	}
}

uint8_t
rpcperf_pattern_byte(uint64_t seed, uint32_t off)
{
	uint64_t w = pattern_word(seed, pattern_base(seed), off / 8);
	uint8_t b[8];

	memcpy(b, &w, 8);
	return b[off % 8];
}

/* The first byte of word i of p (len bytes) that differs from w. */
static uint32_t
first_diff(const uint8_t *p, uint32_t len, uint32_t i, uint64_t w)
{
	uint32_t off = 8 * i, end = RTE_MIN(off + 8, len);
	uint8_t b[8];

	memcpy(b, &w, 8);
	while (off < end && p[off] == b[off % 8])
		off++;
	return off;
}

/* Words from..len of p against the pattern of seed. */
static bool
check_from(const uint8_t *p, uint32_t len, uint64_t seed, uint32_t from,
		uint32_t *at)
{
	uint64_t base = pattern_base(seed), w, v;
	uint32_t i, n = len / 8;

	for (i = from; i < n; i++) {
		w = pattern_word(seed, base, i);
		memcpy(&v, p + 8 * (size_t)i, 8);
		if (unlikely(v != w)) {
			*at = first_diff(p, len, i, w);
			return false;
		}
	}
	if (len % 8 != 0) {
		w = pattern_word(seed, base, n);
		v = w;
		memcpy(&v, p + 8 * (size_t)n, len % 8);
		if (unlikely(v != w)) {
			*at = first_diff(p, len, n, w);
			return false;
		}
	}
	return true;
}

bool
rpcperf_pattern_check(const void *data, uint32_t len, uint64_t seed,
		uint32_t *at)
{
	return check_from(data, len, seed, 0, at);
}

bool
rpcperf_pattern_check_self(const void *data, uint32_t len, uint64_t *seed,
		uint32_t *at)
{
	uint64_t w;

	*seed = 0;
	if (len < 8)
		return true;
	memcpy(&w, data, 8);
	*seed = rte_le_to_cpu_64(w);
	return check_from(data, len, *seed, 1, at);
}
