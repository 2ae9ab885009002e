/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * SipHash-2-4, written from the specification in the SipHash paper: two
 * compression rounds per 8-byte word, four finalization rounds. Byte by
 * byte, so host byte order and alignment do not matter.
 */

#include "nexus_siphash.h"

static inline uint64_t
rotl64(uint64_t x, unsigned int b)
{
	return (x << b) | (x >> (64 - b));
}

static inline uint64_t
load64_le(const uint8_t *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

struct sip_state {
	uint64_t v0, v1, v2, v3;
};

static inline void
sip_round(struct sip_state *s)
{
	s->v0 += s->v1;
	s->v1 = rotl64(s->v1, 13);
	s->v1 ^= s->v0;
	s->v0 = rotl64(s->v0, 32);
	s->v2 += s->v3;
	s->v3 = rotl64(s->v3, 16);
	s->v3 ^= s->v2;
	s->v0 += s->v3;
	s->v3 = rotl64(s->v3, 21);
	s->v3 ^= s->v0;
	s->v2 += s->v1;
	s->v1 = rotl64(s->v1, 17);
	s->v1 ^= s->v2;
	s->v2 = rotl64(s->v2, 32);
}

/* Absorb one 8-byte word (c = 2 compression rounds). */
static inline void
sip_word(struct sip_state *s, uint64_t m)
{
	s->v3 ^= m;
	sip_round(s);
	sip_round(s);
	s->v0 ^= m;
}

uint64_t
nexus_siphash24(const uint8_t key[NEXUS_SIPHASH_KEY_LEN], const void *data,
		size_t len)
{
	const uint8_t *p = data;
	uint64_t k0 = load64_le(key), k1 = load64_le(key + 8);
	struct sip_state s = {
		.v0 = k0 ^ UINT64_C(0x736f6d6570736575),	/* "somepseu" */
		.v1 = k1 ^ UINT64_C(0x646f72616e646f6d),	/* "dorandom" */
		.v2 = k0 ^ UINT64_C(0x6c7967656e657261),	/* "lygenera" */
		.v3 = k1 ^ UINT64_C(0x7465646279746573),	/* "tedbytes" */
	};
	uint64_t last;
	size_t i, tail;

	for (i = 0; i + 8 <= len; i += 8)
		sip_word(&s, load64_le(p + i));
	/* The last word: the leftover bytes, the length's low byte on top. */
	last = (uint64_t)len << 56;
	for (tail = 0; tail < len - i; tail++)
		last |= (uint64_t)p[i + tail] << (8 * tail);
	sip_word(&s, last);
	/* d = 4 finalization rounds. */
	s.v2 ^= 0xff;
	sip_round(&s);
	sip_round(&s);
	sip_round(&s);
	sip_round(&s);
	return s.v0 ^ s.v1 ^ s.v2 ^ s.v3;
}
