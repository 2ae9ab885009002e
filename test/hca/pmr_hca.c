/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * The software HCA model (issues 14, 16 and 17): a stand-in for
 * libibverbs at the UD and RC level, with async events and type 2B
 * memory windows.
 *
 * Interposition: this library defines every function libibverbs exports,
 * without symbol versions. Preloaded, or linked ahead of libibverbs, it
 * wins over rdma-core's versioned definitions (doc/testing.md, "The
 * software HCA model"); what it does not model fails with EOPNOTSUPP
 * (pmr_hca_stubs.c) rather than running rdma-core's code on the model's
 * objects. verbs.h's inline functions reach the model in two ways:
 * through the context's ops (ibv_post_send, ibv_post_recv, ibv_poll_cq)
 * and through struct verbs_context in front of the ibv_context
 * (___ibv_query_port -> query_port, ibv_query_device_ex ->
 * query_device_ex, and stubs for every other op); the rest call exported
 * functions the model defines (_ibv_query_gid_ex, _ibv_query_gid_table,
 * ibv_reg_mr and ibv_reg_mr_iova2, the targets of the ibv_reg_mr macro).
 *
 * One fabric: every device of the process (configured, pmr_hca_config.c;
 * by default one RoCE v2 device "hca0") is on it. A UD packet finds its
 * destination port by destination GID on RoCE and by DLID on InfiniBand,
 * then its QP by number.
 *
 * Strict where hardware is: a send-queue slot is freed only when a later
 * signalled completion is polled; the payload is read when the WQE is
 * executed (inside a poll, never inside the post); the GRH's undefined
 * bytes are random; an AH is busy while a WQE that is not yet freed uses
 * it.
 *
 * Progress needs no thread: every ibv_poll_cq() first executes the
 * pending send WQEs (unless in step mode); only QPs with pending WQEs are
 * visited. One recursive mutex guards the whole fabric: rdma-core is
 * thread-safe per object, the model more coarsely, which is enough for a
 * test device; recursive so that a test that crashed inside the model
 * (cmocka longjmps out of the signal handler) can still tear down.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP */
#endif

#include <endian.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>
#include <sys/timerfd.h>
#include <sys/queue.h>

#include <infiniband/verbs.h>

#include "hca_int.h"

/* verbs.h wraps these in macros; the model defines the functions. */
#undef ibv_query_port
#undef ibv_reg_mr
#undef ibv_reg_mr_iova

#define HCA_MAX_QP_WR 16384
#define HCA_MAX_CQE 32768
#define HCA_MAX_SGE 8
#define HCA_MAX_INLINE 256
#define HCA_MAX_QP 4096
#define HCA_QP_HASH 8192	/* buckets, > HCA_MAX_QP: chains stay short */
#define HCA_GRH 40
#define HCA_QKEY_PRIV 0x80000000u
#define HCA_MAX_MSG (1u << 31)	/* the ports' max_msg_sz */
#define HCA_MAX_RD_ATOM 128	/* max_qp_rd_atom, max_qp_init_rd_atom */
#define HCA_EVQ 256		/* async events queued per context */

struct hca_dev;

struct hca_cqe {
	struct ibv_wc wc;
	struct hca_qp *sq;	/* a send completion: frees SQ slots */
	uint64_t seq;		/* the WQE's sequence number */
};

struct hca_cq {
	struct ibv_cq cq;
	struct hca_cqe *ring;
	uint32_t size, head, count;
	uint32_t users;		/* QPs using it */
	uint32_t ev_got, ev_acked;	/* async events handed out, acked */
};

struct hca_pd {
	struct ibv_pd pd;
	uint32_t users;		/* MRs, QPs, AHs on it */
};

struct hca_mr {
	struct ibv_mr mr;
	unsigned int access;
	uint32_t nmw;		/* windows bound to it */
	struct hca_mr *next;
};

/* A type 2B memory window (issue 17). Bound: to one QP (the one whose
 * BIND_MW executed), over [addr, addr + len) of one MR, with access;
 * its rkey's index (high 24 bits) is fixed at allocation, the low 8 bits
 * are the last bind's. Unbound (free): no access at all. */
struct hca_mw {
	struct ibv_mw mw;
	int bound;
	struct hca_qp *qp;	/* bound to; NULL once that QP is gone */
	struct hca_mr *mr;
	uint32_t key;		/* the current rkey (the ibv_mw's is the
				 * allocation's: see exec_bind()) */
	uint64_t addr, len;
	unsigned int access;
	struct hca_mw *next;
};

struct hca_ah {
	struct ibv_ah ah;
	struct ibv_ah_attr attr;
	enum pmr_hca_gid_type sgid_type;	/* with a GRH */
	uint32_t uses;		/* WQEs holding it, not yet freed */
};

struct hca_swqe {
	uint64_t wr_id;
	unsigned int flags;
	enum ibv_wr_opcode opcode;
	uint32_t imm;
	int num_sge;
	struct ibv_sge sge[HCA_MAX_SGE];
	uint32_t inl_len;
	struct hca_ah *ah;
	uint32_t rqpn, qkey;
	uint64_t raddr;		/* RC: RDMA WRITE/READ; BIND_MW: addr */
	uint32_t rkey;		/* BIND_MW: the new rkey */
	/* BIND_MW: named by keys, not pointers, so that a window or MR
	 * freed before execution is found missing, not used. */
	uint32_t mw_rkey;	/* the ibv_mw's rkey at the post */
	uint32_t mr_lkey;	/* bind_info.mr's lkey (0: no MR) */
	uint64_t blen;		/* bind_info.length */
	unsigned int bacc;	/* bind_info.mw_access_flags */
	uint32_t inv;		/* LOCAL_INV, SEND_WITH_INV: the rkey */
	int retried;		/* READ: retried (pmr_hca_fault_read_retry) */
};

struct hca_rwqe {
	uint64_t wr_id;
	int num_sge;
	struct ibv_sge sge[HCA_MAX_SGE];
};

struct hca_qp {
	struct ibv_qp qp;
	struct hca_dev *dev;
	struct ibv_qp_cap cap;
	int sig_all;
	uint32_t qkey, sq_psn;
	uint16_t pkey_index;
	uint8_t port;
	struct hca_swqe *sq;
	uint8_t *inl;		/* cap.max_inline_data bytes per SQ slot */
	uint64_t sq_post, sq_exec, sq_free;
	struct hca_rwqe *rq;
	uint64_t rq_head, rq_tail;
	struct pmr_hca_counters cnt;
	struct hca_qp *next;	/* every QP, creation order */
	struct hca_qp *hnext;	/* the QPN hash bucket */
	int pending;		/* on the pending list */
	TAILQ_ENTRY(hca_qp) pnext;
	/* RC: the connection (INIT->RTR->RTS attributes). */
	unsigned int access;	/* qp_access_flags */
	enum ibv_mtu path_mtu;
	uint32_t dest_qpn, rq_psn;
	uint8_t max_dest_rd, max_rd, min_rnr_timer;
	uint8_t timeout, retry_cnt, rnr_retry;
	struct hca_ah av;	/* the primary path, as an AH */
	uint32_t rd_inuse;	/* responder: READs being answered */
	uint32_t rd_flight;	/* requester: READs in flight */
	uint32_t rnr_tries;	/* RNR NAKs for the head WQE */
	int stopped;		/* requester stopped by a READ's retry (rxe) */
	uint64_t pass;		/* last progress pass it stalled in */
	int comm_est;		/* a packet arrived in RTR (COMM_EST) */
	uint32_t ev_got, ev_acked;	/* async events handed out, acked */
};

TAILQ_HEAD(hca_qp_list, hca_qp);

/* A device: the ibv_device first, so that the list's pointers are it. */
struct hca_dev {
	struct ibv_device dev;
	struct pmr_hca_dev_config cfg;
	unsigned int index;
	struct pmr_hca_objects obj;
	struct pmr_hca_counters cnt;
	int fatal;		/* pmr_hca_device_fatal() */
};

/* The fabric: one, process-wide. */
static struct {
	pthread_mutex_t lock;
	int loaded;		/* the configuration is in devs[] */
	int listed;		/* ibv_get_device_list() handed them out */
	int bad;		/* the environment's spec is wrong */
	struct hca_dev devs[PMR_HCA_MAX_DEVICES];
	unsigned int ndev;
	struct hca_mr *mrs;
	struct hca_mw *mws;
	struct hca_qp *qps;	/* creation order */
	struct hca_qp *qp_hash[HCA_QP_HASH];
	struct hca_qp_list pend;	/* QPs with send WQEs to execute */
	uint32_t next_qpn, next_key, nqp;
	uint64_t rng;
	uint16_t ip_id;
	int step_mode;
	uint32_t f_drop, f_dup, f_fail;
	uint32_t f_rd_retry;	/* pmr_hca_fault_read_retry() */
	struct pmr_hca_counters cnt;
	struct hca_ctx *ctxs;	/* open contexts */
	uint64_t pass;		/* progress passes */
} hca = {
	.lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP,
	.pend = TAILQ_HEAD_INITIALIZER(hca.pend),
	.next_qpn = 0x11,
	.next_key = 0x100,
};

/* What a context's async fd waits for (ctx_sync). */
enum {
	HCA_ARMED_NO,		/* nothing: not readable */
	HCA_ARMED_WORK,		/* work: readable unless polled soon */
	HCA_ARMED_EVENT,	/* events: readable */
};

struct hca_ctx {
	struct hca_ctx *next;	/* every open context */
	struct hca_dev *dev;
	struct ibv_async_event evq[HCA_EVQ];	/* queued, not yet got */
	uint32_t ev_head, ev_count;
	int armed;		/* HCA_ARMED_*: what the timerfd waits for */
	int used;		/* ibv_get_async_event() was called */
	struct verbs_context vctx;	/* ends with the ibv_context */
};

static uint64_t
hca_rand(void)
{
	/* xorshift64*: deterministic for a given PMR_HCA_SEED */
	hca.rng ^= hca.rng >> 12;
	hca.rng ^= hca.rng << 25;
	hca.rng ^= hca.rng >> 27;
	return hca.rng * 0x2545f4914f6cdd1dull;
}

/* Make cfg (checked) the fabric's devices. */
static void
devs_set(const struct pmr_hca_dev_config *cfg, unsigned int n)
{
	unsigned int i;

	memset(hca.devs, 0, sizeof(hca.devs));
	for (i = 0; i < n; i++) {
		struct hca_dev *d = &hca.devs[i];

		d->cfg = cfg[i];
		d->index = i;
		d->dev.node_type = IBV_NODE_CA;
		d->dev.transport_type = IBV_TRANSPORT_IB;
		/* From cfg[], not d->cfg: the same object as the
		 * destination, which gcc's -Wrestrict flags. */
		snprintf(d->dev.name, sizeof(d->dev.name), "%s",
			cfg[i].name);
		/* No uverbs character device: the name says so. */
		snprintf(d->dev.dev_name, sizeof(d->dev.dev_name),
			"pmr_hca%u", i);
		snprintf(d->dev.dev_path, sizeof(d->dev.dev_path),
			"/nonexistent/pmr_hca/%s", cfg[i].name);
		snprintf(d->dev.ibdev_path, sizeof(d->dev.ibdev_path),
			"/nonexistent/pmr_hca/%s", cfg[i].name);
	}
	hca.ndev = n;
	hca.loaded = 1;
	hca.bad = 0;
}

/* Load the environment's configuration unless one is loaded. */
static void
hca_load(void)
{
	struct pmr_hca_dev_config cfg[PMR_HCA_MAX_DEVICES];
	char err[256];
	int n;

	if (hca.loaded || hca.bad)
		return;
	n = hca_config_env(cfg, PMR_HCA_MAX_DEVICES, err, sizeof(err));
	if (n < 0) {
		/* Strict: no devices rather than a guess, and say why. */
		fprintf(stderr, "pmr_hca: bad configuration: %s\n", err);
		hca.bad = 1;
		hca.ndev = 0;
		return;
	}
	devs_set(cfg, (unsigned int)n);
}

/*
 * Tries before lock() sleeps: the model is one device shared by every
 * polling thread, and a poll holds it for the work it runs (a 1 MiB READ
 * is tens of microseconds). Polling threads spin on it as they would on
 * a NIC's queue; sleeping at once made each wait a futex wake-up (on 2
 * cores, half the cycles of a READ benchmark went to the scheduler).
 */
#define HCA_LOCK_SPINS 20000

static void
lock(void)
{
	unsigned int i;

	for (i = 0; i < HCA_LOCK_SPINS; i++) {
		if (pthread_mutex_trylock(&hca.lock) == 0)
			break;
		__builtin_ia32_pause();
	}
	if (i == HCA_LOCK_SPINS)
		pthread_mutex_lock(&hca.lock);
	if (hca.rng == 0) {
		const char *s = getenv("PMR_HCA_SEED");

		hca.rng = s != NULL ? strtoull(s, NULL, 0) : 0;
		if (hca.rng == 0)
			hca.rng = 0x9e3779b97f4a7c15ull ^ (uint64_t)getpid();
	}
}

static void
unlock(void)
{
	pthread_mutex_unlock(&hca.lock);
}

static int
mtu_bytes(enum ibv_mtu m)
{
	return 128 << m;
}

static struct hca_dev *
ctx_dev(struct ibv_context *ctx)
{
	return (struct hca_dev *)ctx->device;
}

/* Port n (1-based) of d, or NULL. */
static struct pmr_hca_port_config *
dev_port(struct hca_dev *d, unsigned int n)
{
	if (n < 1 || n > d->cfg.nports)
		return NULL;
	return &d->cfg.port[n - 1];
}

static struct hca_dev *
dev_by_name(const char *name)
{
	unsigned int i;

	hca_load();
	for (i = 0; i < hca.ndev; i++)
		if (strcmp(hca.devs[i].cfg.name, name) == 0)
			return &hca.devs[i];
	return NULL;
}

/* Count an event on the QP, its device and the fabric. */
#define CNT(q, f) do { \
	(q)->cnt.f++; \
	(q)->dev->cnt.f++; \
	hca.cnt.f++; \
} while (0)

/* Count n (bytes) on the QP, its device and the fabric. */
#define CNTN(q, f, n) do { \
	(q)->cnt.f += (n); \
	(q)->dev->cnt.f += (n); \
	hca.cnt.f += (n); \
} while (0)

/* --- async events ----------------------------------------------------
 *
 * Each context queues its events; its async_fd (a timerfd, blocking
 * unless the application sets O_NONBLOCK, as rdma-core's) reads readable
 * while one is queued. The model executes send WQEs when the application
 * looks (ibv_poll_cq), so a context whose events are read
 * (ibv_get_async_event() called once) also reads readable once one of
 * its QPs has had work to execute for HCA_IDLE_WORK_NS (an RNR wait
 * excepted), and ibv_get_async_event() executes it first: an event the
 * work raises (CQ_ERR, QP_ACCESS_ERR) arrives without a CQ poll, as from
 * hardware. While the application polls, its polls execute the work well
 * within that time and the fd stays quiet: readable at once, it woke the
 * event reader (the nexus) at every post, a third thread contending for
 * the model with the two pollers on 2 cores (a 1 MiB READ benchmark ran
 * at 36% of memcpy, 80% without the reader).
 * An event handed out and not acked makes destroying its QP or CQ fail
 * with EBUSY (rdma-core blocks until the ack: in a test, a hang).
 */
#define HCA_IDLE_WORK_NS 1000000

static struct hca_ctx *
ctx_of(struct ibv_context *ctx)
{
	return (struct hca_ctx *)((uint8_t *)ctx -
		offsetof(struct hca_ctx, vctx.context));
}

/* Whether a QP of c has work the next poll would execute. */
static int
ctx_has_work(struct hca_ctx *c)
{
	struct hca_qp *q;

	TAILQ_FOREACH(q, &hca.pend, pnext)
		if (q->qp.context == &c->vctx.context && q->rnr_tries == 0 &&
		    !q->stopped)
			return 1;
	return 0;
}

/* The fd reads readable ns from now (1: at once; 0: not). Setting the
 * timer clears an expiry not yet read. */
static void
ctx_timer(struct hca_ctx *c, long ns)
{
	struct itimerspec it = {
		.it_value = { .tv_sec = ns / 1000000000,
			.tv_nsec = ns % 1000000000 },
	};

	(void)timerfd_settime(c->vctx.context.async_fd, 0, &it, NULL);
}

/*
 * Make the fd's readability what c has to say: events at once, work after
 * HCA_IDLE_WORK_NS. Lazy (strict 0) when work is done: the timer runs on,
 * and the reader it may wake finds nothing and stops it (strict 1); so a
 * poller posting and executing work makes no system call, once the timer
 * runs.
 */
static void
ctx_arm(struct hca_ctx *c, int strict)
{
	int want = c->ev_count > 0 ? HCA_ARMED_EVENT :
		c->used && !hca.step_mode && ctx_has_work(c) ?
		HCA_ARMED_WORK : HCA_ARMED_NO;

	if (want == c->armed && !(strict && want == HCA_ARMED_WORK))
		return;
	if (want == HCA_ARMED_NO && c->armed == HCA_ARMED_WORK && !strict)
		return;
	ctx_timer(c, want == HCA_ARMED_EVENT ? 1 :
		want == HCA_ARMED_WORK ? HCA_IDLE_WORK_NS : 0);
	c->armed = want;
}

static void
ctx_sync(struct hca_ctx *c)
{
	ctx_arm(c, 0);
}

static void
ctx_sync_all(void)
{
	struct hca_ctx *c;

	for (c = hca.ctxs; c != NULL; c = c->next)
		ctx_sync(c);
}

static void
ev_push(struct hca_ctx *c, enum ibv_event_type t, void *obj, int port)
{
	struct ibv_async_event *e;

	if (c->ev_count == HCA_EVQ) {
		c->dev->cnt.events_lost++;
		hca.cnt.events_lost++;
		return;
	}
	e = &c->evq[(c->ev_head + c->ev_count) % HCA_EVQ];
	memset(e, 0, sizeof(*e));
	e->event_type = t;
	if (obj != NULL)
		e->element.qp = obj;	/* a union of pointers */
	else
		e->element.port_num = port;
	c->ev_count++;
	c->dev->cnt.events++;
	hca.cnt.events++;
	ctx_sync(c);
}

static void
raise_dev(struct hca_dev *d, enum ibv_event_type t, int port)
{
	struct hca_ctx *c;

	for (c = hca.ctxs; c != NULL; c = c->next)
		if (c->dev == d)
			ev_push(c, t, NULL, port);
}

static void
raise_qp(struct hca_qp *q, enum ibv_event_type t)
{
	ev_push(ctx_of(q->qp.context), t, &q->qp, 0);
}

static void
raise_cq(struct ibv_cq *cq, enum ibv_event_type t)
{
	ev_push(ctx_of(cq->context), t, cq, 0);
}

static int
ev_is_qp(enum ibv_event_type t)
{
	return t == IBV_EVENT_QP_FATAL || t == IBV_EVENT_QP_REQ_ERR ||
		t == IBV_EVENT_QP_ACCESS_ERR || t == IBV_EVENT_COMM_EST ||
		t == IBV_EVENT_SQ_DRAINED || t == IBV_EVENT_PATH_MIG ||
		t == IBV_EVENT_PATH_MIG_ERR ||
		t == IBV_EVENT_QP_LAST_WQE_REACHED;
}

static int
ev_is_dev(enum ibv_event_type t)
{
	return t == IBV_EVENT_DEVICE_FATAL || t == IBV_EVENT_PORT_ACTIVE ||
		t == IBV_EVENT_PORT_ERR || t == IBV_EVENT_LID_CHANGE ||
		t == IBV_EVENT_PKEY_CHANGE || t == IBV_EVENT_SM_CHANGE ||
		t == IBV_EVENT_CLIENT_REREGISTER ||
		t == IBV_EVENT_GID_CHANGE;
}

/* Drop the queued (not yet got) events of obj: it is being destroyed,
 * as the kernel drops them. */
static void
ev_purge(struct hca_ctx *c, void *obj)
{
	uint32_t i, n = 0;

	for (i = 0; i < c->ev_count; i++) {
		struct ibv_async_event *e = &c->evq[(c->ev_head + i) %
			HCA_EVQ];

		if (!ev_is_dev(e->event_type) && e->element.qp == obj)
			continue;
		c->evq[(c->ev_head + n) % HCA_EVQ] = *e;
		n++;
	}
	c->ev_count = n;
	ctx_sync(c);
}

static unsigned int progress(unsigned int max);

HCA_EXPORT int
ibv_get_async_event(struct ibv_context *ctx, struct ibv_async_event *event)
{
	struct hca_ctx *c = ctx_of(ctx);

	for (;;) {
		struct pollfd pfd = { .fd = ctx->async_fd, .events = POLLIN };

		lock();
		c->used = 1;
		if (!hca.step_mode)
			progress(UINT32_MAX);
		if (c->ev_count > 0) {
			*event = c->evq[c->ev_head];
			c->ev_head = (c->ev_head + 1) % HCA_EVQ;
			c->ev_count--;
			if (ev_is_qp(event->event_type))
				((struct hca_qp *)event->element.qp)->ev_got++;
			else if (event->event_type == IBV_EVENT_CQ_ERR)
				((struct hca_cq *)event->element.cq)->ev_got++;
			ctx_arm(c, 1);
			unlock();
			return 0;
		}
		ctx_arm(c, 1);
		unlock();
		if ((fcntl(ctx->async_fd, F_GETFL) & O_NONBLOCK) != 0) {
			errno = EAGAIN;
			return -1;
		}
		/* Blocking, as rdma-core's read() of the fd. */
		(void)poll(&pfd, 1, -1);
	}
}

HCA_EXPORT void
ibv_ack_async_event(struct ibv_async_event *event)
{
	lock();
	if (ev_is_qp(event->event_type))
		((struct hca_qp *)event->element.qp)->ev_acked++;
	else if (event->event_type == IBV_EVENT_CQ_ERR)
		((struct hca_cq *)event->element.cq)->ev_acked++;
	unlock();
}

/* --- device, context, queries --------------------------------------- */

HCA_EXPORT struct ibv_device **
ibv_get_device_list(int *num)
{
	struct ibv_device **l;
	unsigned int i, n;

	lock();
	hca_load();
	if (hca.bad) {
		unlock();
		errno = EINVAL;
		return NULL;
	}
	hca.listed = 1;
	n = hca.ndev;
	l = calloc(n + 1, sizeof(*l));
	for (i = 0; l != NULL && i < n; i++)
		l[i] = &hca.devs[i].dev;
	unlock();
	if (l == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	if (num != NULL)
		*num = (int)n;
	return l;
}

HCA_EXPORT void
ibv_free_device_list(struct ibv_device **list)
{
	free(list);
}

HCA_EXPORT const char *
ibv_get_device_name(struct ibv_device *device)
{
	return device->name;
}

static uint64_t
dev_guid(const struct hca_dev *d)
{
	/* hca0 keeps part 1's GUID */
	return 0x02000000000000a1ull + d->index;
}

HCA_EXPORT __be64
ibv_get_device_guid(struct ibv_device *device)
{
	return htobe64(dev_guid((struct hca_dev *)device));
}

HCA_EXPORT int
ibv_get_device_index(struct ibv_device *device)
{
	return (int)((struct hca_dev *)device)->index;
}

static int hca_query_port(struct ibv_context *ctx, uint8_t port,
	struct ibv_port_attr *pa, size_t len);
static int hca_query_device_ex(struct ibv_context *ctx,
	const struct ibv_query_device_ex_input *in,
	struct ibv_device_attr_ex *attr, size_t len);
static int hca_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
	struct ibv_send_wr **bad);
static int hca_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
	struct ibv_recv_wr **bad);
static int hca_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc);
static struct ibv_mw *hca_alloc_mw(struct ibv_pd *pd,
	enum ibv_mw_type type);
static int hca_dealloc_mw(struct ibv_mw *mw);

static int
hca_req_notify_cq(struct ibv_cq *cq, int solicited)
{
	(void)cq;
	(void)solicited;
	/* Completion channels are not modelled (issue 16). */
	return EOPNOTSUPP;
}

HCA_EXPORT struct ibv_context *
ibv_open_device(struct ibv_device *device)
{
	struct hca_ctx *c;
	struct ibv_context *ctx;
	unsigned int i;

	lock();
	for (i = 0; i < hca.ndev; i++)
		if (device == &hca.devs[i].dev)
			break;
	if (i == hca.ndev) {
		unlock();
		errno = ENODEV;
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (c == NULL) {
		unlock();
		errno = ENOMEM;
		return NULL;
	}
	hca.devs[i].obj.contexts++;
	c->dev = &hca.devs[i];
	c->next = hca.ctxs;
	hca.ctxs = c;
	unlock();
	c->vctx.sz = sizeof(c->vctx);
	hca_stub_vctx(&c->vctx);
	c->vctx.query_port = hca_query_port;
	c->vctx.query_device_ex = hca_query_device_ex;
	ctx = &c->vctx.context;
	ctx->device = device;
	ctx->cmd_fd = -1;
	/* A real fd, readable while events are queued (ctx_sync);
	 * blocking, as rdma-core's (an application sets O_NONBLOCK
	 * itself). */
	ctx->async_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	ctx->num_comp_vectors = 1;
	pthread_mutex_init(&ctx->mutex, NULL);
	ctx->abi_compat = __VERBS_ABI_IS_EXTENDED;
	ctx->ops.post_send = hca_post_send;
	ctx->ops.post_recv = hca_post_recv;
	ctx->ops.poll_cq = hca_poll_cq;
	ctx->ops.req_notify_cq = hca_req_notify_cq;
	/* Windows: ibv_alloc_mw() and ibv_dealloc_mw() are inline and
	 * call these; bind_mw (type 1 only) stays a stub, and verbs.h
	 * refuses a type 2 window before reaching it (EINVAL). */
	ctx->ops.alloc_mw = hca_alloc_mw;
	ctx->ops.dealloc_mw = hca_dealloc_mw;
	return ctx;
}

HCA_EXPORT int
ibv_close_device(struct ibv_context *ctx)
{
	struct hca_ctx *c = ctx_of(ctx), **pp;

	lock();
	ctx_dev(ctx)->obj.contexts--;
	for (pp = &hca.ctxs; *pp != NULL; pp = &(*pp)->next)
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	unlock();
	if (ctx->async_fd >= 0)
		close(ctx->async_fd);
	pthread_mutex_destroy(&ctx->mutex);
	free(c);
	return 0;
}

static void
fill_device_attr(struct hca_dev *d, struct ibv_device_attr *a)
{
	memset(a, 0, sizeof(*a));
	snprintf(a->fw_ver, sizeof(a->fw_ver), "pmr_hca 1");
	a->node_guid = htobe64(dev_guid(d));
	a->sys_image_guid = a->node_guid;
	a->max_mr_size = UINT64_MAX;
	a->page_size_cap = 0xfffff000;
	/* rxe's RXE_VENDOR_ID with its personality; none otherwise, so
	 * that a driver can tell the two apart as it tells rxe. */
	a->vendor_id = d->cfg.rxe ? 0xffffff : 0;
	a->max_qp = HCA_MAX_QP;
	a->max_qp_wr = HCA_MAX_QP_WR;
	a->device_cap_flags = IBV_DEVICE_RC_RNR_NAK_GEN |
		IBV_DEVICE_PORT_ACTIVE_EVENT;
	a->atomic_cap = IBV_ATOMIC_NONE;	/* atomics: not modelled */
	/* Windows only when configured (mw=1; type 2B only): a device
	 * advertises what it has. */
	if (d->cfg.mw) {
		a->device_cap_flags |= IBV_DEVICE_MEM_WINDOW_TYPE_2B;
		a->max_mw = 1 << 16;
	}
	a->max_sge = HCA_MAX_SGE;
	a->max_sge_rd = HCA_MAX_SGE;
	a->max_cq = 16384;
	a->max_cqe = HCA_MAX_CQE;
	a->max_mr = 1 << 20;
	a->max_pd = 1 << 16;
	a->max_qp_rd_atom = HCA_MAX_RD_ATOM;
	a->max_qp_init_rd_atom = HCA_MAX_RD_ATOM;
	a->max_res_rd_atom = HCA_MAX_RD_ATOM * HCA_MAX_QP;
	a->max_ah = 1 << 20;
	a->max_pkeys = 1;
	a->local_ca_ack_delay = 15;
	a->phys_port_cnt = d->cfg.nports;
}

HCA_EXPORT int
ibv_query_device(struct ibv_context *ctx, struct ibv_device_attr *a)
{
	lock();
	fill_device_attr(ctx_dev(ctx), a);
	unlock();
	return 0;
}

static int
hca_query_device_ex(struct ibv_context *ctx,
	const struct ibv_query_device_ex_input *in,
	struct ibv_device_attr_ex *attr, size_t len)
{
	struct ibv_device_attr_ex a;

	(void)in;
	memset(&a, 0, sizeof(a));
	lock();
	fill_device_attr(ctx_dev(ctx), &a.orig_attr);
	unlock();
	memcpy(attr, &a, len < sizeof(a) ? len : sizeof(a));
	return 0;
}

static int
hca_query_port(struct ibv_context *ctx, uint8_t port,
	struct ibv_port_attr *pa, size_t len)
{
	struct pmr_hca_port_config *p;
	struct ibv_port_attr a;

	lock();
	p = dev_port(ctx_dev(ctx), port);
	if (p == NULL) {
		unlock();
		return EINVAL;
	}
	memset(&a, 0, sizeof(a));
	a.state = p->state;
	a.max_mtu = p->max_mtu;
	a.active_mtu = p->active_mtu;
	a.gid_tbl_len = PMR_HCA_GID_TABLE;
	a.port_cap_flags = 0;
	a.max_msg_sz = HCA_MAX_MSG;
	a.pkey_tbl_len = 1;
	a.active_width = 2;	/* 4x */
	a.active_speed = 32;	/* EDR-ish */
	a.phys_state = p->state == IBV_PORT_DOWN ? 3 : 5; /* Disabled, Up */
	a.link_layer = p->link_layer;
	if (p->link_layer == IBV_LINK_LAYER_INFINIBAND) {
		a.lid = p->lid;
		a.sm_lid = 1;
		a.port_cap_flags = IBV_PORT_CM_SUP;
	}
	unlock();
	memcpy(pa, &a, len < sizeof(a) ? len : sizeof(a));
	return 0;
}

/* The compat symbol ___ibv_query_port falls back to without a
 * verbs_context op; the model always has the op, kept for completeness. */
HCA_EXPORT int
ibv_query_port(struct ibv_context *ctx, uint8_t port,
	struct _compat_ibv_port_attr *pa)
{
	return hca_query_port(ctx, port, (struct ibv_port_attr *)pa,
		offsetof(struct ibv_port_attr, port_cap_flags2));
}

static enum ibv_gid_type
gid_type_ibv(enum pmr_hca_gid_type t)
{
	return t == PMR_HCA_GID_IB ? IBV_GID_TYPE_IB :
		t == PMR_HCA_GID_ROCE_V1 ? IBV_GID_TYPE_ROCE_V1 :
		IBV_GID_TYPE_ROCE_V2;
}

/* The GID entry at idx: 0, EINVAL past the table, ENODATA if empty. */
static int
gid_entry(struct hca_dev *d, uint32_t port, uint32_t idx,
	struct ibv_gid_entry *e)
{
	struct pmr_hca_port_config *p = dev_port(d, port);

	if (p == NULL || idx >= PMR_HCA_GID_TABLE)
		return EINVAL;
	if (p->gid[idx].type == PMR_HCA_GID_EMPTY)
		return ENODATA;
	memset(e, 0, sizeof(*e));
	e->gid = p->gid[idx].gid;
	e->gid_index = idx;
	e->port_num = port;
	e->gid_type = gid_type_ibv(p->gid[idx].type);
	e->ndev_ifindex = 0;
	return 0;
}

HCA_EXPORT int
_ibv_query_gid_ex(struct ibv_context *ctx, uint32_t port, uint32_t idx,
	struct ibv_gid_entry *entry, uint32_t flags, size_t entry_size)
{
	struct ibv_gid_entry e;
	int rc;

	if (flags != 0 || entry_size < sizeof(e))
		return EINVAL;
	lock();
	rc = gid_entry(ctx_dev(ctx), port, idx, &e);
	unlock();
	if (rc == 0)
		*entry = e;
	return rc;
}

HCA_EXPORT ssize_t
_ibv_query_gid_table(struct ibv_context *ctx, struct ibv_gid_entry *entries,
	size_t max, uint32_t flags, size_t entry_size)
{
	struct hca_dev *d = ctx_dev(ctx);
	ssize_t n = 0;
	uint32_t i, port;

	if (flags != 0 || entry_size < sizeof(*entries))
		return -EINVAL;
	lock();
	for (port = 1; port <= d->cfg.nports; port++)
		for (i = 0; i < PMR_HCA_GID_TABLE; i++) {
			struct ibv_gid_entry e;

			if (gid_entry(d, port, i, &e) != 0)
				continue;
			if ((size_t)n == max) {
				unlock();
				return -EINVAL;
			}
			memcpy((uint8_t *)entries + (size_t)n * entry_size,
				&e, sizeof(e));
			n++;
		}
	unlock();
	return n;
}

HCA_EXPORT int
ibv_query_gid(struct ibv_context *ctx, uint8_t port, int idx,
	union ibv_gid *gid)
{
	struct ibv_gid_entry e;
	int rc;

	if (idx < 0)
		return -1;
	lock();
	rc = gid_entry(ctx_dev(ctx), port, (uint32_t)idx, &e);
	unlock();
	if (rc == ENODATA) {
		/* libibverbs: an empty entry reads as the zero GID */
		memset(gid, 0, sizeof(*gid));
		return 0;
	}
	if (rc != 0)
		return -1;
	*gid = e.gid;
	return 0;
}

/* rdma-core's private ibv_query_gid_type: 0 IB/RoCE v1, 1 RoCE v2. */
HCA_EXPORT int
ibv_query_gid_type(struct ibv_context *ctx, uint8_t port, unsigned int idx,
	int *type)
{
	struct ibv_gid_entry e;
	int rc;

	lock();
	rc = gid_entry(ctx_dev(ctx), port, idx, &e);
	unlock();
	if (rc != 0) {
		errno = rc;
		return -1;
	}
	*type = e.gid_type == IBV_GID_TYPE_ROCE_V2 ? 1 : 0;
	return 0;
}

HCA_EXPORT int
ibv_query_pkey(struct ibv_context *ctx, uint8_t port, int idx,
	__be16 *pkey)
{
	int ok;

	lock();
	ok = dev_port(ctx_dev(ctx), port) != NULL && idx == 0;
	unlock();
	if (!ok)
		return -1;
	*pkey = htobe16(0xffff);
	return 0;
}

HCA_EXPORT int
ibv_get_pkey_index(struct ibv_context *ctx, uint8_t port, __be16 pkey)
{
	int ok;

	lock();
	ok = dev_port(ctx_dev(ctx), port) != NULL;
	unlock();
	/* One P_Key, the default full-membership one, at index 0. */
	if (ok && (be16toh(pkey) & 0x7fff) == 0x7fff)
		return 0;
	errno = ok ? ENOENT : EINVAL;
	return -1;
}

/* --- PD, MR ---------------------------------------------------------- */

HCA_EXPORT struct ibv_pd *
ibv_alloc_pd(struct ibv_context *ctx)
{
	struct hca_pd *p = calloc(1, sizeof(*p));

	if (p == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	p->pd.context = ctx;
	lock();
	p->pd.handle = hca.next_key++;
	ctx_dev(ctx)->obj.pds++;
	unlock();
	return &p->pd;
}

HCA_EXPORT int
ibv_dealloc_pd(struct ibv_pd *pd)
{
	struct hca_pd *p = (struct hca_pd *)pd;

	lock();
	if (p->users != 0) {
		unlock();
		return EBUSY;
	}
	ctx_dev(pd->context)->obj.pds--;
	unlock();
	free(p);
	return 0;
}

HCA_EXPORT struct ibv_mr *
ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length,
	uint64_t iova, unsigned int access)
{
	struct hca_mr *m;
	uint32_t key;

	/* The spec: remote write or atomic access needs local write. */
	if ((access & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) !=
			0 && (access & IBV_ACCESS_LOCAL_WRITE) == 0) {
		errno = EINVAL;
		return NULL;
	}
	if (addr == NULL && length != 0) {
		errno = EINVAL;
		return NULL;
	}
	m = calloc(1, sizeof(*m));
	if (m == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	lock();
	/* Keys: an index in the high 24 bits, a varying low byte (as
	 * hardware), never 0. */
	key = hca.next_key++ << 8 | (uint32_t)(hca_rand() & 0xff);
	m->mr.context = pd->context;
	m->mr.pd = pd;
	m->mr.addr = (void *)(uintptr_t)iova;
	m->mr.length = length;
	m->mr.handle = key;
	m->mr.lkey = key;
	m->mr.rkey = key;
	m->access = access;
	m->next = hca.mrs;
	hca.mrs = m;
	((struct hca_pd *)pd)->users++;
	ctx_dev(pd->context)->obj.mrs++;
	unlock();
	(void)addr;
	return &m->mr;
}

HCA_EXPORT struct ibv_mr *
ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)
{
	return ibv_reg_mr_iova2(pd, addr, length, (uintptr_t)addr,
		(unsigned int)access);
}

HCA_EXPORT struct ibv_mr *
ibv_reg_mr_iova(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova,
	int access)
{
	return ibv_reg_mr_iova2(pd, addr, length, iova, (unsigned int)access);
}

HCA_EXPORT int
ibv_dereg_mr(struct ibv_mr *mr)
{
	struct hca_mr **pp;

	lock();
	if (((struct hca_mr *)mr)->nmw != 0) {
		/* The spec: an MR with windows bound to it stays (rxe:
		 * EINVAL). */
		unlock();
		return EBUSY;
	}
	for (pp = &hca.mrs; *pp != NULL; pp = &(*pp)->next)
		if (&(*pp)->mr == mr) {
			*pp = (*pp)->next;
			break;
		}
	((struct hca_pd *)mr->pd)->users--;
	ctx_dev(mr->context)->obj.mrs--;
	unlock();
	free(mr);
	return 0;
}

/* The MR of pd with lkey covering [addr, addr + len), or NULL. */
static struct hca_mr *
mr_find(struct ibv_pd *pd, uint32_t lkey, uint64_t addr, uint64_t len)
{
	struct hca_mr *m;

	for (m = hca.mrs; m != NULL; m = m->next) {
		uint64_t b = (uintptr_t)m->mr.addr;

		if (m->mr.lkey != lkey || m->mr.pd != pd)
			continue;
		if (addr < b || addr - b > m->mr.length ||
				len > m->mr.length - (addr - b))
			return NULL;
		return m;
	}
	return NULL;
}

/* The MR with that lkey, on any PD, or NULL. */
static struct hca_mr *
mr_by_lkey(uint32_t lkey)
{
	struct hca_mr *m;

	for (m = hca.mrs; m != NULL; m = m->next)
		if (m->mr.lkey == lkey)
			return m;
	return NULL;
}

/* --- memory windows (issue 17) ----------------------------------------
 *
 * Type 2B only, and only on a device configured mw=1. A window is
 * allocated unbound; a BIND_MW WQE, executed in send-queue order, binds
 * it to the QP that executed it; LOCAL_INV on that QP, or a
 * SEND_WITH_INV arriving at it, unbinds it. MR and window keys share one
 * index space (the high 24 bits), so that an R_Key's index says which of
 * the two it names.
 */

/* The window whose rkey has rkey's index (any low byte), or NULL. */
static struct hca_mw *
mw_by_rkey(uint32_t rkey)
{
	struct hca_mw *m;

	for (m = hca.mws; m != NULL; m = m->next)
		if ((m->mw.rkey >> 8) == (rkey >> 8))
			return m;
	return NULL;
}

static void
mw_unbind(struct hca_mw *m)
{
	if (m->mr != NULL)
		m->mr->nmw--;
	m->bound = 0;
	m->qp = NULL;
	m->mr = NULL;
	m->addr = 0;
	m->len = 0;
	m->access = 0;
}

static struct ibv_mw *
hca_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	struct hca_dev *d;
	struct hca_mw *m;

	lock();
	d = ctx_dev(pd->context);
	if (!d->cfg.mw || type != IBV_MW_TYPE_2) {
		/* Not configured, or type 1 (not advertised): as a
		 * device without them. */
		unlock();
		errno = type == IBV_MW_TYPE_1 || type == IBV_MW_TYPE_2 ?
			EOPNOTSUPP : EINVAL;
		return NULL;
	}
	m = calloc(1, sizeof(*m));
	if (m == NULL) {
		unlock();
		errno = ENOMEM;
		return NULL;
	}
	m->mw.context = pd->context;
	m->mw.pd = pd;
	m->mw.type = type;
	m->mw.rkey = hca.next_key++ << 8 | (uint32_t)(hca_rand() & 0xff);
	m->mw.handle = m->mw.rkey;
	m->key = m->mw.rkey;
	m->next = hca.mws;
	hca.mws = m;
	((struct hca_pd *)pd)->users++;
	d->obj.mws++;
	unlock();
	return &m->mw;
}

/* A bound window may be freed: it is unbound first (rxe too). WQEs
 * naming it that are not yet executed find it gone (MW_BIND_ERR). */
static int
hca_dealloc_mw(struct ibv_mw *mw)
{
	struct hca_mw *m = (struct hca_mw *)mw, **pp;

	lock();
	for (pp = &hca.mws; *pp != NULL; pp = &(*pp)->next)
		if (*pp == m) {
			*pp = m->next;
			break;
		}
	mw_unbind(m);
	((struct hca_pd *)mw->pd)->users--;
	ctx_dev(mw->context)->obj.mws--;
	unlock();
	free(m);
	return 0;
}

/* --- CQ -------------------------------------------------------------- */

HCA_EXPORT struct ibv_cq *
ibv_create_cq(struct ibv_context *ctx, int cqe, void *cq_context,
	struct ibv_comp_channel *channel, int comp_vector)
{
	struct hca_cq *c;

	(void)comp_vector;
	if (cqe < 1 || cqe > HCA_MAX_CQE || channel != NULL) {
		errno = channel != NULL ? EOPNOTSUPP : EINVAL;
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (c != NULL)
		c->ring = calloc((size_t)cqe, sizeof(*c->ring));
	if (c == NULL || c->ring == NULL) {
		free(c);
		errno = ENOMEM;
		return NULL;
	}
	c->size = (uint32_t)cqe;
	lock();
	ctx_dev(ctx)->obj.cqs++;
	unlock();
	c->cq.context = ctx;
	c->cq.cq_context = cq_context;
	c->cq.cqe = cqe;
	pthread_mutex_init(&c->cq.mutex, NULL);
	pthread_cond_init(&c->cq.cond, NULL);
	return &c->cq;
}

HCA_EXPORT int
ibv_destroy_cq(struct ibv_cq *cq)
{
	struct hca_cq *c = (struct hca_cq *)cq;

	lock();
	if (c->users != 0 || c->ev_got != c->ev_acked) {
		/* In use, or an async event on it not acked (rdma-core
		 * would block until it is). */
		unlock();
		return EBUSY;
	}
	ev_purge(ctx_of(cq->context), cq);
	ctx_dev(cq->context)->obj.cqs--;
	unlock();
	pthread_mutex_destroy(&cq->mutex);
	pthread_cond_destroy(&cq->cond);
	free(c->ring);
	free(c);
	return 0;
}

static void
cq_push(struct hca_cq *c, const struct ibv_wc *wc, struct hca_qp *sq,
	uint64_t seq)
{
	struct hca_cqe *e;

	if (c->count == c->size) {
		/* Hardware raises a CQ error; the completion is lost (and
		 * with it, for a send, the slots it would free). One event
		 * per lost completion, as rxe. */
		hca.cnt.cq_overrun++;
		raise_cq(&c->cq, IBV_EVENT_CQ_ERR);
		return;
	}
	e = &c->ring[(c->head + c->count) % c->size];
	e->wc = *wc;
	e->sq = sq;
	e->seq = seq;
	c->count++;
}

/* Drop the CQEs of qp from c (QP reset or destroyed), keeping order. */
static void
cq_purge(struct hca_cq *c, struct hca_qp *qp)
{
	uint32_t i, n = 0;

	for (i = 0; i < c->count; i++) {
		struct hca_cqe *e = &c->ring[(c->head + i) % c->size];

		if (e->wc.qp_num == qp->qp.qp_num)
			continue;
		c->ring[(c->head + n) % c->size] = *e;
		n++;
	}
	c->count = n;
}

/* --- AH -------------------------------------------------------------- */

HCA_EXPORT struct ibv_ah *
ibv_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	struct hca_dev *d = ctx_dev(pd->context);
	struct pmr_hca_port_config *p;
	struct hca_ah *a;
	struct ibv_gid_entry e;
	enum pmr_hca_gid_type t = PMR_HCA_GID_EMPTY;
	int rc = 0;

	lock();
	p = dev_port(d, attr->port_num);
	if (p == NULL) {
		rc = EINVAL;
	} else if (p->link_layer == IBV_LINK_LAYER_ETHERNET) {
		/* RoCE needs a GRH in every AH. */
		if (!attr->is_global)
			rc = EINVAL;
	} else if (attr->dlid == 0 || attr->dlid > 0xbfff) {
		/* InfiniBand routes by DLID: a unicast one (the model has
		 * no multicast). */
		rc = EINVAL;
	}
	if (rc == 0 && attr->is_global) {
		rc = gid_entry(d, attr->port_num, attr->grh.sgid_index, &e);
		if (rc == 0)
			t = p->gid[attr->grh.sgid_index].type;
	}
	unlock();
	if (rc != 0) {
		errno = rc;
		return NULL;
	}
	a = calloc(1, sizeof(*a));
	if (a == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	a->ah.context = pd->context;
	a->ah.pd = pd;
	a->attr = *attr;
	a->sgid_type = t;
	lock();
	a->ah.handle = hca.next_key++;
	((struct hca_pd *)pd)->users++;
	d->obj.ahs++;
	unlock();
	return &a->ah;
}

HCA_EXPORT int
ibv_destroy_ah(struct ibv_ah *ah)
{
	struct hca_ah *a = (struct hca_ah *)ah;

	lock();
	if (a->uses != 0) {
		/* The AH must outlive the WQEs using it: hardware reads the
		 * address vector when it executes the WQE. */
		unlock();
		return EBUSY;
	}
	((struct hca_pd *)ah->pd)->users--;
	ctx_dev(ah->context)->obj.ahs--;
	unlock();
	free(a);
	return 0;
}

/* --- QP -------------------------------------------------------------- */

static struct hca_qp *
qp_by_num(uint32_t qpn)
{
	struct hca_qp *q;

	for (q = hca.qp_hash[qpn % HCA_QP_HASH]; q != NULL; q = q->hnext)
		if (q->qp.qp_num == qpn)
			return q;
	return NULL;
}

/* Work to execute: on the pending list, once, in arrival order. */
static void
pend_add(struct hca_qp *q)
{
	if (!q->pending) {
		TAILQ_INSERT_TAIL(&hca.pend, q, pnext);
		q->pending = 1;
		if (ctx_of(q->qp.context)->used)
			ctx_sync(ctx_of(q->qp.context));
	}
}

static void
pend_del(struct hca_qp *q)
{
	if (q->pending) {
		TAILQ_REMOVE(&hca.pend, q, pnext);
		q->pending = 0;
		if (ctx_of(q->qp.context)->used)
			ctx_sync(ctx_of(q->qp.context));
	}
}

HCA_EXPORT struct ibv_qp *
ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *ia)
{
	struct hca_qp *q;
	struct ibv_qp_cap cap = ia->cap;
	uint32_t qpn;

	if (ia->qp_type != IBV_QPT_UD && ia->qp_type != IBV_QPT_RC) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (ctx_dev(pd->context)->fatal) {
		errno = EIO;
		return NULL;
	}
	if (ia->srq != NULL) {
		/* No SRQ can exist: ibv_create_srq is not modelled. */
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (ia->send_cq == NULL || ia->recv_cq == NULL ||
			cap.max_send_wr > HCA_MAX_QP_WR ||
			cap.max_recv_wr > HCA_MAX_QP_WR ||
			cap.max_send_sge > HCA_MAX_SGE ||
			cap.max_recv_sge > HCA_MAX_SGE ||
			cap.max_inline_data > HCA_MAX_INLINE) {
		errno = EINVAL;
		return NULL;
	}
	/* Exactly as asked, at least one of each: a driver that relies on
	 * a provider's rounding up overflows here. */
	if (cap.max_send_wr == 0)
		cap.max_send_wr = 1;
	if (cap.max_recv_wr == 0)
		cap.max_recv_wr = 1;
	if (cap.max_send_sge == 0)
		cap.max_send_sge = 1;
	if (cap.max_recv_sge == 0)
		cap.max_recv_sge = 1;
	q = calloc(1, sizeof(*q));
	if (q == NULL)
		goto nomem;
	q->sq = calloc(cap.max_send_wr, sizeof(*q->sq));
	q->rq = calloc(cap.max_recv_wr, sizeof(*q->rq));
	q->inl = calloc(cap.max_send_wr, cap.max_inline_data + 1);
	if (q->sq == NULL || q->rq == NULL || q->inl == NULL)
		goto nomem;
	q->cap = cap;
	q->sig_all = ia->sq_sig_all;
	q->dev = ctx_dev(pd->context);
	q->qp.context = pd->context;
	q->qp.qp_context = ia->qp_context;
	q->qp.pd = pd;
	q->qp.send_cq = ia->send_cq;
	q->qp.recv_cq = ia->recv_cq;
	q->qp.qp_type = ia->qp_type;
	q->qp.state = IBV_QPS_RESET;
	pthread_mutex_init(&q->qp.mutex, NULL);
	pthread_cond_init(&q->qp.cond, NULL);
	lock();
	if (hca.nqp == HCA_MAX_QP) {
		unlock();
		goto nomem;
	}
	/* QPNs are unique over the fabric (a device's QPs are found by
	 * (port, QPN) anyway); never 0 or 1, never one in use. */
	do {
		qpn = hca.next_qpn++ & 0xffffff;
	} while (qpn < 2 || qp_by_num(qpn) != NULL);
	hca.nqp++;
	q->qp.qp_num = qpn;
	q->qp.handle = qpn;
	q->hnext = hca.qp_hash[qpn % HCA_QP_HASH];
	hca.qp_hash[qpn % HCA_QP_HASH] = q;
	q->dev->obj.qps++;
	((struct hca_pd *)pd)->users++;
	((struct hca_cq *)ia->send_cq)->users++;
	((struct hca_cq *)ia->recv_cq)->users++;
	{
		struct hca_qp **pp = &hca.qps;

		while (*pp != NULL)
			pp = &(*pp)->next;
		*pp = q;
	}
	unlock();
	ia->cap = cap;
	return &q->qp;
nomem:
	if (q != NULL) {
		free(q->sq);
		free(q->rq);
		free(q->inl);
	}
	free(q);
	errno = ENOMEM;
	return NULL;
}

/* Free SQ slots up to and including seq; releases their AHs. */
static void
sq_release(struct hca_qp *q, uint64_t upto)
{
	while (q->sq_free < upto && q->sq_free < q->sq_exec) {
		struct hca_swqe *w = &q->sq[q->sq_free % q->cap.max_send_wr];

		if (w->ah != NULL)
			w->ah->uses--;
		w->ah = NULL;
		q->sq_free++;
	}
}

static enum ibv_wc_opcode
wc_opcode(enum ibv_wr_opcode op)
{
	switch (op) {
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		return IBV_WC_RDMA_WRITE;
	case IBV_WR_RDMA_READ:
		return IBV_WC_RDMA_READ;
	case IBV_WR_BIND_MW:
		return IBV_WC_BIND_MW;
	case IBV_WR_LOCAL_INV:
		return IBV_WC_LOCAL_INV;
	default:
		return IBV_WC_SEND;
	}
}

static uint32_t
sge_len(const struct ibv_sge *sge, int n)
{
	uint64_t len = 0;
	int i;

	for (i = 0; i < n; i++)
		len += sge[i].length;
	return len > UINT32_MAX ? UINT32_MAX : (uint32_t)len;
}

/*
 * RC READ responses. READs executed back to back are in flight together,
 * up to the requester's max_rd_atomic; their responses land (and their
 * completions are queued, in order) when the flight ends: at the next
 * WQE that is not a READ, at the cap, or when the QP has nothing more to
 * execute in this pass. While in flight, each holds one of the
 * responder's max_dest_rd_atomic credits. push 0: no completions (to
 * RESET, destroy).
 */
static void
flight_drain(struct hca_qp *q, int push)
{
	struct hca_qp *r = q->rd_flight > 0 ? qp_by_num(q->dest_qpn) : NULL;
	uint64_t i;

	for (i = q->sq_exec - q->rd_flight; i < q->sq_exec; i++) {
		struct hca_swqe *w = &q->sq[i % q->cap.max_send_wr];
		struct ibv_wc wc;

		if (r != NULL && r->rd_inuse > 0)
			r->rd_inuse--;
		if (!push || (w->flags & IBV_SEND_SIGNALED) == 0)
			continue;
		memset(&wc, 0, sizeof(wc));
		wc.wr_id = w->wr_id;
		wc.status = IBV_WC_SUCCESS;
		wc.opcode = IBV_WC_RDMA_READ;
		wc.byte_len = sge_len(w->sge, w->num_sge);
		wc.qp_num = q->qp.qp_num;
		cq_push((struct hca_cq *)q->qp.send_cq, &wc, q, i + 1);
	}
	q->rd_flight = 0;
}

/* Is a READ in q's flight retried (pmr_hca_fault_read_retry())? */
static int
flight_retried(const struct hca_qp *q)
{
	uint64_t i;

	for (i = q->sq_exec - q->rd_flight; i < q->sq_exec; i++)
		if (q->sq[i % q->cap.max_send_wr].retried)
			return 1;
	return 0;
}

/* Throw away every WQE without completions (to RESET, destroy). */
static void
qp_discard(struct hca_qp *q)
{
	flight_drain(q, 0);
	cq_purge((struct hca_cq *)q->qp.send_cq, q);
	if (q->qp.recv_cq != q->qp.send_cq)
		cq_purge((struct hca_cq *)q->qp.recv_cq, q);
	q->sq_exec = q->sq_post;
	sq_release(q, q->sq_post);
	q->rq_head = q->rq_tail;
	q->rd_inuse = 0;
	q->rnr_tries = 0;
	q->comm_est = 0;
	q->stopped = 0;
	pend_del(q);
}

static void
flush_wc(struct ibv_wc *wc, struct hca_qp *q, uint64_t wr_id,
	enum ibv_wc_opcode op)
{
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = wr_id;
	wc->status = IBV_WC_WR_FLUSH_ERR;
	wc->opcode = op;
	wc->qp_num = q->qp.qp_num;
}

/* Move to ERR: READs whose responses arrived complete first (none of a
 * stopped requester's: they flush), then every outstanding WQE completes
 * WR_FLUSH_ERR. */
static void
qp_to_err(struct hca_qp *q)
{
	struct ibv_wc wc;

	if (q->stopped) {
		uint32_t k = q->rd_flight;

		flight_drain(q, 0);
		q->sq_exec -= k;
		q->stopped = 0;
	}
	flight_drain(q, 1);
	q->qp.state = IBV_QPS_ERR;
	q->rd_inuse = 0;
	q->rnr_tries = 0;
	while (q->rq_head != q->rq_tail) {
		struct hca_rwqe *r = &q->rq[q->rq_head % q->cap.max_recv_wr];

		flush_wc(&wc, q, r->wr_id, IBV_WC_RECV);
		cq_push((struct hca_cq *)q->qp.recv_cq, &wc, NULL, 0);
		q->rq_head++;
	}
	while (q->sq_exec != q->sq_post) {
		struct hca_swqe *w = &q->sq[q->sq_exec % q->cap.max_send_wr];

		flush_wc(&wc, q, w->wr_id, wc_opcode(w->opcode));
		q->sq_exec++;
		cq_push((struct hca_cq *)q->qp.send_cq, &wc, q, q->sq_exec);
	}
	pend_del(q);
}

HCA_EXPORT int
ibv_destroy_qp(struct ibv_qp *qp)
{
	struct hca_qp *q = (struct hca_qp *)qp, **pp;

	lock();
	if (q->ev_got != q->ev_acked) {
		/* An async event on it handed out and not acked: rdma-core
		 * blocks here until it is; the model refuses. */
		unlock();
		return EBUSY;
	}
	ev_purge(ctx_of(qp->context), qp);
	qp_discard(q);
	{
		struct hca_mw *m;

		/* Its windows stay bound, to no QP: nothing reaches them
		 * any more, and only ibv_dealloc_mw() frees them. */
		for (m = hca.mws; m != NULL; m = m->next)
			if (m->qp == q)
				m->qp = NULL;
	}
	for (pp = &hca.qps; *pp != NULL; pp = &(*pp)->next)
		if (*pp == q) {
			*pp = q->next;
			break;
		}
	for (pp = &hca.qp_hash[qp->qp_num % HCA_QP_HASH]; *pp != NULL;
			pp = &(*pp)->hnext)
		if (*pp == q) {
			*pp = q->hnext;
			break;
		}
	hca.nqp--;
	q->dev->obj.qps--;
	((struct hca_pd *)qp->pd)->users--;
	((struct hca_cq *)qp->send_cq)->users--;
	((struct hca_cq *)qp->recv_cq)->users--;
	unlock();
	pthread_mutex_destroy(&qp->mutex);
	pthread_cond_destroy(&qp->cond);
	free(q->sq);
	free(q->rq);
	free(q->inl);
	free(q);
	return 0;
}

/* The UD transitions: the attributes each needs and may carry (the
 * verbs specification's QP state table, UD column). */
static int
ud_transition(enum ibv_qp_state cur, enum ibv_qp_state nxt, int *req,
	int *opt)
{
	*req = IBV_QP_STATE;
	*opt = 0;
	if (nxt == IBV_QPS_RESET || nxt == IBV_QPS_ERR)
		return 0;
	switch (cur) {
	case IBV_QPS_RESET:
		if (nxt != IBV_QPS_INIT)
			return -1;
		*req |= IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY;
		return 0;
	case IBV_QPS_INIT:
		if (nxt == IBV_QPS_INIT) {
			*opt = IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY;
			return 0;
		}
		if (nxt != IBV_QPS_RTR)
			return -1;
		*opt = IBV_QP_PKEY_INDEX | IBV_QP_QKEY;
		return 0;
	case IBV_QPS_RTR:
		if (nxt != IBV_QPS_RTS)
			return -1;
		*req |= IBV_QP_SQ_PSN;
		*opt = IBV_QP_QKEY;
		return 0;
	case IBV_QPS_RTS:
		if (nxt != IBV_QPS_RTS)
			return -1;
		*opt = IBV_QP_QKEY;
		return 0;
	default:
		return -1;
	}
}

/* The RC transitions (the same table, RC column). Alternate paths and
 * path migration are not modelled: those attributes are refused. SQD
 * and SQE are not modelled either. */
static int
rc_transition(enum ibv_qp_state cur, enum ibv_qp_state nxt, int *req,
	int *opt)
{
	*req = IBV_QP_STATE;
	*opt = 0;
	if (nxt == IBV_QPS_RESET || nxt == IBV_QPS_ERR)
		return 0;
	switch (cur) {
	case IBV_QPS_RESET:
		if (nxt != IBV_QPS_INIT)
			return -1;
		*req |= IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			IBV_QP_ACCESS_FLAGS;
		return 0;
	case IBV_QPS_INIT:
		if (nxt == IBV_QPS_INIT) {
			*opt = IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				IBV_QP_ACCESS_FLAGS;
			return 0;
		}
		if (nxt != IBV_QPS_RTR)
			return -1;
		*req |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			IBV_QP_MIN_RNR_TIMER;
		*opt = IBV_QP_PKEY_INDEX | IBV_QP_ACCESS_FLAGS;
		return 0;
	case IBV_QPS_RTR:
		if (nxt != IBV_QPS_RTS)
			return -1;
		*req |= IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
		*opt = IBV_QP_ACCESS_FLAGS | IBV_QP_MIN_RNR_TIMER;
		return 0;
	case IBV_QPS_RTS:
		if (nxt != IBV_QPS_RTS)
			return -1;
		*opt = IBV_QP_ACCESS_FLAGS | IBV_QP_MIN_RNR_TIMER;
		return 0;
	default:
		return -1;
	}
}

/* Check an RC QP's attributes (mask: those given): 0 or an errno. The
 * AV is checked as ibv_create_ah() checks an AH; its source GID index
 * must name a GID (ENODATA otherwise, as rdma-core's GID cache). */
static int
rc_attr_check(struct hca_qp *q, const struct ibv_qp_attr *a, int mask,
	enum pmr_hca_gid_type *sgid_type)
{
	uint8_t port = (mask & IBV_QP_PORT) != 0 ? a->port_num : q->port;
	struct pmr_hca_port_config *p = dev_port(q->dev, port);

	if ((mask & IBV_QP_ACCESS_FLAGS) != 0 && (a->qp_access_flags &
			~(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			IBV_ACCESS_REMOTE_READ |
			IBV_ACCESS_REMOTE_ATOMIC)) != 0)
		return EINVAL;
	if ((mask & IBV_QP_PATH_MTU) != 0 && (a->path_mtu < IBV_MTU_256 ||
			a->path_mtu > IBV_MTU_4096 || (p != NULL &&
			a->path_mtu > p->max_mtu)))
		return EINVAL;
	if ((mask & IBV_QP_DEST_QPN) != 0 && a->dest_qp_num > 0xffffff)
		return EINVAL;
	/* The spec: over the HCA's limits is an invalid attribute (rxe
	 * takes any max_dest_rd_atomic). */
	if ((mask & IBV_QP_MAX_DEST_RD_ATOMIC) != 0 &&
			a->max_dest_rd_atomic > HCA_MAX_RD_ATOM)
		return EINVAL;
	if ((mask & IBV_QP_MAX_QP_RD_ATOMIC) != 0 &&
			a->max_rd_atomic > HCA_MAX_RD_ATOM)
		return EINVAL;
	if (((mask & IBV_QP_MIN_RNR_TIMER) != 0 && a->min_rnr_timer > 31) ||
			((mask & IBV_QP_TIMEOUT) != 0 && a->timeout > 31) ||
			((mask & IBV_QP_RETRY_CNT) != 0 && a->retry_cnt > 7) ||
			((mask & IBV_QP_RNR_RETRY) != 0 && a->rnr_retry > 7))
		return EINVAL;
	if ((mask & IBV_QP_AV) != 0) {
		const struct ibv_ah_attr *av = &a->ah_attr;

		if (p == NULL || av->port_num != port)
			return EINVAL;
		if (p->link_layer == IBV_LINK_LAYER_ETHERNET) {
			if (!av->is_global)
				return EINVAL;
		} else if (av->dlid == 0 || av->dlid > 0xbfff) {
			return EINVAL;
		}
		*sgid_type = PMR_HCA_GID_EMPTY;
		if (av->is_global) {
			if (av->grh.sgid_index >= PMR_HCA_GID_TABLE)
				return EINVAL;
			*sgid_type = p->gid[av->grh.sgid_index].type;
			if (*sgid_type == PMR_HCA_GID_EMPTY)
				return ENODATA;
		}
	}
	return 0;
}

HCA_EXPORT int
ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask)
{
	struct hca_qp *q = (struct hca_qp *)qp;
	enum ibv_qp_state cur, nxt;
	enum pmr_hca_gid_type sgid_type = PMR_HCA_GID_EMPTY;
	int req, opt, rc, rcq = qp->qp_type == IBV_QPT_RC;

	lock();
	cur = qp->state;
	nxt = (mask & IBV_QP_STATE) != 0 ? attr->qp_state : cur;
	mask &= ~IBV_QP_CUR_STATE;
	if (q->dev->fatal && nxt != IBV_QPS_RESET && nxt != IBV_QPS_ERR) {
		unlock();
		return EIO;
	}
	if (nxt == IBV_QPS_SQD || nxt == IBV_QPS_SQE) {
		unlock();
		return EOPNOTSUPP;
	}
	rc = rcq ? rc_transition(cur, nxt, &req, &opt) :
		ud_transition(cur, nxt, &req, &opt);
	if (rc != 0 || (mask & req) != req || (mask & ~(req | opt)) != 0 ||
			((mask & IBV_QP_PORT) != 0 &&
			dev_port(q->dev, attr->port_num) == NULL) ||
			((mask & IBV_QP_PKEY_INDEX) != 0 &&
			attr->pkey_index != 0)) {
		unlock();
		return EINVAL;
	}
	if (rcq) {
		rc = rc_attr_check(q, attr, mask, &sgid_type);
		if (rc != 0) {
			unlock();
			return rc;
		}
	}
	if ((mask & IBV_QP_PORT) != 0)
		q->port = attr->port_num;
	if ((mask & IBV_QP_PKEY_INDEX) != 0)
		q->pkey_index = attr->pkey_index;
	if ((mask & IBV_QP_QKEY) != 0)
		q->qkey = attr->qkey;
	if ((mask & IBV_QP_SQ_PSN) != 0)
		q->sq_psn = attr->sq_psn & 0xffffff;
	if ((mask & IBV_QP_ACCESS_FLAGS) != 0)
		q->access = (unsigned int)attr->qp_access_flags;
	if ((mask & IBV_QP_PATH_MTU) != 0)
		q->path_mtu = attr->path_mtu;
	if ((mask & IBV_QP_DEST_QPN) != 0)
		q->dest_qpn = attr->dest_qp_num;
	if ((mask & IBV_QP_RQ_PSN) != 0)
		q->rq_psn = attr->rq_psn & 0xffffff;
	if ((mask & IBV_QP_MAX_DEST_RD_ATOMIC) != 0)
		q->max_dest_rd = attr->max_dest_rd_atomic;
	if ((mask & IBV_QP_MAX_QP_RD_ATOMIC) != 0)
		q->max_rd = attr->max_rd_atomic;
	if ((mask & IBV_QP_MIN_RNR_TIMER) != 0)
		q->min_rnr_timer = attr->min_rnr_timer;
	if ((mask & IBV_QP_TIMEOUT) != 0)
		q->timeout = attr->timeout;
	if ((mask & IBV_QP_RETRY_CNT) != 0)
		q->retry_cnt = attr->retry_cnt;
	if ((mask & IBV_QP_RNR_RETRY) != 0)
		q->rnr_retry = attr->rnr_retry;
	if ((mask & IBV_QP_AV) != 0) {
		q->av.attr = attr->ah_attr;
		q->av.sgid_type = sgid_type;
	}
	if (nxt == IBV_QPS_ERR && cur != IBV_QPS_ERR)
		qp_to_err(q);
	else if (nxt == IBV_QPS_RESET && cur != IBV_QPS_RESET)
		qp_discard(q);
	qp->state = nxt;
	unlock();
	return 0;
}

HCA_EXPORT int
ibv_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask,
	struct ibv_qp_init_attr *ia)
{
	struct hca_qp *q = (struct hca_qp *)qp;

	(void)mask;
	lock();
	memset(attr, 0, sizeof(*attr));
	attr->qp_state = qp->state;
	attr->cur_qp_state = qp->state;
	attr->path_mtu = q->port != 0 ?
		dev_port(q->dev, q->port)->active_mtu : IBV_MTU_1024;
	attr->qkey = q->qkey;
	attr->sq_psn = q->sq_psn;
	attr->cap = q->cap;
	attr->pkey_index = q->pkey_index;
	attr->port_num = q->port;
	if (qp->qp_type == IBV_QPT_RC) {
		if (qp->state != IBV_QPS_RESET && qp->state != IBV_QPS_INIT)
			attr->path_mtu = q->path_mtu;
		attr->qp_access_flags = (int)q->access;
		attr->dest_qp_num = q->dest_qpn;
		attr->rq_psn = q->rq_psn;
		attr->max_dest_rd_atomic = q->max_dest_rd;
		attr->max_rd_atomic = q->max_rd;
		attr->min_rnr_timer = q->min_rnr_timer;
		attr->timeout = q->timeout;
		attr->retry_cnt = q->retry_cnt;
		attr->rnr_retry = q->rnr_retry;
		attr->ah_attr = q->av.attr;
	}
	memset(ia, 0, sizeof(*ia));
	ia->qp_context = qp->qp_context;
	ia->send_cq = qp->send_cq;
	ia->recv_cq = qp->recv_cq;
	ia->cap = q->cap;
	ia->qp_type = qp->qp_type;
	ia->sq_sig_all = q->sig_all;
	unlock();
	return 0;
}

/* --- data path ------------------------------------------------------- */

static void
qp_hw_mark(struct hca_qp *q)
{
	uint64_t held = q->sq_post - q->sq_free;

	if (held > q->cnt.sq_high_water)
		q->cnt.sq_high_water = held;
	if (held > q->dev->cnt.sq_high_water)
		q->dev->cnt.sq_high_water = held;
	if (held > hca.cnt.sq_high_water)
		hca.cnt.sq_high_water = held;
}

/* Post one RC WQE: SEND, SEND_WITH_IMM, SEND_WITH_INV,
 * RDMA_WRITE(_WITH_IMM), RDMA_READ, BIND_MW, LOCAL_INV. Accepted in RTS,
 * and in ERR, where it completes WR_FLUSH_ERR at once (the spec; rxe
 * too). */
static int
post_rc(struct hca_qp *q, struct ibv_send_wr *wr)
{
	struct hca_swqe *w;
	uint32_t len;
	int i, inl = (wr->send_flags & IBV_SEND_INLINE) != 0;
	int sig = q->sig_all || (wr->send_flags & IBV_SEND_SIGNALED) != 0;

	if (q->qp.state != IBV_QPS_RTS && q->qp.state != IBV_QPS_ERR)
		return EINVAL;
	if (wr->opcode != IBV_WR_SEND && wr->opcode != IBV_WR_SEND_WITH_IMM &&
			wr->opcode != IBV_WR_SEND_WITH_INV &&
			wr->opcode != IBV_WR_RDMA_WRITE &&
			wr->opcode != IBV_WR_RDMA_WRITE_WITH_IMM &&
			wr->opcode != IBV_WR_RDMA_READ &&
			wr->opcode != IBV_WR_BIND_MW &&
			wr->opcode != IBV_WR_LOCAL_INV)
		return EINVAL;	/* atomics: not modelled */
	if (wr->num_sge < 0 || wr->num_sge > (int)q->cap.max_send_sge)
		return EINVAL;
	if (wr->opcode == IBV_WR_BIND_MW && (wr->bind_mw.mw == NULL ||
			wr->bind_mw.mw->type != IBV_MW_TYPE_2 ||
			wr->num_sge != 0 || inl))
		return EINVAL;	/* a bind carries no data (rxe too) */
	len = wr->opcode == IBV_WR_BIND_MW || wr->opcode == IBV_WR_LOCAL_INV ?
		0 : sge_len(wr->sg_list, wr->num_sge);
	if (inl && (wr->opcode == IBV_WR_RDMA_READ ||
			wr->opcode == IBV_WR_LOCAL_INV ||
			len > q->cap.max_inline_data))
		return EINVAL;
	if (q->sq_post - q->sq_free >= q->cap.max_send_wr) {
		CNT(q, sq_full);
		return ENOMEM;
	}
	w = &q->sq[q->sq_post % q->cap.max_send_wr];
	memset(w, 0, sizeof(*w));
	w->wr_id = wr->wr_id;
	w->flags = wr->send_flags | (sig ? IBV_SEND_SIGNALED : 0);
	w->opcode = wr->opcode;
	w->imm = wr->imm_data;
	w->num_sge = wr->opcode == IBV_WR_LOCAL_INV ? 0 : wr->num_sge;
	for (i = 0; i < w->num_sge; i++)
		w->sge[i] = wr->sg_list[i];
	if (inl) {
		uint8_t *d = q->inl + (size_t)(q->sq_post %
			q->cap.max_send_wr) * (q->cap.max_inline_data + 1);

		for (i = 0; i < wr->num_sge; i++) {
			memcpy(d + w->inl_len, (void *)(uintptr_t)
				wr->sg_list[i].addr, wr->sg_list[i].length);
			w->inl_len += wr->sg_list[i].length;
		}
	}
	w->raddr = wr->wr.rdma.remote_addr;
	w->rkey = wr->wr.rdma.rkey;
	if (wr->opcode == IBV_WR_BIND_MW) {
		const struct ibv_mw_bind_info *b = &wr->bind_mw.bind_info;

		w->mw_rkey = wr->bind_mw.mw->rkey;
		w->rkey = wr->bind_mw.rkey;
		w->mr_lkey = b->mr != NULL ? b->mr->lkey : 0;
		w->raddr = b->addr;
		w->blen = b->length;
		w->bacc = (unsigned int)b->mw_access_flags;
	}
	if (wr->opcode == IBV_WR_LOCAL_INV ||
			wr->opcode == IBV_WR_SEND_WITH_INV)
		w->inv = wr->invalidate_rkey;
	q->sq_post++;
	if (sig) {
		CNT(q, wqe_signaled);
	} else {
		CNT(q, wqe_unsignaled);
	}
	if (inl) {
		CNT(q, wqe_inline);
	}
	qp_hw_mark(q);
	if (q->qp.state == IBV_QPS_ERR) {
		struct ibv_wc wc;

		flush_wc(&wc, q, w->wr_id, wc_opcode(w->opcode));
		q->sq_exec++;
		cq_push((struct hca_cq *)q->qp.send_cq, &wc, q, q->sq_exec);
		return 0;
	}
	pend_add(q);
	return 0;
}

static int
post_one(struct hca_qp *q, struct ibv_send_wr *wr)
{
	struct hca_swqe *w;
	uint32_t len = 0;
	int i, inl = (wr->send_flags & IBV_SEND_INLINE) != 0;
	int sig = q->sig_all || (wr->send_flags & IBV_SEND_SIGNALED) != 0;

	if (q->qp.qp_type == IBV_QPT_RC)
		return post_rc(q, wr);
	if (q->qp.state != IBV_QPS_RTS)
		return EINVAL;
	if ((wr->opcode != IBV_WR_SEND && wr->opcode != IBV_WR_SEND_WITH_IMM)
			|| wr->num_sge < 0 ||
			wr->num_sge > (int)q->cap.max_send_sge ||
			wr->wr.ud.ah == NULL || wr->wr.ud.ah->pd != q->qp.pd)
		return EINVAL;
	/* A UD QP sends from its own port; an AH made for the other port
	 * names a source GID (and link) that this one does not have. */
	if (((struct hca_ah *)wr->wr.ud.ah)->attr.port_num != q->port)
		return EINVAL;
	for (i = 0; i < wr->num_sge; i++)
		len += wr->sg_list[i].length;
	if (inl && len > q->cap.max_inline_data)
		return EINVAL;
	if (q->sq_post - q->sq_free >= q->cap.max_send_wr) {
		/* Slots come back only through a polled signalled
		 * completion: a driver that never signals ends here. */
		CNT(q, sq_full);
		return ENOMEM;
	}
	w = &q->sq[q->sq_post % q->cap.max_send_wr];
	w->wr_id = wr->wr_id;
	w->flags = wr->send_flags | (sig ? IBV_SEND_SIGNALED : 0);
	w->opcode = wr->opcode;
	w->imm = wr->imm_data;
	w->num_sge = wr->num_sge;
	for (i = 0; i < wr->num_sge; i++)
		w->sge[i] = wr->sg_list[i];
	w->inl_len = 0;
	if (inl) {
		/* Inline: the bytes are the WQE's, copied now. */
		uint8_t *d = q->inl + (size_t)(q->sq_post %
			q->cap.max_send_wr) * (q->cap.max_inline_data + 1);

		for (i = 0; i < wr->num_sge; i++) {
			memcpy(d + w->inl_len, (void *)(uintptr_t)
				wr->sg_list[i].addr, wr->sg_list[i].length);
			w->inl_len += wr->sg_list[i].length;
		}
	}
	w->ah = (struct hca_ah *)wr->wr.ud.ah;
	w->ah->uses++;
	w->rqpn = wr->wr.ud.remote_qpn;
	w->qkey = wr->wr.ud.remote_qkey;
	q->sq_post++;
	pend_add(q);
	if (sig) {
		CNT(q, wqe_signaled);
	} else {
		CNT(q, wqe_unsignaled);
	}
	if (inl) {
		CNT(q, wqe_inline);
	}
	qp_hw_mark(q);
	return 0;
}

static int
hca_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
	struct ibv_send_wr **bad)
{
	struct hca_qp *q = (struct hca_qp *)qp;
	int rc = 0;

	lock();
	CNT(q, post_send_calls);
	for (; wr != NULL; wr = wr->next) {
		rc = post_one(q, wr);
		if (rc != 0) {
			*bad = wr;
			break;
		}
	}
	unlock();
	return rc;
}

static int
hca_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
	struct ibv_recv_wr **bad)
{
	struct hca_qp *q = (struct hca_qp *)qp;
	int rc = 0;

	lock();
	CNT(q, post_recv_calls);
	for (; wr != NULL; wr = wr->next) {
		struct hca_rwqe *r;
		int i;

		if (qp->state == IBV_QPS_RESET || wr->num_sge < 0 ||
				wr->num_sge > (int)q->cap.max_recv_sge) {
			rc = EINVAL;
		} else if (q->rq_tail - q->rq_head >= q->cap.max_recv_wr) {
			rc = ENOMEM;
		}
		if (rc != 0) {
			*bad = wr;
			break;
		}
		if (qp->state == IBV_QPS_ERR) {
			/* The spec: a receive posted in ERR is flushed. */
			struct ibv_wc wc;

			flush_wc(&wc, q, wr->wr_id, IBV_WC_RECV);
			cq_push((struct hca_cq *)qp->recv_cq, &wc, NULL, 0);
			continue;
		}
		r = &q->rq[q->rq_tail % q->cap.max_recv_wr];
		r->wr_id = wr->wr_id;
		r->num_sge = wr->num_sge;
		for (i = 0; i < wr->num_sge; i++)
			r->sge[i] = wr->sg_list[i];
		q->rq_tail++;
	}
	unlock();
	return rc;
}

static uint16_t
ip_csum(const uint8_t *h)
{
	uint32_t s = 0;
	int i;

	for (i = 0; i < 20; i += 2)
		if (i != 10)
			s += (uint32_t)h[i] << 8 | h[i + 1];
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

static int
gid_is_v4(const union ibv_gid *g)
{
	static const uint8_t pfx[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0xff, 0xff };

	return memcmp(g->raw, pfx, sizeof(pfx)) == 0;
}

/* The 40-byte GRH area of a receive for a payload of len, from the
 * sender's port sp: RoCE v2 writes the IP header (IPv4 in the last 20
 * bytes, the first 20 undefined, or IPv6), RoCE v1 and InfiniBand the
 * IBA GRH (next header 0x1b). */
static void
make_grh(uint8_t *g, const struct pmr_hca_port_config *sp,
	const struct hca_ah *ah, uint32_t len)
{
	const union ibv_gid *sg = &sp->gid[ah->attr.grh.sgid_index].gid;
	const union ibv_gid *dg = &ah->attr.grh.dgid;
	uint32_t pad = (len + 3) & ~3u;
	int v2 = ah->sgid_type == PMR_HCA_GID_ROCE_V2;
	int i;

	if (v2 && gid_is_v4(sg) && gid_is_v4(dg)) {
		uint8_t *ip = g + 20;
		uint16_t tot = (uint16_t)(20 + 8 + 12 + 8 + pad + 4), c;

		/* Undefined for IPv4: random, so that software reading
		 * them breaks visibly (rxe zeroes them). */
		for (i = 0; i < 20; i++)
			g[i] = (uint8_t)hca_rand();
		memset(ip, 0, 20);
		ip[0] = 0x45;
		ip[1] = ah->attr.grh.traffic_class;
		ip[2] = (uint8_t)(tot >> 8);
		ip[3] = (uint8_t)tot;
		ip[4] = (uint8_t)(hca.ip_id >> 8);
		ip[5] = (uint8_t)hca.ip_id;
		hca.ip_id++;
		ip[6] = 0x40;	/* DF */
		ip[8] = ah->attr.grh.hop_limit;
		ip[9] = 17;
		memcpy(ip + 12, sg->raw + 12, 4);
		memcpy(ip + 16, dg->raw + 12, 4);
		c = ip_csum(ip);
		ip[10] = (uint8_t)(c >> 8);
		ip[11] = (uint8_t)c;
	} else {
		/* IPv6 header or IBA GRH: version, class, flow label,
		 * payload length (RoCE v2: UDP 8; then BTH 12 + DETH 8 +
		 * padded payload + ICRC 4), next header (UDP, or the IBA's
		 * 0x1b), hop limit, addresses. */
		uint32_t fl = ah->attr.grh.flow_label & 0xfffff;
		uint16_t pl = (uint16_t)((v2 ? 8 : 0) + 12 + 8 + pad + 4);

		g[0] = (uint8_t)(0x60 | ah->attr.grh.traffic_class >> 4);
		g[1] = (uint8_t)(ah->attr.grh.traffic_class << 4 | fl >> 16);
		g[2] = (uint8_t)(fl >> 8);
		g[3] = (uint8_t)fl;
		g[4] = (uint8_t)(pl >> 8);
		g[5] = (uint8_t)pl;
		g[6] = v2 ? 17 : 0x1b;
		g[7] = ah->attr.grh.hop_limit;
		memcpy(g + 8, sg->raw, 16);
		memcpy(g + 24, dg->raw, 16);
	}
}

/* Copy src (len bytes at offset off of the message) into the receive's
 * scatter list; returns 0 or -1 on a bad key. */
static int
scatter(struct hca_qp *r, const struct hca_rwqe *rw, uint32_t off,
	const uint8_t *src, uint32_t len)
{
	int i;

	for (i = 0; i < rw->num_sge && len > 0; i++) {
		const struct ibv_sge *s = &rw->sge[i];
		uint32_t n;

		if (off >= s->length) {
			off -= s->length;
			continue;
		}
		n = s->length - off < len ? s->length - off : len;
		if (mr_find(r->qp.pd, s->lkey, s->addr + off, n) == NULL)
			return -1;
		memcpy((uint8_t *)(uintptr_t)s->addr + off, src, n);
		src += n;
		len -= n;
		off = 0;
	}
	return 0;
}

/* Whether port p has GID g, of type t (PMR_HCA_GID_EMPTY: any type). */
static int
port_has_gid(const struct pmr_hca_port_config *p, const union ibv_gid *g,
	enum pmr_hca_gid_type t)
{
	unsigned int k;

	for (k = 0; k < PMR_HCA_GID_TABLE; k++)
		if (p->gid[k].type != PMR_HCA_GID_EMPTY &&
				(t == PMR_HCA_GID_EMPTY || p->gid[k].type == t)
				&& memcmp(&p->gid[k].gid, g, sizeof(*g)) == 0)
			return 1;
	return 0;
}

/* Where a packet of ah from port sp goes, as the fabric routes it: the
 * destination device (port in *dport), or NULL; *mismatch then says
 * whether the address exists on the wrong kind of wire. RoCE: by
 * destination GID, to a GID of the same type (v1 and v2 do not meet);
 * InfiniBand: by DLID, and a GRH's DGID must be the port's. */
static struct hca_dev *
route(const struct pmr_hca_port_config *sp, const struct hca_ah *ah,
	unsigned int *dport, int *mismatch)
{
	const union ibv_gid *dg = &ah->attr.grh.dgid;
	int ib = sp->link_layer == IBV_LINK_LAYER_INFINIBAND;
	unsigned int i, j;

	*mismatch = 0;
	for (i = 0; i < hca.ndev; i++)
		for (j = 0; j < hca.devs[i].cfg.nports; j++) {
			const struct pmr_hca_port_config *p =
				&hca.devs[i].cfg.port[j];
			int pib = p->link_layer ==
				IBV_LINK_LAYER_INFINIBAND;

			if (ib && pib && p->lid == ah->attr.dlid) {
				if (ah->attr.is_global && !port_has_gid(p,
						dg, PMR_HCA_GID_IB))
					continue;
				*dport = j + 1;
				return &hca.devs[i];
			}
			if (!ah->attr.is_global)
				continue;
			if (!ib && !pib && port_has_gid(p, dg,
					ah->sgid_type)) {
				*dport = j + 1;
				return &hca.devs[i];
			}
			if ((pib != ib || !ib) && port_has_gid(p, dg,
					PMR_HCA_GID_EMPTY))
				*mismatch = 1;
		}
	return NULL;
}

/* Count a drop on the sender QP, its device and the fabric. */
static void
count_drop(struct hca_qp *s, size_t off)
{
	(*(uint64_t *)((uint8_t *)&s->cnt + off))++;
	(*(uint64_t *)((uint8_t *)&s->dev->cnt + off))++;
	(*(uint64_t *)((uint8_t *)&hca.cnt + off))++;
}

#define DROP(s, f) count_drop(s, offsetof(struct pmr_hca_counters, f))

/* Place one packet (GRH + payload) into the receiver's next receive. */
static void
deliver(struct hca_qp *s, const struct hca_swqe *w, const uint8_t *payload,
	uint32_t len)
{
	const struct pmr_hca_port_config *sp = dev_port(s->dev, s->port);
	const struct pmr_hca_port_config *dp;
	uint32_t qkey = (w->qkey & HCA_QKEY_PRIV) != 0 ? s->qkey : w->qkey;
	struct hca_dev *dd;
	struct hca_qp *r;
	struct hca_rwqe *rw;
	struct ibv_wc wc;
	uint8_t grh[HCA_GRH];
	unsigned int dport = 0;
	int mismatch;
	uint32_t room = 0;
	int i;

	if (sp->state != IBV_PORT_ACTIVE) {
		/* The link is not up: the packet never leaves (rxe: the
		 * netdev drops it, the send still completes). */
		DROP(s, drop_port_down);
		return;
	}
	dd = route(sp, w->ah, &dport, &mismatch);
	if (dd == NULL) {
		/* Every packet stays on the fabric: an address no port
		 * has (on this kind of wire) is lost. */
		if (mismatch)
			DROP(s, drop_link_layer);
		else
			DROP(s, drop_no_port);
		return;
	}
	dp = dev_port(dd, dport);
	if (dp->state != IBV_PORT_ACTIVE) {
		DROP(s, drop_dest_down);
		return;
	}
	if (len > (uint32_t)mtu_bytes(dd->cfg.rxe ? dp->max_mtu :
			dp->active_mtu)) {
		/* Larger than the receiving link's MTU: lost on the way.
		 * rxe places what its netdev lets through, whatever its
		 * port's active MTU: here, up to the port's max_mtu (the
		 * sender's own active MTU capped it already). */
		DROP(s, drop_too_long);
		return;
	}
	r = qp_by_num(w->rqpn);
	if (r == NULL || r->dev != dd || r->port != dport ||
			r->qp.qp_type != IBV_QPT_UD ||
			(r->qp.state != IBV_QPS_RTR &&
			r->qp.state != IBV_QPS_RTS)) {
		DROP(s, drop_no_qp);
		return;
	}
	if (qkey != r->qkey) {
		DROP(s, drop_qkey);
		return;
	}
	if (r->rq_head == r->rq_tail) {
		/* UD has no RNR: an empty RQ drops silently. */
		DROP(s, drop_no_recv);
		return;
	}
	rw = &r->rq[r->rq_head % r->cap.max_recv_wr];
	r->rq_head++;
	memset(&wc, 0, sizeof(wc));
	wc.wr_id = rw->wr_id;
	wc.opcode = IBV_WC_RECV;
	wc.qp_num = r->qp.qp_num;
	for (i = 0; i < rw->num_sge; i++)
		room += rw->sge[i].length;
	if (w->ah->attr.is_global) {
		make_grh(grh, sp, w->ah, len);
	} else {
		/* No GRH (InfiniBand): the 40 bytes are undefined; random,
		 * the strictest choice (not written would leave a stale
		 * GRH that looks valid). */
		for (i = 0; i < HCA_GRH; i++)
			grh[i] = (uint8_t)hca_rand();
	}
	if (room < HCA_GRH + len) {
		/* The receive is too small: a local length error (rxe: a
		 * local QP operation error), and any error completion but a
		 * flush moves the QP to ERR. */
		wc.status = dd->cfg.rxe ? IBV_WC_LOC_QP_OP_ERR :
			IBV_WC_LOC_LEN_ERR;
		cq_push((struct hca_cq *)r->qp.recv_cq, &wc, NULL, 0);
		qp_to_err(r);
		return;
	}
	if (scatter(r, rw, 0, grh, HCA_GRH) != 0 ||
			scatter(r, rw, HCA_GRH, payload, len) != 0) {
		wc.status = IBV_WC_LOC_PROT_ERR;
		cq_push((struct hca_cq *)r->qp.recv_cq, &wc, NULL, 0);
		qp_to_err(r);
		return;
	}
	wc.status = IBV_WC_SUCCESS;
	wc.byte_len = HCA_GRH + len;
	wc.src_qp = s->qp.qp_num;
	wc.wc_flags = w->ah->attr.is_global ? IBV_WC_GRH : 0;
	if (w->opcode == IBV_WR_SEND_WITH_IMM) {
		wc.wc_flags |= IBV_WC_WITH_IMM;
		wc.imm_data = w->imm;
	}
	wc.pkey_index = 0;
	if (sp->link_layer == IBV_LINK_LAYER_INFINIBAND) {
		wc.slid = sp->lid;
		wc.sl = w->ah->attr.sl;
	}
	cq_push((struct hca_cq *)r->qp.recv_cq, &wc, NULL, 0);
	CNT(r, rx_packets);
}

/* --- RC execution ----------------------------------------------------
 *
 * A message is executed whole, at once (not split into path-MTU packets:
 * nothing outside the device could see the split), in SQ order; the
 * payload is read when the WQE is executed. The responder's checks come
 * in the specification's order: RNR (no receive), the QP's remote access
 * flags, the R_Key (key, PD, bounds, the MR's access), READ credits.
 */

/* Copy len bytes between buf and the scatter/gather list sge[n] of pd;
 * to_sge: into the list (its MRs need LOCAL_WRITE). Returns 0, or -1 on
 * a bad L_Key (nothing after it is copied). */
static int
sge_copy(struct ibv_pd *pd, const struct ibv_sge *sge, int n, uint8_t *buf,
	uint32_t len, int to_sge)
{
	int i;

	for (i = 0; i < n && len > 0; i++) {
		const struct ibv_sge *s = &sge[i];
		uint32_t k = s->length < len ? s->length : len;
		struct hca_mr *m;

		if (k == 0)
			continue;
		m = mr_find(pd, s->lkey, s->addr, k);
		if (m == NULL || (to_sge && (m->access &
				IBV_ACCESS_LOCAL_WRITE) == 0))
			return -1;
		if (to_sge)
			memcpy((void *)(uintptr_t)s->addr, buf, k);
		else
			memcpy(buf, (void *)(uintptr_t)s->addr, k);
		buf += k;
		len -= k;
	}
	return 0;
}

/* The responder's R_Key check: an MR of pd with that key covering
 * [addr, addr + len) and allowing access. Zero bytes need no key. */
static int
rkey_ok(struct ibv_pd *pd, uint32_t rkey, uint64_t addr, uint32_t len,
	unsigned int access)
{
	struct hca_mr *m;

	if (len == 0)
		return 1;
	m = mr_find(pd, rkey, addr, len);
	return m != NULL && (m->access & access) == access;
}

/* The responder r's R_Key check for [addr, addr + len) with access.
 * A key whose index is a window's (*mwp: it) is checked against the
 * window: the window's current key, bound to r itself (type 2B: to the
 * QP that bound it), granting access, and covering the whole range,
 * strictly (the spec); the rxe personality checks the range against the
 * MR the window is bound in instead, as rxe does (doc/testing.md, "The
 * rxe personality"). Any other key is an MR's. Zero bytes need no key. */
static int
rkey_check(struct hca_qp *r, uint32_t rkey, uint64_t addr, uint32_t len,
	unsigned int access, struct hca_mw **mwp)
{
	struct hca_mw *m = mw_by_rkey(rkey);
	uint64_t b, lim;

	*mwp = m;
	if (len == 0)
		return 1;
	if (m == NULL)
		return rkey_ok(r->qp.pd, rkey, addr, len, access);
	if (!m->bound || m->key != rkey || m->mw.pd != r->qp.pd ||
			m->qp != r || (m->access & access) != access)
		return 0;
	if (r->dev->cfg.rxe) {
		b = (uintptr_t)m->mr->mr.addr;
		lim = m->mr->mr.length;
	} else {
		b = m->addr;
		lim = m->len;
	}
	return addr >= b && addr - b <= lim && len <= lim - (addr - b);
}

/* Complete the head WQE of q with st (it is executed); any error moves
 * q to ERR. */
static void
rc_complete(struct hca_qp *q, const struct hca_swqe *w, enum ibv_wc_status st,
	uint32_t len)
{
	struct ibv_wc wc;

	/* READs in flight before it land first: completions in order. */
	if (st != IBV_WC_SUCCESS)
		flight_drain(q, 1);
	q->sq_exec++;
	if (st == IBV_WC_SUCCESS && (w->flags & IBV_SEND_SIGNALED) == 0)
		return;
	memset(&wc, 0, sizeof(wc));
	wc.wr_id = w->wr_id;
	wc.status = st;
	wc.opcode = wc_opcode(w->opcode);
	wc.qp_num = q->qp.qp_num;
	if (w->opcode == IBV_WR_RDMA_READ)
		wc.byte_len = len;
	cq_push((struct hca_cq *)q->qp.send_cq, &wc, q, q->sq_exec);
	if (st != IBV_WC_SUCCESS)
		qp_to_err(q);
}

/* A responder's error that ends the connection: q's WQE completes st,
 * both QPs go to ERR, the responder's with async event ev (0: none). */
static void
rc_remote_err(struct hca_qp *q, struct hca_qp *r, const struct hca_swqe *w,
	enum ibv_wc_status st, int ev)
{
	rc_complete(q, w, st, 0);
	if (r->qp.state != IBV_QPS_ERR)
		qp_to_err(r);
	if (ev != 0)
		raise_qp(r, (enum ibv_event_type)ev);
}

/* The responder of q's packets, or NULL if none answers (no port, link
 * down, no such QP, not RTR/RTS, connected elsewhere). */
static struct hca_qp *
rc_peer(struct hca_qp *q)
{
	const struct pmr_hca_port_config *sp = dev_port(q->dev, q->port);
	struct hca_dev *dd;
	struct hca_qp *r;
	unsigned int dport = 0;
	int mismatch;

	if (sp == NULL || sp->state != IBV_PORT_ACTIVE) {
		DROP(q, drop_port_down);
		return NULL;
	}
	dd = route(sp, &q->av, &dport, &mismatch);
	if (dd == NULL) {
		if (mismatch)
			DROP(q, drop_link_layer);
		else
			DROP(q, drop_no_port);
		return NULL;
	}
	if (dev_port(dd, dport)->state != IBV_PORT_ACTIVE) {
		DROP(q, drop_dest_down);
		return NULL;
	}
	r = qp_by_num(q->dest_qpn);
	if (r == NULL || r->dev != dd || r->port != dport ||
			r->qp.qp_type != IBV_QPT_RC ||
			(r->qp.state != IBV_QPS_RTR &&
			r->qp.state != IBV_QPS_RTS) ||
			r->dest_qpn != q->qp.qp_num) {
		DROP(q, drop_no_qp);
		return NULL;
	}
	return r;
}

/*
 * BIND_MW, executed in SQ order (a READ posted after it on the same QP
 * sees the binding). The checks, any failing: MW_BIND_ERR and q to ERR.
 * The window exists and the ibv_mw's rkey (as posted) is its current
 * key: rxe's kernel compares them and its provider never updates the
 * ibv_mw after a type-2 bind, so a consumer rebinding a window must
 * store the key it bound in mw->rkey itself; the model holds it to that.
 * The new key keeps the window's index; the window is free (type 2B: not
 * bound); it, q and the MR share a PD; the MR exists, allows MW_BIND and
 * covers the range; the range is not empty (o10-37.2.40); REMOTE_WRITE
 * or REMOTE_ATOMIC need the MR's LOCAL_WRITE (C10-74); no flags beyond
 * remote read, write and atomic (zero-based windows: not modelled).
 */
static void
exec_bind(struct hca_qp *q, const struct hca_swqe *w)
{
	struct hca_mw *m = mw_by_rkey(w->mw_rkey);
	struct hca_mr *mr = w->mr_lkey != 0 ? mr_by_lkey(w->mr_lkey) : NULL;
	const unsigned int remote = IBV_ACCESS_REMOTE_READ |
		IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC;
	int ok;

	ok = m != NULL && m->key == w->mw_rkey &&
		(w->rkey >> 8) == (m->key >> 8) && !m->bound &&
		m->mw.pd == q->qp.pd && mr != NULL && mr->mr.pd == q->qp.pd &&
		w->blen > 0 && (mr->access & IBV_ACCESS_MW_BIND) != 0 &&
		(w->bacc & ~remote) == 0 &&
		((w->bacc & (IBV_ACCESS_REMOTE_WRITE |
		IBV_ACCESS_REMOTE_ATOMIC)) == 0 ||
		(mr->access & IBV_ACCESS_LOCAL_WRITE) != 0);
	if (ok) {
		uint64_t b = (uintptr_t)mr->mr.addr;

		ok = w->raddr >= b && w->raddr - b <= mr->mr.length &&
			w->blen <= mr->mr.length - (w->raddr - b);
	}
	if (!ok) {
		CNT(q, mw_bind_err);
		rc_complete(q, w, IBV_WC_MW_BIND_ERR, 0);
		return;
	}
	m->key = w->rkey;
	m->bound = 1;
	m->qp = q;
	m->mr = mr;
	mr->nmw++;
	m->addr = w->raddr;
	m->len = w->blen;
	m->access = w->bacc;
	CNT(q, mw_binds);
	rc_complete(q, w, IBV_WC_SUCCESS, 0);
}

/* Invalidation of a type 2B window by rkey, as the QP q may do it (the
 * one that executes LOCAL_INV, or the responder of a SEND_WITH_INV): the
 * window's current key, bound, to q itself (the spec's association of a
 * type 2B window with its QP; rxe does not check that), on q's PD. */
static struct hca_mw *
mw_inv_target(struct hca_qp *q, uint32_t rkey)
{
	struct hca_mw *m = mw_by_rkey(rkey);

	if (m == NULL || !m->bound || m->key != rkey || m->qp != q ||
			m->mw.pd != q->qp.pd)
		return NULL;
	return m;
}

/* LOCAL_INV, in SQ order; a bad key: LOC_QP_OP_ERR (rxe's status) and q
 * to ERR. Only windows: MRs from ibv_reg_mr are not invalidatable. */
static void
exec_local_inv(struct hca_qp *q, const struct hca_swqe *w)
{
	struct hca_mw *m = mw_inv_target(q, w->inv);

	if (m == NULL) {
		rc_complete(q, w, IBV_WC_LOC_QP_OP_ERR, 0);
		return;
	}
	mw_unbind(m);
	CNT(q, mw_invalidates);
	rc_complete(q, w, IBV_WC_SUCCESS, 0);
}

/* Execute the head WQE of RC QP q. Returns 1 if it stalled (an RNR NAK
 * to retry later), else 0. */
static int
exec_rc(struct hca_qp *q)
{
	struct hca_swqe *w = &q->sq[q->sq_exec % q->cap.max_send_wr];
	int is_read = w->opcode == IBV_WR_RDMA_READ;
	int imm = w->opcode == IBV_WR_SEND_WITH_IMM ||
		w->opcode == IBV_WR_RDMA_WRITE_WITH_IMM;
	int needs_recv = w->opcode == IBV_WR_SEND ||
		w->opcode == IBV_WR_SEND_WITH_INV || imm;
	uint32_t len = (w->flags & IBV_SEND_INLINE) != 0 ? w->inl_len :
		sge_len(w->sge, w->num_sge);
	uint8_t *buf = NULL;
	struct hca_qp *r;
	struct hca_rwqe *rw = NULL;
	struct hca_mw *mw = NULL;
	struct ibv_wc wc;

	if (q->stopped)
		return 1;
	if (w->opcode == IBV_WR_BIND_MW && q->dev->cfg.rxe &&
	    flight_retried(q)) {
		/* rxe: run ahead of the READ's responses, then again at
		 * its retry, refused: the requester stops in error, and
		 * nothing completes (pmr_hca_fault_read_retry()). */
		q->stopped = 1;
		CNT(q, retry_stalls);
		return 1;
	}
	if (!is_read || q->rd_flight >= q->max_rd)
		flight_drain(q, 1);
	CNT(q, tx_packets);
	/* Local operations: no packet, no peer, no injected fault. */
	if (w->opcode == IBV_WR_BIND_MW) {
		exec_bind(q, w);
		return 0;
	}
	if (w->opcode == IBV_WR_LOCAL_INV) {
		exec_local_inv(q, w);
		return 0;
	}
	if (is_read && q->max_rd == 0) {
		/* No READ may be outstanding at all. */
		rc_complete(q, w, IBV_WC_LOC_QP_OP_ERR, 0);
		return 0;
	}
	if (len > HCA_MAX_MSG) {
		rc_complete(q, w, IBV_WC_LOC_LEN_ERR, 0);
		return 0;
	}
	if (hca.f_fail > 0) {
		hca.f_fail--;
		DROP(q, fail_injected);
		rc_complete(q, w, IBV_WC_GENERAL_ERR, 0);
		return 0;
	}
	/* The requester's own checks: the gather list (READ: the scatter
	 * list, written, LOCAL_WRITE). The payload is read now. A READ
	 * needs no staging buffer: the responder's bytes go straight into
	 * the scatter list, once, as a NIC's DMA would (a 1 MiB READ took
	 * an mmap, its page faults and two copies). */
	if (!is_read) {
		buf = malloc((size_t)len + 1);
		if (buf == NULL) {
			rc_complete(q, w, IBV_WC_GENERAL_ERR, 0);
			return 0;
		}
	}
	if ((w->flags & IBV_SEND_INLINE) != 0) {
		memcpy(buf, q->inl + (size_t)(q->sq_exec % q->cap.max_send_wr)
			* (q->cap.max_inline_data + 1), len);
	} else if (is_read) {
		int i;

		for (i = 0; i < w->num_sge; i++) {
			struct hca_mr *m = w->sge[i].length == 0 ? NULL :
				mr_find(q->qp.pd, w->sge[i].lkey,
				w->sge[i].addr, w->sge[i].length);

			if (w->sge[i].length != 0 && (m == NULL ||
					(m->access &
					IBV_ACCESS_LOCAL_WRITE) == 0))
				break;
		}
		if (i < w->num_sge) {
			free(buf);
			rc_complete(q, w, IBV_WC_LOC_PROT_ERR, 0);
			return 0;
		}
	} else if (sge_copy(q->qp.pd, w->sge, w->num_sge, buf, len, 0) !=
			0) {
		/* The spec: an invalid L_Key is a local protection error;
		 * the responder never hears of it. */
		free(buf);
		rc_complete(q, w, IBV_WC_LOC_PROT_ERR, 0);
		return 0;
	}
	r = rc_peer(q);
	if (r == NULL) {
		/* Nobody answers: the requester retries retry_cnt times
		 * and gives up (at once in the model: no timer). */
		free(buf);
		CNT(q, retry_exc);
		rc_complete(q, w, IBV_WC_RETRY_EXC_ERR, 0);
		return 0;
	}
	if (r->qp.state == IBV_QPS_RTR && !r->comm_est) {
		/* The first packet a QP in RTR receives (rxe raises it
		 * too). */
		r->comm_est = 1;
		raise_qp(r, IBV_EVENT_COMM_EST);
	}
	r->comm_est = 1;
	if (needs_recv && r->rq_head == r->rq_tail) {
		free(buf);
		/* RNR NAK: retried rnr_retry times (7: for ever), one
		 * retry per progress pass; the receiver may post in
		 * between. */
		if (q->rnr_retry != 7 && q->rnr_tries >= q->rnr_retry) {
			q->rnr_tries = 0;
			CNT(q, rnr_retry_exc);
			rc_complete(q, w, IBV_WC_RNR_RETRY_EXC_ERR, 0);
			return 0;
		}
		q->rnr_tries++;
		CNT(q, rnr_retries);
		return 1;
	}
	q->rnr_tries = 0;
	if ((w->opcode == IBV_WR_RDMA_WRITE || w->opcode ==
			IBV_WR_RDMA_WRITE_WITH_IMM) &&
			(r->access & IBV_ACCESS_REMOTE_WRITE) == 0) {
		/* The QP does not take the operation: Invalid Request. */
		free(buf);
		rc_remote_err(q, r, w, IBV_WC_REM_INV_REQ_ERR,
			IBV_EVENT_QP_REQ_ERR);
		return 0;
	}
	if (is_read && (r->access & IBV_ACCESS_REMOTE_READ) == 0) {
		free(buf);
		rc_remote_err(q, r, w, IBV_WC_REM_INV_REQ_ERR,
			IBV_EVENT_QP_REQ_ERR);
		return 0;
	}
	if ((is_read || !needs_recv || w->opcode ==
			IBV_WR_RDMA_WRITE_WITH_IMM) && !rkey_check(r,
			w->rkey, w->raddr, len, is_read ?
			IBV_ACCESS_REMOTE_READ : IBV_ACCESS_REMOTE_WRITE,
			&mw)) {
		/* A bad R_Key, another PD, out of bounds or without the
		 * access (a window: also not bound, or bound to another
		 * QP): a remote access error that ends both QPs, the
		 * responder's with an affiliated event. */
		free(buf);
		CNT(r, access_err);
		if (mw != NULL) {
			CNT(r, mw_access_err);
		}
		rc_remote_err(q, r, w, IBV_WC_REM_ACCESS_ERR,
			IBV_EVENT_QP_ACCESS_ERR);
		return 0;
	}
	if (is_read) {
		/* Strict: a READ beyond the responder's max_dest_rd_atomic
		 * is an Invalid Request (rxe serves them all). */
		if (r->rd_inuse + 1 > r->max_dest_rd) {
			free(buf);
			CNT(r, rd_credit_err);
			rc_remote_err(q, r, w, IBV_WC_REM_INV_REQ_ERR,
				IBV_EVENT_QP_REQ_ERR);
			return 0;
		}
		r->rd_inuse++;
		if (r->rd_inuse > r->cnt.rd_credits_high_water)
			r->cnt.rd_credits_high_water = r->rd_inuse;
		if (r->rd_inuse > r->dev->cnt.rd_credits_high_water)
			r->dev->cnt.rd_credits_high_water = r->rd_inuse;
		if (r->rd_inuse > hca.cnt.rd_credits_high_water)
			hca.cnt.rd_credits_high_water = r->rd_inuse;
		(void)sge_copy(q->qp.pd, w->sge, w->num_sge,
			(uint8_t *)(uintptr_t)w->raddr, len, 1);
		if (mw != NULL && len > 0) {
			CNT(r, mw_reads);
		}
		CNT(q, rc_reads);
		CNTN(q, bytes_read, len);
		w->retried = hca.f_rd_retry > 0;
		if (w->retried) {
			hca.f_rd_retry--;
			CNT(q, rd_retried);
		}
		q->sq_exec++;
		q->rd_flight++;	/* completes when the flight lands */
		return 0;
	}
	if (!needs_recv || w->opcode == IBV_WR_RDMA_WRITE_WITH_IMM) {
		if (len > 0)
			memcpy((void *)(uintptr_t)w->raddr, buf, len);
		if (mw != NULL && len > 0) {
			CNT(r, mw_writes);
		}
		CNT(q, rc_writes);
		CNTN(q, bytes_written, len);
	}
	if (needs_recv) {
		uint32_t room;

		rw = &r->rq[r->rq_head % r->cap.max_recv_wr];
		r->rq_head++;
		memset(&wc, 0, sizeof(wc));
		wc.wr_id = rw->wr_id;
		wc.qp_num = r->qp.qp_num;
		wc.src_qp = q->qp.qp_num;
		if (w->opcode == IBV_WR_RDMA_WRITE_WITH_IMM) {
			wc.opcode = IBV_WC_RECV_RDMA_WITH_IMM;
		} else {
			wc.opcode = IBV_WC_RECV;
			room = sge_len(rw->sge, rw->num_sge);
			if (room < len) {
				/* The spec: a local length error at the
				 * responder, Invalid Request NAK. */
				free(buf);
				wc.status = IBV_WC_LOC_LEN_ERR;
				cq_push((struct hca_cq *)r->qp.recv_cq, &wc,
					NULL, 0);
				rc_remote_err(q, r, w,
					IBV_WC_REM_INV_REQ_ERR, 0);
				return 0;
			}
			if (sge_copy(r->qp.pd, rw->sge, rw->num_sge, buf,
					len, 1) != 0) {
				free(buf);
				wc.status = IBV_WC_LOC_PROT_ERR;
				cq_push((struct hca_cq *)r->qp.recv_cq, &wc,
					NULL, 0);
				rc_remote_err(q, r, w, IBV_WC_REM_OP_ERR, 0);
				return 0;
			}
			if (w->opcode == IBV_WR_SEND_WITH_INV) {
				struct hca_mw *m = mw_inv_target(r, w->inv);

				if (m == NULL) {
					/* rxe: the receive completes
					 * REM_INV_REQ_ERR, the responder
					 * to ERR (class J). */
					free(buf);
					wc.status = IBV_WC_REM_INV_REQ_ERR;
					cq_push((struct hca_cq *)
						r->qp.recv_cq, &wc, NULL, 0);
					rc_remote_err(q, r, w,
						IBV_WC_REM_INV_REQ_ERR, 0);
					return 0;
				}
				mw_unbind(m);
				CNT(r, mw_invalidates);
				wc.wc_flags = IBV_WC_WITH_INV;
				wc.invalidated_rkey = w->inv;
			}
			CNT(q, rc_sends);
		}
		wc.status = IBV_WC_SUCCESS;
		wc.byte_len = len;
		if (imm) {
			wc.wc_flags |= IBV_WC_WITH_IMM;
			wc.imm_data = w->imm;
		}
		cq_push((struct hca_cq *)r->qp.recv_cq, &wc, NULL, 0);
		CNT(r, rx_packets);
	}
	free(buf);
	rc_complete(q, w, IBV_WC_SUCCESS, len);
	return 0;
}

/* Execute the oldest pending send WQE of q. Returns 1 if it stalled. */
static int
exec_one(struct hca_qp *q)
{
	struct hca_swqe *w = &q->sq[q->sq_exec % q->cap.max_send_wr];
	uint8_t *buf = NULL;
	const uint8_t *payload;
	uint32_t len = 0;
	enum ibv_wc_status st = IBV_WC_SUCCESS;
	struct ibv_wc wc;
	int i, copies = 1;

	if (q->qp.qp_type == IBV_QPT_RC) {
		int stalled = exec_rc(q);

		if (q->sq_exec == q->sq_post)
			pend_del(q);
		return stalled;
	}
	if ((w->flags & IBV_SEND_INLINE) != 0) {
		payload = q->inl + (size_t)(q->sq_exec % q->cap.max_send_wr) *
			(q->cap.max_inline_data + 1);
		len = w->inl_len;
	} else {
		/* The payload is read now, at execution, not at the post:
		 * a driver that reuses a buffer early sends what is there
		 * now. */
		for (i = 0; i < w->num_sge; i++)
			len += w->sge[i].length;
		buf = malloc(len + 1);
		len = 0;
		for (i = 0; buf != NULL && i < w->num_sge; i++) {
			const struct ibv_sge *s = &w->sge[i];

			if (mr_find(q->qp.pd, s->lkey, s->addr, s->length) ==
					NULL) {
				st = IBV_WC_LOC_PROT_ERR;
				break;
			}
			memcpy(buf + len, (void *)(uintptr_t)s->addr,
				s->length);
			len += s->length;
		}
		if (buf == NULL)
			st = IBV_WC_GENERAL_ERR;
		payload = buf;
	}
	q->sq_exec++;
	if (q->sq_exec == q->sq_post)
		pend_del(q);
	CNT(q, tx_packets);
	if (st == IBV_WC_SUCCESS && len > (uint32_t)mtu_bytes(
			dev_port(q->dev, q->port)->active_mtu)) {
		/* A UD message must fit one packet of the path MTU. */
		st = IBV_WC_LOC_LEN_ERR;
		DROP(q, drop_too_long);
	}
	if (st == IBV_WC_SUCCESS && hca.f_drop > 0) {
		hca.f_drop--;
		copies = 0;
		DROP(q, drop_injected);
	} else if (st == IBV_WC_SUCCESS && hca.f_dup > 0) {
		hca.f_dup--;
		copies = 2;
		DROP(q, dup_injected);
	} else if (st == IBV_WC_SUCCESS && hca.f_fail > 0) {
		hca.f_fail--;
		st = IBV_WC_GENERAL_ERR;
		DROP(q, fail_injected);
	}
	for (i = 0; st == IBV_WC_SUCCESS && i < copies; i++)
		deliver(q, w, payload, len);
	free(buf);
	if (st == IBV_WC_SUCCESS && (w->flags & IBV_SEND_SIGNALED) == 0)
		return 0;
	/* Signalled, or an error (always reported). */
	memset(&wc, 0, sizeof(wc));
	wc.wr_id = w->wr_id;
	wc.status = st;
	wc.opcode = IBV_WC_SEND;
	wc.qp_num = q->qp.qp_num;
	cq_push((struct hca_cq *)q->qp.send_cq, &wc, q, q->sq_exec);
	if (st != IBV_WC_SUCCESS)
		qp_to_err(q);
	return 0;
}

/* Execute up to max pending WQEs: only QPs with work are visited, in
 * the order they got it, each drained before the next. A QP whose head
 * WQE stalls (RNR) goes to the back and is retried in the next pass. */
static unsigned int
progress(unsigned int max)
{
	unsigned int n = 0;
	uint64_t pass = ++hca.pass;
	struct hca_qp *q;

	while (n < max && (q = TAILQ_FIRST(&hca.pend)) != NULL) {
		if (q->pass == pass)
			break;	/* every QP left stalled in this pass */
		if (q->qp.state != IBV_QPS_RTS) {
			/* Not executing (cannot happen: only RTS posts,
			 * and leaving RTS empties the SQ); keep going. */
			pend_del(q);
			continue;
		}
		/* exec_one() takes q off the list when it is drained or
		 * fails (to ERR flushes the rest). */
		while (n < max && q->pending) {
			n++;
			if (exec_one(q) != 0) {
				q->pass = pass;
				TAILQ_REMOVE(&hca.pend, q, pnext);
				TAILQ_INSERT_TAIL(&hca.pend, q, pnext);
				break;
			}
		}
		/* The READs in flight land once q has nothing more to
		 * execute now. */
		if ((!q->pending || q->pass == pass) && !q->stopped)
			flight_drain(q, 1);
	}
	return n;
}

static int
hca_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	struct hca_cq *c = (struct hca_cq *)cq;
	int got = 0;

	lock();
	if (!hca.step_mode)
		progress(UINT32_MAX);
	while (got < n && c->count > 0) {
		struct hca_cqe *e = &c->ring[c->head];

		wc[got++] = e->wc;
		/* A polled send completion frees its slot and every slot
		 * before it (selective signaling). */
		if (e->sq != NULL)
			sq_release(e->sq, e->seq);
		c->head = (c->head + 1) % c->size;
		c->count--;
	}
	unlock();
	return got;
}

/* --- the test interface (pmr_hca.h) ---------------------------------- */

HCA_EXPORT int
pmr_hca_counters_get(struct ibv_qp *qp, struct pmr_hca_counters *c)
{
	int rc = 0;

	lock();
	if (qp == NULL) {
		*c = hca.cnt;
	} else {
		struct hca_qp *q = qp_by_num(qp->qp_num);

		if (q != NULL && &q->qp == qp)
			*c = q->cnt;
		else
			rc = EINVAL;
	}
	unlock();
	return rc;
}

HCA_EXPORT int
pmr_hca_dev_counters_get(const char *dev, struct pmr_hca_counters *c)
{
	struct hca_dev *d;

	lock();
	d = dev_by_name(dev);
	if (d != NULL)
		*c = d->cnt;
	unlock();
	return d != NULL ? 0 : ENODEV;
}

HCA_EXPORT void
pmr_hca_counters_reset(void)
{
	struct hca_qp *q;
	unsigned int i;

	lock();
	memset(&hca.cnt, 0, sizeof(hca.cnt));
	for (i = 0; i < hca.ndev; i++)
		memset(&hca.devs[i].cnt, 0, sizeof(hca.devs[i].cnt));
	for (q = hca.qps; q != NULL; q = q->next)
		memset(&q->cnt, 0, sizeof(q->cnt));
	unlock();
}

HCA_EXPORT int
pmr_hca_objects_get(const char *dev, struct pmr_hca_objects *o)
{
	unsigned int i;
	int rc = ENODEV;

	memset(o, 0, sizeof(*o));
	lock();
	hca_load();
	for (i = 0; i < hca.ndev; i++) {
		const struct pmr_hca_objects *x = &hca.devs[i].obj;

		if (dev != NULL && strcmp(dev, hca.devs[i].cfg.name) != 0)
			continue;
		o->contexts += x->contexts;
		o->pds += x->pds;
		o->mrs += x->mrs;
		o->cqs += x->cqs;
		o->qps += x->qps;
		o->ahs += x->ahs;
		o->mws += x->mws;
		rc = 0;
	}
	unlock();
	return dev == NULL ? 0 : rc;
}

/* Any object alive, on any device. */
static int
objects_alive(void)
{
	unsigned int i;

	for (i = 0; i < hca.ndev; i++) {
		const struct pmr_hca_objects *x = &hca.devs[i].obj;

		if (x->contexts + x->pds + x->mrs + x->cqs + x->qps +
				x->ahs + x->mws != 0)
			return 1;
	}
	return 0;
}

HCA_EXPORT int
pmr_hca_configure(const struct pmr_hca_dev_config *devs, unsigned int n)
{
	char err[256];

	lock();
	if (hca.listed) {
		unlock();
		return EBUSY;
	}
	if (hca_config_check(devs, n, err, sizeof(err)) != 0) {
		unlock();
		return EINVAL;
	}
	devs_set(devs, n);
	unlock();
	return 0;
}

HCA_EXPORT int
pmr_hca_reset(void)
{
	lock();
	if (objects_alive()) {
		unlock();
		return EBUSY;
	}
	memset(hca.devs, 0, sizeof(hca.devs));
	hca.ndev = 0;
	hca.loaded = 0;
	hca.listed = 0;
	hca.bad = 0;
	memset(&hca.cnt, 0, sizeof(hca.cnt));
	hca.step_mode = 0;
	hca.f_drop = 0;
	hca.f_dup = 0;
	hca.f_fail = 0;
	hca.f_rd_retry = 0;
	unlock();
	return 0;
}

HCA_EXPORT int
pmr_hca_port_set_state(const char *dev, uint8_t port,
	enum ibv_port_state state)
{
	struct pmr_hca_port_config *p;
	struct hca_dev *d;

	if (state != IBV_PORT_DOWN && state != IBV_PORT_INIT &&
			state != IBV_PORT_ARMED && state != IBV_PORT_ACTIVE)
		return EINVAL;
	lock();
	d = dev_by_name(dev);
	if (d == NULL) {
		unlock();
		return ENODEV;
	}
	p = dev_port(d, port);
	if (p != NULL && p->state != state) {
		/* PORT_ACTIVE when it becomes ACTIVE, PORT_ERR when it
		 * stops being ACTIVE, as the kernel reports them. */
		if (state == IBV_PORT_ACTIVE)
			raise_dev(d, IBV_EVENT_PORT_ACTIVE, port);
		else if (p->state == IBV_PORT_ACTIVE)
			raise_dev(d, IBV_EVENT_PORT_ERR, port);
		p->state = state;
	}
	unlock();
	return p != NULL ? 0 : EINVAL;
}

HCA_EXPORT int
pmr_hca_gid_set(const char *dev, uint8_t port, unsigned int idx,
	const struct pmr_hca_gid_config *gid)
{
	struct pmr_hca_dev_config cfg[PMR_HCA_MAX_DEVICES];
	struct hca_dev *d;
	char err[256];
	unsigned int i;

	lock();
	d = dev_by_name(dev);
	if (d == NULL) {
		unlock();
		return ENODEV;
	}
	if (dev_port(d, port) == NULL || idx >= PMR_HCA_GID_TABLE) {
		unlock();
		return EINVAL;
	}
	/* The whole fabric with the change must still be consistent. */
	for (i = 0; i < hca.ndev; i++)
		cfg[i] = hca.devs[i].cfg;
	cfg[d->index].port[port - 1].gid[idx] = *gid;
	if (gid->type == PMR_HCA_GID_EMPTY)
		memset(&cfg[d->index].port[port - 1].gid[idx].gid, 0,
			sizeof(gid->gid));
	if (hca_config_check(cfg, hca.ndev, err, sizeof(err)) != 0) {
		unlock();
		return EINVAL;
	}
	d->cfg.port[port - 1].gid[idx] = cfg[d->index].port[port - 1].gid[idx];
	raise_dev(d, IBV_EVENT_GID_CHANGE, port);
	unlock();
	return 0;
}

HCA_EXPORT int
pmr_hca_device_fatal(const char *dev)
{
	struct hca_dev *d;
	struct hca_qp *q;

	lock();
	d = dev_by_name(dev);
	if (d == NULL) {
		unlock();
		return ENODEV;
	}
	d->fatal = 1;
	for (q = hca.qps; q != NULL; q = q->next)
		if (q->dev == d && q->qp.state != IBV_QPS_ERR &&
				q->qp.state != IBV_QPS_RESET)
			qp_to_err(q);
	raise_dev(d, IBV_EVENT_DEVICE_FATAL, 0);
	unlock();
	return 0;
}

/* The model's QP or CQ at p, or NULL. */
static struct hca_qp *
qp_live(const struct ibv_qp *qp)
{
	struct hca_qp *q = qp != NULL ? qp_by_num(qp->qp_num) : NULL;

	return q != NULL && &q->qp == qp ? q : NULL;
}

static int
cq_live(const struct ibv_cq *cq)
{
	struct hca_ctx *c;

	for (c = hca.ctxs; cq != NULL && c != NULL; c = c->next)
		if (&c->vctx.context == cq->context)
			return 1;
	return 0;
}

HCA_EXPORT int
pmr_hca_event_raise(const char *dev, const struct ibv_async_event *ev)
{
	enum ibv_event_type t = ev->event_type;
	struct hca_dev *d;
	struct hca_qp *q;
	int rc = 0;

	lock();
	if (ev_is_qp(t)) {
		q = qp_live(ev->element.qp);
		if (q != NULL)
			raise_qp(q, t);
		else
			rc = EINVAL;
	} else if (t == IBV_EVENT_CQ_ERR) {
		if (cq_live(ev->element.cq))
			raise_cq(ev->element.cq, t);
		else
			rc = EINVAL;
	} else if (ev_is_dev(t)) {
		d = dev != NULL ? dev_by_name(dev) : NULL;
		if (d == NULL)
			rc = ENODEV;
		else if (t != IBV_EVENT_DEVICE_FATAL &&
				dev_port(d, (unsigned int)ev->element.port_num)
				== NULL)
			rc = EINVAL;
		else
			raise_dev(d, t, ev->element.port_num);
	} else {
		rc = EINVAL;	/* SRQ and WQ events: no SRQ, no WQ */
	}
	unlock();
	return rc;
}

HCA_EXPORT int
pmr_hca_qp_force_err(struct ibv_qp *qp)
{
	struct hca_qp *q;

	lock();
	q = qp_live(qp);
	if (q == NULL) {
		unlock();
		return EINVAL;
	}
	if (q->qp.state != IBV_QPS_ERR)
		qp_to_err(q);
	raise_qp(q, IBV_EVENT_QP_FATAL);
	unlock();
	return 0;
}

HCA_EXPORT int
pmr_hca_qp_attr(uint32_t qpn, struct ibv_qp_attr *attr)
{
	struct ibv_qp_init_attr ia;
	struct hca_qp *q;

	lock();
	q = qp_by_num(qpn);
	unlock();
	if (q == NULL)
		return ENOENT;
	return ibv_query_qp(&q->qp, attr, IBV_QP_STATE | IBV_QP_TIMEOUT |
			IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY, &ia);
}

HCA_EXPORT void
pmr_hca_fault(uint32_t drop, uint32_t dup, uint32_t fail)
{
	lock();
	hca.f_drop = drop;
	hca.f_dup = dup;
	hca.f_fail = fail;
	unlock();
}

HCA_EXPORT void
pmr_hca_fault_read_retry(uint32_t n)
{
	lock();
	hca.f_rd_retry = n;
	unlock();
}

HCA_EXPORT void
pmr_hca_seed(uint64_t seed)
{
	lock();
	hca.rng = seed != 0 ? seed : 0x9e3779b97f4a7c15ull;
	hca.ip_id = 0;
	unlock();
}

HCA_EXPORT void
pmr_hca_step_mode(int on)
{
	lock();
	hca.step_mode = on != 0;
	ctx_sync_all();
	unlock();
}

HCA_EXPORT unsigned int
pmr_hca_step(unsigned int max)
{
	unsigned int n;

	lock();
	n = progress(max);
	unlock();
	return n;
}

HCA_EXPORT unsigned int
pmr_hca_pending(void)
{
	struct hca_qp *q;
	unsigned int n = 0;

	lock();
	TAILQ_FOREACH(q, &hca.pend, pnext)
		n += (unsigned int)(q->sq_post - q->sq_exec);
	unlock();
	return n;
}
