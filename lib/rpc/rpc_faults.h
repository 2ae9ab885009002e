/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

#ifndef PMR_RPC_FAULTS_H
#define PMR_RPC_FAULTS_H

/*
 * Fault injection (rpc_faults.c): hooks on the TX burst (rpc_tx.c) and
 * the RX burst (rpc_poll.c), taken only when a worker has faults
 * configured.
 */

#include <stdbool.h>
#include <stdint.h>

#include "pmr_transport.h"

#pragma GCC visibility push(hidden)

struct pmr_worker;

/* Fractions scaled to 2^32, 0 for none. */
struct rpc_faults {
	uint32_t drop_tx, drop_rx, dup_tx, reorder_tx, reorder_rx;
	uint64_t rng;			/* xorshift64* state */
	bool on;
	struct pmr_rx_pkt held;		/* RX packet delayed to next poll */
	bool has_held;
};

int rpc_faults_parse(struct rpc_faults *f, const char *spec,
		uint16_t worker_id);
uint16_t rpc_faults_tx(struct pmr_worker *w, struct pmr_tx_pkt *pkts,
		bool *free_after, uint16_t n);
uint16_t rpc_faults_rx(struct pmr_worker *w, struct pmr_rx_pkt *pkts,
		uint16_t n);

#pragma GCC visibility pop

#endif /* PMR_RPC_FAULTS_H */
