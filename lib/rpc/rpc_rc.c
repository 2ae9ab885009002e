/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * The worker's side of RC queue pairs (rpc_rc.h; ring protocol in
 * pmr_nexus_worker.h). The worker never blocks on the nexus: it asks with
 * RC_WANT and goes on; it links a QP into its table only when RC_READY
 * hands it over, and gives it back (RC_RELEASED) when RC_DOWN asks, once
 * every operation it posted on it has its completion. Completions come
 * from the queue's one RC completion queue (rc_poll), each with the
 * cookie of its entry in the operation table: index and a generation, so
 * that a completion of an entry reused since is not taken for the new one.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_tailq.h>

#include "rpc_rc.h"
#include "rpc_rdv.h"
#include "rpc_region.h"
#include "rpc_session.h"
#include "rpc_timers.h"

/*
 * A READ outstanding this long (ms), plus twice its message's allowance
 * (timeout_per_mib_ms per MiB), is taken for stuck: its QP is failed, the
 * message goes as datagrams (rpc_rc_watch()). rxe under loss has been
 * seen to leave READs neither done nor failed (issue 26: a READ retried
 * with a BIND behind it, which the verbs driver now holds back on rxe);
 * the watch stays for whatever else may.
 */
#define RPC_RC_READ_MIN_MS 500
/* How often (ms) rpc_rc_watch() looks. */
#define RPC_RC_WATCH_MS 10

/* A QP the nexus handed over. */
struct rpc_rc_pair {
	TAILQ_ENTRY(rpc_rc_pair) next;
	uint64_t id;			/* the nexus's */
	struct pmr_transport_rc *rc;
	uint32_t qpn;			/* rc's number */
	uint32_t remote_qpn;		/* the QP rc is connected to */
	uint16_t remote_worker;
	uint32_t outstanding;		/* operations without completion */
	bool down;			/* RC_DOWN: released when drained */
	bool broken;			/* an operation failed on it */
	bool lost;			/* ...by the transport: replaced */
	bool has_region;		/* region: the QP's own (offers) */
	uint32_t held;			/* tests: its ops held back */
	uint64_t last_cpl;		/* TSC of its last completion */
	struct rpc_region region;
	/* The remote nexus, as its sessions name it (remote_uri). */
	char remote_uri[PMR_URI_MAX];
};

struct rpc_rc_op {
	struct rpc_rc_pair *pair;	/* NULL: free */
	uint32_t gen;
	uint16_t session;
	uint8_t type;			/* enum pmr_transport_rc_op_type */
	/* Tests (rpc_rc_fault_stick()): its completion came and is held
	 * back, as if it never had, until its QP is failed; so is every
	 * later one of its QP's (RC completes in order). With
	 * rpc_rc_fault_pace(), held back for its turn (held_seq), then
	 * delivered with its status (held_status). */
	bool held;
	uint8_t held_status;
	uint32_t held_seq;
	uint64_t posted;		/* TSC */
	/* A READ: taken for stuck when its QP completed nothing for this
	 * long (TSC) since it was posted; 0: not watched. */
	uint64_t bound;
	rpc_rc_cb_t cb;
	void *arg;
};

struct rpc_rc {
	TAILQ_HEAD(, rpc_rc_pair) pairs;
	/* Read by the telemetry thread too (rpc_rc_counts()). */
	unsigned int nb_pairs;		/* linked or draining */
	unsigned int nb_down;		/* draining */
	uint32_t outstanding;
	uint32_t gen;
	uint32_t fault_reads;		/* tests: rpc_rc_fault_reads() */
	uint32_t fault_stick;		/* tests: rpc_rc_fault_stick() */
	uint64_t fault_pace;		/* tests: rpc_rc_fault_pace(), TSC */
	uint64_t pace_next;		/* TSC: the next held one goes */
	uint32_t held_seq;		/* the next held one's turn */
	uint64_t next_watch;		/* TSC: rpc_rc_watch()'s next look */
	uint32_t nb_free;
	uint32_t free[RPC_RC_OPS_MAX];
	struct rpc_rc_op ops[RPC_RC_OPS_MAX];
};

/* Longest wait for completions at worker destroy. */
#define RPC_RC_DRAIN_MS 2000

static struct rpc_rc *
rc_get(struct pmr_worker *w)
{
	struct rpc_rc *rc = w->rc;
	uint32_t i;

	if (rc != NULL)
		return rc;
	rc = rte_zmalloc("pmr_rpc_rc", sizeof(*rc), 0);
	if (rc == NULL)
		return NULL;
	TAILQ_INIT(&rc->pairs);
	for (i = 0; i < RPC_RC_OPS_MAX; i++)
		rc->free[i] = RPC_RC_OPS_MAX - 1 - i;
	rc->nb_free = RPC_RC_OPS_MAX;
	/* Whole before the telemetry thread can see it. */
	__atomic_store_n(&w->rc, rc, __ATOMIC_RELEASE);
	return rc;
}

static struct rpc_session *
session_of(const struct pmr_worker *w, int session)
{
	if (w == NULL || session < 0 || (uint32_t)session >= w->max_sessions)
		return NULL;
	return &w->sessions[session];
}

int
rpc_rc_want(struct pmr_worker *w, int session)
{
	struct rpc_session *s = session_of(w, session);
	struct pmr_sm_msg m = {
		.type = PMR_SM_RC_WANT,
	};

	if (s == NULL || s->state == PMR_SESSION_FREE)
		return -EINVAL;
	if (s->state != PMR_SESSION_CONNECTED || s->closing)
		return -ENOTCONN;
	if (s->rc_state == RPC_RC_WANTED || s->rc_state == RPC_RC_READY)
		return 0;
	if (rc_get(w) == NULL)
		return -ENOMEM;
	m.local_session = (uint16_t)session;
	m.remote_worker = s->remote_worker;
	m.hs_id = s->hs_id;	/* the answer is this session's */
	s->rc_state = RPC_RC_WANTED;
	s->rc_err = 0;
	rpc_sm_send(w, &m);
	return 0;
}

void
rpc_rc_counts(const struct pmr_worker *w, uint32_t *ready,
		uint32_t *draining, uint32_t *ops)
{
	const struct rpc_rc *rc = __atomic_load_n(&w->rc, __ATOMIC_ACQUIRE);
	uint32_t n, d;

	*ready = *draining = *ops = 0;
	if (rc == NULL)
		return;
	n = __atomic_load_n(&rc->nb_pairs, __ATOMIC_RELAXED);
	d = __atomic_load_n(&rc->nb_down, __ATOMIC_RELAXED);
	*draining = RTE_MIN(d, n);
	*ready = n - *draining;
	*ops = __atomic_load_n(&rc->outstanding, __ATOMIC_RELAXED);
}

int
rpc_rc_eager(struct pmr_worker *w, int session)
{
	struct rpc_session *s = session_of(w, session);

	if (s == NULL || s->state == PMR_SESSION_FREE)
		return -EINVAL;
	if (s->state == PMR_SESSION_CONNECTED)
		return rpc_rc_want(w, session);
	if (s->state != PMR_SESSION_CONNECTING || s->closing)
		return -ENOTCONN;
	s->rc_eager = true;
	return 0;
}

int
rpc_rc_state(const struct pmr_worker *w, int session)
{
	const struct rpc_session *s = session_of(w, session);

	return s == NULL ? -EINVAL : s->rc_state;
}

int
rpc_rc_error(const struct pmr_worker *w, int session)
{
	const struct rpc_session *s = session_of(w, session);

	return s == NULL ? -EINVAL : s->rc_err;
}

struct pmr_transport_rc *
rpc_rc_qp(const struct pmr_worker *w, int session)
{
	const struct rpc_session *s = session_of(w, session);

	if (s == NULL || s->rc_state != RPC_RC_READY)
		return NULL;
	return s->rc->rc;
}

unsigned int
rpc_rc_nb_qps(const struct pmr_worker *w)
{
	return w->rc == NULL ? 0 : w->rc->nb_pairs;
}

/*
 * How long a READ of len bytes may wait with its QP completing nothing
 * before it is taken for stuck (from its post, or the QP's last
 * completion if later: READs queued behind others on a slow path wait
 * their turn, and progress is what counts):
 * RPC_RC_READ_MIN_MS plus twice its allowance (timeout_per_mib_ms), but
 * no more than half the deadline of a request of that size, which the
 * recovery (as datagrams) must meet: an allowance sized for a slow path
 * would otherwise let the message's deadline pass before its READ is
 * found stuck (two VMs, 10 s per MiB: a 1 MiB READ stuck found at
 * 20.5 s, its request failed at 20 s; issue 26). The reader's own
 * req_timeout stands for the other end's (the same unless configured
 * apart).
 */
static uint64_t
read_bound(const struct pmr_worker *w, uint32_t len)
{
	uint64_t allow = rpc_timer_allowance(w, len);
	uint64_t bound = 2 * allow +
		rte_get_timer_hz() * RPC_RC_READ_MIN_MS / 1000;

	return RTE_MIN(bound, (w->req_timeout + allow) / 2);
}

/* Post op on p for session (its completion runs cb). */
static int
pair_post(struct pmr_worker *w, struct rpc_rc_pair *p, int session,
		const struct pmr_transport_rc_op *op, rpc_rc_cb_t cb,
		void *arg)
{
	struct pmr_transport_rc_op o;
	struct rpc_rc *rc = w->rc;
	struct rpc_rc_op *e;
	uint32_t idx;

	if (rc->nb_free == 0)
		return -ENOBUFS;
	idx = rc->free[rc->nb_free - 1];
	e = &rc->ops[idx];
	o = *op;
	o.cookie = ((uint64_t)++rc->gen << 32) | idx;
	if (pmr_transport_rc_post(w->q, p->rc, &o, 1) != 1)
		return -ENOBUFS;
	rc->nb_free--;
	e->pair = p;
	e->gen = rc->gen;
	e->session = (uint16_t)session;
	e->type = op->type;
	e->held = false;
	e->posted = rte_get_timer_cycles();
	e->bound = op->type != PMR_RC_OP_READ ? 0 : read_bound(w, op->len);
	e->cb = cb;
	e->arg = arg;
	p->outstanding++;
	__atomic_store_n(&rc->outstanding, rc->outstanding + 1,
			__ATOMIC_RELAXED);
	return 0;
}

int
rpc_rc_post(struct pmr_worker *w, int session,
		const struct pmr_transport_rc_op *op, rpc_rc_cb_t cb,
		void *arg)
{
	struct rpc_session *s = session_of(w, session);

	if (s == NULL || op == NULL || cb == NULL ||
	    s->state == PMR_SESSION_FREE)
		return -EINVAL;
	if (s->rc_state != RPC_RC_READY || s->rc->down || s->rc->broken)
		return -ENOTCONN;
	return pair_post(w, s->rc, session, op, cb, arg);
}

struct rpc_rc_pair *
rpc_rc_pair_of(const struct pmr_worker *w, int session)
{
	const struct rpc_session *s = session_of(w, session);

	if (s == NULL || s->rc_state != RPC_RC_READY || s->rc->down ||
	    s->rc->broken)
		return NULL;
	return s->rc;
}

int
rpc_rc_pair_post(struct pmr_worker *w, struct rpc_rc_pair *p, int session,
		const struct pmr_transport_rc_op *op, rpc_rc_cb_t cb,
		void *arg)
{
	if (p->broken)
		return -ENOTCONN;
	return pair_post(w, p, session, op, cb, arg);
}

void
rpc_rc_pair_pin(struct rpc_rc_pair *p)
{
	p->outstanding++;
}

bool
rpc_rc_pair_broken(const struct rpc_rc_pair *p)
{
	return p->broken;
}

uint32_t
rpc_rc_pair_qpn(const struct rpc_rc_pair *p)
{
	return p->qpn;
}

uint32_t
rpc_rc_pair_remote_qpn(const struct rpc_rc_pair *p)
{
	return p->remote_qpn;
}

struct rpc_region *
rpc_rc_pair_region(struct rpc_rc_pair *p)
{
	return p->has_region ? &p->region : NULL;
}

static void pair_release(struct pmr_worker *w, struct rpc_rc_pair *p);
static void pair_broken(struct pmr_worker *w, struct rpc_rc_pair *p);
static void pair_lost(struct pmr_worker *w, struct rpc_rc_pair *p,
		unsigned int status, uint64_t lost_tsc);
static void op_deliver(struct pmr_worker *w, uint32_t idx,
		unsigned int status);

void
rpc_rc_pair_unpin(struct pmr_worker *w, struct rpc_rc_pair *p)
{
	/* Inside a completion's callback its operation still counts. */
	if (--p->outstanding == 0 && p->down)
		pair_release(w, p);
}

int
rpc_rc_pair_fail(struct pmr_worker *w, struct rpc_rc_pair *p)
{
	int ret = 0;

	if (!p->broken) {
		ret = pmr_transport_rc_fail(w->q, p->rc);
		if (!p->down)
			pair_broken(w, p);
		p->broken = true;
	}
	return ret;
}

/* Give a drained pair back to the nexus. */
static void
pair_release(struct pmr_worker *w, struct rpc_rc_pair *p)
{
	struct pmr_sm_msg m = {
		.type = PMR_SM_RC_RELEASED,
		.remote_worker = p->remote_worker,
		.cookie = p->id,
		.rc = p->rc,
	};

	TAILQ_REMOVE(&w->rc->pairs, p, next);
	__atomic_store_n(&w->rc->nb_pairs, w->rc->nb_pairs - 1,
			__ATOMIC_RELAXED);
	if (p->down)
		__atomic_store_n(&w->rc->nb_down, w->rc->nb_down - 1,
				__ATOMIC_RELAXED);
	rpc_sm_send(w, &m);
	free(p);
}

/* Tests: p is failed; what rpc_rc_fault_stick() held back is flushed. */
static void
held_flush(struct pmr_worker *w, struct rpc_rc_pair *p)
{
	struct rpc_rc *rc = w->rc;
	uint32_t i, n = p->held;

	/* n, not p->held: the last delivery may release p. */
	for (i = 0; i < RPC_RC_OPS_MAX && n != 0; i++) {
		if (rc->ops[i].pair == p && rc->ops[i].held) {
			n--;
			op_deliver(w, i, PMR_RC_FLUSHED);
		}
	}
}

void
rpc_rc_watch(struct pmr_worker *w)
{
	struct rpc_rc *rc = w->rc;
	struct rpc_rc_pair *p;
	struct rpc_rc_op *e;
	uint64_t now;
	uint32_t i;

	if (rc == NULL || rc->outstanding == 0)
		return;
	now = rte_get_timer_cycles();
	if (now < rc->next_watch)
		return;
	rc->next_watch = now + rte_get_timer_hz() * RPC_RC_WATCH_MS / 1000;
	for (i = 0; i < RPC_RC_OPS_MAX; i++) {
		e = &rc->ops[i];
		p = e->pair;
		if (p == NULL || e->bound == 0 ||
		    now - RTE_MAX(e->posted, p->last_cpl) < e->bound)
			continue;
		if (!p->broken) {
			RPC_LOG(NOTICE, "worker %u: a READ on the RC QP with "
				"worker %u at %s is stuck (out %" PRIu64 " ms, "
				"the QP's last completion %" PRIu64 " ms ago): "
				"the QP is failed", w->worker_id,
				p->remote_worker, p->remote_uri,
				(now - e->posted) * 1000 / rte_get_timer_hz(),
				p->last_cpl == 0 ? 0 : (now - p->last_cpl) *
				1000 / rte_get_timer_hz());
			w->stats.rdv_reads_stuck++;
			pmr_transport_rc_fail(w->q, p->rc);
			if (p->down)
				p->broken = true;
			else
				pair_lost(w, p, PMR_RC_FLUSHED,
						now - e->posted);
		}
		e->bound = 0;	/* said once */
		/* The flush completes its ops, but for those held back. */
		held_flush(w, p);
	}
}

int
rpc_rc_fault_stick(struct pmr_worker *w, uint32_t n)
{
	struct rpc_rc *rc = rc_get(w);

	if (rc == NULL)
		return -ENOMEM;
	rc->fault_stick = n;
	return 0;
}

int
rpc_rc_fault_pace(struct pmr_worker *w, uint32_t ms)
{
	struct rpc_rc *rc = rc_get(w);

	if (rc == NULL)
		return -ENOMEM;
	rc->fault_pace = rte_get_timer_hz() * ms / 1000;
	return 0;
}

int
rpc_rc_fault_reads(struct pmr_worker *w, uint32_t n)
{
	struct rpc_rc *rc = rc_get(w);

	if (rc == NULL)
		return -ENOMEM;
	rc->fault_reads = n;
	return 0;
}

/* The back-off after the n-th loss in a row (n from 0), in TSC. */
static uint64_t
back_off_period(uint8_t n)
{
	return rte_get_timer_hz() * ((uint64_t)RPC_RDV_BACKOFF_MS << n) /
		1000;
}

/*
 * s's pair was lost to the transport (or replaced by the remote for
 * that): its large messages go as datagrams, and it reads none of its
 * peer's (rpc_rdv.c), for RPC_RDV_BACKOFF_MS, twice that after the next
 * loss, and so on up to 64 times; and for no less than lost_tsc, the
 * time the lost READ had been out (a stuck READ cost that much: the
 * next one would cost as much again). On a path that loses READs (rxe
 * under loss or with READs both ways at once) datagrams recover in
 * milliseconds.
 */
static void
session_back_off(struct rpc_session *s, uint64_t lost_tsc)
{
	s->rdv_off_until = rte_get_timer_cycles() +
		RTE_MAX(back_off_period(s->rdv_backoff), lost_tsc);
	if (s->rdv_backoff < RPC_RDV_BACKOFF_SHIFT_MAX)
		s->rdv_backoff++;
}

void
rpc_rc_read_ok(struct rpc_session *s)
{
	/*
	 * The doubling starts again once READs have gone well for as long
	 * as the last back-off lasted, not at the first that completes: on
	 * a new pair some READs complete before the next one sticks.
	 */
	if (s->rdv_backoff != 0 && rte_get_timer_cycles() >=
	    s->rdv_off_until + back_off_period(s->rdv_backoff - 1))
		s->rdv_backoff = 0;
}

bool
rpc_rc_status_lost(unsigned int status)
{
	return status == PMR_RC_RETRY_EXCEEDED || status == PMR_RC_FLUSHED;
}

/*
 * An operation on p failed for want of the transport (its retries ran out
 * on a lossy or congested path, or the QP was failed under it): the QP is
 * in ERR at this end, and nothing says the peer misbehaved. Its sessions
 * go on (issue 26): each failed READ's message is sent again as
 * datagrams (rpc_rdv.c), the sessions let go of p, and the nexus is told
 * (RC_FAILED) to take p back (RC_DOWN) and make a fresh pair at the next
 * ask, which the sessions make at once. p drains as on any RC_DOWN.
 */
static void
pair_lost(struct pmr_worker *w, struct rpc_rc_pair *p, unsigned int status,
		uint64_t lost_tsc)
{
	struct pmr_sm_msg m = {
		.type = PMR_SM_RC_FAILED,
		.remote_worker = p->remote_worker,
		.cookie = p->id,
		.rc = p->rc,
	};
	struct rpc_session *s;
	uint32_t sn;

	p->broken = true;
	p->lost = true;
	w->stats.rc_lost++;
	RPC_LOG(NOTICE, "worker %u: the RC QP with worker %u at %s failed "
		"(%s): its sessions go on, a new QP asked for",
		w->worker_id, p->remote_worker, p->remote_uri,
		pmr_transport_rc_status_str(status));
	rpc_sm_send(w, &m);
	for (sn = 0; sn < w->max_sessions; sn++) {
		s = &w->sessions[sn];
		if (s->rc != p)
			continue;
		s->rc = NULL;
		s->rc_state = RPC_RC_NONE;
		session_back_off(s, lost_tsc);
		if (s->state == PMR_SESSION_CONNECTED && !s->closing)
			rpc_rc_want(w, (int)sn);
	}
}

/*
 * An operation failed on p (bad rkey, peer gone, QP in ERR), or a device
 * event said its QP failed (RC_DOWN with a status): the QP is in ERR at
 * this end, and for a remote access error at the other too. Reset
 * every session between the two workers, telling the other end: their
 * pair then has no session left at either nexus, which takes its QPs back
 * (RC_DOWN) and destroys them; sessions made again get a fresh pair.
 * Sessions with other workers keep theirs.
 */
static void
pair_broken(struct pmr_worker *w, struct rpc_rc_pair *p)
{
	struct rpc_session *s;
	uint32_t sn;

	p->broken = true;
	RPC_LOG(NOTICE, "worker %u: the RC QP with worker %u at %s failed: "
		"its sessions reset", w->worker_id,
		p->remote_worker, p->remote_uri);
	for (sn = 0; sn < w->max_sessions; sn++) {
		s = &w->sessions[sn];
		if (s->state == PMR_SESSION_CONNECTED &&
		    (s->rc == p ||
		     (s->remote_worker == p->remote_worker &&
		      strncmp(s->remote_uri, p->remote_uri,
				sizeof(s->remote_uri)) == 0)))
			rpc_session_reset_local(w, (uint16_t)sn,
					-ECONNRESET);
	}
}

/*
 * Operation idx completed with status: its entry goes back, its callback
 * runs, and a failure breaks its pair (replaced if the transport failed,
 * reset otherwise) unless that happened already.
 */
static void
op_deliver(struct pmr_worker *w, uint32_t idx, unsigned int status)
{
	struct rpc_rc *rc = w->rc;
	struct rpc_rc_op *e = &rc->ops[idx];
	struct rpc_rc_pair *p = e->pair;
	uint64_t posted = e->posted;	/* e is free once its cb runs */

	e->pair = NULL;
	if (unlikely(e->held)) {
		e->held = false;
		p->held--;
	}
	rc->free[rc->nb_free++] = idx;
	__atomic_store_n(&rc->outstanding, rc->outstanding - 1,
			__ATOMIC_RELAXED);
	/*
	 * The operation still counts in p->outstanding while its callback
	 * runs, so that what the callback lets go of (rpc_rc_pair_unpin())
	 * never releases p under us.
	 */
	e->cb(w, e->session, status, e->arg);
	if (status != PMR_RC_OK && !p->broken && !p->down) {
		if (rpc_rc_status_lost(status))
			pair_lost(w, p, status,
					rte_get_timer_cycles() - posted);
		else
			pair_broken(w, p);
	}
	if (--p->outstanding == 0 && p->down)
		pair_release(w, p);
}

/*
 * Tests (rpc_rc_fault_pace()): the oldest completion held back goes, with
 * its status, if the pace allows: one every fault_pace, in order, as a
 * slow path completes a QP's work.
 */
static void
pace_release(struct pmr_worker *w)
{
	struct rpc_rc *rc = w->rc;
	uint64_t now = rte_get_timer_cycles();
	uint32_t i, best = RPC_RC_OPS_MAX;

	if (now < rc->pace_next)
		return;
	for (i = 0; i < RPC_RC_OPS_MAX; i++)
		if (rc->ops[i].pair != NULL && rc->ops[i].held &&
		    (best == RPC_RC_OPS_MAX ||
		     (int32_t)(rc->ops[i].held_seq -
			       rc->ops[best].held_seq) < 0))
			best = i;
	if (best == RPC_RC_OPS_MAX)
		return;
	rc->pace_next = now + rc->fault_pace;
	rc->ops[best].pair->last_cpl = now;
	op_deliver(w, best, rc->ops[best].held_status);
}

int
rpc_rc_poll(struct pmr_worker *w)
{
	struct pmr_transport_rc_cpl cpl[PMR_BURST_MAX];
	struct rpc_rc *rc = w->rc;
	struct rpc_rc_pair *p;
	struct rpc_rc_op *e;
	unsigned int status;
	uint64_t now = 0;
	uint16_t n, i;
	uint32_t idx;

	if (rc->outstanding == 0)
		return 0;
	if (unlikely(rc->fault_pace != 0))
		pace_release(w);
	n = pmr_transport_rc_poll(w->q, cpl, RTE_DIM(cpl));
	if (n != 0)
		now = rte_get_timer_cycles();
	for (i = 0; i < n; i++) {
		idx = (uint32_t)cpl[i].cookie;
		if (idx >= RPC_RC_OPS_MAX)
			continue;
		e = &rc->ops[idx];
		if (e->pair == NULL ||
		    e->gen != (uint32_t)(cpl[i].cookie >> 32))
			continue;
		p = e->pair;
		if (unlikely(p->held != 0 || rc->fault_pace != 0) ||
		    (unlikely(rc->fault_stick != 0) &&
		     e->type == PMR_RC_OP_READ)) {
			/* Tests: as if it had not completed (yet), nor
			 * anything behind it on its QP. */
			if (p->held == 0 && rc->fault_pace == 0)
				rc->fault_stick--;
			p->held++;
			e->held = true;
			e->held_status = cpl[i].status;
			e->held_seq = rc->held_seq++;
			continue;
		}
		p->last_cpl = now;
		status = cpl[i].status;
		if (unlikely(rc->fault_reads != 0) &&
		    e->type == PMR_RC_OP_READ && status == PMR_RC_OK) {
			/* Tests: as if its retries had run out. */
			rc->fault_reads--;
			if (!p->broken)
				pmr_transport_rc_fail(w->q, p->rc);
			status = PMR_RC_RETRY_EXCEEDED;
		}
		op_deliver(w, idx, status);
	}
	return n;
}

static struct rpc_rc_pair *
pair_find(struct rpc_rc *rc, uint64_t id)
{
	struct rpc_rc_pair *p;

	TAILQ_FOREACH(p, &rc->pairs, next)
		if (p->id == id)
			return p;
	return NULL;
}

/* Return whether m answered s's ask (else it is ignored). */
static bool
sm_ready(struct pmr_worker *w, const struct pmr_sm_msg *m)
{
	struct rpc_session *s = session_of(w, m->local_session);
	struct pmr_transport_rc_region reg;
	struct rpc_rc *rc = w->rc;
	struct rpc_rc_pair *p;

	/*
	 * Closed since it asked (the nexus unbound it), or the answer to
	 * a session closed since, whose number a new one has: a server
	 * session takes the number the moment the old one is freed, and
	 * the nexus may have answered the old one's ask after that (its
	 * RC_WANT crossed the DISCONNECTED). The handshake id tells.
	 */
	if (s == NULL || s->rc_state != RPC_RC_WANTED ||
	    m->hs_id != s->hs_id)
		return false;
	if (m->status != 0 || m->rc == NULL || rc == NULL) {
		s->rc_state = RPC_RC_FAILED;
		s->rc_err = m->status == PMR_SM_E_TIMEOUT ? -ETIMEDOUT :
			m->status == PMR_SM_E_FAMILY ? -ENOTSUP :
			m->status == PMR_SM_E_NO_WORKER ? -ENOENT :
			m->status == PMR_SM_E_NO_RESOURCES ? -ENOMEM :
			m->status == PMR_SM_E_SHARE ? -EDQUOT : -EIO;
		return true;
	}
	p = pair_find(rc, m->cookie);
	if (p == NULL) {
		p = calloc(1, sizeof(*p));
		if (p == NULL) {
			s->rc_state = RPC_RC_FAILED;
			s->rc_err = -ENOMEM;
			return true;
		}
		p->id = m->cookie;
		p->rc = m->rc;
		p->qpn = (uint32_t)m->token;
		p->remote_qpn = (uint32_t)(m->token >> 32);
		p->remote_worker = m->remote_worker;
		if (pmr_transport_rc_region(w->q, m->rc, &reg) == 0) {
			rpc_region_init(&p->region, &reg);
			p->has_region = true;
		}
		memcpy(p->remote_uri, s->remote_uri, sizeof(p->remote_uri));
		TAILQ_INSERT_TAIL(&rc->pairs, p, next);
		__atomic_store_n(&rc->nb_pairs, rc->nb_pairs + 1,
				__ATOMIC_RELAXED);
	}
	s->rc = p;
	s->rc_state = RPC_RC_READY;
	return true;
}

static void
sm_down(struct pmr_worker *w, const struct pmr_sm_msg *m)
{
	struct rpc_rc_pair *p = w->rc == NULL ? NULL :
		pair_find(w->rc, m->cookie);
	struct rpc_session *s;
	uint32_t sn;

	if (p == NULL) {
		/*
		 * Its RC_READY came for a session closed since: the worker
		 * never linked it and has nothing on it. Back at once.
		 */
		struct pmr_sm_msg back = {
			.type = PMR_SM_RC_RELEASED,
			.remote_worker = m->remote_worker,
			.cookie = m->cookie,
			.rc = m->rc,
		};

		rpc_sm_send(w, &back);
		return;
	}
	/* Its QP failed (a device event): the pair's sessions reset. */
	if (m->status != 0 && !p->broken)
		pair_broken(w, p);
	for (sn = 0; sn < w->max_sessions; sn++) {
		s = &w->sessions[sn];
		if (s->rc != p)
			continue;
		s->rc = NULL;
		s->rc_state = RPC_RC_NONE;
		/*
		 * Still connected: the remote replaced the pair (its QP
		 * failed by the transport). Eager sessions ask for the new
		 * one at once, as they did for the first.
		 */
		if (s->state != PMR_SESSION_CONNECTED || s->closing)
			continue;
		session_back_off(s, 0);
		if (s->rc_eager || w->rdv_eager)
			rpc_rc_want(w, (int)sn);
	}
	p->down = true;
	__atomic_store_n(&w->rc->nb_down, w->rc->nb_down + 1,
			__ATOMIC_RELAXED);
	if (p->outstanding == 0)
		pair_release(w, p);
}

void
rpc_rc_sm_msg(struct pmr_worker *w, const struct pmr_sm_msg *m)
{
	if (m->type == PMR_SM_RC_READY) {
		/* What waited for the QP goes on (or falls back). */
		if (sm_ready(w, m))
			rpc_rdv_session_rc(w, m->local_session);
	} else
		sm_down(w, m);
}

/* s leaves: it uses its pair's QP no more (the pair stays). */
void
rpc_rc_session_gone(struct pmr_worker *w, struct rpc_session *s)
{
	(void)w;
	s->rc = NULL;
	s->rc_state = RPC_RC_NONE;
	s->rc_eager = false;
	s->rc_err = 0;
	s->rdv_off_until = 0;
	s->rdv_backoff = 0;
}

/*
 * The worker goes: wait for what it posted (the nexus destroys its QPs
 * when it detaches, and a QP destroyed drops its operations), fail what
 * never completed, forget the pairs.
 */
void
rpc_rc_destroy(struct pmr_worker *w)
{
	struct rpc_rc *rc = w->rc;
	struct rpc_rc_pair *p;
	uint64_t deadline;
	uint32_t i;

	if (rc == NULL)
		return;
	deadline = rte_get_timer_cycles() +
		rte_get_timer_hz() * RPC_RC_DRAIN_MS / 1000;
	while (rc->outstanding > 0 && rte_get_timer_cycles() < deadline)
		if (rpc_rc_poll(w) == 0)
			rte_delay_us_sleep(100);
	for (i = 0; i < RPC_RC_OPS_MAX; i++)
		if (rc->ops[i].pair != NULL) {
			rc->ops[i].pair = NULL;
			rc->ops[i].cb(w, rc->ops[i].session, PMR_RC_FLUSHED,
					rc->ops[i].arg);
		}
	while ((p = TAILQ_FIRST(&rc->pairs)) != NULL) {
		TAILQ_REMOVE(&rc->pairs, p, next);
		free(p);
	}
	rte_free(rc);
	w->rc = NULL;
}
