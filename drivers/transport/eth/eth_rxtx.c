/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * The eth driver's data path, top to bottom: TX (copy or zero-copy), RX
 * (validate, then hand out in place), release.
 *
 * Zero-copy TX attaches the msgbuf's memory, from the driver header in its
 * headroom to the end of the payload, to an mbuf as an external buffer. The
 * mbuf's private area holds the shared info whose free callback drops the
 * msgbuf's TX reference. That callback runs wherever the mbuf is freed: in
 * the PMD's TX completion on this lcore, or, on a ring pair, on the lcore
 * of the receiver when it releases the packet. Hence the atomic counter in
 * the msgbuf, and nothing else touched there.
 *
 * On a net_memif port the bursts are the _gated ones, which keep out of
 * the way of memif's callbacks on the interrupt thread (eth_gate.c);
 * other ports' bursts are built without the gate.
 */

#include <string.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>

#include "eth_private.h"

static void
eth_extbuf_free(void *addr __rte_unused, void *opaque)
{
	pmr_msgbuf_tx_unref(opaque);
}

/*
 * A TX mbuf fresh from the pool, made ready as rte_pktmbuf_reset() would
 * but in its first cache line only. A pooled mbuf already has refcnt 1,
 * nb_segs 1 and next NULL (DPDK's rule for pools), and tx_offload is read
 * only with checksum offload, which sets it. Not writing the second line
 * matters on a ring pair: the receiver frees the mbuf, and a line this
 * core dirtied on every send would cross between the cores twice more.
 */
static inline void
eth_tx_mbuf_init(struct rte_mbuf *m)
{
	m->data_off = RTE_PKTMBUF_HEADROOM;
	m->port = RTE_MBUF_PORT_INVALID;
	m->ol_flags = 0;
	m->packet_type = 0;
	m->vlan_tci = 0;
	m->vlan_tci_outer = 0;
}

/*
 * Free a received mbuf. A direct single-segment mbuf with no other
 * reference goes straight back to its pool: what rte_pktmbuf_free() does
 * for it, without reading next (second cache line), which a single
 * segment has NULL. Anything else takes the general path.
 */
static inline void
eth_rx_mbuf_free(struct rte_mbuf *m)
{
	if (likely(RTE_MBUF_DIRECT(m) && rte_mbuf_refcnt_read(m) == 1))
		rte_mempool_put(m->pool, m);
	else
		rte_pktmbuf_free(m);
}

/*
 * Where the frame of m most likely is: past the mbuf, a TX pool's private
 * area and the default headroom (a ring-pair peer's copy), or within a
 * line of it (an RX pool without private area). Prefetched before the
 * mbuf is read, the two lines arrive together with its header instead of
 * after it.
 */
static inline const uint8_t *
eth_rx_frame_guess(const struct rte_mbuf *m)
{
	return (const uint8_t *)m + sizeof(*m) + ETH_TX_MBUF_PRIV_SIZE +
		RTE_PKTMBUF_HEADROOM;
}

/* Fill m with a copy of the headers and payload. */
static inline void
eth_tx_copy(struct eth_queue *eq, struct rte_mbuf *m,
		const struct eth_peer *peer, const struct pmr_tx_pkt *p)
{
	uint8_t *frame = rte_pktmbuf_mtod(m, uint8_t *);
	uint16_t len = (uint16_t)(p->hdr_len + p->len);

	memcpy(frame, peer->hdr, PMR_ETH_HDR_LEN);
	pmr_eth_hdr_set_len_sum(frame, len, peer->ip_sum,
			eq->ip_cksum_offload);
	if (p->hdr_len != 0)
		memcpy(frame + PMR_ETH_HDR_LEN, p->hdr, p->hdr_len);
	if (p->len != 0)
		memcpy(frame + PMR_ETH_HDR_LEN + p->hdr_len, p->data, p->len);
	m->data_len = (uint16_t)(PMR_ETH_HDR_LEN + len);
	m->pkt_len = m->data_len;
}

/* Copy, or attach the msgbuf? Gathered packets are always copied. */
static inline bool
eth_tx_copies(const struct eth_queue *eq, const struct pmr_tx_pkt *p)
{
	return p->len <= eq->tx_copy_max || p->hdr_len != 0;
}

/* Point m at the msgbuf: header written into its headroom. */
static inline void
eth_tx_attach(struct eth_queue *eq, struct rte_mbuf *m,
		const struct eth_peer *peer, const struct pmr_tx_pkt *p)
{
	struct rte_mbuf_ext_shared_info *shinfo = rte_mbuf_to_priv(m);
	struct pmr_msgbuf *mb = p->mb;
	uint8_t *frame = p->data - PMR_ETH_HDR_LEN;
	uint16_t frame_len = (uint16_t)(PMR_ETH_HDR_LEN + p->len);

	memcpy(frame, peer->hdr, PMR_ETH_HDR_LEN);
	pmr_eth_hdr_set_len_sum(frame, (uint16_t)p->len, peer->ip_sum,
			eq->ip_cksum_offload);

	shinfo->free_cb = eth_extbuf_free;
	shinfo->fcb_opaque = mb;
	rte_mbuf_ext_refcnt_set(shinfo, 1);
	pmr_msgbuf_tx_ref(mb);
	rte_pktmbuf_attach_extbuf(m, frame,
			rte_mempool_virt2iova(mb) + (uintptr_t)(frame - (uint8_t *)mb),
			frame_len, shinfo);
	m->data_len = frame_len;
	m->pkt_len = frame_len;
}

/* Is p a packet this queue can send: under the MTU, headroom in mb? */
static inline bool
eth_tx_valid(const struct eth_queue *eq, const struct pmr_tx_pkt *p)
{
	const struct pmr_msgbuf *mb = p->mb;

	if (unlikely(p->len + p->hdr_len > eq->pub.caps.mtu))
		return false;
	if (eth_tx_copies(eq, p))
		return true;
	return likely(p->data >= mb->data - mb->headroom + PMR_ETH_HDR_LEN &&
		      p->data + p->len <= mb->data + mb->capacity);
}

/*
 * The TX burst; gated (a constant), on a memif port: the burst, from the
 * first mbuf taken to the PMD's return, is marked for the gate
 * (eth_gate.c). A closed gate is waited for a little, then the burst
 * refused whole.
 */
static __rte_always_inline uint16_t
eth_tx_burst_do(struct pmr_transport_queue *q, const struct pmr_tx_pkt *pkts,
		uint16_t n, bool gated)
{
	struct eth_queue *eq = eth_queue(q);
	struct rte_mbuf *mbufs[PMR_BURST_MAX];
	uint64_t bytes = 0, zc = 0;
	uint16_t i, sent;

	if (n > PMR_BURST_MAX)
		n = PMR_BURST_MAX;
	for (i = 0; i < n; i++) {
		if (unlikely(!eth_tx_valid(eq, &pkts[i]))) {
			eq->stats.tx_invalid++;
			break;
		}
	}
	n = i;
	if (unlikely(n == 0))
		return 0;
	if (gated && unlikely(!eth_gate_enter(eq->gate) &&
			      !eth_gate_wait(eq->gate))) {
		eq->stats.gate_closed++;
		return 0;
	}
	if (unlikely(rte_mempool_get_bulk(eq->tx_pool, (void **)mbufs,
			n) != 0)) {
		if (gated)
			eth_gate_leave(eq->gate);
		eq->stats.tx_full += n;
		return 0;
	}

	for (i = 0; i < n; i++) {
		const struct pmr_tx_pkt *p = &pkts[i];
		const struct eth_peer *peer =
			container_of(p->peer, const struct eth_peer, pub);
		struct rte_mbuf *m = mbufs[i];

		eth_tx_mbuf_init(m);
		if (eth_tx_copies(eq, p)) {
			eth_tx_copy(eq, m, peer, p);
		} else {
			eth_tx_attach(eq, m, peer, p);
			zc++;
		}
		if (eq->ip_cksum_offload) {
			m->ol_flags |= RTE_MBUF_F_TX_IPV4 |
				RTE_MBUF_F_TX_IP_CKSUM;
			m->l2_len = sizeof(struct rte_ether_hdr);
			m->l3_len = sizeof(struct rte_ipv4_hdr);
		}
		bytes += p->hdr_len + p->len;
	}

	sent = rte_eth_tx_burst(eq->port_id, eq->queue_id, mbufs, n);
	if (gated)
		eth_gate_leave(eq->gate);
	if (unlikely(sent < n)) {
		/* Not accepted: undo (the free callback drops the refs). */
		for (i = sent; i < n; i++) {
			bytes -= pkts[i].hdr_len + pkts[i].len;
			if (RTE_MBUF_HAS_EXTBUF(mbufs[i]))
				zc--;
		}
		rte_pktmbuf_free_bulk(&mbufs[sent], n - sent);
		eq->stats.tx_full += n - sent;
	}
	eq->stats.tx_pkts += sent;
	eq->stats.tx_bytes += bytes;
	eq->stats.tx_zerocopy += zc;
	return sent;
}

uint16_t
eth_tx_burst(struct pmr_transport_queue *q, const struct pmr_tx_pkt *pkts,
		uint16_t n)
{
	return eth_tx_burst_do(q, pkts, n, false);
}

uint16_t
eth_tx_burst_gated(struct pmr_transport_queue *q,
		const struct pmr_tx_pkt *pkts, uint16_t n)
{
	return eth_tx_burst_do(q, pkts, n, true);
}

/*
 * The RX burst; gated (a constant), on a memif port: only the PMD's burst
 * reads the peer's memory (it copies into our mbufs), so only it is
 * marked for the gate. A closed gate gets one yield of the CPU, then the
 * burst is empty (the packets wait in memif's ring).
 */
static __rte_always_inline uint16_t
eth_rx_burst_do(struct pmr_transport_queue *q, struct pmr_rx_pkt *pkts,
		uint16_t n, bool gated)
{
	struct eth_queue *eq = eth_queue(q);
	struct rte_mbuf *mbufs[PMR_BURST_MAX];
	struct pmr_eth_rx_info info;
	uint64_t bytes = 0;
	uint16_t i, nb, k = 0;

	if (n > PMR_BURST_MAX)
		n = PMR_BURST_MAX;
	if (!gated) {
		nb = rte_eth_rx_burst(eq->port_id, eq->queue_id, mbufs, n);
	} else if (likely(eth_gate_enter(eq->gate)) ||
		   eth_gate_yield(eq->gate)) {
		nb = rte_eth_rx_burst(eq->port_id, eq->queue_id, mbufs, n);
		eth_gate_leave(eq->gate);
	} else {
		eq->stats.gate_closed++;
		return 0;
	}
	for (i = 0; i < nb; i++) {
		const uint8_t *frame = eth_rx_frame_guess(mbufs[i]);

		rte_prefetch0(mbufs[i]);
		rte_prefetch0(frame);
		rte_prefetch0(frame + RTE_CACHE_LINE_SIZE);
	}
	for (i = 0; i < nb; i++) {
		struct rte_mbuf *m = mbufs[i];
		uint32_t flags = eq->rx_parse_flags;
		enum pmr_eth_drop why;

		if (unlikely(m->nb_segs != 1)) {
			/* The whole chain: eth_rx_mbuf_free() frees one. */
			eq->stats.rx_drop[PMR_ETH_DROP_SEGMENTED]++;
			rte_pktmbuf_free(m);
			continue;
		}
		if ((m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK) ==
		    RTE_MBUF_F_RX_IP_CKSUM_BAD) {
			why = PMR_ETH_DROP_IP_CKSUM;
			goto drop;
		}
		if ((m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK) ==
		    RTE_MBUF_F_RX_L4_CKSUM_BAD) {
			why = PMR_ETH_DROP_UDP_CKSUM;
			goto drop;
		}
		if ((m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK) ==
		    RTE_MBUF_F_RX_IP_CKSUM_GOOD)
			flags |= PMR_ETH_PARSE_IP_CKSUM_GOOD;
		if ((m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK) ==
		    RTE_MBUF_F_RX_L4_CKSUM_GOOD)
			flags |= PMR_ETH_PARSE_L4_CKSUM_GOOD;

		why = pmr_eth_hdr_parse_fast(rte_pktmbuf_mtod(m,
				const uint8_t *), m->data_len, &eq->rx_match,
				&eq->local, flags, &info);
		if (unlikely(why != PMR_ETH_RX_OK))
			goto drop;

		pkts[k].data = rte_pktmbuf_mtod_offset(m, uint8_t *,
				info.payload_off);
		pkts[k].len = info.payload_len;
		pkts[k].src = pmr_eth_src_key(&info.src);
		pkts[k].handle = m;
		bytes += info.payload_len;
		k++;
		continue;
drop:
		eq->stats.rx_drop[why]++;
		eth_rx_mbuf_free(m);
	}
	eq->stats.rx_pkts += k;
	eq->stats.rx_bytes += bytes;
	return k;
}

uint16_t
eth_rx_burst(struct pmr_transport_queue *q, struct pmr_rx_pkt *pkts,
		uint16_t n)
{
	return eth_rx_burst_do(q, pkts, n, false);
}

uint16_t
eth_rx_burst_gated(struct pmr_transport_queue *q, struct pmr_rx_pkt *pkts,
		uint16_t n)
{
	return eth_rx_burst_do(q, pkts, n, true);
}

static __rte_noinline void
eth_rx_release_n(struct pmr_rx_pkt *pkts, uint16_t n)
{
	uint16_t i;

	for (i = 0; i < n; i++)
		eth_rx_mbuf_free(pkts[i].handle);
}

/*
 * The engine releases its packets one at a time (n == 1) as it is done
 * with each: that case without the loop; more, out of line.
 */
void
eth_rx_release(struct pmr_transport_queue *q __rte_unused,
		struct pmr_rx_pkt *pkts, uint16_t n)
{
	if (likely(n == 1))
		eth_rx_mbuf_free(pkts[0].handle);
	else
		eth_rx_release_n(pkts, n);
}
