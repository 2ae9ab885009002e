/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

#ifndef VERBS_DRV_UTIL_H
#define VERBS_DRV_UTIL_H

/*
 * What the verbs driver's tests share, on the model (test_verbs_drv.c)
 * and on real Soft-RoCE (test_verbs_real.c).
 */

#include <stdint.h>

#include "pmr_transport.h"

/* A named counter of q (fails the test if q has none by that name). */
uint64_t vd_xstat(struct pmr_transport_queue *q, const char *name);

/* A peer on from for to's address. */
struct pmr_transport_peer *vd_peer_to(struct pmr_transport_queue *from,
		struct pmr_transport_queue *to);

/* len bytes of a pattern of seed's. */
void vd_fill(uint8_t *d, uint32_t len, uint32_t seed);

/*
 * Flush both queues and poll their RX (dropping what arrives: their own
 * flush sends) until neither holds a msgbuf or a dead AH, at most tries
 * rounds (0: until PMR_TEST_WAIT_NS); then assert it: tx_flush says 0
 * and tx_held is 0 (a tail of inline sends may stay in tx_pending).
 */
void vd_quiesce(struct pmr_transport_queue *a, struct pmr_transport_queue *b,
		unsigned int tries);

#endif /* VERBS_DRV_UTIL_H */
