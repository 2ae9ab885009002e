/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * Requests through a handle: pmr_request_start() sends, the response is
 * copied into the caller's msgbuf by an ordinary continuation, and
 * pmr_request_wait() polls the worker until it ran.
 */

#include <string.h>

#include "rpc_client.h"
#include "rpc_private.h"

/*
 * The continuation of a request made with pmr_request_start(): the
 * response goes into the handle's msgbuf. A continuation like any other,
 * so that completion has no second case to test.
 */
static void
handle_done(struct pmr_worker *w, const struct pmr_resp *resp, void *tag)
{
	struct pmr_req_handle *h = tag;

	RTE_SET_USED(w);
	rpc_msgbuf_unhold(h->resp);
	h->status = resp->status;
	if (resp->status == PMR_OK) {
		if (pmr_msgbuf_resize(h->resp, resp->len) == 0) {
			memcpy(h->resp->data, resp->data, resp->len);
			h->resp_len = resp->len;
		} else {
			h->status = PMR_E_MSGSIZE;
		}
	}
	__atomic_store_n(&h->done, true, __ATOMIC_RELEASE);
}

int
pmr_request_start(struct pmr_worker *w, int session, uint8_t req_type,
		struct pmr_msgbuf *req, struct pmr_msgbuf *resp,
		struct pmr_req_handle *h)
{
	if (h == NULL || resp == NULL)
		return -EINVAL;
	h->done = false;
	h->status = PMR_OK;
	h->resp = resp;
	h->resp_len = 0;
	return rpc_request_submit_handle(w, session, req_type, req,
			handle_done, h);
}

enum pmr_status
pmr_request_wait(struct pmr_worker *w, struct pmr_req_handle *h)
{
	while (!pmr_request_done(h))
		pmr_worker_poll(w);
	return h->status;
}
