/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * Request references (struct pmr_req_ref, pmr_rpc_handler.h): what a
 * handler reads through one, its slot's response buffer, and the refusal
 * of a stale one. Answering (pmr_respond*()) is the server's
 * (rpc_server.c).
 */

#include <inttypes.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_per_lcore.h>

#include "rpc_private.h"
#include "rpc_server.h"

const void *
pmr_req_data(struct pmr_req_ref ref)
{
	struct pmr_srv_slot *req = rpc_srv_ref_slot(ref);

	return req != NULL ? req->pkt.data : NULL;
}

uint32_t
pmr_req_len(struct pmr_req_ref ref)
{
	struct pmr_srv_slot *req = rpc_srv_ref_slot(ref);

	return req != NULL ? req->pkt.len : 0;
}

uint8_t
pmr_req_type(struct pmr_req_ref ref)
{
	struct pmr_srv_slot *req = rpc_srv_ref_slot(ref);

	return req != NULL ? req->req_type : 0;
}

struct pmr_worker *
pmr_req_worker(struct pmr_req_ref ref)
{
	struct pmr_srv_slot *req = rpc_srv_ref_slot(ref);

	return req != NULL ? req->w : NULL;
}

int
pmr_req_session(struct pmr_req_ref ref)
{
	struct pmr_srv_slot *req = rpc_srv_ref_slot(ref);

	return req != NULL ? req->session : -ESTALE;
}

/* The slot's first response buffer (out of line: later ones are kept). */
static __rte_noinline struct pmr_msgbuf *
srv_resp_buf_alloc(struct pmr_srv_slot *req)
{
	req->resp_buf = pmr_msgbuf_alloc(req->w->pools[0], 0);
	if (req->resp_buf != NULL)
		rpc_msgbuf_hold(req->resp_buf);	/* the slot's */
	return req->resp_buf;
}

struct pmr_msgbuf *
pmr_req_resp_buf(struct pmr_req_ref ref)
{
	struct pmr_srv_slot *req = rpc_srv_ref_slot(ref);

	if (unlikely(req == NULL)) {
		rte_errno = ESTALE;
		return NULL;
	}
	if (likely(req->resp_buf != NULL))
		return req->resp_buf;
	return srv_resp_buf_alloc(req);
}

/* Stale references: at most one log line a second per lcore. */
static RTE_DEFINE_PER_LCORE(uint64_t, stale_log_tsc);
static RTE_DEFINE_PER_LCORE(uint64_t, stale_log_quiet);

/*
 * A handler answered through a stale reference (a second answer, or one
 * after its request was dropped): count it, log it now and then, refuse
 * it. Every one is refused; only the log is rate limited.
 */
__rte_noinline int
rpc_srv_ref_stale(struct pmr_req_ref ref, const char *what)
{
	struct pmr_srv_slot *req = ref.slot;
	uint64_t now = rte_get_timer_cycles();

	if (req == NULL)
		return -EINVAL;
	req->w->stats.stale_refs++;
	if (now - RTE_PER_LCORE(stale_log_tsc) < rte_get_timer_hz()) {
		RTE_PER_LCORE(stale_log_quiet)++;
		return -ESTALE;
	}
	RPC_LOG(ERR, "worker %u: %s with a stale request reference "
		"(generation %u, slot at %u): refused; %" PRIu64 " more "
		"not logged", req->w->worker_id, what, ref.gen, req->gen,
		RTE_PER_LCORE(stale_log_quiet));
	RTE_PER_LCORE(stale_log_tsc) = now;
	RTE_PER_LCORE(stale_log_quiet) = 0;
	return -ESTALE;
}
