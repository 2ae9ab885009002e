/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

#ifndef RPC_RC_H
#define RPC_RC_H

/*
 * One-sided operations on a session's RC queue pair (internal: not in
 * pmrpc.map; tests link libpmrpc.a). The QP belongs to the pair of
 * workers at the session's two ends and is shared by all their sessions;
 * the nexus sets it up and lends it to the worker (pmr_nexus_worker.h,
 * "RC queue pairs"). Everything here runs on the worker's lcore, as
 * pmr_worker_poll() does.
 *
 *   rpc_rc_want(w, sn);			// asks the nexus, returns
 *   while (rpc_rc_state(w, sn) == RPC_RC_WANTED)
 *           pmr_worker_poll(w);
 *   rpc_rc_post(w, sn, &op, cb, arg);		// READ or WRITE
 *   ... cb(w, sn, status, arg) from a later pmr_worker_poll()
 */

#include <stdint.h>

#include "pmr_transport_rc.h"
#include "rpc_private.h"

#pragma GCC visibility push(hidden)

struct rpc_region;

/* A session's large messages go as datagrams this long (ms) after its
 * pair was lost to the transport, doubling up to << this (rpc_rc.c). */
#define RPC_RDV_BACKOFF_MS 1000
#define RPC_RDV_BACKOFF_SHIFT_MAX 6

/* Operations outstanding at once on all of a worker's QPs. */
#define RPC_RC_OPS_MAX 1024

/* A session's QP, as rpc_rc_state() tells it. */
enum rpc_rc_state {
	RPC_RC_NONE,	/* not asked for */
	RPC_RC_WANTED,	/* asked, the nexus has not answered */
	RPC_RC_READY,	/* rpc_rc_post() may use it */
	RPC_RC_FAILED,	/* the nexus had none (rpc_rc_error()) */
};

/*
 * The completion of a one-sided operation: status is an enum
 * pmr_transport_rc_status (PMR_RC_OK, or why it failed; PMR_RC_FLUSHED
 * also when the QP was taken back before it completed).
 */
typedef void (*rpc_rc_cb_t)(struct pmr_worker *w, int session,
		unsigned int status, void *arg);

/*
 * Ask for the session's QP (connected session only). The answer comes
 * through the nexus ring: rpc_rc_state() tells it. A session that has it,
 * or has asked, is left as it is.
 *
 * @return 0, -EINVAL (no such session), -ENOTCONN (not connected).
 */
int rpc_rc_want(struct pmr_worker *w, int session);

/*
 * Eager set-up: ask for the session's QP as soon as it is connected (at
 * once if it is), not at its first one-sided operation. For a client
 * session still connecting (pmr_session_create() returned), or any
 * connected one.
 *
 * @return 0, -EINVAL (no such session), -ENOTCONN (closed or failed).
 */
int rpc_rc_eager(struct pmr_worker *w, int session);

/* @return enum rpc_rc_state of the session, or -EINVAL. */
int rpc_rc_state(const struct pmr_worker *w, int session);

/* @return the errno of RPC_RC_FAILED (-ETIMEDOUT...), or 0. */
int rpc_rc_error(const struct pmr_worker *w, int session);

/* @return the session's QP (RPC_RC_READY), or NULL. */
struct pmr_transport_rc *rpc_rc_qp(const struct pmr_worker *w, int session);

/*
 * Post a READ or WRITE on the session's QP (op->cookie is the engine's);
 * cb runs once, with its status, from a later pmr_worker_poll().
 *
 * @return 0, -EINVAL (bad session, op or cb), -ENOTCONN (no QP ready),
 *   -ENOBUFS (RPC_RC_OPS_MAX outstanding, or the driver refused it).
 */
int rpc_rc_post(struct pmr_worker *w, int session,
		const struct pmr_transport_rc_op *op, rpc_rc_cb_t cb,
		void *arg);

/*
 * Rendezvous (rpc_rdv.c) holds the pair an offer's window is bound on:
 * the session's pair (ready, not given back, not failed) or NULL; a pin
 * keeps it linked (RC_DOWN waits for unpins as for completions); posts
 * on a pinned pair go on after RC_DOWN (an invalidate must), not after it
 * failed (-ENOTCONN); rpc_rc_pair_fail() moves its QP to ERR and resets
 * its sessions, as a failed operation does.
 */
struct rpc_rc_pair *rpc_rc_pair_of(const struct pmr_worker *w, int session);
int rpc_rc_pair_post(struct pmr_worker *w, struct rpc_rc_pair *p,
		int session, const struct pmr_transport_rc_op *op,
		rpc_rc_cb_t cb, void *arg);
void rpc_rc_pair_pin(struct rpc_rc_pair *p);
void rpc_rc_pair_unpin(struct pmr_worker *w, struct rpc_rc_pair *p);
bool rpc_rc_pair_broken(const struct rpc_rc_pair *p);
/*
 * The pair's QP number, and that of the remote QP it is connected to:
 * a descriptor names the QP its offer is bound on, and is read only
 * through the QP connected to that one.
 */
uint32_t rpc_rc_pair_qpn(const struct rpc_rc_pair *p);
uint32_t rpc_rc_pair_remote_qpn(const struct rpc_rc_pair *p);
int rpc_rc_pair_fail(struct pmr_worker *w, struct rpc_rc_pair *p);
/*
 * Is status a failure of the transport (retries exhausted, or flushed by
 * a QP failed under the operation) rather than of the peer's keys or
 * memory? A READ that ends so is recovered (its message sent again as
 * datagrams) and its pair replaced without resetting its sessions; any
 * other failure resets them (rpc_rc.c).
 */
bool rpc_rc_status_lost(unsigned int status);

/* A READ of s's completed OK: its back-off may start again from 1 s. */
void rpc_rc_read_ok(struct rpc_session *s);

/*
 * Tests: the worker's next n READs that complete OK end as if their
 * retries had run out (PMR_RC_RETRY_EXCEEDED, their QP failed first).
 * @return 0, or -ENOMEM.
 */
int rpc_rc_fault_reads(struct pmr_worker *w, uint32_t n);

/*
 * Tests: the worker's next n READs never complete, as far as the engine
 * sees (their completions are held back until their QP is failed), so
 * that rpc_rc_watch() takes them for stuck; nor does anything posted on
 * their QP after them (a QP completes in order: rxe's READs, BINDs and
 * invalidates behind a stuck READ wait with it). @return 0, or -ENOMEM.
 */
int rpc_rc_fault_stick(struct pmr_worker *w, uint32_t n);

/*
 * Tests: the worker's RC completions come one every ms at most, in order
 * (0: as they come), as a slow path (rxe under TCG) completes READs
 * queued on a QP one after another. @return 0, or -ENOMEM.
 */
int rpc_rc_fault_pace(struct pmr_worker *w, uint32_t ms);

/*
 * The region that came with the pair's QP (pmr_transport_rc_region()),
 * or NULL: memory for the pair's peer alone, where offers are copied
 * when windows are not exact (rpc_rdv.c). It lives as long as the pair:
 * an offer in it pins the pair.
 */
struct rpc_region *rpc_rc_pair_region(struct rpc_rc_pair *p);

/*
 * The worker's QPs linked (ready), given back but not yet drained
 * (draining), and its operations outstanding. Thread: any (telemetry);
 * each count is read whole, together they may be out of step.
 */
void rpc_rc_counts(const struct pmr_worker *w, uint32_t *ready,
		uint32_t *draining, uint32_t *ops);

/* @return the QPs the worker has (linked, or draining). */
unsigned int rpc_rc_nb_qps(const struct pmr_worker *w);

/* Engine hooks. */
void rpc_rc_sm_msg(struct pmr_worker *w, const struct pmr_sm_msg *m);
int rpc_rc_poll(struct pmr_worker *w);
/*
 * From the rare poll: a READ outstanding past its bound (RPC_RC_READ_MIN_MS
 * plus twice its allowance, at most half the deadline of a request of its
 * size) fails its QP; the pair is replaced and the message goes as
 * datagrams, as when its retries run out.
 */
void rpc_rc_watch(struct pmr_worker *w);
void rpc_rc_session_gone(struct pmr_worker *w, struct rpc_session *s);
void rpc_rc_destroy(struct pmr_worker *w);

#pragma GCC visibility pop

#endif /* RPC_RC_H */
