/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * The verbs driver's RC QPs and one-sided operations (pmr_transport_rc.h;
 * doc/drivers.md, "RC QPs and one-sided operations").
 *
 * Control path (rc_create: the nexus's RC maker thread; rc_connect,
 * rc_destroy: the nexus thread; under rc_lock but rc_create's region,
 * registered before it, so that the nexus thread never waits for the
 * pinning of a large region): a queue's RC QPs are slots of its rc[]
 * table and share one CQ, made by the first rc_create, of VERBS_RC_MAX *
 * rc_sq entries so that the flush of every QP's full send queue fits.
 *
 * Data path (rc_post, rc_poll: the queue's lcore). An operation sits in
 * its QP's ops[] ring from post to completion. verbs_rc_push() turns ops
 * into WRs, one linked list per ibv_post_send: an op longer than the
 * QP's max_msg becomes several WRs; a READ WR takes a read credit (at
 * most rd_max outstanding, the QP's max_rd_atomic) and the push stops
 * when none is left, to go on when a completion returns credits (the ops
 * wait in the driver, none is refused for credits). Only three WRs are
 * signalled: an op's last (so each op gets exactly one completion), the
 * READ that takes the last credit, and the WR that fills the send queue;
 * whenever the push stops, its last WR is signalled, so credits and SQ
 * space always come back. RC completes in order: a signalled completion
 * of WR s covers every WR of the QP before it.
 *
 * Errors. The first error completion of a QP fails the op it belongs to
 * (the oldest not completed) with the mapped status; the QP is then in
 * ERR, its later completions (flushes) are ignored and rc_poll fails
 * every op left, posted or waiting, with PMR_RC_FLUSHED. A refused
 * ibv_post_send does the same, and so does rc_fail (the QP moved to ERR
 * on purpose).
 *
 * Memory windows (verbs_mw.c): BIND and INVALIDATE are ops of the ring
 * like READ and WRITE, one signalled WR each (BIND_MW, LOCAL_INV) taking
 * no read credit; being in the ring, they keep the posting order behind
 * READs that wait for credits. The window's state moves when the op is
 * accepted and when it completes (verbs_rc_emit(), every op's one end).
 * On rxe (bind_after_reads) a BIND also waits until no READ WR is
 * outstanding on its QP: rxe runs local operations at once, ahead of the
 * responses of READs before them, and when it retries such a READ (a
 * response lost) it executes every WR after it again (Linux 6.1's
 * req_retry()); the BIND done twice is refused, rxe's requester stops
 * in error, and the READ never completes, neither done nor failed
 * (issue 26: 1 MiB READs on a lossy wire, found stuck after 35 s).
 *
 * Regions (verbs_region.c): rc_create makes a QP's region before the QP,
 * rc_destroy frees it once the QP is gone; only BINDs on its own QP may
 * use one without remote rights.
 */

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_random.h>

#include "verbs_private.h"

/* WRs built per ibv_post_send. */
#define VERBS_RC_BATCH 32
/* wr_id: the WR's sequence number above the slot index. */
#define VERBS_RC_IDX_BITS 8

static inline struct verbs_rc *
verbs_rc(struct pmr_transport_rc *rc)
{
	return (struct verbs_rc *)rc;
}

static uint8_t
verbs_rc_status(enum ibv_wc_status st)
{
	switch (st) {
	case IBV_WC_SUCCESS:
		return PMR_RC_OK;
	case IBV_WC_REM_ACCESS_ERR:
		return PMR_RC_REMOTE_ACCESS;
	case IBV_WC_REM_INV_REQ_ERR:
	case IBV_WC_REM_OP_ERR:
		return PMR_RC_REMOTE_OP;
	case IBV_WC_WR_FLUSH_ERR:
		return PMR_RC_FLUSHED;
	case IBV_WC_RETRY_EXC_ERR:
	case IBV_WC_RNR_RETRY_EXC_ERR:
		return PMR_RC_RETRY_EXCEEDED;
	case IBV_WC_LOC_LEN_ERR:
	case IBV_WC_LOC_PROT_ERR:
	case IBV_WC_LOC_ACCESS_ERR:
	/* A BIND the device refused (the memory, its rights, the window's
	 * state): a local protection matter; the device's status is
	 * logged. */
	case IBV_WC_MW_BIND_ERR:
		return PMR_RC_LOCAL_PROT;
	default:
		return PMR_RC_ERROR;
	}
}

static enum ibv_mtu
verbs_mtu_enum(uint32_t bytes)
{
	switch (bytes) {
	case 256: return IBV_MTU_256;
	case 512: return IBV_MTU_512;
	case 1024: return IBV_MTU_1024;
	case 2048: return IBV_MTU_2048;
	case 4096: return IBV_MTU_4096;
	default: return 0;
	}
}

/* The QP failed: its ops left are flushed by rc_poll. */
static void
verbs_rc_set_err(struct verbs_rc *rc, uint8_t status)
{
	rc->err = true;
	rc->err_status = status;
	rc->rd_out = 0;
	if (!rc->err_listed && rc->op_head != rc->op_tail) {
		rc->err_listed = true;
		__atomic_fetch_add(&rc->vq->rc_err_pending, 1,
				__ATOMIC_RELAXED);
	}
}

/* Turn waiting ops into WRs while the SQ and the read credits allow. */
static void
verbs_rc_push(struct verbs_rc *rc)
{
	struct verbs_queue *vq = rc->vq;
	struct ibv_send_wr wr[VERBS_RC_BATCH], *bad;
	struct ibv_sge sge[VERBS_RC_BATCH];
	uint32_t sq = rc->sq_mask + 1;
	unsigned int nw;
	int ret;

	do {
		nw = 0;
		while (rc->op_post != rc->op_tail && nw < VERBS_RC_BATCH) {
			struct verbs_rc_op *op =
				&rc->ops[rc->op_post & rc->sq_mask];
			bool read = op->type == PMR_RC_OP_READ;
			struct verbs_rc_wr *w;
			uint32_t chunk;
			uint64_t seq;
			bool last, sig;

			if (rc->wr_seq - rc->wr_done >= sq)
				break;
			if (read && rc->rd_out >= rc->rd_max) {
				vq->stats.rc_rd_wait++;
				break;
			}
			if (op->type == PMR_RC_OP_BIND && rc->rd_out > 0 &&
			    vq->bind_after_reads) {
				/* The READ WRs before it are signalled
				 * (each op's last is): their completions
				 * push again. */
				vq->stats.rc_bind_wait++;
				break;
			}
			/* A BIND or INVALIDATE is one WR without data. */
			chunk = op->type > PMR_RC_OP_WRITE ? op->len :
				RTE_MIN(op->len - op->posted, rc->max_msg);
			last = op->posted + chunk == op->len;
			if (op->posted == 0 && !last)
				vq->stats.rc_split++;
			seq = rc->wr_seq++;
			w = &rc->wrs[seq & rc->sq_mask];
			w->op = rc->op_post;
			w->read = read;
			w->last = last;
			if (read) {
				rc->rd_out++;
				if (rc->rd_out > vq->stats.rc_rd_max_seen)
					vq->stats.rc_rd_max_seen = rc->rd_out;
			}
			sig = last || (read && rc->rd_out == rc->rd_max) ||
				rc->wr_seq - rc->wr_done == sq;
			memset(&wr[nw], 0, sizeof(wr[nw]));
			wr[nw].wr_id = seq << VERBS_RC_IDX_BITS | rc->idx;
			wr[nw].send_flags = sig ? IBV_SEND_SIGNALED : 0;
			if (op->type == PMR_RC_OP_BIND) {
				/* Remote READ of exactly these bytes, by
				 * this QP's peer, under a new key. */
				wr[nw].opcode = IBV_WR_BIND_MW;
				wr[nw].bind_mw.mw = op->mw->mw;
				wr[nw].bind_mw.rkey = op->mw->new_rkey;
				wr[nw].bind_mw.bind_info.mr = op->mr;
				wr[nw].bind_mw.bind_info.addr =
					(uintptr_t)op->local;
				wr[nw].bind_mw.bind_info.length = op->len;
				wr[nw].bind_mw.bind_info.mw_access_flags =
					IBV_ACCESS_REMOTE_READ;
			} else if (op->type == PMR_RC_OP_INVALIDATE) {
				wr[nw].opcode = IBV_WR_LOCAL_INV;
				wr[nw].invalidate_rkey = op->mw->rkey;
			} else {
				sge[nw].addr =
					(uintptr_t)(op->local + op->posted);
				sge[nw].length = chunk;
				sge[nw].lkey = op->lkey;
				wr[nw].sg_list = &sge[nw];
				wr[nw].num_sge = 1;
				wr[nw].opcode = read ? IBV_WR_RDMA_READ :
					IBV_WR_RDMA_WRITE;
				wr[nw].wr.rdma.remote_addr =
					op->remote + op->posted;
				wr[nw].wr.rdma.rkey = op->rkey;
			}
			if (nw > 0)
				wr[nw - 1].next = &wr[nw];
			op->posted += chunk;
			if (last)
				rc->op_post++;
			nw++;
		}
		if (nw == 0)
			return;
		vq->stats.rc_wrs += nw;
		vq->stats.rc_posts++;
		ret = ibv_post_send(rc->qp, wr, &bad);
		if (unlikely(ret != 0)) {
			/* Some of the list may be on the SQ: the QP cannot
			 * be trusted any more; fail it whole. */
			vq->stats.rc_post_err++;
			VERBS_LOG(ERR, "rc qp %u: ibv_post_send: %s", rc->qpn,
				strerror(ret));
			verbs_rc_set_err(rc, PMR_RC_ERROR);
			return;
		}
	} while (nw == VERBS_RC_BATCH);
}

/* Complete the oldest op of rc with status into c. */
static inline void
verbs_rc_emit(struct verbs_rc *rc, struct pmr_transport_rc_cpl *c,
		uint8_t status)
{
	struct verbs_rc_op *op = &rc->ops[rc->op_head & rc->sq_mask];

	c->rc = (struct pmr_transport_rc *)rc;
	c->cookie = op->cookie;
	c->status = status;
	/* Every op ends here once: the window's state follows its op. */
	if (op->type > PMR_RC_OP_WRITE)
		verbs_mw_done(rc->vq, op->mw, op->type, status);
	rc->op_head++;
	if ((int32_t)(rc->op_post - rc->op_head) < 0)
		rc->op_post = rc->op_head;
	__atomic_fetch_sub(&rc->vq->rc_ops_out, 1, __ATOMIC_RELAXED);
	if (status != PMR_RC_OK)
		rc->vq->stats.rc_cpl_err++;
}

/* One completion of the RC CQ: the ops it completes into c (0 or 1). */
static unsigned int
verbs_rc_wc(struct verbs_queue *vq, const struct ibv_wc *wc,
		struct pmr_transport_rc_cpl *c)
{
	uint32_t idx = wc->wr_id & ((1u << VERBS_RC_IDX_BITS) - 1);
	uint64_t seq = wc->wr_id >> VERBS_RC_IDX_BITS, s;
	struct verbs_rc *rc;
	unsigned int k = 0;

	if (unlikely(idx >= VERBS_RC_MAX)) {
		vq->stats.rc_cqe_stale++;
		return 0;
	}
	rc = &vq->rc[idx];
	if (unlikely(rc->qp == NULL || rc->qpn != wc->qp_num)) {
		/* A QP destroyed with WRs on it. */
		vq->stats.rc_cqe_stale++;
		return 0;
	}
	if (unlikely(rc->err))
		return 0;	/* the flush of a QP already failed */
	if (unlikely(wc->status != IBV_WC_SUCCESS)) {
		uint8_t st = verbs_rc_status(wc->status);

		if (wc->status != IBV_WC_WR_FLUSH_ERR)
			VERBS_LOG(INFO, "rc qp %u: WR %" PRIu64 ": %s (%s)",
				rc->qpn, seq, ibv_wc_status_str(wc->status),
				pmr_transport_rc_status_str(st));
		/* In order: the WRs before it succeeded, and the ops they
		 * ended were completed by their own signalled WRs; the
		 * failed WR belongs to the oldest op left. */
		if (rc->op_head != rc->op_tail) {
			verbs_rc_emit(rc, c, st);
			k = 1;
		}
		rc->wr_done = seq + 1;
		verbs_rc_set_err(rc, st);
		return k;
	}
	for (s = rc->wr_done; s <= seq; s++) {
		const struct verbs_rc_wr *w = &rc->wrs[s & rc->sq_mask];

		if (w->read)
			rc->rd_out--;
		/* Only s itself can end an op: every op's last WR is
		 * signalled and completes on its own, in order. */
		if (w->last && k == 0 && rc->op_head != rc->op_tail) {
			verbs_rc_emit(rc, c, PMR_RC_OK);
			k = 1;
		}
	}
	rc->wr_done = seq + 1;
	verbs_rc_push(rc);
	return k;
}

/*
 * A BIND or INVALIDATE: refused (-1) on a queue without windows, for a
 * window in the wrong state (verbs_mw_post()), or, for a BIND, bytes that
 * no registration with the right to bind windows holds (the device would
 * fail it with MW_BIND_ERR and take the QP to ERR). Accepted, the
 * window's state moves.
 */
static int
verbs_rc_mw_check(struct verbs_queue *vq, const struct verbs_rc *rc,
		const struct pmr_transport_rc_op *o, struct ibv_mr **mr)
{
	struct verbs_mw *m = (struct verbs_mw *)o->mw;
	uintptr_t a = (uintptr_t)o->local, b = (uintptr_t)rc->reg_addr;

	if (!vq->mw_on || m == NULL || o->type > PMR_RC_OP_INVALIDATE)
		goto refuse;
	if (o->type == PMR_RC_OP_BIND) {
		if (o->len == 0 || o->local == NULL)
			goto refuse;
		/* The QP's own region (bind rights: no remote ones), or a
		 * registered pool; never another QP's region. */
		if (rc->reg_mr != NULL && a >= b && o->len <= rc->reg_len &&
		    a - b <= rc->reg_len - o->len)
			*mr = (vq->rc_region_access & IBV_ACCESS_MW_BIND) != 0 ?
				rc->reg_mr : NULL;
		else
			*mr = verbs_mr_bindable(vq, o->local, o->len);
		if (*mr == NULL)
			goto refuse;
	}
	if (verbs_mw_post(vq, rc, m, o->type, *mr) != 0)
		goto refuse;
	return 0;
refuse:
	vq->stats.mw_refused++;
	return -1;
}

uint16_t
verbs_rc_post(struct pmr_transport_queue *q, struct pmr_transport_rc *rcp,
		const struct pmr_transport_rc_op *ops, uint16_t n)
{
	struct verbs_queue *vq = verbs_queue(q);
	struct verbs_rc *rc = verbs_rc(rcp);
	uint16_t i;

	if (unlikely(rc == NULL || rc->err || rc->rd_max == 0))
		return 0;	/* in ERR, or never connected */
	for (i = 0; i < n; i++) {
		const struct pmr_transport_rc_op *o = &ops[i];
		struct verbs_rc_op *op;
		struct ibv_mr *mr = NULL;

		if (rc->op_tail - rc->op_head > rc->sq_mask)
			break;		/* the op table is full */
		if (unlikely(o->type > PMR_RC_OP_WRITE)) {
			if (verbs_rc_mw_check(vq, rc, o, &mr) != 0)
				break;	/* refused, and what follows it */
		} else if (unlikely(o->len == 0 || o->local == NULL)) {
			break;		/* refused, and what follows it */
		}
		op = &rc->ops[rc->op_tail & rc->sq_mask];
		op->mw = (struct verbs_mw *)o->mw;
		op->mr = mr;
		op->cookie = o->cookie;
		op->local = o->local;
		op->lkey = o->lkey;
		op->remote = o->remote;
		op->rkey = o->rkey;
		/* An INVALIDATE has no bytes: one pseudo-byte makes it one
		 * WR, its last, in the push. */
		op->len = o->type == PMR_RC_OP_INVALIDATE ? 1 : o->len;
		op->posted = 0;
		op->type = o->type;
		rc->op_tail++;
	}
	if (i == 0)
		return 0;
	__atomic_fetch_add(&vq->rc_ops_out, i, __ATOMIC_RELAXED);
	vq->stats.rc_ops += i;
	verbs_rc_push(rc);
	return i;
}

uint16_t
verbs_rc_poll(struct pmr_transport_queue *q, struct pmr_transport_rc_cpl *cpl,
		uint16_t n)
{
	struct verbs_queue *vq = verbs_queue(q);
	struct ibv_cq *cq = __atomic_load_n(&vq->rc_cq, __ATOMIC_ACQUIRE);
	struct ibv_wc wc[VERBS_RC_BATCH];
	uint16_t k = 0;
	int got, i;

	if (cq == NULL)
		return 0;
	while (k < n) {
		got = ibv_poll_cq(cq, RTE_MIN(n - k, VERBS_RC_BATCH), wc);
		if (got <= 0)
			break;
		/* Each completion ends at most one op: k stays <= n. */
		for (i = 0; i < got; i++)
			k += verbs_rc_wc(vq, &wc[i], &cpl[k]);
	}
	if (__atomic_load_n(&vq->rc_err_pending, __ATOMIC_RELAXED) != 0) {
		unsigned int j;

		for (j = 0; j < VERBS_RC_MAX && k < n; j++) {
			struct verbs_rc *rc = &vq->rc[j];

			if (!rc->err_listed)
				continue;
			while (rc->op_head != rc->op_tail && k < n)
				verbs_rc_emit(rc, &cpl[k++], PMR_RC_FLUSHED);
			if (rc->op_head == rc->op_tail) {
				rc->err_listed = false;
				__atomic_fetch_sub(&vq->rc_err_pending, 1,
						__ATOMIC_RELAXED);
			}
		}
	}
	return k;
}

/*
 * rc_fail: the queue's lcore. The QP to ERR; every op left, posted or
 * waiting, completes PMR_RC_FLUSHED by rc_poll, even one whose WRs the
 * device had completed unpolled (its completion is ignored like the
 * flushes): the caller failed the QP, it wants no more results from it.
 */
int
verbs_rc_fail_qp(struct pmr_transport_queue *q, struct pmr_transport_rc *rcp)
{
	struct verbs_queue *vq = verbs_queue(q);
	struct verbs_rc *rc = verbs_rc(rcp);
	struct ibv_qp_attr qa;
	int ret;

	if (rc < &vq->rc[0] || rc >= &vq->rc[VERBS_RC_MAX] ||
	    __atomic_load_n(&rc->qp, __ATOMIC_ACQUIRE) == NULL)
		return -EINVAL;
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_ERR;
	ret = ibv_modify_qp(rc->qp, &qa, IBV_QP_STATE);
	if (ret != 0) {
		VERBS_LOG(ERR, "rc qp %u: to ERR: %s", rc->qpn, strerror(ret));
		return -ret;
	}
	if (!rc->err) {
		vq->stats.rc_fails++;
		verbs_rc_set_err(rc, PMR_RC_FLUSHED);
	}
	VERBS_LOG(INFO, "rc qp %u: moved to ERR (rc_fail), %u ops to flush",
		rc->qpn, rc->op_tail - rc->op_head);
	return 0;
}

/* Control path. */

struct pmr_transport_rc *
verbs_rc_create(struct pmr_transport_queue *q,
		struct pmr_transport_rc_attr *attr)
{
	struct verbs_queue *vq = verbs_queue(q);
	struct ibv_device_attr da;
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr qa;
	struct verbs_rc *rc = NULL;
	struct ibv_qp *qp = NULL;
	struct verbs_rc_wr *wrs = NULL;
	struct verbs_rc_op *ops = NULL;
	struct verbs_region reg = { NULL, 0, NULL };
	unsigned int i;
	int ret;

	/* Outside rc_lock: pinning a large region may take a second. Its
	 * length is set before the queue's first QP (rc_region_conf). */
	if (vq->rc_region_len != 0) {
		ret = verbs_region_make(vq, &reg);
		if (ret != 0) {
			rte_errno = ret;
			return NULL;
		}
	}
	pthread_mutex_lock(&vq->rc_lock);
	ret = ibv_query_device(vq->dev->ctx, &da);
	if (ret != 0) {
		VERBS_LOG(ERR, "%s: ibv_query_device: %s", vq->dev->name,
			strerror(ret));
		goto fail;
	}
	if (vq->rc_cq == NULL) {
		/* Every QP's full SQ must fit (flushes are all reported):
		 * a device with fewer CQEs gets fewer RC QPs per queue. */
		uint32_t cqe = RTE_MIN((uint32_t)VERBS_RC_MAX * vq->rc_sq,
				(uint32_t)RTE_MAX(da.max_cqe, 0));
		struct ibv_cq *cq = NULL;

		vq->rc_max_qps = cqe / vq->rc_sq;
		if (vq->rc_max_qps > 0)
			cq = ibv_create_cq(vq->dev->ctx, (int)cqe, vq,
					NULL, 0);
		if (cq == NULL) {
			ret = vq->rc_max_qps == 0 ? EINVAL :
				(errno != 0 ? errno : ENOMEM);
			VERBS_LOG(ERR, "%s: ibv_create_cq (RC, %u, rc_sq %u): "
				"%s", vq->dev->name, cqe, vq->rc_sq,
				strerror(ret));
			goto fail;
		}
		__atomic_store_n(&vq->rc_cq, cq, __ATOMIC_RELEASE);
	}
	for (i = 0; i < vq->rc_max_qps; i++)
		if (vq->rc[i].qp == NULL)
			break;
	if (i == vq->rc_max_qps) {
		VERBS_LOG(ERR, "qp %u: already %u RC QPs", vq->qpn,
			vq->rc_max_qps);
		ret = ENOSPC;
		goto fail;
	}
	rc = &vq->rc[i];
	wrs = rte_zmalloc("pmr_verbs_rc_wrs", sizeof(*wrs) * vq->rc_sq, 0);
	ops = rte_zmalloc("pmr_verbs_rc_ops", sizeof(*ops) * vq->rc_sq, 0);
	if (wrs == NULL || ops == NULL) {
		ret = ENOMEM;
		goto fail;
	}
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = vq->rc_cq;
	ia.recv_cq = vq->rc_cq;
	ia.qp_type = IBV_QPT_RC;
	ia.qp_context = rc;	/* async events name it (verbs_events.c) */
	ia.cap.max_send_wr = vq->rc_sq;
	ia.cap.max_recv_wr = 1;		/* no SEND on it (yet) */
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	qp = ibv_create_qp(vq->dev->pd, &ia);
	if (qp == NULL) {
		ret = errno != 0 ? errno : ENOMEM;
		VERBS_LOG(ERR, "%s: ibv_create_qp (RC, %u WRs): %s",
			vq->dev->name, vq->rc_sq, strerror(ret));
		goto fail;
	}
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_INIT;
	qa.pkey_index = 0;
	qa.port_num = vq->port;
	/* What the peer may do to our memory is the MRs' business (only
	 * remote-access registrations have usable rkeys); the QP allows
	 * both. */
	qa.qp_access_flags = IBV_ACCESS_LOCAL_WRITE |
		IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE;
	ret = ibv_modify_qp(qp, &qa, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (ret != 0) {
		VERBS_LOG(ERR, "%s: rc qp %u to INIT: %s", vq->dev->name,
			qp->qp_num, strerror(ret));
		goto fail;
	}
	memset(rc, 0, sizeof(*rc));
	rc->reg_addr = reg.addr;
	rc->reg_len = reg.len;
	rc->reg_mr = reg.mr;
	rc->idx = i;
	rc->vq = vq;
	rc->qpn = qp->qp_num;
	rc->sq_mask = vq->rc_sq - 1;
	rc->wrs = wrs;
	rc->ops = ops;
	rc->psn = (uint32_t)rte_rand() & 0xffffff;
	rc->own_rd = RTE_MAX(1u, RTE_MIN(vq->rc_rd,
			(uint32_t)da.max_qp_init_rd_atom));
	rc->grant_rd = RTE_MAX(1u, RTE_MIN(vq->rc_rd,
			(uint32_t)da.max_qp_rd_atom));
	rc->own_rd = RTE_MIN(rc->own_rd, 255u);
	rc->grant_rd = RTE_MIN(rc->grant_rd, 255u);
	/* Last: a completion of this slot is checked against qp. */
	__atomic_store_n(&rc->qp, qp, __ATOMIC_RELEASE);
	vq->rc_nb++;

	memset(attr, 0, sizeof(*attr));
	attr->qpn = rc->qpn;
	attr->psn = rc->psn;
	memcpy(attr->gid, vq->gid, sizeof(attr->gid));
	attr->mtu = 128u << vq->path_mtu;
	attr->rd_credits = (uint8_t)rc->grant_rd;
	attr->max_rd_atomic = (uint8_t)rc->own_rd;
	attr->max_msg_size = vq->rc_max_msg;
	pthread_mutex_unlock(&vq->rc_lock);
	VERBS_LOG(INFO, "%s: rc qp %u (slot %u): PSN %u, MTU %u, read "
		"credits %u granted, %u own, max_msg %u, region %zu bytes",
		vq->dev->name, rc->qpn, i, rc->psn, attr->mtu, rc->grant_rd,
		rc->own_rd, vq->rc_max_msg, reg.len);
	return (struct pmr_transport_rc *)rc;
fail:
	if (qp != NULL)
		ibv_destroy_qp(qp);
	rte_free(wrs);
	rte_free(ops);
	pthread_mutex_unlock(&vq->rc_lock);
	verbs_region_free(vq, &reg);	/* no QP ever had it */
	rte_errno = ret;
	return NULL;
}

int
verbs_rc_connect(struct pmr_transport_queue *q, struct pmr_transport_rc *rcp,
		const struct pmr_transport_rc_attr *remote)
{
	struct verbs_queue *vq = verbs_queue(q);
	struct verbs_rc *rc = verbs_rc(rcp);
	struct ibv_qp_attr qa;
	uint32_t mtu, rd, max_msg;
	int ret;

	if (rc->qp == NULL || remote->qpn > 0xffffff ||
	    remote->psn > 0xffffff || verbs_mtu_enum(remote->mtu) == 0 ||
	    remote->rd_credits == 0 ||
	    (remote->max_msg_size != 0 && remote->max_msg_size < 4096))
		return -EINVAL;
	mtu = RTE_MIN(128u << vq->path_mtu, remote->mtu);
	rd = RTE_MIN(rc->own_rd, (uint32_t)remote->rd_credits);
	max_msg = vq->rc_max_msg;
	if (remote->max_msg_size != 0)
		max_msg = RTE_MIN(max_msg, remote->max_msg_size);

	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_RTR;
	qa.path_mtu = verbs_mtu_enum(mtu);
	qa.dest_qp_num = remote->qpn;
	qa.rq_psn = remote->psn;
	qa.max_dest_rd_atomic = (uint8_t)rc->grant_rd;
	qa.min_rnr_timer = 12;		/* 0.64 ms */
	qa.ah_attr.is_global = 1;
	memcpy(qa.ah_attr.grh.dgid.raw, remote->gid, 16);
	qa.ah_attr.grh.sgid_index = (uint8_t)vq->gid_index;
	qa.ah_attr.grh.hop_limit = 64;
	qa.ah_attr.port_num = vq->port;
	ret = ibv_modify_qp(rc->qp, &qa, IBV_QP_STATE | IBV_QP_AV |
			IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
	if (ret != 0) {
		VERBS_LOG(ERR, "rc qp %u to RTR (remote qp %u): %s", rc->qpn,
			remote->qpn, strerror(ret));
		return -ret;
	}
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_RTS;
	qa.timeout = vq->rc_timeout;	/* verbs_private.h */
	qa.retry_cnt = vq->rc_retry;
	qa.rnr_retry = 7;
	qa.sq_psn = rc->psn;
	qa.max_rd_atomic = (uint8_t)rd;
	ret = ibv_modify_qp(rc->qp, &qa, IBV_QP_STATE | IBV_QP_TIMEOUT |
			IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
			IBV_QP_MAX_QP_RD_ATOMIC);
	if (ret != 0) {
		VERBS_LOG(ERR, "rc qp %u to RTS: %s", rc->qpn, strerror(ret));
		return -ret;
	}
	/* Read by the data path once the QP is handed over to it. */
	rc->max_msg = max_msg;
	__atomic_store_n(&rc->rd_max, rd, __ATOMIC_RELEASE);
	VERBS_LOG(INFO, "rc qp %u -> %u: RTS, MTU %u, max_rd_atomic %u, "
		"max_msg %u, timeout %u, retry %u", rc->qpn, remote->qpn, mtu,
		rd, max_msg, vq->rc_timeout, vq->rc_retry);
	return 0;
}

/* Under rc_lock. The QP's region, if any, into *reg: the caller frees
 * it (verbs_region_free()), the QP gone. */
static int
verbs_rc_release(struct verbs_queue *vq, struct verbs_rc *rc,
		struct verbs_region *reg)
{
	uint32_t dropped = rc->op_tail - rc->op_head;
	uint32_t idx = rc->idx;
	int ret;

	ret = ibv_destroy_qp(rc->qp);
	if (ret != 0) {
		VERBS_LOG(ERR, "rc qp %u: ibv_destroy_qp: %s", rc->qpn,
			strerror(ret));
		return -ret;
	}
	reg->addr = rc->reg_addr;
	reg->len = rc->reg_len;
	reg->mr = rc->reg_mr;
	if (dropped != 0)
		__atomic_fetch_sub(&vq->rc_ops_out, dropped,
				__ATOMIC_RELAXED);
	if (rc->err_listed)
		__atomic_fetch_sub(&vq->rc_err_pending, 1, __ATOMIC_RELAXED);
	rte_free(rc->wrs);
	rte_free(rc->ops);
	memset(rc, 0, sizeof(*rc));
	rc->idx = idx;
	vq->rc_nb--;
	return (int)dropped;
}

int
verbs_rc_destroy(struct pmr_transport_queue *q, struct pmr_transport_rc *rcp)
{
	struct verbs_queue *vq = verbs_queue(q);
	struct verbs_rc *rc = verbs_rc(rcp);
	struct verbs_region reg = { NULL, 0, NULL };
	int ret;

	if (rc < &vq->rc[0] || rc >= &vq->rc[VERBS_RC_MAX])
		return -EINVAL;
	pthread_mutex_lock(&vq->rc_lock);
	ret = rc->qp == NULL ? -EINVAL : verbs_rc_release(vq, rc, &reg);
	pthread_mutex_unlock(&vq->rc_lock);
	verbs_region_free(vq, &reg);
	return ret;
}

int
verbs_rc_state(struct pmr_transport_queue *q, struct pmr_transport_rc *rcp)
{
	struct verbs_rc *rc = verbs_rc(rcp);
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr ia;
	struct ibv_qp *qp = __atomic_load_n(&rc->qp, __ATOMIC_ACQUIRE);
	int ret;

	RTE_SET_USED(q);
	if (qp == NULL)
		return -EINVAL;
	ret = ibv_query_qp(qp, &qa, IBV_QP_STATE, &ia);
	if (ret != 0)
		return -ret;
	switch (qa.qp_state) {
	case IBV_QPS_RESET: return PMR_RC_STATE_RESET;
	case IBV_QPS_INIT: return PMR_RC_STATE_INIT;
	case IBV_QPS_RTR: return PMR_RC_STATE_RTR;
	case IBV_QPS_RTS: return PMR_RC_STATE_RTS;
	case IBV_QPS_ERR: return PMR_RC_STATE_ERR;
	default: return PMR_RC_STATE_OTHER;
	}
}

/*
 * Queue destroy: the QPs left, then the windows (which may still be
 * bound in their regions: a region cannot be deregistered under one),
 * then the regions.
 */
void
verbs_rc_fini(struct verbs_queue *vq)
{
	struct verbs_region reg[VERBS_RC_MAX];
	unsigned int i;

	memset(reg, 0, sizeof(reg));
	for (i = 0; i < VERBS_RC_MAX; i++)
		if (vq->rc[i].qp != NULL) {
			VERBS_LOG(WARNING, "rc qp %u: left at queue destroy",
				vq->rc[i].qpn);
			verbs_rc_release(vq, &vq->rc[i], &reg[i]);
		}
	verbs_mw_fini(vq);
	for (i = 0; i < VERBS_RC_MAX; i++)
		verbs_region_free(vq, &reg[i]);
	if (vq->rc_cq != NULL) {
		ibv_destroy_cq(vq->rc_cq);
		vq->rc_cq = NULL;
	}
}
