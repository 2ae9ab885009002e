/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * Stateful fuzz target: a real server worker and a real client worker, on
 * queues of the fake driver "fuzzq" (fuzz_transport.c) wired to each
 * other, with two sessions opened once through a real nexus handshake on
 * 127.0.0.1 (LLVMFuzzerInitialize). An input is a sequence of operations
 * (doc/fuzzing.md has the encoding; make_worker_corpus.py writes seeds):
 * client requests of any size and type, handlers that answer at once,
 * later, twice, with an error or through a stale handle, forged packets
 * to either worker (valid token and source or not, numbers picked
 * relative to a slot's current ones; descriptors of messages sent by
 * READ among them, which fuzzq's queues, without RC, never read), the
 * wire dropping, duplicating, reordering or altering packets (a type
 * changed to a descriptor's too), TX queues refusing packets and
 * zero-copy completions coming late, time passing, sessions closed (also
 * from continuations), a pending request's msgbuf given again.
 *
 * After the operations, the input is drained: handlers answer, the wire
 * delivers, lost packets are retransmitted and what cannot complete
 * times out; then these must hold (else abort):
 * - each continuation ran exactly once, with its own request's msgbuf,
 *   no longer held by the driver nor queued to be sent; a response
 *   carrying a request's id went to that request; without forged packets,
 *   responses and requests arrive intact and unregistered types fail;
 * - a stale handle never answers anything; a msgbuf in use is refused;
 * - every received packet was released once, and never read after that
 *   (ASan); no msgbuf was changed while the driver held it;
 * - every packet the queue delivered is in the worker's counters;
 * - every packet sent went to a peer, within the MTU and its msgbuf;
 * - every credit came back, the windows are empty, every pool of both
 *   workers is full again, and their session tables are consistent;
 * - neither worker (fuzzq has no RC) sent, took or read a descriptor,
 *   offered a buffer or asked for a QP on a descriptor's account.
 * PMR_FUZZ_AVOID steers around what today's code still gets wrong.
 * The sessions are then brought back to their state after the handshake
 * (fuzz_worker_rpc.c), so that an input does the same on its own as
 * after any other.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>

#include "fuzz_transport.h"
#include "fuzz_worker_rpc.h"
#include "pmr_fuzz.h"
#include "pmr_nexus.h"
#include "pmr_rpc.h"

#define FZ_SRV_Q 1		/* queue numbers of the fake driver */
#define FZ_CLI_Q 2
#define FZ_STRANGER 3		/* a source no session has */
#define FZ_NB_SESS 2
#define FZ_MAX_SESSIONS 8	/* of each worker */
#define FZ_MAX_CALLS 128
#define FZ_MAX_DEFERRED 64
#define FZ_NB_STALE 8
#define FZ_MAX_OPS 1024
#define FZ_MAX_MSG (16 * 1024)
#define FZ_DRAIN_ROUNDS 256
#define FZ_DRAIN_TIMEOUT_ROUND 128
#define FZ_WAIT_S 20

/* Request types: an echo, one answered later, one with no handler. */
enum {
	T_ECHO = 1,
	T_DEFER = 2,
	T_NONE = 3,
};

/*
 * Payloads: a request of 12 bytes or more starts with REQ_MAGIC, its id
 * and the response size it asks for; a response of 8 bytes or more with
 * RESP_MAGIC and the id it answers. The other bytes are below 0x80 and
 * forged payloads have the top bit of their first byte clear, so neither
 * magic appears where it should not.
 */
#define REQ_MAGIC 0xf1e2d3c4u
#define RESP_MAGIC 0xc4b5a697u

enum fz_op {
	OP_REQUEST,
	OP_RESPOND,
	OP_STALE,
	OP_INJECT_SRV,
	OP_INJECT_CLI,
	OP_WIRE,
	OP_POLL,
	OP_COMPLETE,
	OP_TX_CTL,
	OP_TIME,
	OP_SESSION,
	OP_BURST,
	OP_REUSE,
	OP_MAX
};

/*
 * Findings in today's code that the harness can steer around when
 * PMR_FUZZ_AVOID (a comma-separated list of the names below) says so,
 * so that a long run on code that still has them gets past their first
 * crash; test/fuzz/crashes-found/ has an input for each. By default
 * nothing is avoided.
 */
enum fz_avoid {
	/* A request's msgbuf handed back while still in the TX burst. */
	AVOID_QUEUED = 1 << 0,
	/* Issue 10, defect 1: an RFR past a status-only response. */
	AVOID_STATUS_RFR = 1 << 1,
	/* Issue 10, defect 10: a stale handle answers another request. */
	AVOID_STALE = 1 << 2,
	/*
	 * A continuation run by pmr_session_destroy() requests on, or
	 * closes, the session being destroyed.
	 */
	AVOID_REENTRY = 1 << 3,
	/* Issue 10, defect 10: a msgbuf given to two pmr_request() calls. */
	AVOID_DOUBLE_USE = 1 << 4,
	/* Issue 10, defect 7: a partial request pins its buffer forever. */
	AVOID_PINNED = 1 << 5,
};

static const char *const avoid_names[] = {
	"queued", "status-rfr", "stale", "reentry", "double-use", "pinned",
};

/* What a continuation does besides checking its response. */
enum call_then {
	CALL_THEN_NOTHING = 0,
	CALL_THEN_REQUEST,	/* issue another request, small */
	CALL_THEN_CLOSE,	/* close the session (pmr_session_destroy) */
};

enum call_state {
	CALL_FREE = 0,
	CALL_PENDING,
	CALL_DONE,
};

/* A client request of the current input. */
struct fz_call {
	uint8_t state;		/* enum call_state */
	uint8_t type;
	bool handle;		/* pmr_request_start(): no continuation */
	bool magic;		/* the request carries id and resp_size */
	uint8_t then;		/* what its continuation does too */
	uint8_t sess;		/* fz.sess[] index */
	uint32_t id;
	uint32_t resp_size;
	struct pmr_msgbuf *req;
	struct pmr_msgbuf *resp;	/* handle's */
	struct pmr_req_handle h;
};

/* A request a handler holds. */
struct fz_deferred {
	struct fz_req r;
	uint32_t id;
	uint32_t resp_size;
	bool magic;
};

struct fz_sess_ev {
	int count;
	enum pmr_session_event ev;
	int err;
};

static struct {
	struct pmr_nexus *nx;
	struct pmr_worker *srv, *cli;
	uint32_t plen;
	uint16_t window;
	int sess[FZ_NB_SESS];		/* client sessions; -1: none */
	struct fz_sess_ev ev[FZ_NB_SESS];
	/* Per input. */
	const uint8_t *in;
	size_t in_len, in_pos;
	struct fz_call calls[FZ_MAX_CALLS];
	unsigned int nb_calls, nb_pending, nb_handles;
	unsigned int nb_calls_seen;	/* of the last input */
	struct fz_deferred deferred[FZ_MAX_DEFERRED];
	unsigned int nb_deferred;
	struct fz_req stale[FZ_NB_STALE];
	unsigned int nb_stale;
	uint32_t next_id;
	bool forged_srv, forged_cli;	/* packets not from the peer */
	bool degraded;			/* a handler answered less */
	int destroying;			/* session being closed, or -1 */
	unsigned int nb_status[PMR_STATUS_MAX + 1];
	int refused;			/* request(): pmr_request() error */
	bool verbose;			/* PMR_FUZZ_VERBOSE set */
	unsigned int avoid;		/* enum fz_avoid */
} fz;

/* The next input byte; 0 past the end. */
static uint8_t
in_u8(void)
{
	return fz.in_pos < fz.in_len ? fz.in[fz.in_pos++] : 0;
}

static uint32_t
in_u32(void)
{
	uint32_t v = in_u8();

	v |= (uint32_t)in_u8() << 8;
	v |= (uint32_t)in_u8() << 16;
	return v | (uint32_t)in_u8() << 24;
}

static void
put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, sizeof(v));
}

static uint32_t
get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Message sizes worth trying, around the packet size and the limits. */
static uint32_t
size_of_class(uint8_t c)
{
	const uint32_t p = fz.plen;

	switch (c & 15) {
	case 0: return 0;
	case 1: return 1;
	case 2: return 11;
	case 3: return 12;
	case 4: return 100;
	case 5: return p - 1;
	case 6: return p;
	case 7: return p + 1;
	case 8: return 2 * p;
	case 9: return 2 * p + 1;
	case 10: return 5 * p + 3;
	case 11: return 16 * p;
	case 12: return FZ_MAX_MSG;
	case 13: return FZ_MAX_MSG + 1;
	case 14: return 3000;
	default: return 40;
	}
}

/* Response bytes answering request id, size bytes. */
static void
resp_fill(uint8_t *d, uint32_t size, uint32_t id, bool magic)
{
	uint32_t i = 0;

	if (magic && size >= 8) {
		put32(d, RESP_MAGIC);
		put32(d + 4, id);
		i = 8;
	}
	for (; i < size; i++)
		d[i] = (uint8_t)((id * 7 + i) & 0x7f);
}

static bool
resp_intact(const uint8_t *d, uint32_t size, uint32_t id)
{
	uint32_t i;

	for (i = 8; i < size; i++)
		if (d[i] != (uint8_t)((id * 7 + i) & 0x7f))
			return false;
	return true;
}

/* --- Server side: the handler and its answers. --- */

/* A response of size bytes for request id; NULL if out of msgbufs. */
static struct pmr_msgbuf *
resp_build(struct fz_req r, uint32_t size, uint32_t id, bool magic)
{
	struct pmr_msgbuf *mb;

	if (size <= fz.plen) {
		mb = fz_req_resp_buf(r);
		if (mb != NULL && pmr_msgbuf_resize(mb, size) != 0)
			mb = NULL;
	} else {
		mb = pmr_worker_msgbuf_alloc(fz.srv, size);
	}
	if (mb != NULL)
		resp_fill(mb->data, size, id, magic);
	return mb;
}

static void
stale_add(struct fz_req r)
{
	fz.stale[fz.nb_stale++ % FZ_NB_STALE] = r;
}

/*
 * Answer d with a response of size bytes (or a status if error).
 * @return true if answered, false if it must wait (no msgbuf).
 */
static bool
deferred_answer(const struct fz_deferred *d, uint32_t size, bool error)
{
	struct pmr_msgbuf *mb;
	int ret;

	if (error) {
		if (fz_respond_error(d->r, PMR_E_REMOTE_ERROR) == 0) {
			stale_add(d->r);
			return true;
		}
		/* Not answered: answer it properly below. */
	}
	mb = resp_build(d->r, size, d->id, d->magic);
	if (mb == NULL && !error &&
	    fz_respond_error(d->r, PMR_E_NOMEM) == 0) {
		stale_add(d->r);
		fz.degraded = true;
		return true;
	}
	if (mb == NULL) {
		/*
		 * Out of msgbufs of that size (kept responses and partial
		 * requests hold them): an empty answer, not the one asked
		 * for, rather than none.
		 */
		mb = resp_build(d->r, 0, d->id, false);
		if (mb == NULL)
			return false;
		fz.degraded = true;
	}
	ret = fz_respond(d->r, mb);
	/* A handle the harness did not answer yet must be answerable. */
	FUZZ_CHECK(ret == 0 || ret == -EMSGSIZE);
	stale_add(d->r);
	return true;
}

static void
deferred_remove(unsigned int i)
{
	fz.deferred[i] = fz.deferred[--fz.nb_deferred];
}

void
fz_on_request(struct fz_req r, const void *data, uint32_t len, uint8_t type,
		void *arg)
{
	const uint8_t *d = data;
	struct fz_deferred dr = { .r = r };
	uint32_t i;

	(void)arg;
	FUZZ_CHECK(len == 0 || data != NULL);
	dr.magic = len >= 12 && get32(d) == REQ_MAGIC;
	if (dr.magic) {
		dr.id = get32(d + 4);
		dr.resp_size = get32(d + 8);
		/* Reassembled as sent, unless someone else wrote into it. */
		if (!fz.forged_srv)
			for (i = 12; i < len; i++)
				FUZZ_CHECK(d[i] ==
					(uint8_t)((dr.id * 3 + i) & 0x7f));
	} else {
		dr.id = UINT32_MAX;
		dr.resp_size = RTE_MIN(len, 16u);
	}
	if (type == T_DEFER) {
		/* Each slot holds one request: the list never fills. */
		FUZZ_CHECK(fz.nb_deferred < FZ_MAX_DEFERRED);
		fz.deferred[fz.nb_deferred++] = dr;
		return;
	}
	FUZZ_CHECK(type == T_ECHO);
	if (!deferred_answer(&dr, dr.resp_size, false)) {
		/* Out of msgbufs: answered later. */
		FUZZ_CHECK(fz.nb_deferred < FZ_MAX_DEFERRED);
		fz.deferred[fz.nb_deferred++] = dr;
	}
}

/* OP_RESPOND: a held request is answered, one way or another. */
static void
op_respond(void)
{
	uint8_t a = in_u8(), b = in_u8();
	struct fz_deferred d;
	struct pmr_msgbuf *mb;
	unsigned int i;
	int ret;

	if (fz.nb_deferred == 0)
		return;
	i = a % fz.nb_deferred;
	d = fz.deferred[i];
	switch (b & 7) {
	case 5:		/* fail it */
		if (deferred_answer(&d, d.resp_size, true))
			deferred_remove(i);
		break;
	case 6:		/* over the largest message */
		mb = pmr_worker_msgbuf_alloc(fz.srv, FZ_MAX_MSG + 1);
		if (mb == NULL)
			break;
		ret = fz_respond(d.r, mb);
		/* 0: its session went away, nothing is sent. */
		FUZZ_CHECK(ret == -EMSGSIZE || ret == 0);
		stale_add(d.r);
		deferred_remove(i);
		break;
	case 7:		/* twice */
		if (!deferred_answer(&d, d.resp_size, false))
			break;
		deferred_remove(i);
		mb = pmr_worker_msgbuf_alloc(fz.srv, 8);
		if (mb == NULL)
			break;
		resp_fill(mb->data, 8, d.id ^ 1, true);
		ret = fz_respond(d.r, mb);
		FUZZ_CHECK(ret != 0 && ret != -EMSGSIZE);
		pmr_msgbuf_free(mb);
		break;
	default:	/* the size it asked for, or another */
		if (deferred_answer(&d, b & 1 ? d.resp_size :
				size_of_class(b >> 3), false))
			deferred_remove(i);
		break;
	}
}

/* OP_STALE: an answered handle is used again; it must answer nothing. */
static void
op_stale(void)
{
	uint8_t a = in_u8();
	struct pmr_msgbuf *mb;
	int ret;

	if (fz.nb_stale == 0 || (fz.avoid & AVOID_STALE) != 0)
		return;
	mb = pmr_worker_msgbuf_alloc(fz.srv, 8);
	if (mb == NULL)
		return;
	resp_fill(mb->data, 8, UINT32_MAX - 1, true);
	ret = fz_respond(fz.stale[a % RTE_MIN(fz.nb_stale, FZ_NB_STALE + 0u)],
			mb);
	/* Answered someone else's request (issue 10, defect 10). */
	FUZZ_CHECK(ret != 0 && ret != -EMSGSIZE);
	pmr_msgbuf_free(mb);
}

/* --- Client side: requests and their completions. --- */

static void
call_done(struct fz_call *c, enum pmr_status status, const uint8_t *data,
		uint32_t len)
{
	bool magic;

	FUZZ_CHECK(c->state == CALL_PENDING);
	/*
	 * The application's again: neither sent, nor about to be (else
	 * AVOID_QUEUED keeps it unused until the input's end).
	 */
	if ((fz.avoid & AVOID_QUEUED) == 0) {
		FUZZ_CHECK(pmr_msgbuf_tx_pending(c->req) == 0);
		FUZZ_CHECK(!fz_tx_queued(fz.cli, c->req));
	}
	c->state = CALL_DONE;
	fz.nb_pending--;
	fz.nb_status[RTE_MIN((unsigned int)status, PMR_STATUS_MAX + 0u)]++;
	if (!fz.forged_cli)
		FUZZ_CHECK((unsigned int)status < PMR_STATUS_MAX);
	if (status != PMR_OK)
		return;
	FUZZ_CHECK(len == 0 || data != NULL);
	magic = len >= 8 && get32(data) == RESP_MAGIC;
	if (magic) {
		/* Whatever else happened: not another request's answer. */
		FUZZ_CHECK(get32(data + 4) == c->id);
		if (!fz.forged_cli) {
			FUZZ_CHECK(resp_intact(data, len, c->id));
			FUZZ_CHECK(c->type != T_ECHO || len == c->resp_size);
		}
	}
	if (fz.forged_cli || fz.forged_srv)
		return;
	FUZZ_CHECK(c->type != T_NONE);
	if (fz.degraded)
		return;
	if (c->type == T_ECHO && c->magic && c->resp_size >= 8)
		FUZZ_CHECK(magic);
}

static bool request(unsigned int k, uint8_t type, uint32_t size,
		uint32_t resp_size, uint8_t mode);
static void session_close(unsigned int k);
static uint16_t session_num(uint8_t v, bool srv);

static void
fz_cont(struct pmr_worker *w, const struct pmr_resp *resp, void *tag)
{
	struct fz_call *c = tag;
	bool ok;

	FUZZ_CHECK(w == fz.cli);
	FUZZ_CHECK(c >= fz.calls && c < fz.calls + FZ_MAX_CALLS);
	FUZZ_CHECK(!c->handle);
	FUZZ_CHECK(resp->req == c->req);
	call_done(c, resp->status, resp->data, resp->len);
	if ((fz.avoid & AVOID_QUEUED) == 0) {
		pmr_msgbuf_free(c->req);
		c->req = NULL;
	}
	/* What an application may do from a continuation. */
	if ((fz.avoid & AVOID_REENTRY) != 0 && fz.destroying == c->sess)
		return;
	if (c->then == CALL_THEN_REQUEST) {
		fz.refused = 0;
		ok = request(c->sess, T_ECHO, 40, 12 + c->id % 300, 0);
		/*
		 * From pmr_session_destroy() of its own session: closing
		 * already, the request is refused (else it would never
		 * complete).
		 */
		if (fz.destroying == c->sess)
			FUZZ_CHECK(!ok && (fz.refused == -EINVAL ||
					   fz.refused == 0));
	} else if (c->then == CALL_THEN_CLOSE && fz.sess[c->sess] >= 0)
		session_close(c->sess);
}

/* Completions of requests with a handle, seen by polling them. */
static void
handles_poll(void)
{
	unsigned int i;

	for (i = 0; fz.nb_handles > 0 && i < fz.nb_calls; i++) {
		struct fz_call *c = &fz.calls[i];

		if (c->state != CALL_PENDING || !c->handle ||
		    !pmr_request_done(&c->h))
			continue;
		if (c->h.status == PMR_OK)
			FUZZ_CHECK(c->h.resp_len == c->resp->len);
		call_done(c, c->h.status, c->resp->data, c->h.resp_len);
		/* Set again only by a second completion. */
		c->h.done = false;
		fz.nb_handles--;
	}
}

/*
 * AVOID_STATUS_RFR: the wire loses the requests for response packet 1
 * of a slot whose response is not a multi-packet one (a status-only
 * response has 1 packet: asking for packet 1 crashes today's server).
 * The server then takes one packet per poll, so that what it looks at
 * is the slot the packet finds.
 */
static void
avoid_status_rfr(void)
{
	struct fz_srv_slot sv;
	struct fz_hdr h;
	unsigned int pos = 0;
	uint32_t len;
	uint8_t *pkt;

	while ((pkt = fzq_rx_peek(FZ_SRV_Q, pos, &len)) != NULL) {
		if (fz_hdr_read(pkt, len, &h) && h.pkt_type == FZ_PKT_RFR &&
		    h.pkt_num == 1 && h.dest_session < FZ_MAX_SESSIONS) {
			fz_srv_slot(fz.srv, h.dest_session,
				(uint16_t)(h.req_num % fz.window), &sv);
			if (sv.resp_pkts <= 1) {
				fzq_rx_drop(FZ_SRV_Q, pos);
				continue;
			}
		}
		pos++;
	}
}

static void
poll_srv(void)
{
	unsigned int i;

	if ((fz.avoid & AVOID_STATUS_RFR) == 0) {
		pmr_worker_poll(fz.srv);
		return;
	}
	/* A burst's worth, one packet at a time. */
	for (i = 0; i < PMR_BURST_MAX; i++) {
		avoid_status_rfr();
		pmr_worker_poll(fz.srv);
		if (fzq_rx_queued(FZ_SRV_Q) == 0)
			break;
	}
}

static void
poll_cli(void)
{
	pmr_worker_poll(fz.cli);
	handles_poll();
}

/* Submit a request; false if it was refused (then nothing runs). */
static bool
request(unsigned int k, uint8_t type, uint32_t size, uint32_t resp_size,
		uint8_t mode)
{
	struct fz_call *c;
	uint32_t i, cap;
	int ret;

	if (fz.nb_calls == FZ_MAX_CALLS)
		return false;
	c = &fz.calls[fz.nb_calls];
	memset(c, 0, sizeof(*c));
	c->req = pmr_worker_msgbuf_alloc(fz.cli, size);
	if (c->req == NULL)
		return false;
	c->id = fz.next_id++;
	c->type = type;
	c->resp_size = resp_size;
	c->magic = size >= 12;
	i = 0;
	if (c->magic) {
		put32(c->req->data, REQ_MAGIC);
		put32(c->req->data + 4, c->id);
		put32(c->req->data + 8, resp_size);
		i = 12;
	}
	for (; i < size; i++)
		c->req->data[i] = (uint8_t)((c->id * 3 + i) & 0x7f);
	c->handle = mode & 1;
	c->sess = (uint8_t)k;
	/* Bit 2: another request; bits 3-4 both (reopening is slow): close. */
	if (!c->handle)
		c->then = (mode & 0x18) == 0x18 ? CALL_THEN_CLOSE :
			(mode & 4) != 0 ? CALL_THEN_REQUEST : CALL_THEN_NOTHING;
	if (c->handle) {
		/* Room for the response, or (mode 3) too little. */
		cap = (mode & 2) != 0 ? resp_size / 2 :
			RTE_MAX(resp_size, 16u);
		c->resp = pmr_worker_msgbuf_alloc(fz.cli,
				RTE_MIN(cap, (uint32_t)FZ_MAX_MSG));
		if (c->resp == NULL) {
			pmr_msgbuf_free(c->req);
			return false;
		}
		ret = pmr_request_start(fz.cli, fz.sess[k], type, c->req,
				c->resp, &c->h);
	} else {
		ret = pmr_request(fz.cli, fz.sess[k], type, c->req, fz_cont,
				c);
	}
	fz.refused = ret;
	if (ret != 0) {
		FUZZ_CHECK(ret == -EINVAL || ret == -EMSGSIZE ||
			ret == -ENOBUFS);
		/* Refused: the continuation must never run. */
		pmr_msgbuf_free(c->req);
		pmr_msgbuf_free(c->resp);
		memset(c, 0, sizeof(*c));
		return false;
	}
	c->state = CALL_PENDING;
	fz.nb_calls++;
	fz.nb_pending++;
	fz.nb_handles += c->handle;
	return true;
}

static void
op_request(void)
{
	uint8_t a = in_u8(), b = in_u8(), c = in_u8();
	static const uint8_t types[4] = { T_ECHO, T_DEFER, T_NONE, T_ECHO };

	request(a & 1, types[(a >> 1) & 3], size_of_class(b),
		size_of_class(c), (uint8_t)(a >> 3));
}

static void
op_burst(void)
{
	uint8_t a = in_u8(), b = in_u8();
	unsigned int i, n = 1 + (a & 15);

	for (i = 0; i < n; i++)
		request((a >> 4) & 1, (a & 0x20) != 0 ? T_DEFER : T_ECHO,
			size_of_class((uint8_t)(b + i)), 12 + (b & 7), 0);
}

/*
 * OP_REUSE: the msgbuf of a pending request is given to pmr_request()
 * again. It is the worker's until the continuation runs: refused.
 */
static void
op_reuse(void)
{
	uint8_t a = in_u8();
	struct fz_call *c;
	int ret;

	if (fz.nb_calls == 0 || (fz.avoid & AVOID_DOUBLE_USE) != 0)
		return;
	c = &fz.calls[a % fz.nb_calls];
	if (c->state != CALL_PENDING || fz.sess[(a >> 7) & 1] < 0)
		return;
	ret = pmr_request(fz.cli, fz.sess[(a >> 7) & 1], T_ECHO, c->req,
			fz_cont, c);
	FUZZ_CHECK(ret != 0);
}

/* --- Forged packets and the wire. --- */

static uint64_t
pick_req_num(uint8_t r, uint64_t cur, uint64_t next, uint64_t busy_num)
{
	const uint64_t w = fz.window;

	switch (r & 15) {
	case 1: return cur + w;
	case 2: return cur + w * (2 + (r >> 4));
	case 3: return cur - w;
	case 4: return next;
	case 5: return busy_num;
	case 6: return cur ^ (UINT64_C(1) << (40 + (r >> 4)));
	case 7: return (uint64_t)in_u32() << 24 | in_u32();
	case 8: return next + w * (r >> 4);
	default: return cur;
	}
}

static uint32_t
pick_size(uint8_t m, uint32_t cur)
{
	switch (m & 7) {
	case 1: return m >> 3;
	case 2: return fz.plen * (1u + (m >> 3));
	case 3: return fz.plen * (m >> 3) + 1;
	case 4: return FZ_MAX_MSG;
	case 5: return FZ_MAX_MSG + 1 + (m >> 3);
	case 6: return in_u32();
	default: return cur;
	}
}

/* A forged packet to the server (to_srv) or the client worker. */
static void
op_inject(bool to_srv)
{
	uint8_t f = in_u8(), k = in_u8(), r = in_u8(), p = in_u8();
	uint8_t m = in_u8(), l = in_u8(), seed = in_u8();
	uint8_t pkt[FZQ_MTU];
	struct fz_srv_slot sv;
	struct fz_cli_slot cv;
	struct fz_hdr h = { 0 };
	uint32_t hl = fz_hdr_len(), len, cur_size, i;
	uint16_t cs, ss, slot = (uint16_t)((k >> 1) % fz.window), rx, total;
	uint64_t cur;
	int c = fz.sess[k & 1];

	if (c < 0)
		return;
	cs = (uint16_t)c;
	ss = fz_session_remote(fz.cli, cs);
	fz_srv_slot(fz.srv, ss, slot, &sv);
	fz_cli_slot(fz.cli, cs, slot, &cv);
	if (to_srv) {
		static const uint8_t types[4] = { FZ_PKT_REQ, FZ_PKT_RFR,
			FZ_PKT_REQ, FZ_PKT_CR };

		h.pkt_type = types[(f >> 3) & 3];
		h.dest_session = ss;
		h.token = fz_session_token(fz.srv, ss);
		cur = sv.req_num;
		cur_size = sv.req_size;
		rx = (uint16_t)sv.num_rx;
		total = (uint16_t)sv.resp_pkts;
	} else {
		static const uint8_t types[4] = { FZ_PKT_RESP, FZ_PKT_CR,
			FZ_PKT_RESP, FZ_PKT_RFR };

		h.pkt_type = types[(f >> 3) & 3];
		h.dest_session = cs;
		h.token = fz_session_token(fz.cli, cs);
		cur = cv.req_num;
		cur_size = cv.resp_size;
		rx = (uint16_t)(h.pkt_type == FZ_PKT_CR || cv.num_rx == 0 ||
			cv.num_rx < cv.req_pkts ? cv.num_rx :
			cv.num_rx - (cv.req_pkts - 1));
		total = (uint16_t)cv.resp_pkts;
	}
	if (f & 0x80) {
		/*
		 * A descriptor (a message sent by READ): the one of the
		 * packet's direction, or (type bits 1) the other's.
		 */
		bool req = to_srv != (((f >> 3) & 3) == 1);

		h.pkt_type = req ? FZ_PKT_REQ_DESC : FZ_PKT_RESP_DESC;
	}
	if (f & 1)
		h.token ^= 1 + in_u8();
	if (f & 4)
		h.dest_session = session_num(in_u8(), to_srv);
	h.req_type = (f & 0x40) != 0 ? in_u8() : T_ECHO;
	h.req_num = pick_req_num(r, cur, cv.next_num, cv.req_num);
	switch (p & 7) {
	case 1: h.pkt_num = rx; break;
	case 2: h.pkt_num = (uint16_t)(rx + 1); break;
	case 3: h.pkt_num = total; break;
	case 4: h.pkt_num = (uint16_t)(total - 1); break;
	case 5: h.pkt_num = p >> 3; break;
	case 6: h.pkt_num = UINT16_MAX; break;
	case 7: h.pkt_num = 1; break;
	default: h.pkt_num = 0; break;
	}
	h.msg_size = pick_size(m, cur_size);
	if (f & 0x20)
		h.status = in_u8() & 15;
	if (h.pkt_type == FZ_PKT_REQ || h.pkt_type == FZ_PKT_RESP) {
		switch (l & 3) {
		case 0:	/* where packet pkt_num would be */
			len = (uint64_t)h.pkt_num * fz.plen >= h.msg_size ? 0 :
				RTE_MIN(fz.plen,
					h.msg_size - h.pkt_num * fz.plen);
			break;
		case 1: len = fz.plen; break;
		case 2: len = l >> 2; break;
		default: len = RTE_MIN(h.msg_size, fz.plen); break;
		}
	} else if (f & 0x80) {
		/* Its descriptor, or l >> 2 bytes (mode 2). */
		len = (l & 3) == 2 ? l >> 2 : fz_desc_len();
	} else {
		len = (l & 3) == 2 ? l >> 2 : 0;
	}
	len = RTE_MIN(len, (uint32_t)FZQ_MTU - hl);
	fz_hdr_write(pkt, &h);
	for (i = 0; i < len; i++)
		pkt[hl + i] = (uint8_t)(seed + i * 13);
	if (len > 0)
		pkt[hl] &= 0x7f;	/* never a magic */
	/*
	 * A descriptor's payload: mode 0 an address and key from the seed,
	 * 1 the same with a reserved byte set, 3 address and key 0.
	 */
	if ((f & 0x80) != 0 && (l & 3) != 2)
		fz_desc_write(pkt + hl, (l & 3) == 3 ? 0 :
				UINT64_C(0x00007f0000001000) |
				(uint64_t)seed << 16,
				(l & 3) == 3 ? 0 : 0x100u | seed,
				(l & 3) == 1);
	if (to_srv)
		fz.forged_srv = true;
	else
		fz.forged_cli = true;
	fzq_inject(to_srv ? FZ_SRV_Q : FZ_CLI_Q, pkt, hl + len,
			(f & 2) != 0 ? FZ_STRANGER :
			to_srv ? FZ_CLI_Q : FZ_SRV_Q);
}

/* A copy of a real packet with one header field changed. */
static void
wire_mutate(unsigned int q, unsigned int pos, uint8_t how)
{
	/* Not TOKEN: the handshake's, not a session's packets. */
	static const uint8_t mutated_type[6] = { FZ_PKT_REQ, FZ_PKT_RESP,
		FZ_PKT_CR, FZ_PKT_RFR, FZ_PKT_REQ_DESC, FZ_PKT_RESP_DESC };
	uint32_t len, hl = fz_hdr_len();
	struct fz_hdr h;
	uint8_t *pkt;

	fzq_rx_dup(q, pos);
	pkt = fzq_rx_peek(q, fzq_rx_queued(q) - 1, &len);
	if (pkt == NULL || !fz_hdr_read(pkt, len, &h))
		return;
	switch (how & 7) {
	case 0: h.req_num ^= UINT64_C(1) << (how >> 3) * 2; break;
	case 1: h.req_num += fz.window * (1u + (how >> 3)); break;
	case 2: h.pkt_num = (uint16_t)(h.pkt_num + 1 + (how >> 3)); break;
	case 3: h.pkt_num = (uint16_t)(h.pkt_num - 1); break;
	case 4: h.msg_size ^= 1u << (how >> 3); break;
	case 5: h.pkt_type = mutated_type[(how >> 3) % 6]; break;
	case 6: h.status = (how >> 3) & 15; break;
	default: h.req_type = how >> 3; break;
	}
	fz_hdr_write(pkt, &h);
	if (len > hl)
		pkt[hl] &= 0x7f;	/* no longer a real payload */
	if (q == FZ_SRV_Q)
		fz.forged_srv = true;
	else
		fz.forged_cli = true;
}

static void
op_wire(void)
{
	uint8_t a = in_u8(), b = in_u8();
	unsigned int q = a & 1 ? FZ_CLI_Q : FZ_SRV_Q;
	unsigned int n = fzq_rx_queued(q);
	unsigned int pos = n == 0 ? 0 : b % n;

	if (n == 0)
		return;
	switch ((a >> 1) & 3) {
	case 0: fzq_rx_drop(q, pos); break;
	case 1: fzq_rx_dup(q, pos); break;
	case 2: fzq_rx_defer(q, pos); break;
	default: wire_mutate(q, pos, in_u8()); break;
	}
}

static void
op_poll(void)
{
	uint8_t a = in_u8();
	unsigned int i, n = 1 + ((a >> 2) & 7);

	for (i = 0; i < n; i++) {
		if ((a & 3) != 1)
			poll_srv();
		if ((a & 3) != 0)
			poll_cli();
	}
}

static void
op_complete(void)
{
	uint8_t a = in_u8(), b = in_u8();

	fzq_complete(a & 1 ? FZ_CLI_Q : FZ_SRV_Q, b == 0 ? UINT32_MAX : b);
}

static void
op_tx_ctl(void)
{
	uint8_t a = in_u8(), b = in_u8();
	unsigned int q = a & 1 ? FZ_CLI_Q : FZ_SRV_Q;

	fzq_set_tx_budget(q, (a & 2) != 0 ? UINT32_MAX : b);
	fzq_set_flush_completes(q, (a & 4) != 0);
}

static void
op_time(void)
{
	uint8_t a = in_u8();

	fz_advance_time(a & 1 ? fz.cli : fz.srv,
			(a & 2) != 0 ? FZ_TIME_REQ_TIMEOUT : FZ_TIME_RTO);
	handles_poll();
}

/*
 * OP_SESSION: the application closes a client session. Opening it again
 * for the next input takes the nexus milliseconds: only one argument
 * byte in 16 does it.
 */
static void
op_session(void)
{
	uint8_t a = in_u8();
	unsigned int k = a & 1;

	if ((a & 0xf0) != 0xa0 || fz.sess[k] < 0)
		return;
	session_close(k);
	handles_poll();
}

/*
 * Close client session k; the continuations of its requests run inside
 * (fz.destroying says which session is going).
 */
static void
session_close(unsigned int k)
{
	int outer = fz.destroying;
	int ret;

	fz.destroying = (int)k;
	ret = pmr_session_destroy(fz.cli, fz.sess[k]);
	fz.destroying = outer;
	/*
	 * Refused only to a continuation of its own destruction (the
	 * session is closing: -EINVAL); a continuation of a reset session's
	 * requests may close it (freed once they all ran).
	 */
	FUZZ_CHECK(outer == (int)k ? ret == -EINVAL : ret == 0);
	fz.sess[k] = -1;
}

/* --- Sessions. --- */

static void
fz_on_session(struct pmr_worker *w, int session, enum pmr_session_event ev,
		int err, void *arg)
{
	struct fz_sess_ev *e = arg;

	(void)w;
	(void)session;
	e->count++;
	e->ev = ev;
	e->err = err;
}

static uint64_t
deadline_in(unsigned int s)
{
	return rte_get_timer_cycles() + rte_get_timer_hz() * s;
}

/* Open client session k through the nexus and wait until it is up. */
static void
session_open(unsigned int k)
{
	uint64_t deadline = deadline_in(FZ_WAIT_S);
	int s;

	memset(&fz.ev[k], 0, sizeof(fz.ev[k]));
	s = pmr_session_create(fz.cli, pmr_nexus_uri(fz.nx), 0,
			fz_on_session, &fz.ev[k]);
	FUZZ_CHECK(s >= 0);
	while (fz.ev[k].count == 0) {
		poll_srv();
		poll_cli();
		FUZZ_CHECK(rte_get_timer_cycles() < deadline);
		rte_delay_us_sleep(10);
	}
	FUZZ_CHECK(fz.ev[k].ev == PMR_SESSION_EV_CONNECTED);
	fz.sess[k] = s;
}

/* Wait until the server has as many sessions as the client. */
static void
server_sessions_wait(void)
{
	uint64_t deadline = deadline_in(FZ_WAIT_S);
	unsigned int k, up;
	int s;

	for (;;) {
		up = 0;
		for (s = 0; s < FZ_MAX_SESSIONS; s++)
			up += pmr_session_state(fz.srv, s) != PMR_SESSION_FREE;
		for (k = 0; k < FZ_NB_SESS; k++)
			up -= fz.sess[k] >= 0;
		if (up == 0)
			return;
		poll_srv();
		poll_cli();
		FUZZ_CHECK(rte_get_timer_cycles() < deadline);
		rte_delay_us_sleep(10);
	}
}

/*
 * Session numbers are handed out in random order (lib/rpc), so a session
 * reopened between inputs has other numbers at both ends than it had. An
 * input names its sessions by index (fz.sess[]) and reads their numbers
 * from the workers, except a forged packet's own dest_session (OP_INJECT):
 * a number v of the input is the same session whatever the real ones are,
 * through this mapping. v = k < FZ_NB_SESS is session k (client end, or its
 * server end if srv); the other numbers below FZ_MAX_SESSIONS are the
 * numbers no session of the harness has, in increasing order; numbers
 * from FZ_MAX_SESSIONS up name no session at all. It is the identity when
 * the sessions have numbers 0 and 1 at both ends (the seeds were written
 * when numbers were handed out lowest first).
 */
static uint16_t
session_num(uint8_t v, bool srv)
{
	bool used[FZ_MAX_SESSIONS] = { false };
	int num[FZ_NB_SESS];
	unsigned int k, rest = 0;
	uint16_t sn;

	if (v >= FZ_MAX_SESSIONS)
		return v;
	for (k = 0; k < FZ_NB_SESS; k++) {
		num[k] = fz.sess[k] < 0 ? -1 : !srv ? fz.sess[k] :
			fz_session_remote(fz.cli, (uint16_t)fz.sess[k]);
		if (num[k] >= 0 && num[k] < FZ_MAX_SESSIONS)
			used[num[k]] = true;
	}
	if (v < FZ_NB_SESS && num[v] >= 0)
		return (uint16_t)num[v];
	/* v is the rest-th of the other numbers of the input... */
	for (k = 0; k < v; k++)
		if (k >= FZ_NB_SESS || num[k] < 0)
			rest++;
	/* ... and names the rest-th of the numbers no session has. */
	for (sn = 0; sn < FZ_MAX_SESSIONS; sn++)
		if (!used[sn] && rest-- == 0)
			return sn;
	return v;	/* not reached */
}

static bool quiet(void);

/*
 * The server sends copies of a new session's TOKEN packet, real time
 * apart, until the client's first packet on it: one echo request, as an
 * application's first would be, stops them, so that none lands in a
 * later input. Then nothing is left on the wire (quiet()).
 */
static void
session_first_request(unsigned int k)
{
	uint64_t deadline = deadline_in(FZ_WAIT_S);
	unsigned int i, ok = fz.nb_status[PMR_OK];

	FUZZ_CHECK(fz.nb_pending == 0 && fz.nb_calls < FZ_MAX_CALLS);
	i = fz.nb_calls;
	FUZZ_CHECK(request(k, T_ECHO, 12, 12, 0));
	while (!quiet()) {
		fzq_complete(FZ_SRV_Q, UINT32_MAX);
		fzq_complete(FZ_CLI_Q, UINT32_MAX);
		poll_srv();
		poll_cli();
		FUZZ_CHECK(rte_get_timer_cycles() < deadline);
	}
	FUZZ_CHECK(fz.calls[i].state == CALL_DONE);
	FUZZ_CHECK(fz.nb_status[PMR_OK] == ok + 1);
	/* Not the input's: forgotten (what fz_cont() left is freed). */
	fz.nb_status[PMR_OK] = ok;
	FUZZ_CHECK(pmr_msgbuf_free(fz.calls[i].req) == 0);
	memset(&fz.calls[i], 0, sizeof(fz.calls[i]));
	fz.nb_calls = i;
}

/*
 * Sessions closed by the input, or reset, are opened again (with other
 * numbers: see session_num()), and used once, so that an input does the
 * same whatever ran before it.
 */
static void
sessions_restore(void)
{
	unsigned int k;

	for (k = 0; k < FZ_NB_SESS; k++) {
		if (fz.sess[k] >= 0 &&
		    pmr_session_state(fz.cli, fz.sess[k]) !=
		    PMR_SESSION_CONNECTED) {
			/* Reset under it (FAILED, RESET): the application's. */
			FUZZ_CHECK(pmr_session_destroy(fz.cli,
					fz.sess[k]) == 0);
			fz.sess[k] = -1;
		}
	}
	for (k = 0; k < FZ_NB_SESS; k++) {
		if (fz.sess[k] >= 0)
			continue;
		/* The server freed its end (else it could refuse). */
		server_sessions_wait();
		session_open(k);
		session_first_request(k);
	}
	server_sessions_wait();
}

/* --- Draining and the invariants. --- */

static bool
quiet(void)
{
	return fz.nb_pending == 0 && fz.nb_deferred == 0 &&
		fzq_rx_queued(FZ_SRV_Q) == 0 && fzq_rx_queued(FZ_CLI_Q) == 0 &&
		fzq_tx_refs(FZ_SRV_Q) == 0 && fzq_tx_refs(FZ_CLI_Q) == 0;
}

static void
answer_all(void)
{
	unsigned int i = 0;

	while (i < fz.nb_deferred) {
		if (deferred_answer(&fz.deferred[i],
				fz.deferred[i].resp_size, false))
			deferred_remove(i);
		else
			i++;
	}
}

/* Let everything the input started finish; see the file's comment. */
static void
drain(void)
{
	unsigned int round, q;

	for (q = FZ_SRV_Q; q <= FZ_CLI_Q; q++) {
		fzq_set_tx_budget(q, UINT32_MAX);
		fzq_set_flush_completes(q, true);
	}
	for (round = 0; round < FZ_DRAIN_ROUNDS; round++) {
		answer_all();
		fzq_complete(FZ_SRV_Q, UINT32_MAX);
		fzq_complete(FZ_CLI_Q, UINT32_MAX);
		poll_srv();
		poll_cli();
		if (quiet())
			break;
		if (round % 8 == 7)	/* lost packets go again */
			fz_advance_time(fz.cli, FZ_TIME_RTO);
		if (round >= FZ_DRAIN_TIMEOUT_ROUND)
			fz_advance_time(fz.cli, FZ_TIME_REQ_TIMEOUT);
		handles_poll();
	}
	/* Every request completed, every handler answered. */
	FUZZ_CHECK(fz.nb_pending == 0);
	FUZZ_CHECK(fz.nb_deferred == 0);
	FUZZ_CHECK(quiet());
	/* What the rest of a request never came for is reclaimed in time. */
	if ((fz.avoid & AVOID_PINNED) == 0) {
		fz_advance_time(fz.srv, FZ_TIME_REQ_TIMEOUT);
		FUZZ_CHECK(fz_srv_partial(fz.srv) == 0);
	}
}

static void
calls_check_free(void)
{
	unsigned int i;

	for (i = 0; i < fz.nb_calls; i++) {
		struct fz_call *c = &fz.calls[i];

		FUZZ_CHECK(c->state == CALL_DONE);
		/* Completed once only. */
		FUZZ_CHECK(!c->handle || !c->h.done);
		pmr_msgbuf_free(c->req);
		pmr_msgbuf_free(c->resp);
	}
	fz.nb_calls_seen = fz.nb_calls;
	fz.nb_calls = 0;
	fz.nb_handles = 0;
}

static void
pools_check(struct pmr_worker *w)
{
	struct rte_mempool *mp;
	unsigned int c;

	for (c = 0; (mp = pmr_worker_pool(w, c)) != NULL; c++)
		FUZZ_CHECK(pmr_msgbuf_pool_in_use(mp) == 0);
}

/* fuzzq has no RC: a descriptor is never read, nothing ever offered. */
static void
rdv_check(struct pmr_worker *w)
{
	struct pmr_worker_stats st;

	pmr_worker_stats_get(w, &st);
	fz_rdv_check_none(&st);
}

static uint64_t
rx_delivered(unsigned int q)
{
	struct fzq_counters c;

	fzq_counters(q, &c);
	return c.rx_delivered;
}

static uint64_t
rx_accounted(struct pmr_worker *w)
{
	struct pmr_worker_stats st;

	pmr_worker_stats_get(w, &st);
	return fz_rx_accounted(&st);
}

/* PMR_FUZZ_VERBOSE=2: each packet a worker receives. */
static void
trace_rx(unsigned int id, const uint8_t *pkt, uint32_t len, uint64_t src)
{
	static const char *const types[] = { "?", "REQ", "RESP", "CR", "RFR",
		"TOKEN", "REQ_DESC", "RESP_DESC" };
	struct fz_hdr h;

	if (!fz_hdr_read(pkt, len, &h)) {
		printf("    %s <- %" PRIu64 ": %u bytes, bad header\n",
			id == FZ_SRV_Q ? "srv" : "cli", src, len);
		return;
	}
	printf("    %s <- %" PRIu64 ": %s sess %u req %" PRIu64 " pkt %u "
		"size %u status %u type %u len %u\n",
		id == FZ_SRV_Q ? "srv" : "cli", src,
		types[h.pkt_type < RTE_DIM(types) ? h.pkt_type : 0],
		h.dest_session,
		h.req_num, h.pkt_num, h.msg_size, h.status, h.req_type,
		len - fz_hdr_len());
}

/* PMR_FUZZ_VERBOSE: what an input did, to check that seeds do it. */
static void
verbose_report(uint64_t srv_rx, uint64_t cli_rx)
{
	struct pmr_worker_stats st[2];
	unsigned int i, k;

	pmr_worker_stats_get(fz.srv, &st[0]);
	pmr_worker_stats_get(fz.cli, &st[1]);
	printf("  calls %u:", fz.nb_calls_seen);
	for (i = 0; i < PMR_STATUS_MAX; i++)
		if (fz.nb_status[i] != 0)
			printf(" %s %u", pmr_status_str(i), fz.nb_status[i]);
	if (fz.nb_status[PMR_STATUS_MAX] != 0)
		printf(" other %u", fz.nb_status[PMR_STATUS_MAX]);
	printf("; rx srv %" PRIu64 " cli %" PRIu64 "; forged %d/%d",
		srv_rx, cli_rx, fz.forged_srv, fz.forged_cli);
	for (k = 0; k < FZ_NB_SESS; k++)
		printf("; session %d-%u", fz.sess[k],
			fz_session_remote(fz.cli, (uint16_t)fz.sess[k]));
	printf("\n");
	for (k = 0; k < 2; k++) {
		printf("  %s totals: handled %" PRIu64 " retrans %" PRIu64
			" timeouts %" PRIu64 " drops:", k == 0 ? "srv" : "cli",
			st[k].reqs_handled, st[k].retransmissions,
			st[k].timeouts);
		for (i = 0; i < RTE_DIM(st[k].drops); i++)
			if (st[k].drops[i] != 0)
				printf(" %s %" PRIu64, pmr_worker_drop_name(i),
					st[k].drops[i]);
		printf("\n");
	}
}

static void
avoid_parse(const char *list)
{
	char buf[256], *tok, *save = NULL;
	unsigned int i;

	if (list == NULL)
		return;
	snprintf(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, ",", &save); tok != NULL;
	     tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < RTE_DIM(avoid_names); i++)
			if (strcmp(tok, avoid_names[i]) == 0)
				break;
		if (i == RTE_DIM(avoid_names)) {
			fprintf(stderr, "PMR_FUZZ_AVOID: unknown '%s'\n", tok);
			abort();
		}
		fz.avoid |= 1u << i;
	}
	fprintf(stderr, "fuzz_worker: avoiding %s\n", list);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);

static void
fz_teardown(void)
{
	unsigned int k;

	for (k = 0; k < FZ_NB_SESS; k++)
		if (fz.sess[k] >= 0)
			pmr_session_destroy(fz.cli, fz.sess[k]);
	pmr_worker_destroy(fz.cli);
	pmr_worker_destroy(fz.srv);
	pmr_nexus_destroy(fz.nx);
	rte_eal_cleanup();
}

static struct pmr_worker *
worker_new(uint16_t id, const char *devargs)
{
	struct pmr_worker_conf conf = {
		.worker_id = id,
		.driver = FZQ_DRIVER_NAME,
		.devargs = devargs,
		.max_sessions = FZ_MAX_SESSIONS,
		.session_window = 8,
		.session_credits = 8,
		.max_requests = 2 * FZ_MAX_CALLS,
		.max_msg_size = FZ_MAX_MSG,
		.nb_msgbufs = 512,
		.nb_mid_msgbufs = 4,
		.nb_large_msgbufs = 2,
		/* Time passes only when an input says so (OP_TIME). */
		.rto_us = 1000000,
		.req_timeout_ms = 100000,
	};
	struct pmr_worker *w = pmr_worker_create(fz.nx, &conf);

	if (w == NULL) {
		fprintf(stderr, "fuzz_worker: worker %u: %s\n", id,
			rte_strerror(rte_errno));
		abort();
	}
	return w;
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static char *eal_args[] = {
		"fuzz_worker", "-l", "0", "--no-pci", "--no-huge", "-m", "512",
		"--no-shconf", "--no-telemetry", "--log-level=*:error", NULL,
	};
	struct pmr_nexus_conf nconf = {
		.connect_timeout_ms = 5000,
		.poll_interval_ms = 1,
		.heartbeat_interval_ms = 1000,
		/* Never in a run: the nexus talks to itself. */
		.peer_timeout_ms = 24 * 3600 * 1000,
	};
	unsigned int k;

	(void)argc;
	(void)argv;
	fz.verbose = getenv("PMR_FUZZ_VERBOSE") != NULL;
	if (fz.verbose)
		setvbuf(stdout, NULL, _IOLBF, 0);
	if (fz.verbose && atoi(getenv("PMR_FUZZ_VERBOSE")) >= 2)
		fzq_set_rx_trace(trace_rx);
	avoid_parse(getenv("PMR_FUZZ_AVOID"));
	if (rte_eal_init((int)RTE_DIM(eal_args) - 1, eal_args) < 0) {
		fprintf(stderr, "fuzz_worker: EAL: %s\n",
			rte_strerror(rte_errno));
		abort();
	}
	FUZZ_CHECK(fzq_register() == 0);
	fz.nx = pmr_nexus_create("127.0.0.1:0", &nconf);
	FUZZ_CHECK(fz.nx != NULL);
	FUZZ_CHECK(fz_register_handler(fz.nx, T_ECHO, NULL) == 0);
	FUZZ_CHECK(fz_register_handler(fz.nx, T_DEFER, NULL) == 0);
	fz.srv = worker_new(0, "id=1");
	fz.cli = worker_new(10, "id=2");
	if (fz.avoid & AVOID_STATUS_RFR)
		fzq_set_rx_burst_max(FZ_SRV_Q, 1);
	fz.plen = pmr_worker_pkt_size(fz.srv);
	fz.window = fz_window(fz.cli);
	for (k = 0; k < FZ_NB_SESS; k++)
		fz.sess[k] = -1;
	fz.destroying = -1;
	sessions_restore();
	fz_sessions_resync(fz.srv, fz.cli, fz.sess, FZ_NB_SESS);
	atexit(fz_teardown);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t srv_rx0 = rx_delivered(FZ_SRV_Q), cli_rx0 =
		rx_delivered(FZ_CLI_Q);
	uint64_t srv_acc0 = rx_accounted(fz.srv), cli_acc0 =
		rx_accounted(fz.cli);
	unsigned int nb_ops = 0;

	fz.in = data;
	fz.in_len = size;
	fz.in_pos = 0;
	fz.nb_deferred = 0;
	fz.nb_stale = 0;
	fz.forged_srv = false;
	fz.forged_cli = false;
	fz.degraded = false;
	memset(fz.nb_status, 0, sizeof(fz.nb_status));
	while (fz.in_pos < fz.in_len && nb_ops++ < FZ_MAX_OPS) {
		switch ((enum fz_op)(in_u8() % OP_MAX)) {
		case OP_REQUEST: op_request(); break;
		case OP_RESPOND: op_respond(); break;
		case OP_STALE: op_stale(); break;
		case OP_INJECT_SRV: op_inject(true); break;
		case OP_INJECT_CLI: op_inject(false); break;
		case OP_WIRE: op_wire(); break;
		case OP_POLL: op_poll(); break;
		case OP_COMPLETE: op_complete(); break;
		case OP_TX_CTL: op_tx_ctl(); break;
		case OP_TIME: op_time(); break;
		case OP_SESSION: op_session(); break;
		case OP_BURST: op_burst(); break;
		default: op_reuse(); break;
		}
	}
	drain();
	calls_check_free();
	sessions_restore();
	fz_sessions_resync(fz.srv, fz.cli, fz.sess, FZ_NB_SESS);
	/* The kept responses the resync let go are freed by a poll. */
	poll_srv();
	poll_cli();
	FUZZ_CHECK(quiet());
	FUZZ_CHECK(fzq_rx_out(FZ_SRV_Q) == 0 && fzq_rx_out(FZ_CLI_Q) == 0);
	pools_check(fz.srv);
	pools_check(fz.cli);
	fz_sessions_check(fz.srv);
	fz_sessions_check(fz.cli);
	rdv_check(fz.srv);
	rdv_check(fz.cli);
	FUZZ_CHECK(rx_delivered(FZ_SRV_Q) - srv_rx0 ==
		rx_accounted(fz.srv) - srv_acc0);
	FUZZ_CHECK(rx_delivered(FZ_CLI_Q) - cli_rx0 ==
		rx_accounted(fz.cli) - cli_acc0);
	if (fz.verbose)
		verbose_report(rx_delivered(FZ_SRV_Q) - srv_rx0,
			rx_delivered(FZ_CLI_Q) - cli_rx0);
	return 0;
}
