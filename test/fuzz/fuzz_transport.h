/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

#ifndef FUZZ_TRANSPORT_H
#define FUZZ_TRANSPORT_H

/**
 * @file
 * The fake transport driver of the worker fuzz target (fuzz_worker.c):
 * "fuzzq", registered with pmr_transport_register(). Its queues live in
 * this process only and are numbered (devargs "id=N", 1..FZQ_MAX_QUEUES);
 * a queue's address is its number, and so is the src its packets arrive
 * with. Everything is driven by the harness, on one thread:
 * - tx_burst copies each packet into the receive FIFO of the queue its
 *   peer names (the "wire"), and keeps a zero-copy reference on the
 *   packet's msgbuf until fzq_complete() drops it (or tx_flush, when
 *   fzq_set_flush_completes() says so);
 * - rx_burst hands out what the FIFO holds, in order; the harness may
 *   append forged packets (fzq_inject()), and drop, duplicate or reorder
 *   queued ones first;
 * - every received packet must be released exactly once, and no sent
 *   packet may break the driver contract (size, headroom, bounds of its
 *   msgbuf): a breach aborts (FUZZ_CHECK).
 * Released packet buffers are poisoned under ASan, so a worker that
 * reads a packet after releasing it is caught.
 */

#include <stdbool.h>
#include <stdint.h>

#include "pmr_transport_driver.h"

#define FZQ_DRIVER_NAME "fuzzq"
#define FZQ_MAX_QUEUES 4
/** Payload bytes of a packet, the RPC header included. */
#define FZQ_MTU 576
/** Bytes the driver claims in front of a zero-copy packet. */
#define FZQ_HEADROOM 16
/** Receive slots a queue admits session credits against. */
#define FZQ_RX_DEPTH 256
/** Packets a queue's receive FIFO holds (received, queued or out). */
#define FZQ_RX_SLOTS 2048

/** A queue's counters, for the harness's invariants. */
struct fzq_counters {
	uint64_t tx_pkts;	/**< Accepted by tx_burst. */
	uint64_t tx_refused;	/**< Refused: the input's TX budget. */
	uint64_t tx_lost;	/**< Accepted, but no such queue or no room. */
	uint64_t rx_delivered;	/**< Handed out by rx_burst. */
	uint64_t rx_released;	/**< Given back with rx_release. */
	uint64_t injected;	/**< Appended by fzq_inject(). */
};

/** Register the driver (once per process). @return 0 or -errno. */
int fzq_register(void);

/** @return queue number id (from devargs "id=N"), or NULL. */
struct pmr_transport_queue *fzq_queue(unsigned int id);

/** @return the number of q. */
unsigned int fzq_id(const struct pmr_transport_queue *q);

/**
 * Append a packet of len bytes (RPC header and payload) to the receive
 * FIFO of queue id, as sent by queue src (any value: a forged source).
 * @return 0, or -ENOSPC if the FIFO is full (the packet is lost).
 */
int fzq_inject(unsigned int id, const void *pkt, uint32_t len, uint64_t src);

/** @return packets waiting in queue id's receive FIFO. */
unsigned int fzq_rx_queued(unsigned int id);

/**
 * The packet at position pos of queue id's receive FIFO (0: next out).
 * @return its bytes (writable: the harness may alter it) and length, or
 *   NULL past the end.
 */
uint8_t *fzq_rx_peek(unsigned int id, unsigned int pos, uint32_t *len);

/** Drop the packet at pos of the receive FIFO (the wire lost it). */
void fzq_rx_drop(unsigned int id, unsigned int pos);

/** Duplicate the packet at pos: the copy goes to the FIFO's end. */
void fzq_rx_dup(unsigned int id, unsigned int pos);

/** Move the packet at pos to the FIFO's end (reorder). */
void fzq_rx_defer(unsigned int id, unsigned int pos);

/** Drop every queued packet of queue id. */
void fzq_rx_flush(unsigned int id);

/** @return packets handed out by rx_burst and not released yet. */
unsigned int fzq_rx_out(unsigned int id);

/** Called for each packet rx_burst hands out (NULL: none). */
void fzq_set_rx_trace(void (*fn)(unsigned int id, const uint8_t *pkt,
		uint32_t len, uint64_t src));

/** Hand out at most n packets per rx_burst (0: as many as asked). */
void fzq_set_rx_burst_max(unsigned int id, uint16_t n);

/** Accept at most n more packets in tx_burst; UINT32_MAX: no limit. */
void fzq_set_tx_budget(unsigned int id, uint32_t n);

/** Let tx_flush drop every zero-copy reference (true), or none. */
void fzq_set_flush_completes(unsigned int id, bool on);

/**
 * Drop the n oldest zero-copy references of queue id (UINT32_MAX: all),
 * as a device completing its sends would.
 */
void fzq_complete(unsigned int id, uint32_t n);

/** @return zero-copy references queue id still holds. */
unsigned int fzq_tx_refs(unsigned int id);

/** Read queue id's counters. */
void fzq_counters(unsigned int id, struct fzq_counters *c);

/** @return peers created and not destroyed, all queues. */
unsigned int fzq_peers(void);

#endif /* FUZZ_TRANSPORT_H */
