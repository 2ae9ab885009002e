/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * A queue's UD QP back from the error state (issue 25). A QP in ERR
 * delivers nothing and completes everything flushed; left so, the
 * worker's data path is dead for good. It gets there for reasons of its
 * own (rxe moves it to ERR on a receive too short for what it placed;
 * a device error; anyone with the QP calling ibv_modify_qp), and the
 * driver learns it from an error completion, send or receive (a flushed
 * receive means the QP is in ERR too), from a post the device refuses,
 * or from the device's async QP event, which event_read (the nexus
 * thread) notes in ud_async. Then, on the queue's lcore, which owns the
 * UD QP:
 *
 *   OK --failure--> DRAIN: the QP to ERR (sure to be there), no refill;
 *       the bursts drop what they are given (tx_drop_qp_err), the
 *       completions that come back drop their references in order;
 *   DRAIN --every receive back, or VERBS_UD_DRAIN_MS--> RESET: the
 *       device holds nothing more; what it never gave back is reclaimed
 *       (qp_reclaimed), the CQs emptied of the old incarnation's
 *       completions, rx_gen moved on (and tx_gen_seq to the next send),
 *       so that a late completion is dropped as stale; INIT, RTR, RTS
 *       with the same port and QKey (the QPN does not change: peers keep
 *       working), the receives reposted: OK again;
 *   any step refused by the device --> DEAD: said in the log and as an
 *       event, and the queue goes on dropping cleanly.
 *
 * Each failure is told once (queue_event_read, which the engine calls
 * every few polls): PMR_TRANSPORT_EV_QP_FATAL, then _QP_RECOVERED or
 * _QP_RECOVERY_FAILED. The device's event of a failure the driver found
 * itself, or already recovered, finds the QP recovering or in RTS again
 * (ibv_query_qp): not a second failure.
 */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>

#include "verbs_private.h"

/* Longest wait for the device to flush what was posted before the
 * reset (rxe flushes in a kernel task; a reset drops the rest). */
#define VERBS_UD_DRAIN_MS 100

static void
ud_event(struct verbs_queue *vq, enum pmr_transport_event_type type)
{
	if (vq->ud_ev_tail - vq->ud_ev_head == VERBS_UD_EVQ) {
		vq->stats.qp_events_lost++;
		return;
	}
	vq->ud_ev[vq->ud_ev_tail++ % VERBS_UD_EVQ] = (uint8_t)type;
}

void
verbs_ud_failed(struct verbs_queue *vq, const char *what, const char *detail)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	int ret;

	if (vq->ud_state != VERBS_UD_OK)
		return;
	vq->ud_state = VERBS_UD_DRAIN;
	vq->stats.qp_err++;
	ud_event(vq, PMR_TRANSPORT_EV_QP_FATAL);
	/* Sure to be in ERR, whatever found it: the device flushes what
	 * is posted (rxe runs its responder again for receives posted
	 * since it failed). */
	ret = ibv_modify_qp(vq->qp, &a, IBV_QP_STATE);
	VERBS_LOG(WARNING, "%s: qp %u in the error state (%s%s%s): "
		"recovering it%s%s", vq->dev->name, vq->qpn, what,
		detail[0] != '\0' ? ": " : "", detail,
		ret != 0 ? "; to ERR: " : "", ret != 0 ? strerror(ret) : "");
	vq->ud_deadline = rte_get_timer_cycles() +
		rte_get_timer_hz() * VERBS_UD_DRAIN_MS / 1000;
}

static const char *
qp_state_str(enum ibv_qp_state st)
{
	switch (st) {
	case IBV_QPS_RESET: return "in RESET";
	case IBV_QPS_INIT: return "in INIT";
	case IBV_QPS_RTR: return "in RTR";
	case IBV_QPS_RTS: return "in RTS";
	case IBV_QPS_SQD: return "in SQD";
	case IBV_QPS_SQE: return "in SQE";
	case IBV_QPS_ERR: return "in ERR";
	default: return "in an unknown state";
	}
}

void
verbs_ud_check(struct verbs_queue *vq, const char *what)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;

	if (vq->ud_state != VERBS_UD_OK)
		return;
	if (ibv_query_qp(vq->qp, &a, IBV_QP_STATE, &ia) != 0)
		return;		/* cannot tell: its completions will */
	if (a.qp_state != IBV_QPS_RTS)
		verbs_ud_failed(vq, what, qp_state_str(a.qp_state));
}

void
verbs_ud_rx_err(struct verbs_queue *vq, enum ibv_wc_status st)
{
	/* A flushed receive held no packet; any other error lost one. */
	if (st == IBV_WC_WR_FLUSH_ERR)
		vq->stats.rx_flushed++;
	else
		vq->stats.rx_drop[VERBS_DROP_STATUS]++;
	verbs_ud_failed(vq, "a receive completed", ibv_wc_status_str(st));
}

void
verbs_ud_tx_err(struct verbs_queue *vq, enum ibv_wc_status st)
{
	vq->stats.tx_cqe_err++;
	verbs_ud_failed(vq, "a send completed", ibv_wc_status_str(st));
}

static void
ud_dead(struct verbs_queue *vq, const char *step, int err)
{
	vq->ud_state = VERBS_UD_DEAD;
	vq->stats.qp_recovery_failed++;
	ud_event(vq, PMR_TRANSPORT_EV_QP_RECOVERY_FAILED);
	VERBS_LOG(ERR, "%s: qp %u cannot be recovered (%s: %s): the queue "
		"drops what it is given from now on; replace its worker",
		vq->dev->name, vq->qpn, step, strerror(err));
}

/* After RESET the device holds none of the QP's work: what it never
 * gave back is the driver's again. */
static void
ud_reclaim(struct verbs_queue *vq)
{
	uint64_t s, n = 0;
	uint32_t i;

	for (s = vq->tx_done; s < vq->tx_seq; s++) {
		struct verbs_tx_desc *d = &vq->txd[s & vq->sq_mask];

		if (d->mb != NULL) {
			pmr_msgbuf_tx_unref(d->mb);
			d->mb = NULL;
			vq->tx_held--;
		}
		n++;
	}
	/* Release: the control path compares AH last uses with it. */
	__atomic_store_n(&vq->tx_done, vq->tx_seq, __ATOMIC_RELEASE);
	vq->tx_gen_seq = vq->tx_seq;
	/* As if signalled just before the next send. */
	vq->last_sig = vq->tx_seq - 1;
	vq->flush_out = false;
	for (i = 0; i < vq->rq_size; i++) {
		if (vq->rx_on_rq[i] == 0)
			continue;
		vq->rx_on_rq[i] = 0;
		vq->rx_free[vq->nb_rx_free++] = i;
		n++;
	}
	vq->rx_posted = 0;
	vq->rx_gen++;
	vq->stats.qp_reclaimed += n;
}

/* What the CQs still hold is the old incarnation's (hardware providers
 * clean them at the reset, rxe does not): dropped, counted. */
static void
ud_cq_discard(struct verbs_queue *vq)
{
	struct ibv_wc wc[32];
	unsigned int k;
	int n;

	for (k = 0; k < 1024; k++) {
		n = ibv_poll_cq(vq->rcq, RTE_DIM(wc), wc);
		if (n <= 0)
			break;
		vq->stats.rx_cqe_stale += (uint64_t)n;
	}
	for (k = 0; k < 1024; k++) {
		n = ibv_poll_cq(vq->scq, RTE_DIM(wc), wc);
		if (n <= 0)
			break;
		vq->stats.tx_cqe_stale += (uint64_t)n;
	}
}

static void
ud_reset(struct verbs_queue *vq)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RESET };
	uint64_t reclaimed = vq->stats.qp_reclaimed;
	int ret;

	ret = ibv_modify_qp(vq->qp, &a, IBV_QP_STATE);
	if (ret != 0) {
		/* The device may still hold our buffers: keep them held
		 * (queue destroy drops them with the QP). */
		ud_dead(vq, "to RESET", ret);
		return;
	}
	ud_reclaim(vq);
	ud_cq_discard(vq);
	ret = verbs_qp_to_rts(vq);
	if (ret != 0) {
		ud_dead(vq, "RESET to RTS", -ret);
		return;
	}
	vq->ud_state = VERBS_UD_OK;
	ret = verbs_rx_refill(vq, 1);
	if (ret != 0) {
		ud_dead(vq, "ibv_post_recv", -ret);
		return;
	}
	vq->stats.qp_recovered++;
	ud_event(vq, PMR_TRANSPORT_EV_QP_RECOVERED);
	VERBS_LOG(NOTICE, "%s: qp %u recovered (RESET to RTS, same QPN and "
		"QKey), %" PRIu64 " work requests the device never gave back "
		"reclaimed", vq->dev->name, vq->qpn,
		vq->stats.qp_reclaimed - reclaimed);
}

void
verbs_ud_step(struct verbs_queue *vq)
{
	if (vq->ud_state != VERBS_UD_DRAIN)
		return;
	/* Sends flushed so far drop their references, in order. */
	verbs_tx_reap(vq);
	if (vq->rx_posted != 0 && rte_get_timer_cycles() < vq->ud_deadline)
		return;
	ud_reset(vq);
}

int
verbs_queue_event_read(struct pmr_transport_queue *q,
		struct pmr_transport_event *ev, unsigned int n)
{
	struct verbs_queue *vq = verbs_queue(q);
	uint32_t a = __atomic_load_n(&vq->ud_async, __ATOMIC_ACQUIRE);
	unsigned int k = 0;

	if (unlikely(a != vq->ud_async_seen)) {
		/* The device says the QP failed: the failure found already
		 * (recovering, or recovered: RTS), or a new one. */
		vq->ud_async_seen = a;
		verbs_ud_check(vq, "the device's QP event");
	}
	verbs_ud_step(vq);
	while (k < n && vq->ud_ev_head != vq->ud_ev_tail) {
		memset(&ev[k], 0, sizeof(ev[k]));
		ev[k].type = vq->ud_ev[vq->ud_ev_head++ % VERBS_UD_EVQ];
		ev[k].q = q;
		ev[k].qpn = vq->qpn;
		k++;
	}
	return (int)k;
}
