/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

#ifndef PMR_RPC_TIMERS_H
#define PMR_RPC_TIMERS_H

/*
 * Timers (rpc_timers.c runs them): a client request's deadline and its
 * retransmission timer, a server slot's state timer. The lists are kept
 * here, in the order that makes the scan look at their heads only; what
 * an expired timer does is the client's and the server's.
 */

#include "rpc_client.h"
#include "rpc_private.h"
#include "rpc_server.h"

#pragma GCC visibility push(hidden)

void rpc_timers_run(struct pmr_worker *w, uint64_t now);
void rpc_timers_client(struct pmr_worker *w, uint64_t now);
void rpc_timers_server(struct pmr_worker *w, uint64_t now);
void rpc_timer_creq_set(struct pmr_worker *w, struct rpc_creq *r,
		uint64_t deadline);

/*
 * Deadlines grow with the bytes they wait for (pmr_worker_conf's
 * timeout_per_mib_ms): the allowance of a len-byte message, in TSC, 0
 * for a message of one packet or one whose allowance is under the scan's
 * resolution (tmo_min_len: small messages cost a compare).
 */
static inline uint64_t
rpc_timer_allowance(const struct pmr_worker *w, uint32_t len)
{
	if (likely(len < w->tmo_min_len))
		return 0;
	return (uint64_t)len * w->tmo_per_mib >> 20;
}

/*
 * r's response is len bytes (its first packet or descriptor says so):
 * its deadline moves by the allowance for them. Once per response.
 */
static inline void
rpc_timer_creq_extend(struct pmr_worker *w, struct rpc_creq *r,
		uint32_t len)
{
	uint64_t extra = rpc_timer_allowance(w, len);

	if (extra != 0 && r->timer_on)
		rpc_timer_creq_set(w, r, r->deadline + extra);
}

/*
 * A client request's timer is on or off (timer_on); an off one stays
 * linked until a scan passes it (rpc_timers.c unlinks it) or its record
 * is used again, so that completing a request costs one store. A scan
 * looks at the timers that are on only.
 */

/*
 * r times out after the worker's req_timeout: the tail of w->all (where
 * its deadline keeps w->all in deadline order), unless it is there
 * already (a record used again before a scan unlinked it: the common case
 * with one request in flight).
 */
static inline void
rpc_timer_creq_add(struct pmr_worker *w, struct rpc_creq *r, uint64_t now)
{
	r->deadline = now + w->req_timeout;
	r->timer_on = true;
	if (likely(r->tlist == &w->all && TAILQ_NEXT(r, all) == NULL))
		return;
	if (r->tlist != NULL)
		TAILQ_REMOVE(r->tlist, r, all);
	r->tlist = &w->all;
	TAILQ_INSERT_TAIL(&w->all, r, all);
}

static inline void
rpc_timer_creq_del(struct rpc_creq *r)
{
	r->timer_on = false;
}

/*
 * A server slot's timer: from a partial request's first packet, from a
 * kept response. Packets of the client do not renew it: a correct client
 * is done within its own request timeout, and a hostile one cannot keep
 * the state alive by trickling packets. It runs while the slot is
 * RECEIVING or RESPONDED and expires srv_timeout after its start
 * (slot->tstamp), plus the allowance for the size of a large request or
 * response (rpc_timer_slot_start_len()), fixed when it starts.
 *
 * w->srv_timed holds the slots in the order they were linked, by the
 * epoch (a srv_tmask + 1 span of TSC, srv_timeout / 16 or less) of their
 * link, slot->tepoch the last TSC of that epoch (0: not linked). A slot
 * stays linked when its timer stops (rpc_timers_server() unlinks it once
 * its epoch is old enough) and when it starts again in the same epoch:
 * a server slot's request and response cost a TSC read and a compare
 * here, not a list insert and remove. Only its first start in a later
 * epoch moves it to the tail.
 */
void rpc_timer_slot_link(struct pmr_worker *w, struct pmr_srv_slot *slot,
		uint64_t tepoch);

/*
 * A slot whose timer has an allowance is in w->srv_long instead, which
 * the scan walks whole (few slots: each holds a large buffer, and what
 * one source may hold of those is bounded), with tstamp its start plus
 * the allowance and tepoch RPC_TEPOCH_LONG (no TSC epoch's: the fast
 * paths that compare it with the current epoch take the slow path).
 */
#define RPC_TEPOCH_LONG UINT64_MAX
void rpc_timer_slot_long(struct pmr_worker *w, struct pmr_srv_slot *slot,
		uint64_t extra);

/* Unlink the slot (not needed for its timer to stop: see above). */
static inline void
rpc_timer_slot_stop(struct pmr_worker *w, struct pmr_srv_slot *slot)
{
	if (slot->tepoch != 0) {
		TAILQ_REMOVE(slot->tepoch != RPC_TEPOCH_LONG ? &w->srv_timed :
				&w->srv_long, slot, tnext);
		slot->tepoch = 0;
	}
}

/* Start the slot's timer (again, for the slot's next state). */
static __rte_always_inline void
rpc_timer_slot_start(struct pmr_worker *w, struct pmr_srv_slot *slot)
{
	uint64_t now = rte_get_timer_cycles();
	uint64_t tepoch = now | w->srv_tmask;

	slot->tstamp = now;
	if (unlikely(slot->tepoch != tepoch))
		rpc_timer_slot_link(w, slot, tepoch);
}

/* Start the slot's timer for a state that holds len bytes. */
static inline void
rpc_timer_slot_start_len(struct pmr_worker *w, struct pmr_srv_slot *slot,
		uint32_t len)
{
	uint64_t extra = rpc_timer_allowance(w, len);

	if (extra == 0)
		rpc_timer_slot_start(w, slot);
	else
		rpc_timer_slot_long(w, slot, extra);
}

/*
 * From the poll, every RPC_SM_POLL_EVERY polls: run the timers if any is
 * pending and the next scan is due.
 */
static inline void
rpc_timers_poll(struct pmr_worker *w)
{
	uint64_t now;

	if (!TAILQ_EMPTY(&w->all) || !TAILQ_EMPTY(&w->timed) ||
	    !TAILQ_EMPTY(&w->srv_timed) || !TAILQ_EMPTY(&w->srv_long)) {
		now = rte_get_timer_cycles();
		if (now >= w->next_timer)
			rpc_timers_run(w, now);
	}
}

#pragma GCC visibility pop

#endif /* PMR_RPC_TIMERS_H */
