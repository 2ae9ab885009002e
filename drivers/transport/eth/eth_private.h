/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

#ifndef PMR_ETH_PRIVATE_H
#define PMR_ETH_PRIVATE_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_log.h>
#include <rte_mbuf.h>

#include "eth_config.h"
#include "eth_hdr.h"
#include "pmr_transport_driver.h"

extern int pmr_eth_logtype;

/* The driver: listed by the generated table (drivers/meson.build), used
 * directly by tests that wrap it. */
extern const struct pmr_transport_driver pmr_eth_driver;
#define ETH_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, pmr_eth_logtype, "pmr.eth: " fmt "\n", \
		##__VA_ARGS__)

/* A resolved remote queue: its header template, written once. */
struct eth_peer {
	struct pmr_transport_peer pub;
	struct pmr_eth_endpoint ep;
	uint32_t ip_sum;		/* pmr_eth_hdr_ip_sum(hdr) */
	uint8_t hdr[PMR_ETH_HDR_LEN] __rte_aligned(8);
};

/* Counters of one queue, updated only on the queue's lcore. */
struct eth_stats {
	uint64_t tx_pkts;
	uint64_t tx_bytes;
	uint64_t tx_zerocopy;
	uint64_t tx_full;	/* refused: TX ring or mbuf pool full */
	uint64_t tx_invalid;	/* refused: over the MTU or no headroom */
	uint64_t rx_pkts;
	uint64_t rx_bytes;
	uint64_t rx_drop[PMR_ETH_DROP_MAX];	/* by reason; [0] unused */
	uint64_t gate_closed;	/* memif: bursts the gate turned away */
};

/*
 * Frames the port itself dropped on receipt (rte_eth_stats), before any
 * rx burst could see them: its only queue's, as the queue owns the port.
 */
struct eth_nic_drops {
	uint64_t missed;	/* imissed: no free descriptor */
	uint64_t errors;	/* ierrors: bad frames */
	uint64_t nombuf;	/* rx_nombuf: no mbuf to receive into */
};

/*
 * The memif gate (eth_gate.c): a memif queue's bursts and net_memif's
 * callbacks, which map and unmap the peer's memory on the EAL interrupt
 * thread, never run at the same time. A slot per port, its queue's mark.
 */
struct eth_gate_slot {
	uint32_t busy;		/* the queue is in a burst */
} __rte_cache_aligned;

extern uint32_t eth_gate_closed;
extern struct eth_gate_slot eth_gate_slots[RTE_MAX_ETHPORTS];

int eth_gate_get(void);
void eth_gate_put(void);
bool eth_gate_hold(uint16_t port_id);
void eth_gate_release(bool held);
void eth_gate_attach(uint16_t port_id);
void eth_gate_detach(uint16_t port_id);
bool eth_gate_wait(struct eth_gate_slot *slot);
bool eth_gate_yield(struct eth_gate_slot *slot);

/*
 * Mark the burst, then look at the gate: true, go (then
 * eth_gate_leave()); false, the gate is closed: burst nothing. The
 * exchange orders the mark before the look (the callback closes, fences,
 * then looks at the marks).
 */
static inline bool
eth_gate_enter(struct eth_gate_slot *slot)
{
	__atomic_exchange_n(&slot->busy, 1, __ATOMIC_SEQ_CST);
	if (likely(__atomic_load_n(&eth_gate_closed, __ATOMIC_ACQUIRE) == 0))
		return true;
	__atomic_store_n(&slot->busy, 0, __ATOMIC_RELEASE);
	return false;
}

static inline void
eth_gate_leave(struct eth_gate_slot *slot)
{
	__atomic_store_n(&slot->busy, 0, __ATOMIC_RELEASE);
}

/* One queue: queue 0 of one ethdev port, owned from create to destroy. */
struct eth_queue {
	struct pmr_transport_queue pub;	/* first: the burst pointers */

	/* Data path, read-mostly. */
	uint16_t port_id;
	uint16_t queue_id;
	uint32_t tx_copy_max;		/* copy payloads up to this size */
	bool ip_cksum_offload;		/* NIC computes the IPv4 checksum */
	uint32_t rx_parse_flags;	/* checks the NIC does on RX */
	struct rte_mempool *tx_pool;	/* copies and zero-copy heads */
	struct pmr_eth_endpoint local;
	struct pmr_eth_rx_match rx_match;	/* from local */
	struct eth_gate_slot *gate;	/* memif: its port's; else NULL */

	struct eth_stats stats;

	/* Control path. */
	struct eth_nic_drops nic0;	/* the port's at create or reset */
	struct rte_mempool *rx_pool;
	uint16_t nb_rxd;
	uint16_t nb_txd;
	uint32_t nb_peers;
};

static inline struct eth_queue *
eth_queue(struct pmr_transport_queue *q)
{
	return container_of(q, struct eth_queue, pub);
}

/* Data path (eth_rxtx.c); _gated: on a memif port. */
uint16_t eth_tx_burst(struct pmr_transport_queue *q,
		const struct pmr_tx_pkt *pkts, uint16_t n);
uint16_t eth_rx_burst(struct pmr_transport_queue *q,
		struct pmr_rx_pkt *pkts, uint16_t n);
uint16_t eth_tx_burst_gated(struct pmr_transport_queue *q,
		const struct pmr_tx_pkt *pkts, uint16_t n);
uint16_t eth_rx_burst_gated(struct pmr_transport_queue *q,
		struct pmr_rx_pkt *pkts, uint16_t n);
void eth_rx_release(struct pmr_transport_queue *q,
		struct pmr_rx_pkt *pkts, uint16_t n);

/* Per-mbuf private area of the TX pool: the zero-copy shared info. */
#define ETH_TX_MBUF_PRIV_SIZE \
	RTE_ALIGN_CEIL(sizeof(struct rte_mbuf_ext_shared_info), \
		RTE_MBUF_PRIV_ALIGN)

#endif /* PMR_ETH_PRIVATE_H */
