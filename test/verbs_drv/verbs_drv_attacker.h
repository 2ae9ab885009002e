/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

#ifndef VERBS_DRV_ATTACKER_H
#define VERBS_DRV_ATTACKER_H

/*
 * A hostile sender on the model's fabric: a UD QP of the test's own,
 * outside pmrpc, that sends a worker's queue whatever it likes, knowing
 * its QPN and QKey as an on-path attacker does (test_verbs_drv.c,
 * test_verbs_ud_err.c).
 */

#include <stdint.h>

#include "verbs_drv_e2e.h"

/* The largest datagram an attacker sends. */
#define VD_ATTACKER_MAX 4096

/*
 * Hostile datagrams at e's server worker from a QP on device dev: n
 * datagrams of random lengths from 0 to max_len (past 1024, every second
 * one over 1024, the first two max_len and 1025), random bytes, pmrpc
 * headers with random fields aimed at the live session, valid headers
 * with a bit flipped, and every eighth with a wrong QKey (the device drops it),
 * while the client runs an echo RPC every 16 datagrams, each checked.
 * Then: only the client's requests reached the handler, the device lost
 * nothing on the way, and every datagram it delivered was dropped and
 * counted by reason, by the driver (rx_drop_short; rx_drop_long, for
 * those over the queue's MTU) or by the engine.
 */
void vd_hostile_run(struct vd_e2e *e, const char *dev, uint32_t max_len,
		unsigned int n);

#endif /* VERBS_DRV_ATTACKER_H */
