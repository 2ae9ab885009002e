/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * Stateful fuzz target: the nexus's session and heartbeat code
 * (nexus_session.c, nexus_heartbeat.c, nexus_keys.c, nexus_source.c)
 * driven by a SEQUENCE of operations: datagrams from four source
 * addresses (three IPs), each built from the input's fields (CONNECT_REQ
 * with no, a captured or a wrong cookie; ACCEPT, REFUSE, DISCONNECT,
 * COOKIE for handshake ids the nexus used or not; HEARTBEATs with good or
 * bad MACs, fresh or replayed counters; raw bytes), advances of a fake
 * clock with the timers run, and the two workers' ring messages (accept
 * or refuse a CONNECT_IN, open and close sessions), all on this thread,
 * with no EAL: the nexus's socket, clock, random source, worker rings and
 * transport peers are fakes defined here.
 *
 * Checked after every operation, and at the end of each input after the
 * workers detach:
 * - every datagram the nexus sends decodes; only COOKIEs (and the
 *   client's own CONNECT_REQs and DISCONNECTs) go to a source that has
 *   not proven it receives at its address (echoed a cookie the nexus sent
 *   it, or answered one of the nexus's own handshake ids): no ACCEPT,
 *   REFUSE or HEARTBEAT; a COOKIE is smaller than the request;
 * - no CONNECT_IN reaches a worker but for a CONNECT_REQ that carried a
 *   cookie the nexus had sent that source for that handshake id;
 * - a HEARTBEAT's MAC is good under the secret its receiver issued, and
 *   its counter grows;
 * - the per-source counts equal the pending handshakes plus the server
 *   sessions of each IP, and stay within max_sessions_per_source;
 *   nb_shs and each worker's nb_sessions match their tables;
 * - heartbeats_rejected + heartbeats_replayed <= rx_bad;
 * - at the end, every peer made is destroyed, every record freed (ASan's
 *   leak check sees the rest).
 * test/fuzz/make_corpus.py writes the seeds (corpus/nexus_seq/).
 * FUZZ_NEXUS_SEQ_TRACE=1 prints the nexus's counters after each input.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_errno.h>

#include "nexus_private.h"
#include "pmr_fuzz.h"

#define NB_SRC 4
#define NB_HS 4
#define NB_WORKERS 2
#define NB_SLOTS 16
#define NB_BOOTS 3
#define RING_CAP 8
#define PER_SOURCE_MAX 3
#define ADDR_LEN 12

/* The fakes' state, reset for each input. */

int pmr_nexus_logtype;

static uint64_t fz_now;
static uint64_t fz_rand_state;
static int64_t fz_peers;

/* What the nexus sent each source, and what each source proved. */
struct fz_src {
	struct sockaddr_in addr;
	uint8_t secret[NEXUS_WIRE_SECRET_LEN];	/* issued to the nexus */
	uint64_t cookie[NB_HS];	/* COOKIEs the nexus sent, per hs */
	bool proven;
	/* The nexus's last CONNECT_REQ to it (it is then a server). */
	bool have_creq;
	struct nexus_wire_msg creq;
	/* The secret the nexus issued it, and the nexus's heartbeats. */
	bool have_key;
	uint8_t key[NEXUS_WIRE_SECRET_LEN];
	uint64_t hb_in_last;		/* last counter from the nexus */
	uint64_t hb_out;		/* its own heartbeat counter */
	uint64_t hb_out_last_sent;
};

static struct fz_src srcs[NB_SRC];

/* The datagram being handled: its source and the cookie it carried. */
static int cur_src = -1;
static bool cur_cookie_ok;

/* A worker as the fuzzer plays it. */
enum fz_slot {
	SLOT_FREE,
	SLOT_CONNECTING,
	SLOT_UP,
	SLOT_DEAD,	/* closed by the worker: never used again */
};

struct fz_worker {
	struct nexus_worker *w;
	struct pmr_transport_queue q;
	struct pmr_sm_msg *msgs;	/* to the worker, oldest first */
	unsigned int nb_msgs, cap;
	enum fz_slot slot[NB_SLOTS];
	struct pmr_transport_peer *peer[NB_SLOTS];
};

static struct fz_worker fzw[NB_WORKERS];

static const uint64_t boots[NB_BOOTS] = {
	UINT64_C(0xb001), UINT64_C(0xb002), UINT64_C(0xb003),
};

/* Fakes of nexus_thread.c, nexus_worker.c, nexus_uri.c, the transport. */

int
rte_log(uint32_t level, uint32_t logtype, const char *format, ...)
{
	(void)level;
	(void)logtype;
	(void)format;
	return 0;
}

uint64_t
nexus_now_ms(void)
{
	return fz_now;
}

void
nexus_random(void *buf, size_t len)
{
	uint8_t *p = buf;

	while (len-- > 0) {
		/* xorshift64: deterministic per input. */
		fz_rand_state ^= fz_rand_state << 13;
		fz_rand_state ^= fz_rand_state >> 7;
		fz_rand_state ^= fz_rand_state << 17;
		*p++ = (uint8_t)fz_rand_state;
	}
}

static int
src_index(const struct sockaddr_in *a)
{
	int i;

	for (i = 0; i < NB_SRC; i++)
		if (srcs[i].addr.sin_addr.s_addr == a->sin_addr.s_addr &&
		    srcs[i].addr.sin_port == a->sin_port)
			return i;
	return -1;
}

static int
hs_index(uint64_t hs_id)
{
	return hs_id >= 0x1000 && hs_id < 0x1000 + NB_HS ?
		(int)(hs_id - 0x1000) : -1;
}

/* Everything the nexus sends: checked, and remembered. */
int
nexus_udp_send(struct pmr_nexus *nx, const struct sockaddr_in *to,
		const uint8_t *buf, size_t len)
{
	struct nexus_wire_msg m;
	struct fz_src *s;
	int i = src_index(to), h;

	FUZZ_CHECK(nexus_wire_decode(buf, len, &m) == 0);
	FUZZ_CHECK(i >= 0);	/* only ever to an address it heard of */
	s = &srcs[i];
	nx->stats.tx_msgs++;
	switch (m.type) {
	case NEXUS_WIRE_COOKIE:
		FUZZ_CHECK(len < NEXUS_WIRE_CONNECT_REQ_LEN);
		h = hs_index(m.hs_id);
		if (h >= 0)
			s->cookie[h] = m.cookie.cookie;
		break;
	case NEXUS_WIRE_CONNECT_REQ:
		s->have_creq = true;
		s->creq = m;
		s->have_key = true;
		memcpy(s->key, m.req.secret, sizeof(s->key));
		break;
	case NEXUS_WIRE_ACCEPT:
		FUZZ_CHECK(s->proven);
		s->have_key = true;
		memcpy(s->key, m.accept.secret, sizeof(s->key));
		break;
	case NEXUS_WIRE_REFUSE:
		FUZZ_CHECK(s->proven);
		break;
	case NEXUS_WIRE_HEARTBEAT:
		FUZZ_CHECK(s->proven);
		FUZZ_CHECK(m.hb.boot_id == nx->boot_id);
		FUZZ_CHECK(m.hb.mac == nexus_wire_hb_mac(s->secret, &m.hb));
		FUZZ_CHECK(m.hb.counter > s->hb_in_last);
		s->hb_in_last = m.hb.counter;
		break;
	default:
		break;
	}
	return 0;
}

int
nexus_udp_send_msg(struct pmr_nexus *nx, const struct sockaddr_in *to,
		const struct nexus_wire_msg *m)
{
	uint8_t buf[NEXUS_WIRE_MAX_LEN];
	int len = nexus_wire_encode(m, buf, sizeof(buf));

	FUZZ_CHECK(len > 0);
	return nexus_udp_send(nx, to, buf, (size_t)len);
}

struct nexus_worker *
nexus_worker_find(struct pmr_nexus *nx, uint16_t id)
{
	(void)nx;
	return id < NB_WORKERS ? fzw[id].w : NULL;
}

static void
fz_push(struct fz_worker *f, const struct pmr_sm_msg *msg)
{
	if (f->nb_msgs == f->cap) {
		f->cap = f->cap != 0 ? 2 * f->cap : 16;
		f->msgs = realloc(f->msgs, f->cap * sizeof(*f->msgs));
		FUZZ_CHECK(f->msgs != NULL);
	}
	f->msgs[f->nb_msgs++] = *msg;
}

static void
check_connect_in(const struct pmr_sm_msg *msg)
{
	if (msg->type != PMR_SM_CONNECT_IN)
		return;
	/* Only for a request that echoed a cookie sent to its source. */
	FUZZ_CHECK(cur_src >= 0 && cur_cookie_ok);
	FUZZ_CHECK(msg->credits != 0);
	FUZZ_CHECK(msg->pkt_size >= NEXUS_WIRE_PKT_SIZE_MIN &&
		   msg->pkt_size <= NEXUS_WIRE_PKT_SIZE_MAX);
	FUZZ_CHECK(msg->peer != NULL);
}

int
nexus_worker_try_send(struct nexus_worker *w, const struct pmr_sm_msg *msg)
{
	struct fz_worker *f = &fzw[w->id];

	if (f->nb_msgs >= RING_CAP)
		return -ENOBUFS;
	check_connect_in(msg);
	fz_push(f, msg);
	return 0;
}

int
nexus_worker_send(struct nexus_worker *w, const struct pmr_sm_msg *msg)
{
	check_connect_in(msg);
	fz_push(&fzw[w->id], msg);
	return 0;
}

int
nexus_uri_resolve(const char *uri, struct sockaddr_in *sa, bool port_zero_ok)
{
	unsigned int i = (unsigned int)(uri[0] - '0');

	(void)port_zero_ok;
	if (i >= NB_SRC)
		return -EINVAL;
	*sa = srcs[i].addr;
	return 0;
}

struct pmr_transport_peer *
pmr_transport_peer_create(struct pmr_transport_queue *q,
		const struct pmr_transport_addr *addr)
{
	struct pmr_transport_peer *p;

	(void)q;
	if (addr->len != ADDR_LEN || addr->bytes[0] == 0xff)
		return NULL;
	p = calloc(1, sizeof(*p));
	FUZZ_CHECK(p != NULL);
	fz_peers++;
	return p;
}

void
pmr_transport_peer_destroy(struct pmr_transport_queue *q,
		struct pmr_transport_peer *peer)
{
	(void)q;
	FUZZ_CHECK(peer != NULL);
	fz_peers--;
	FUZZ_CHECK(fz_peers >= 0);
	free(peer);
}

/* rte_errno without EAL. */
RTE_DEFINE_PER_LCORE(int, _rte_errno);

/*
 * No RC on the fake queues (nexus_rc.c is linked for its hooks in the
 * session code): an RC_REQ that passes authentication is refused.
 */
struct pmr_transport_rc *
pmr_transport_rc_create(struct pmr_transport_queue *q,
		struct pmr_transport_rc_attr *attr)
{
	(void)q;
	(void)attr;
	rte_errno = ENOTSUP;
	return NULL;
}

int
pmr_transport_rc_connect(struct pmr_transport_queue *q,
		struct pmr_transport_rc *rc,
		const struct pmr_transport_rc_attr *remote)
{
	(void)q;
	(void)rc;
	(void)remote;
	FUZZ_CHECK(false);	/* never made one */
	return -EINVAL;
}

int
pmr_transport_rc_destroy(struct pmr_transport_queue *q,
		struct pmr_transport_rc *rc)
{
	(void)q;
	(void)rc;
	FUZZ_CHECK(false);
	return -EINVAL;
}

/*
 * The RC QP maker (nexus_rc_make.c) without its thread: jobs wait here
 * until a timer step makes them all (and every job made is handed back
 * or discarded, never lost: checked at the end).
 */
#define FZ_JOBS_MAX 64
static struct nexus_rc_job *fz_jobs[FZ_JOBS_MAX];
static unsigned int fz_nb_jobs;

int
nexus_rc_make_start(struct pmr_nexus *nx, struct nexus_rc_job *j)
{
	(void)nx;
	if (fz_nb_jobs == FZ_JOBS_MAX)
		return -ENOMEM;
	fz_jobs[fz_nb_jobs++] = j;
	return 0;
}

void
nexus_rc_make_abandon(struct pmr_nexus *nx, struct nexus_rc_job *j)
{
	unsigned int i;

	(void)nx;
	for (i = 0; i < fz_nb_jobs; i++)
		if (fz_jobs[i] == j) {
			fz_jobs[i] = fz_jobs[--fz_nb_jobs];
			free(j);
			return;
		}
	FUZZ_CHECK(false);	/* only queued ones here: made ones are gone */
}

void
nexus_rc_make_wait(struct pmr_nexus *nx, struct pmr_transport_queue *q)
{
	unsigned int i;

	(void)nx;
	for (i = 0; i < fz_nb_jobs; i++)
		FUZZ_CHECK(fz_jobs[i]->q != q);	/* its pairs abandoned them */
}

/* Make every queued job (each fails: no RC here) and hand it back. */
static void
fz_make_all(struct pmr_nexus *nx)
{
	struct nexus_rc_job *j;

	while (fz_nb_jobs > 0) {
		j = fz_jobs[--fz_nb_jobs];
		j->rc = pmr_transport_rc_create(j->q, &j->attr);
		j->err = rte_errno;
		nexus_rc_made(nx, j);
	}
}

/* The input, read field by field; zeros once it runs out. */
struct reader {
	const uint8_t *p;
	size_t left;
};

static uint8_t
rd8(struct reader *r)
{
	if (r->left == 0)
		return 0;
	r->left--;
	return *r->p++;
}

static uint16_t
rd16(struct reader *r)
{
	return (uint16_t)(rd8(r) | (rd8(r) << 8));
}

/* Invariants. */

static void
count_ip(uint32_t ip, const uint32_t *ips, uint32_t *cnt, unsigned int n)
{
	unsigned int k;

	for (k = 0; k < n; k++)
		if (ips[k] == ip)
			cnt[k]++;
}

/* Cheap enough for every operation: lists and the allocated pages only. */
static void
check_state(struct pmr_nexus *nx)
{
	static const uint32_t ips[] = {
		RTE_BE32(0x0a000001), RTE_BE32(0x0a000002),
		RTE_BE32(0x0a000003),
	};
	uint32_t cnt[RTE_DIM(ips)] = { 0 };
	struct nexus_shs *h;
	unsigned int i, j, k, x, nb_shs = 0, n;

	TAILQ_FOREACH(h, &nx->answered, next) {
		FUZZ_CHECK(h->answered && !h->src_counted);
		nb_shs++;
	}
	for (i = 0; i < NB_WORKERS; i++) {
		struct nexus_worker *w = fzw[i].w;

		TAILQ_FOREACH(h, &w->pending, next) {
			/* Pending: counted against its source. */
			FUZZ_CHECK(!h->answered && h->src_counted);
			FUZZ_CHECK(h->w == w && h->peer != NULL);
			count_ip(h->src.sin_addr.s_addr, ips, cnt,
					RTE_DIM(ips));
			nb_shs++;
		}
		n = 0;
		for (j = 0; j < NEXUS_SESSION_PAGES; j++) {
			struct nexus_session **page = w->sessions[j];

			if (page == NULL)
				continue;
			for (x = 0; x < NEXUS_SESSION_PAGE_SIZE; x++) {
				struct nexus_session *s = page[x];

				if (s == NULL)
					continue;
				n++;
				FUZZ_CHECK(s->w == w);
				/* Server sessions count, client ones not. */
				FUZZ_CHECK(s->src_counted == !s->is_client);
				FUZZ_CHECK((s->state == NEXUS_S_UP) ==
						(s->rem != NULL));
				if (s->src_counted)
					count_ip(s->remote.sin_addr.s_addr,
						ips, cnt, RTE_DIM(ips));
			}
		}
		FUZZ_CHECK(n == w->nb_sessions);
	}
	/* Every record is pending at a worker or answered. */
	FUZZ_CHECK(nb_shs == nx->nb_shs);
	for (k = 0; k < RTE_DIM(ips); k++) {
		struct sockaddr_in a = { .sin_addr.s_addr = ips[k] };

		FUZZ_CHECK(nexus_src_count(nx, &a) == cnt[k]);
		FUZZ_CHECK(cnt[k] <= PER_SOURCE_MAX);
	}
	FUZZ_CHECK(nx->stats.heartbeats_rejected +
			nx->stats.heartbeats_replayed <= nx->stats.rx_bad);
}

/* Datagrams from the sources. */

static uint64_t
pick_hs(struct reader *r, int s)
{
	uint8_t b = rd8(r);

	switch (b % 4) {
	case 0:	/* the nexus's own handshake with s, if any */
		if (srcs[s].have_creq)
			return srcs[s].creq.hs_id;
		return 0x1000;
	case 1:
		return 0x1000 + b / 4 % NB_HS;
	case 2:
		return UINT64_C(0x5eed000000000000) + b;
	default:
		return b;
	}
}

static void
deliver(struct pmr_nexus *nx, int s, const struct nexus_wire_msg *m)
{
	uint8_t buf[NEXUS_WIRE_MAX_LEN];
	struct nexus_wire_msg d;
	int len = nexus_wire_encode(m, buf, sizeof(buf));

	if (len <= 0)
		return;	/* not a valid message: nothing to send */
	FUZZ_CHECK(nexus_wire_decode(buf, (size_t)len, &d) == 0);
	cur_src = s;
	nexus_session_rx(nx, &srcs[s].addr, &d);
	cur_src = -1;
	cur_cookie_ok = false;
}

static void
fz_addr(struct pmr_transport_addr *a, uint8_t b)
{
	memset(a, 0, sizeof(*a));
	a->len = b % 8 == 7 ? ADDR_LEN - 1 : ADDR_LEN;
	memset(a->bytes, 0x11, a->len);
	if (b % 16 == 15)
		a->bytes[0] = 0xff;	/* the driver refuses it */
}

static void
op_connect_req(struct pmr_nexus *nx, struct reader *r)
{
	int s = rd8(r) % NB_SRC, h = rd8(r) % NB_HS;
	uint8_t ck = rd8(r), b = rd8(r);
	struct nexus_wire_msg m = {
		.type = NEXUS_WIRE_CONNECT_REQ,
		.hs_id = 0x1000 + (uint64_t)h,
		.req = {
			.client_worker = 7,
			.client_session = rd8(r) % 4,
			.server_worker = b % 3,
			.credits = rd16(r),
			/* Valid: the decoder's bounds are fuzz_nexus's. */
			.pkt_size = NEXUS_WIRE_PKT_SIZE_MIN + b,
			.boot_id = boots[b / 3 % NB_BOOTS],
		},
	};

	strcpy(m.req.driver, b & 0x80 ? "ib" : "eth");
	fz_addr(&m.req.addr, rd8(r));
	memcpy(m.req.secret, srcs[s].secret, sizeof(m.req.secret));
	switch (ck % 3) {
	case 0:
		m.req.cookie = 0;
		break;
	case 1:
		m.req.cookie = srcs[s].cookie[h];
		break;
	default:
		m.req.cookie = srcs[(s + 1) % NB_SRC].cookie[h] ^ ck;
		break;
	}
	/* Echoing what the nexus sent it proves the source's address. */
	cur_cookie_ok = m.req.cookie != 0 && m.req.cookie == srcs[s].cookie[h];
	if (cur_cookie_ok)
		srcs[s].proven = true;
	deliver(nx, s, &m);
}

static void
op_accept(struct pmr_nexus *nx, struct reader *r)
{
	int s = rd8(r) % NB_SRC;
	uint64_t hs = pick_hs(r, s);
	uint8_t b = rd8(r);
	const struct nexus_wire_msg *q = &srcs[s].creq;
	struct nexus_wire_msg m = {
		.type = NEXUS_WIRE_ACCEPT,
		.hs_id = hs,
		.accept = {
			.client_worker = q->req.client_worker,
			.client_session = q->req.client_session,
			.server_worker = b & 1 ? q->req.server_worker : b,
			.server_session = rd8(r) % 8,
			.credits = rd16(r),
			.pkt_size = NEXUS_WIRE_PKT_SIZE_MIN + b,
			.boot_id = boots[b / 2 % NB_BOOTS],
		},
	};

	fz_addr(&m.accept.addr, rd8(r));
	memcpy(m.accept.secret, srcs[s].secret, sizeof(m.accept.secret));
	/* An answer to the nexus's own handshake id proves the address. */
	if (srcs[s].have_creq && hs == q->hs_id)
		srcs[s].proven = true;
	deliver(nx, s, &m);
}

static void
op_small(struct pmr_nexus *nx, struct reader *r, uint16_t type)
{
	static const uint16_t status[] = {
		PMR_SM_E_NO_WORKER, PMR_SM_E_NO_RESOURCES,
		PMR_SM_E_BAD_REQUEST, PMR_SM_E_REFUSED, PMR_SM_E_MSG_SIZE,
		PMR_SM_E_FAMILY,
	};
	int s = rd8(r) % NB_SRC;
	uint64_t hs = pick_hs(r, s);
	uint8_t b = rd8(r), c = rd8(r);
	const struct nexus_wire_msg *q = &srcs[s].creq;
	struct nexus_wire_msg m = { .type = type, .hs_id = hs };

	switch (type) {
	case NEXUS_WIRE_REFUSE:
		m.refuse = (struct nexus_wire_refuse){
			.client_worker = q->req.client_worker,
			.client_session = q->req.client_session,
			.server_worker = b & 1 ? q->req.server_worker : b,
			.status = status[c % RTE_DIM(status)],
		};
		if (srcs[s].have_creq && hs == q->hs_id)
			srcs[s].proven = true;
		break;
	case NEXUS_WIRE_DISCONNECT:
		m.disc = (struct nexus_wire_disconnect){
			.dst_worker = b % NB_WORKERS,
			.dst_session = c % NB_SLOTS,
			.src_worker = b & 0x10 ? 7 : q->req.server_worker,
			.src_session = c / NB_SLOTS % 8,
		};
		break;
	default:
		m.cookie = (struct nexus_wire_cookie){
			.client_worker = q->req.client_worker,
			.client_session = q->req.client_session,
			.cookie = (uint64_t)b << 8 | c | 1,
		};
		break;
	}
	deliver(nx, s, &m);
}

static void
op_heartbeat(struct pmr_nexus *nx, struct reader *r)
{
	int s = rd8(r) % NB_SRC;
	uint8_t b = rd8(r);
	struct fz_src *f = &srcs[s];
	struct nexus_wire_msg m = {
		.type = NEXUS_WIRE_HEARTBEAT,
		.hb = {
			.boot_id = boots[b % NB_BOOTS],
			.peer_boot_id = b & 0x10 ? nx->boot_id + 1 :
				nx->boot_id,
		},
	};

	switch (b / NB_BOOTS % 3) {
	case 0:
		m.hb.counter = ++f->hb_out;
		break;
	case 1:		/* a replay */
		m.hb.counter = f->hb_out != 0 ? f->hb_out : 1;
		break;
	default:
		m.hb.counter = UINT64_MAX - b;
		break;
	}
	/* Only the key the nexus issued makes a good MAC. */
	if (b & 0x20 && f->have_key)
		m.hb.mac = nexus_wire_hb_mac(f->key, &m.hb);
	else
		m.hb.mac = (uint64_t)b * UINT64_C(0x9e3779b97f4a7c15);
	deliver(nx, s, &m);
}

static void
op_raw(struct pmr_nexus *nx, struct reader *r)
{
	int s = rd8(r) % NB_SRC;
	size_t len = rd8(r) % (NEXUS_WIRE_MAX_LEN + 8);
	struct nexus_wire_msg m;
	uint8_t *buf;

	if (len > r->left)
		len = r->left;
	buf = malloc(len != 0 ? len : 1);
	FUZZ_CHECK(buf != NULL);
	memcpy(buf, r->p, len);
	r->p += len;
	r->left -= len;
	if (nexus_wire_decode(buf, len, &m) == 0) {
		if (m.type == NEXUS_WIRE_CONNECT_REQ) {
			int h = hs_index(m.hs_id);

			cur_cookie_ok = h >= 0 && m.req.cookie != 0 &&
				m.req.cookie == srcs[s].cookie[h];
			if (cur_cookie_ok)
				srcs[s].proven = true;
		}
		cur_src = s;
		nexus_session_rx(nx, &srcs[s].addr, &m);
		cur_src = -1;
		cur_cookie_ok = false;
	}
	free(buf);
}

/* The workers. */

static int
free_slot(struct fz_worker *f, uint8_t b)
{
	unsigned int i, k;

	for (i = 0; i < NB_SLOTS; i++) {
		k = (b + i) % NB_SLOTS;
		if (f->slot[k] == SLOT_FREE)
			return (int)k;
	}
	return -1;
}

static void
worker_msg(struct pmr_nexus *nx, struct fz_worker *f,
		const struct pmr_sm_msg *m)
{
	nexus_session_worker_msg(nx, f->w, m);
}

/* Take the worker's oldest message and answer it as a worker would. */
static void
op_worker_step(struct pmr_nexus *nx, struct reader *r)
{
	struct fz_worker *f = &fzw[rd8(r) % NB_WORKERS];
	uint8_t b = rd8(r), c = rd8(r);
	struct pmr_sm_msg m, out;
	int k;

	if (f->nb_msgs == 0)
		return;
	m = f->msgs[0];
	memmove(f->msgs, f->msgs + 1, --f->nb_msgs * sizeof(*f->msgs));
	/* What was on its way to a session the worker closed meanwhile. */
	if (m.type != PMR_SM_CONNECT_IN && m.local_session < NB_SLOTS &&
	    f->slot[m.local_session] == SLOT_DEAD)
		return;
	switch (m.type) {
	case PMR_SM_CONNECT_IN:
		k = free_slot(f, b);
		if (k < 0 || b & 0x80) {
			out = (struct pmr_sm_msg){
				.type = PMR_SM_REFUSE,
				.status = b & 0x40 ? PMR_SM_E_NO_RESOURCES :
					b & 0x20 ? PMR_SM_E_REFUSED :
					PMR_SM_E_BAD_REQUEST,
				.cookie = m.cookie,
				.peer = m.peer,
			};
			worker_msg(nx, f, &out);
			break;
		}
		f->slot[k] = SLOT_UP;
		f->peer[k] = m.peer;
		out = (struct pmr_sm_msg){
			.type = PMR_SM_ACCEPT,
			.local_session = (uint16_t)k,
			.cookie = m.cookie,
			.credits = c % 12,	/* 0: as asked */
			.pkt_size = 1500,
		};
		worker_msg(nx, f, &out);
		break;
	case PMR_SM_CONNECTED:
		FUZZ_CHECK(m.local_session < NB_SLOTS);
		FUZZ_CHECK(f->slot[m.local_session] == SLOT_CONNECTING);
		FUZZ_CHECK(m.credits != 0);
		FUZZ_CHECK(m.pkt_size >= NEXUS_WIRE_PKT_SIZE_MIN &&
			   m.pkt_size <= NEXUS_WIRE_PKT_SIZE_MAX);
		f->slot[m.local_session] = SLOT_UP;
		f->peer[m.local_session] = m.peer;
		break;
	case PMR_SM_CONNECT_FAILED:
		FUZZ_CHECK(m.local_session < NB_SLOTS);
		if (f->slot[m.local_session] == SLOT_CONNECTING)
			f->slot[m.local_session] = SLOT_FREE;
		break;
	case PMR_SM_DISCONNECTED:
		FUZZ_CHECK(m.local_session < NB_SLOTS);
		FUZZ_CHECK(f->slot[m.local_session] == SLOT_UP);
		out = (struct pmr_sm_msg){
			.type = PMR_SM_DISCONNECT,
			.status = PMR_SM_E_REMOTE,
			.local_session = m.local_session,
			.peer = f->peer[m.local_session],
		};
		f->slot[m.local_session] = SLOT_FREE;
		f->peer[m.local_session] = NULL;
		worker_msg(nx, f, &out);
		break;
	default:
		FUZZ_CHECK(false);
	}
}

static void
op_worker_connect(struct pmr_nexus *nx, struct reader *r)
{
	struct fz_worker *f = &fzw[rd8(r) % NB_WORKERS];
	uint8_t b = rd8(r), c = rd8(r);
	struct pmr_sm_msg m = {
		.type = PMR_SM_CONNECT,
		.remote_worker = b % 3,
		.credits = c % 10,	/* 0: refused */
		.pkt_size = 1500,
		.hs_id = c & 0x80 ? 0 : UINT64_C(0xc0c0) + b,
	};
	int k = free_slot(f, c);

	if (k < 0)
		return;
	m.local_session = (uint16_t)k;
	m.uri[0] = (char)('0' + b / 3 % (NB_SRC + 1));	/* one is bad */
	f->slot[k] = SLOT_CONNECTING;
	worker_msg(nx, f, &m);
}

static void
op_worker_close(struct pmr_nexus *nx, struct reader *r)
{
	struct fz_worker *f = &fzw[rd8(r) % NB_WORKERS];
	unsigned int k = rd8(r) % NB_SLOTS;
	struct pmr_sm_msg m = {
		.type = PMR_SM_DISCONNECT,
		.status = PMR_SM_OK,
		.local_session = (uint16_t)k,
	};

	if (f->slot[k] == SLOT_FREE || f->slot[k] == SLOT_DEAD)
		return;
	/* A client giving up its handshake, or closing a session. */
	m.peer = f->peer[k];
	f->slot[k] = SLOT_DEAD;
	f->peer[k] = NULL;
	worker_msg(nx, f, &m);
}

/* One input. */

static struct pmr_nexus *
fz_nexus_new(void)
{
	struct pmr_nexus *nx = calloc(1, sizeof(*nx));
	unsigned int i;

	FUZZ_CHECK(nx != NULL);
	TAILQ_INIT(&nx->workers);
	TAILQ_INIT(&nx->connecting);
	TAILQ_INIT(&nx->answered);
	for (i = 0; i < NEXUS_SHS_BUCKETS; i++)
		LIST_INIT(&nx->shs_hash[i]);
	TAILQ_INIT(&nx->remotes);
	TAILQ_INIT(&nx->rc_pairs);
	for (i = 0; i < NEXUS_REMOTE_BUCKETS; i++)
		LIST_INIT(&nx->remote_hash[i]);
	for (i = 0; i < NEXUS_SRC_BUCKETS; i++)
		LIST_INIT(&nx->src_hash[i]);
	nx->boot_id = UINT64_C(0xa0a0a0a0);
	nx->shs_seed = 1;
	nx->conf = (struct pmr_nexus_conf){
		.connect_timeout_ms = 1000,
		.connect_retry_ms = 100,
		.poll_interval_ms = 5,
		.heartbeat_interval_ms = 100,
		.peer_timeout_ms = 500,
		.max_sessions_per_source = PER_SOURCE_MAX,
	};
	nexus_keys_init(nx, fz_now);
	for (i = 0; i < NB_WORKERS; i++) {
		struct fz_worker *f = &fzw[i];
		struct nexus_worker *w = calloc(1, sizeof(*w));

		FUZZ_CHECK(w != NULL);
		memset(f, 0, sizeof(*f));
		f->q.caps.addr_len = ADDR_LEN;
		w->id = (uint16_t)i;
		w->q = &f->q;
		strcpy(w->driver, "eth");
		w->addr.len = ADDR_LEN;
		memset(w->addr.bytes, 0x22 + i, ADDR_LEN);
		TAILQ_INIT(&w->pending);
		STAILQ_INIT(&w->backlog);
		TAILQ_INSERT_TAIL(&nx->workers, w, next);
		nx->nb_workers++;
		f->w = w;
	}
	return nx;
}

static void
fz_nexus_free(struct pmr_nexus *nx)
{
	struct nexus_worker *w;
	unsigned int i;

	/* As pmr_nexus_worker_detach(): the rings' contents are dropped. */
	for (i = 0; i < NB_WORKERS; i++) {
		w = fzw[i].w;
		fzw[i].nb_msgs = 0;
		nexus_session_worker_gone(nx, w);
		TAILQ_REMOVE(&nx->workers, w, next);
		FUZZ_CHECK(w->nb_sessions == 0);
		FUZZ_CHECK(TAILQ_EMPTY(&w->pending));
		fzw[i].w = NULL;
		free(fzw[i].msgs);
		fzw[i].msgs = NULL;
		free(w);
	}
	nexus_session_free_all(nx);
	FUZZ_CHECK(nx->nb_shs == 0);
	FUZZ_CHECK(TAILQ_EMPTY(&nx->connecting));
	FUZZ_CHECK(TAILQ_EMPTY(&nx->remotes));
	for (i = 0; i < NEXUS_SRC_BUCKETS; i++)
		FUZZ_CHECK(LIST_EMPTY(&nx->src_hash[i]));
	FUZZ_CHECK(fz_peers == 0);
	/* Every pair went with its sessions, and its QP's making with it. */
	FUZZ_CHECK(TAILQ_EMPTY(&nx->rc_pairs));
	FUZZ_CHECK(fz_nb_jobs == 0);
	free(nx);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct reader r = { .p = data, .left = size };
	struct pmr_nexus *nx;
	unsigned int i;

	fz_now = 1000000;
	fz_rand_state = UINT64_C(0x2545f4914f6cdd1d);
	fz_peers = 0;
	fz_nb_jobs = 0;
	memset(srcs, 0, sizeof(srcs));
	for (i = 0; i < NB_SRC; i++) {
		srcs[i].addr.sin_family = AF_INET;
		/* 10.0.0.1 twice (two ports), 10.0.0.2, 10.0.0.3. */
		srcs[i].addr.sin_addr.s_addr =
			htonl(0x0a000001 + (i == 0 ? 0 : i - 1));
		srcs[i].addr.sin_port = htons((uint16_t)(7000 + i));
		memset(srcs[i].secret, 0x40 + i, sizeof(srcs[i].secret));
	}
	nx = fz_nexus_new();
	while (r.left > 0) {
		switch (rd8(&r) % 11) {
		case 0:
			op_connect_req(nx, &r);
			break;
		case 1:
			op_accept(nx, &r);
			break;
		case 2:
			op_small(nx, &r, NEXUS_WIRE_REFUSE);
			break;
		case 3:
			op_small(nx, &r, NEXUS_WIRE_DISCONNECT);
			break;
		case 4:
			op_small(nx, &r, NEXUS_WIRE_COOKIE);
			break;
		case 5:
			op_heartbeat(nx, &r);
			break;
		case 6:
			op_raw(nx, &r);
			break;
		case 7:
			fz_now += (uint64_t)rd8(&r) * 10;
			fz_make_all(nx);
			nexus_session_timers(nx, fz_now);
			break;
		case 8:
			op_worker_step(nx, &r);
			break;
		case 9:
			op_worker_connect(nx, &r);
			break;
		default:
			op_worker_close(nx, &r);
			break;
		}
		check_state(nx);
	}
	if (getenv("FUZZ_NEXUS_SEQ_TRACE") != NULL)
		fprintf(stderr, "rx %" PRIu64 " bad %" PRIu64 " tx %" PRIu64
			" cookies %" PRIu64 " accepted %" PRIu64 " refused %"
			PRIu64 " per-source %" PRIu64 " connected %" PRIu64
			" failed %" PRIu64 " hb sent %" PRIu64 " rejected %"
			PRIu64 " replayed %" PRIu64 " dead %" PRIu64
			" reset %" PRIu64 "\n",
			nx->stats.rx_msgs, nx->stats.rx_bad,
			nx->stats.tx_msgs, nx->stats.cookies_sent,
			nx->stats.sessions_accepted,
			nx->stats.sessions_refused,
			nx->stats.refused_per_source,
			nx->stats.sessions_connected,
			nx->stats.sessions_failed, nx->stats.heartbeats_sent,
			nx->stats.heartbeats_rejected,
			nx->stats.heartbeats_replayed, nx->stats.peers_dead,
			nx->stats.sessions_reset);
	fz_nexus_free(nx);
	return 0;
}
