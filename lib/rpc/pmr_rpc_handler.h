/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

#ifndef PMR_RPC_HANDLER_H
#define PMR_RPC_HANDLER_H

/**
 * @file
 * The server side of pmr_rpc.h: the request a handler is given
 * (struct pmr_req_ref), what it may read of it, and how it answers
 * (pmr_respond(), pmr_respond_error()). Handlers are registered on the
 * nexus (pmr_nexus_register_handler()). pmr_rpc.h includes this header.
 */

#include <stdint.h>

#include "pmr_rpc.h"

#ifdef __cplusplus
extern "C" {
#endif

struct pmr_srv_slot;

/**
 * A request given to a handler: a small value, copy it freely; answer it
 * once with pmr_respond() or pmr_respond_error().
 *
 * A reference names its request, not only the server slot that holds it:
 * the slot carries a 32-bit generation that changes whenever it takes a
 * request and whenever its request is answered or dropped, and a
 * reference whose generation is not the slot's is stale. The accessors
 * return NULL or 0 for a stale reference, pmr_respond() and
 * pmr_respond_error() refuse it with -ESTALE (counted in
 * pmr_worker_stats.stale_refs, logged at a limited rate): a handler that
 * answers twice can never answer the slot's next request, another
 * client's perhaps.
 *
 * A request whose session went away while its handler had it stays valid
 * until the handler answers it: the answer then goes nowhere, and its
 * buffers go back. pmr_worker_destroy() drops requests still with their
 * handlers: their references must not be used after it.
 */
struct pmr_req_ref {
	struct pmr_srv_slot *slot;	/**< Internal. */
	uint32_t gen;		/**< Internal. */
};

/**
 * @return the request's bytes (zero-copy), NULL if req is stale.
 *
 * Thread: the worker's lcore (in the handler, or later).
 */
const void *pmr_req_data(struct pmr_req_ref req);

/**
 * @return the request's length, 0 if req is stale.
 *
 * Thread: the worker's lcore (in the handler, or later).
 */
uint32_t pmr_req_len(struct pmr_req_ref req);

/**
 * @return the request's type, 0 if req is stale.
 *
 * Thread: the worker's lcore (in the handler, or later).
 */
uint8_t pmr_req_type(struct pmr_req_ref req);

/**
 * @return the worker handling it, NULL if req is stale.
 *
 * Thread: the worker's lcore (in the handler, or later).
 */
struct pmr_worker *pmr_req_worker(struct pmr_req_ref req);

/**
 * @return the number of the (server) session the request came on, to
 *   give pmr_session_info_get(), or -ESTALE if req is stale. The session
 *   may have gone away since (its PMR_SESSION_EV_RESET ran): its number
 *   may then name a newer session, or none.
 *
 * Thread: the worker's lcore (in the handler, or later).
 */
int pmr_req_session(struct pmr_req_ref req);

/**
 * A response buffer allocated for this request (capacity
 * pmr_worker_pkt_size(), len 0). It stays the request's: pass it (or
 * another msgbuf, e.g. from pmr_worker_msgbuf_alloc() for a larger
 * response) to pmr_respond(); it is freed if unused, and
 * pmr_msgbuf_free() of it is refused (-EBUSY). A second call gives the
 * same buffer.
 *
 * Thread: the worker's lcore (in the handler, or later).
 *
 * @return the msgbuf, or NULL with rte_errno set: ENOBUFS (the pool is
 *   empty: answer with pmr_respond_error(req, PMR_E_NOMEM) then), ESTALE
 *   (req is stale).
 */
struct pmr_msgbuf *pmr_req_resp_buf(struct pmr_req_ref req);

/**
 * Answer a request. The response msgbuf belongs to the worker from now
 * on (it is kept until the client's next request shows the response
 * arrived, to answer retransmissions).
 *
 * Whatever it returns but -ESTALE, the request is answered and req is
 * stale after the call: a handler never leaks its request.
 *
 * Thread: the worker's lcore (in the handler, or later).
 *
 * @return 0, or
 *   -ESTALE: req was answered already (or dropped); nothing is sent and
 *   resp stays the caller's.
 *   -EINVAL: resp is NULL; the client gets PMR_E_REMOTE_ERROR (or req
 *   was never given to a handler, a zeroed one: nothing happens).
 *   -EBUSY: resp is not the caller's to give: a driver still sends it,
 *   or it is a pending request's msgbuf or another request's response
 *   (or pmr_req_resp_buf()); the client gets PMR_E_REMOTE_ERROR, resp is
 *   left alone.
 *   -EMSGSIZE: resp is over pmr_worker_max_msg_size(); the client gets
 *   PMR_E_REMOTE_ERROR, resp is freed.
 */
int pmr_respond(struct pmr_req_ref req, struct pmr_msgbuf *resp);

/**
 * Fail a request: the client's continuation runs with status (at once,
 * not after a timeout), and the server slot is free for the session's
 * next request. For a handler that cannot answer: no memory for the
 * response (PMR_E_NOMEM), a response too large (PMR_E_MSGSIZE), or
 * anything else (PMR_E_REMOTE_ERROR). As pmr_respond(), it answers the
 * request whatever it returns but -ESTALE.
 *
 * Thread: the worker's lcore (in the handler, or later).
 *
 * @return 0, -ESTALE (req was answered already; nothing is sent), or
 *   -EINVAL: status is none of those three (the client gets
 *   PMR_E_REMOTE_ERROR), or req was never given to a handler (a zeroed
 *   one: nothing happens).
 */
int pmr_respond_error(struct pmr_req_ref req, enum pmr_status status);

#ifdef __cplusplus
}
#endif

#endif /* PMR_RPC_HANDLER_H */
