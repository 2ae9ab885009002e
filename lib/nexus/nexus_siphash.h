/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

#ifndef PMR_NEXUS_SIPHASH_H
#define PMR_NEXUS_SIPHASH_H

/**
 * @file
 * SipHash-2-4 (Aumasson and Bernstein, "SipHash: a fast short-input PRF",
 * 2012): the keyed MAC of the nexus's heartbeats and handshake cookies
 * (internal to libpmrpc). A pure function: no EAL.
 */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Bytes of a SipHash key. */
#define NEXUS_SIPHASH_KEY_LEN 16

/**
 * @param key
 *   16 bytes: k0 is bytes 0-7, k1 bytes 8-15, each little-endian.
 * @return SipHash-2-4 of the len bytes at data (the 64-bit output, whose
 *   little-endian bytes are the reference implementation's output).
 */
uint64_t nexus_siphash24(const uint8_t key[NEXUS_SIPHASH_KEY_LEN],
		const void *data, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* PMR_NEXUS_SIPHASH_H */
