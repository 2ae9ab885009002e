/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * The timer scan, every rto/4 at most while timers are pending: client
 * request deadlines (in deadline order), retransmission of requests whose
 * last packets went unanswered for an RTO, and server slot states past
 * srv_state_timeout_ms (in coarse start order; those with an allowance
 * for a large message in a list of their own). What an expired timer does
 * is rpc_client_expire(), rpc_client_retransmit() and rpc_server_expire().
 */

#include "rpc_client.h"
#include "rpc_private.h"
#include "rpc_server.h"
#include "rpc_timers.h"

/*
 * r has a deadline of its own (pmr_request_timeout(), or an allowance for
 * its size: rpc_timers.h): from the list it is on (w->all, where
 * rpc_timer_creq_add() put it, or w->timed) into w->timed, sorted by
 * deadline, after those of the same deadline. O(1) when requests come in
 * deadline order (one timeout for all of them, say); else a walk back
 * over those with later deadlines.
 */
void
rpc_timer_creq_set(struct pmr_worker *w, struct rpc_creq *r,
		uint64_t deadline)
{
	struct rpc_creq *p;

	if (r->tlist != NULL)
		TAILQ_REMOVE(r->tlist, r, all);
	r->deadline = deadline;
	r->tlist = &w->timed;
	TAILQ_FOREACH_REVERSE(p, &w->timed, rpc_creq_list, all) {
		if (p->deadline <= r->deadline) {
			TAILQ_INSERT_AFTER(&w->timed, p, r, all);
			return;
		}
	}
	TAILQ_INSERT_HEAD(&w->timed, r, all);
}

/* r's timer is off: r leaves the list it was left on. */
static inline void
creq_unlink(struct rpc_creq_list *list, struct rpc_creq *r)
{
	TAILQ_REMOVE(list, r, all);
	r->tlist = NULL;
}

/* The first of list whose timer is on; those off before it unlinked. */
static inline struct rpc_creq *
creq_first_on(struct rpc_creq_list *list)
{
	struct rpc_creq *r;

	while ((r = TAILQ_FIRST(list)) != NULL && !r->timer_on)
		creq_unlink(list, r);
	return r;
}

/*
 * The pending request of the earliest deadline, if that is now or past:
 * the first of w->all or of w->timed whose timer is on.
 */
static inline struct rpc_creq *
creq_expired(struct pmr_worker *w, uint64_t now)
{
	struct rpc_creq *r = creq_first_on(&w->all);
	struct rpc_creq *t = creq_first_on(&w->timed);

	if (t != NULL && (r == NULL || t->deadline < r->deadline))
		r = t;
	return r != NULL && r->deadline <= now ? r : NULL;
}

/*
 * Requests with packets unanswered for an RTO go back to the first of
 * them. A request in the backlog has sent nothing (num_tx is 0).
 */
static void
creq_list_rto(struct pmr_worker *w, struct rpc_creq_list *list, uint64_t now)
{
	struct rpc_creq *r, *tmp;

	for (r = TAILQ_FIRST(list); r != NULL; r = tmp) {
		tmp = TAILQ_NEXT(r, all);
		if (!r->timer_on) {
			creq_unlink(list, r);
			continue;
		}
		if (r->num_tx == r->num_rx ||
		    now - r->last_tx < (w->rto << r->rto_shift))
			continue;
		rpc_client_retransmit(w, r);
	}
}

/* Client requests: deadlines, then retransmissions. */
void
rpc_timers_client(struct pmr_worker *w, uint64_t now)
{
	struct rpc_creq *r;

	while ((r = creq_expired(w, now)) != NULL)
		rpc_client_expire(w, r);	/* r is gone */
	creq_list_rto(w, &w->all, now);
	creq_list_rto(w, &w->timed, now);
}

/* The slot's timer starts in a later epoch than its link (rpc_timers.h). */
void
rpc_timer_slot_link(struct pmr_worker *w, struct pmr_srv_slot *slot,
		uint64_t tepoch)
{
	rpc_timer_slot_stop(w, slot);
	slot->tepoch = tepoch;
	TAILQ_INSERT_TAIL(&w->srv_timed, slot, tnext);
}

/* The slot's timer starts with an allowance of extra TSC (rpc_timers.h). */
void
rpc_timer_slot_long(struct pmr_worker *w, struct pmr_srv_slot *slot,
		uint64_t extra)
{
	rpc_timer_slot_stop(w, slot);
	slot->tstamp = rte_get_timer_cycles() + extra;
	slot->tepoch = RPC_TEPOCH_LONG;
	TAILQ_INSERT_TAIL(&w->srv_long, slot, tnext);
}

/*
 * Server slots whose state is past srv_timeout. The slots of the epochs
 * that started srv_timeout ago or earlier: those whose timer stopped are
 * unlinked, those whose timer started srv_timeout ago or earlier expire
 * (and are unlinked). The others, started later in the last of these
 * epochs, are looked at again by the next scans.
 */
void
rpc_timers_server(struct pmr_worker *w, uint64_t now)
{
	struct pmr_srv_slot *slot, *next;

	for (slot = TAILQ_FIRST(&w->srv_timed); slot != NULL &&
	     now - (slot->tepoch - w->srv_tmask) >= w->srv_timeout;
	     slot = next) {
		next = TAILQ_NEXT(slot, tnext);
		if (slot->state != SRV_RECEIVING &&
		    slot->state != SRV_RESPONDED)
			rpc_timer_slot_stop(w, slot);	/* stopped */
		else if (now - slot->tstamp >= w->srv_timeout)
			rpc_server_expire(w, slot);	/* unlinks it */
	}
	/* Those with an allowance: tstamp may be ahead of now. */
	for (slot = TAILQ_FIRST(&w->srv_long); slot != NULL; slot = next) {
		next = TAILQ_NEXT(slot, tnext);
		if (slot->state != SRV_RECEIVING &&
		    slot->state != SRV_RESPONDED)
			rpc_timer_slot_stop(w, slot);
		else if (now >= slot->tstamp &&
			 now - slot->tstamp >= w->srv_timeout) {
			rpc_server_expire(w, slot);
			/* Its session's reset may have unlinked next. */
			next = TAILQ_FIRST(&w->srv_long);
		}
	}
}

void
rpc_timers_run(struct pmr_worker *w, uint64_t now)
{
	w->next_timer = now + w->rto / 4;
	rpc_timers_client(w, now);
	rpc_timers_server(w, now);
}
