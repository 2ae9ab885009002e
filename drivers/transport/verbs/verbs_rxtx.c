/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * The verbs driver's data path, top to bottom: send completions (reap),
 * TX (one linked WR list, one ibv_post_send per burst), the self flush,
 * RX (poll, check, hand out in place; refill in batches), release. An
 * error completion means the UD QP is in ERR: verbs_recover.c takes it
 * from there, and the bursts drop what they are given meanwhile.
 *
 * Sends are numbered (tx_seq); a WQE's wr_id is its number. One WQE in
 * sig_every is signalled, and a polled signalled completion numbered s
 * means every WQE up to s is done (a QP executes its SQ in order): the
 * descriptors up to s drop their msgbuf references and tx_done moves
 * past s. The device frees SQ slots the same way (strict verbs; rxe is
 * laxer), so at most sq_size - 1 sends are outstanding (tx_seq -
 * tx_done), one slot kept for the self flush. As sig_every is at most
 * sq_size / 2, a full SQ always holds a signalled WQE to wait for.
 */

#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_prefetch.h>

#include "verbs_private.h"

/* Send completions polled at once. */
#define VERBS_TX_REAP 16

/* Drop the references of sends [tx_done, upto). */
static inline void
verbs_tx_complete(struct verbs_queue *vq, uint64_t upto)
{
	uint64_t s;

	for (s = vq->tx_done; s < upto; s++) {
		struct verbs_tx_desc *d = &vq->txd[s & vq->sq_mask];

		if (d->mb != NULL) {
			pmr_msgbuf_tx_unref(d->mb);
			d->mb = NULL;
			vq->tx_held--;
		}
	}
	/* Release: the control path compares AH last uses with it. */
	__atomic_store_n(&vq->tx_done, upto, __ATOMIC_RELEASE);
}

void
verbs_tx_reap(struct verbs_queue *vq)
{
	struct ibv_wc wc[VERBS_TX_REAP];
	int nb, i;

	do {
		nb = ibv_poll_cq(vq->scq, VERBS_TX_REAP, wc);
		for (i = 0; i < nb; i++) {
			uint64_t id = wc[i].wr_id & ~VERBS_FLUSH_WRID;

			/* Of the QP before its last reset: reclaimed. */
			if (unlikely(id < vq->tx_gen_seq)) {
				vq->stats.tx_cqe_stale++;
				continue;
			}
			/* The QP is in ERR now: every later WQE completes
			 * flushed, in order; recover it. */
			if (unlikely(wc[i].status != IBV_WC_SUCCESS))
				verbs_ud_tx_err(vq, wc[i].status);
			if (wc[i].wr_id & VERBS_FLUSH_WRID)
				vq->flush_out = false;
			if (id + 1 > vq->tx_done)
				verbs_tx_complete(vq, id + 1);
		}
	} while (nb == VERBS_TX_REAP);
}

/* The lkey of [addr, addr + len), or false if no registered chunk has it. */
static inline bool
verbs_lkey(struct verbs_queue *vq, const uint8_t *addr, uint32_t len,
		uint32_t *lkey)
{
	/* Acquire: mem_register fills an entry, then publishes the count. */
	unsigned int n = __atomic_load_n(&vq->nb_mrs, __ATOMIC_ACQUIRE);
	uintptr_t a = (uintptr_t)addr;
	unsigned int h = vq->mr_hint, i;

	if (likely(h < n && a >= vq->mrs[h].start &&
		   a + len <= vq->mrs[h].end)) {
		*lkey = vq->mrs[h].lkey;
		return true;
	}
	for (i = 0; i < n; i++) {
		if (a >= vq->mrs[i].start && a + len <= vq->mrs[i].end) {
			vq->mr_hint = i;
			*lkey = vq->mrs[i].lkey;
			return true;
		}
	}
	return false;
}

uint16_t
verbs_tx_burst(struct pmr_transport_queue *q, const struct pmr_tx_pkt *pkts,
		uint16_t n)
{
	struct verbs_queue *vq = verbs_queue(q);
	struct ibv_send_wr wr[PMR_BURST_MAX], *bad = NULL;
	struct ibv_sge sge[PMR_BURST_MAX][2];
	uint64_t seq0, room, last_sig0 = vq->last_sig;
	uint64_t bytes = 0, zc = 0, inl = 0, sig = 0;
	uint16_t i, k, nw;
	int ret;

	verbs_tx_reap(vq);
	if (unlikely(vq->ud_state != VERBS_UD_OK)) {
		/* The QP is being recovered, or dead: what it is given is
		 * lost, as on a wire, and recovered as any loss. */
		n = RTE_MIN(n, (uint16_t)PMR_BURST_MAX);
		vq->stats.tx_drop_qp_err += n;
		return n;
	}
	seq0 = vq->tx_seq;
	/* A flush may have taken the last slot: room 0, not negative. */
	room = seq0 - vq->tx_done;
	room = room < vq->sq_size - 1 ? vq->sq_size - 1 - room : 0;
	if (n > PMR_BURST_MAX)
		n = PMR_BURST_MAX;
	if (unlikely(n > room)) {
		vq->stats.tx_full += n - room;
		n = (uint16_t)room;
	}

	for (i = 0; i < n; i++) {
		const struct pmr_tx_pkt *p = &pkts[i];
		const struct verbs_peer *peer =
			container_of(p->peer, const struct verbs_peer, pub);
		uint64_t seq = seq0 + i;
		struct verbs_tx_desc *d = &vq->txd[seq & vq->sq_mask];
		struct ibv_send_wr *w = &wr[i];
		struct ibv_sge *sg = sge[i];
		uint32_t total = (uint32_t)p->hdr_len + p->len;
		uint32_t lkey = 0;
		int ns = 0;

		if (unlikely(total > q->caps.mtu)) {
			vq->stats.tx_invalid++;
			break;
		}
		w->send_flags = 0;
		if (total <= vq->max_inline) {
			/* Inline: the device copies the bytes at the post, so
			 * hdr (valid during the call) is used in place and no
			 * msgbuf reference is taken. */
			if (p->hdr_len != 0) {
				sg[ns].addr = (uintptr_t)p->hdr;
				sg[ns].length = p->hdr_len;
				sg[ns++].lkey = 0;
			}
			if (p->len != 0) {
				sg[ns].addr = (uintptr_t)p->data;
				sg[ns].length = p->len;
				sg[ns++].lkey = 0;
			}
			w->send_flags = IBV_SEND_INLINE;
			inl++;
		} else if (unlikely(p->len != 0 &&
				    !verbs_lkey(vq, p->data, p->len, &lkey))) {
			/* No MR has the data (a pool never registered): the
			 * whole packet is copied into this descriptor's slot
			 * of the bounce area, made on first use. */
			uint8_t *slot;

			if (unlikely(vq->bounce == NULL &&
				     (vq->bounce_failed ||
				      verbs_bounce_setup(vq) != 0))) {
				vq->stats.tx_unregistered++;
				break;
			}
			slot = vq->bounce + (size_t)(seq & vq->sq_mask) *
				q->caps.mtu;
			if (p->hdr_len != 0)
				memcpy(slot, p->hdr, p->hdr_len);
			memcpy(slot + p->hdr_len, p->data, p->len);
			sg[0].addr = (uintptr_t)slot;
			sg[0].length = total;
			sg[0].lkey = vq->bounce_lkey;
			ns = 1;
			vq->stats.tx_bounced++;
		} else {
			if (p->hdr_len != 0) {
				uint8_t *slot;

				if (unlikely(p->hdr_len > VERBS_HDR_SLOT)) {
					vq->stats.tx_invalid++;
					break;
				}
				/* The device reads it after the call: copy
				 * into this descriptor's registered slot. */
				slot = vq->hdr_slots +
					(size_t)(seq & vq->sq_mask) *
					VERBS_HDR_SLOT;
				memcpy(slot, p->hdr, p->hdr_len);
				sg[ns].addr = (uintptr_t)slot;
				sg[ns].length = p->hdr_len;
				sg[ns++].lkey = vq->hdr_lkey;
			}
			if (p->len != 0) {
				sg[ns].addr = (uintptr_t)p->data;
				sg[ns].length = p->len;
				sg[ns++].lkey = lkey;
				pmr_msgbuf_tx_ref(p->mb);
				d->mb = p->mb;
				zc++;
			}
		}
		if (seq - vq->last_sig >= vq->sig_every) {
			w->send_flags |= IBV_SEND_SIGNALED;
			vq->last_sig = seq;
			sig++;
		}
		w->wr_id = seq;
		w->next = &wr[i + 1];
		w->sg_list = sg;
		w->num_sge = ns;
		w->opcode = IBV_WR_SEND;
		w->wr.ud.ah = peer->ah;
		w->wr.ud.remote_qpn = peer->qpn;
		w->wr.ud.remote_qkey = peer->qkey;
		bytes += total;
	}
	nw = i;
	if (unlikely(nw == 0))
		return 0;
	wr[nw - 1].next = NULL;

	ret = ibv_post_send(vq->qp, wr, &bad);
	vq->stats.posts++;
	k = nw;
	if (unlikely(ret != 0)) {
		/* Not posted from bad on: drop their references, renumber. */
		k = (uint16_t)(bad - wr);
		vq->stats.tx_post_err += nw - k;
		vq->last_sig = last_sig0;
		for (i = 0; i < k; i++)
			if (wr[i].send_flags & IBV_SEND_SIGNALED)
				vq->last_sig = wr[i].wr_id;
		for (i = k; i < nw; i++) {
			struct verbs_tx_desc *d =
				&vq->txd[(seq0 + i) & vq->sq_mask];

			bytes -= (uint32_t)pkts[i].hdr_len + pkts[i].len;
			if (wr[i].send_flags & IBV_SEND_INLINE)
				inl--;
			if (wr[i].send_flags & IBV_SEND_SIGNALED)
				sig--;
			if (d->mb != NULL) {
				pmr_msgbuf_tx_unref(d->mb);
				d->mb = NULL;
				zc--;
			}
		}
	}
	__atomic_store_n(&vq->tx_seq, seq0 + k, __ATOMIC_RELEASE);
	/* A QP in ERR may refuse posts (rxe flushes them instead). */
	if (unlikely(ret != 0))
		verbs_ud_check(vq, "ibv_post_send failed");
	vq->stats.tx_pkts += k;
	vq->stats.tx_bytes += bytes;
	vq->stats.tx_zerocopy += zc;
	vq->tx_held += (uint32_t)zc;
	vq->stats.wqe_inline += inl;
	vq->stats.wqe_signaled += sig;
	return k;
}

/*
 * A quiet queue's unsignalled tail would hold its msgbufs forever: cover
 * it with a signalled zero-payload send to ourselves (the self AH), at
 * most one outstanding, dropped by our own rx_burst. Only if the tail
 * holds something (all: every send, for destroy): a msgbuf (tx_held) or
 * an AH waiting to be destroyed. A tail of inline sends holds no buffer,
 * and covering it would cost a send per quiet period (on rxe a system
 * call and a packet: it doubled the round trip at one outstanding); the
 * next signalled send frees its slots.
 */
int
verbs_tx_flush(struct verbs_queue *vq, bool all)
{
	struct ibv_send_wr w, *bad = NULL;
	uint64_t seq;
	int ret;

	verbs_tx_reap(vq);
	/* A QP in ERR completes nothing more (it is reset instead). */
	if (vq->ud_state != VERBS_UD_OK)
		return 0;
	seq = vq->tx_seq;
	if (seq == vq->tx_done || vq->flush_out ||
	    vq->last_sig == seq - 1 || seq - vq->tx_done >= vq->sq_size)
		return 0;
	if (!all && vq->tx_held == 0 &&
	    __atomic_load_n(&vq->zombies, __ATOMIC_RELAXED) == NULL)
		return 0;
	memset(&w, 0, sizeof(w));
	w.wr_id = seq | VERBS_FLUSH_WRID;
	w.opcode = IBV_WR_SEND;
	w.send_flags = IBV_SEND_SIGNALED;
	w.wr.ud.ah = vq->self_ah;
	w.wr.ud.remote_qpn = vq->qpn;
	w.wr.ud.remote_qkey = vq->qkey;
	ret = ibv_post_send(vq->qp, &w, &bad);
	vq->stats.posts++;
	if (ret != 0) {
		vq->stats.tx_post_err++;
		verbs_ud_check(vq, "ibv_post_send failed");
		return vq->ud_state == VERBS_UD_OK ? -ret : 0;
	}
	vq->flush_out = true;
	vq->last_sig = seq;
	vq->stats.flushes++;
	vq->stats.wqe_signaled++;
	__atomic_store_n(&vq->tx_seq, seq + 1, __ATOMIC_RELEASE);
	return 0;
}

/* Post the free receive buffers as one linked list, if at least min. */
int
verbs_rx_refill(struct verbs_queue *vq, uint32_t min)
{
	struct ibv_recv_wr wr[VERBS_RX_REFILL], *bad = NULL;
	struct ibv_sge sge[VERBS_RX_REFILL];
	int ret;

	while (vq->nb_rx_free >= min && vq->nb_rx_free > 0) {
		uint32_t i, nb = RTE_MIN(vq->nb_rx_free,
				(uint32_t)VERBS_RX_REFILL);

		for (i = 0; i < nb; i++) {
			uint32_t idx = vq->rx_free[vq->nb_rx_free - 1 - i];

			sge[i].addr = (uintptr_t)(vq->rx_bufs +
				(size_t)idx * vq->rx_buf_len);
			sge[i].length = vq->rx_buf_len;
			sge[i].lkey = vq->rx_lkey;
			/* The QP's incarnation above the index. */
			wr[i].wr_id = (uint64_t)vq->rx_gen << 32 | idx;
			wr[i].sg_list = &sge[i];
			wr[i].num_sge = 1;
			wr[i].next = &wr[i + 1];
		}
		wr[nb - 1].next = NULL;
		ret = ibv_post_recv(vq->qp, wr, &bad);
		vq->stats.rx_refills++;
		if (ret != 0)
			nb = (uint32_t)(bad - wr);
		for (i = 0; i < nb; i++)
			vq->rx_on_rq[(uint32_t)wr[i].wr_id] = 1;
		vq->nb_rx_free -= nb;
		vq->rx_posted += nb;
		if (ret != 0)
			return -ret;
	}
	return 0;
}

static inline void
verbs_rx_put(struct verbs_queue *vq, uint32_t idx)
{
	vq->rx_free[vq->nb_rx_free++] = idx;
}

uint16_t
verbs_rx_burst(struct pmr_transport_queue *q, struct pmr_rx_pkt *pkts,
		uint16_t n)
{
	struct verbs_queue *vq = verbs_queue(q);
	struct ibv_wc wc[PMR_BURST_MAX];
	uint64_t bytes = 0;
	uint16_t k = 0;
	int nb, i;

	/* No refill while the QP recovers: it reposts its receives. */
	if (unlikely(vq->ud_state != VERBS_UD_OK))
		verbs_ud_step(vq);
	else if (vq->nb_rx_free >= VERBS_RX_REFILL)
		verbs_rx_refill(vq, VERBS_RX_REFILL);
	if (n > PMR_BURST_MAX)
		n = PMR_BURST_MAX;
	nb = ibv_poll_cq(vq->rcq, n, wc);
	if (nb <= 0)
		return 0;
	for (i = 0; i < nb; i++)
		rte_prefetch0(vq->rx_bufs + (size_t)(uint32_t)wc[i].wr_id *
			vq->rx_buf_len + VERBS_GRH_LEN);
	for (i = 0; i < nb; i++) {
		const struct ibv_wc *c = &wc[i];
		uint32_t idx = (uint32_t)c->wr_id;
		uint8_t *buf = vq->rx_bufs + (size_t)idx * vq->rx_buf_len;
		uint8_t gid[16];
		enum verbs_drop why;

		/* Posted to the QP before its last reset, which took the
		 * buffer back: not ours to free, nor a packet. */
		if (unlikely((uint32_t)(c->wr_id >> 32) != vq->rx_gen)) {
			vq->stats.rx_cqe_stale++;
			continue;
		}
		vq->rx_posted--;
		vq->rx_on_rq[idx] = 0;
		if (unlikely(c->status != IBV_WC_SUCCESS)) {
			/* The QP is in ERR (flushed: it was before). */
			verbs_ud_rx_err(vq, c->status);
			verbs_rx_put(vq, idx);
			continue;
		}
		if (unlikely(c->byte_len < VERBS_GRH_LEN)) {
			why = VERBS_DROP_SHORT;
			goto drop;
		}
		/* A peer with a larger MTU (ours is the session's limit). */
		if (unlikely(c->byte_len > vq->rx_len_max)) {
			why = VERBS_DROP_LONG;
			goto drop;
		}
		if (unlikely(c->src_qp == vq->qpn &&
			     c->byte_len == VERBS_GRH_LEN)) {
			why = VERBS_DROP_SELF_FLUSH;
			goto drop;
		}
		if (unlikely(pmr_verbs_grh_src(buf, vq->local_v4, gid) != 0)) {
			why = VERBS_DROP_GRH;
			goto drop;
		}
		pkts[k].data = buf + VERBS_GRH_LEN;
		pkts[k].len = c->byte_len - VERBS_GRH_LEN;
		pkts[k].src = pmr_verbs_src_key(gid, c->src_qp);
		/* idx + 1: a handle is never NULL. */
		pkts[k].handle = (void *)(uintptr_t)(idx + 1);
		bytes += pkts[k].len;
		k++;
		continue;
drop:
		vq->stats.rx_drop[why]++;
		verbs_rx_put(vq, idx);
	}
	vq->stats.rx_pkts += k;
	vq->stats.rx_bytes += bytes;
	return k;
}

void
verbs_rx_release(struct pmr_transport_queue *q, struct pmr_rx_pkt *pkts,
		uint16_t n)
{
	struct verbs_queue *vq = verbs_queue(q);
	uint16_t i;

	for (i = 0; i < n; i++)
		verbs_rx_put(vq, (uint32_t)(uintptr_t)pkts[i].handle - 1);
}
