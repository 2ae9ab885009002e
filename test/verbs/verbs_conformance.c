/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * verbs_conformance: what a verbs device does, pinned as tests (issue 13).
 * Plain libibverbs only. Runs against rxe0 in the Soft-RoCE VM (and later
 * against the software HCA model); see doc/testing.md.
 *
 * usage: verbs_conformance [--device NAME] [--provider NAME] [--strict]
 *                          [--filter PATTERNS] [--skip PATTERNS]
 * env:   PMR_VERBS_DEVICE, PMR_VERBS_PROVIDER (defaults for the options)
 * exit:  0 all passed; 1 a case failed or the device is not the one asked
 *        for; 2 usage (no device named, no case selected); 77 no RDMA in
 *        this kernel (ibv_get_device_list: ENOSYS) or no device at all
 *        when none was asked for.
 *
 * The cases run in order, all on the one device; the async-event cases
 * take the link down and delete the device, so they come last.
 */

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "vc.h"

/* Polls give up after this long: TCG is ~20x slower than hardware, and a
 * missing completion must fail clearly, never hang. */
#define VC_WAIT_MS 5000
/* How long "nothing arrives" is watched for. */
#define VC_QUIET_MS 300
#define VC_BUF 4096
#define VC_QKEY 0x11110000u

static struct {
	const char *want_dev;
	const char *want_prov;
	int is_rxe;		/* the provider library is librxe */
	struct ibv_context *ctx;
	struct ibv_device_attr attr;
	struct ibv_port_attr port;
	int gidx;		/* the IPv4-mapped RoCE v2 GID */
	union ibv_gid gid;
	uint32_t ipv4;		/* its address, network order */
} dev;

/* Objects a case made, destroyed in reverse order by the teardown (also
 * after a failed assertion, which leaves the case by longjmp). */
enum vc_kind { K_PD, K_MR, K_CQ, K_QP, K_AH, K_MW, K_MEM };
static struct {
	enum vc_kind kind;
	void *p;
} objs[256];
static int nobjs;

static void *
keep(enum vc_kind kind, void *p)
{
	if (p != NULL && nobjs < (int)(sizeof(objs) / sizeof(objs[0]))) {
		objs[nobjs].kind = kind;
		objs[nobjs].p = p;
		nobjs++;
	}
	return p;
}

/* A case destroyed p itself. */
static void
forget(void *p)
{
	int i;

	for (i = 0; i < nobjs; i++)
		if (objs[i].p == p)
			objs[i].p = NULL;
}

static void
destroy_all(void)
{
	while (nobjs > 0) {
		void *p = objs[--nobjs].p;

		if (p == NULL)
			continue;
		switch (objs[nobjs].kind) {
		case K_PD:
			ibv_dealloc_pd(p);
			break;
		case K_MR:
			ibv_dereg_mr(p);
			break;
		case K_CQ:
			ibv_destroy_cq(p);
			break;
		case K_QP:
			ibv_destroy_qp(p);
			break;
		case K_AH:
			ibv_destroy_ah(p);
			break;
		case K_MW:
			ibv_dealloc_mw(p);
			break;
		case K_MEM:
			free(p);
			break;
		}
	}
}

static int
case_teardown(void **state)
{
	(void)state;
	destroy_all();
	return 0;
}

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void
nap(void)
{
	struct timespec ts = { .tv_sec = 0, .tv_nsec = 200000 };

	nanosleep(&ts, NULL);
}

/* Up to n completions from cq within ms; returns how many. */
static int
poll_n(struct ibv_cq *cq, struct ibv_wc *wc, int n, unsigned int ms)
{
	uint64_t end = now_ms() + ms;
	int got = 0;

	while (got < n) {
		int r = ibv_poll_cq(cq, n - got, wc + got);

		if (r < 0)
			CONTRACT(r >= 0, "ibv_poll_cq returns >= 0 (%d)", r);
		got += r;
		if (got == n || now_ms() > end)
			break;
		if (r == 0)
			nap();
	}
	return got;
}

/* Exactly one completion, within the deadline. */
static void
one_wc(struct ibv_cq *cq, struct ibv_wc *wc, const char *what)
{
	int got = poll_n(cq, wc, 1, VC_WAIT_MS);

	CONTRACT(got == 1, "a completion for %s arrives within %d ms", what,
		VC_WAIT_MS);
}

static void
no_wc(struct ibv_cq *cq, const char *what)
{
	struct ibv_wc wc;
	int got = poll_n(cq, &wc, 1, VC_QUIET_MS);

	CONTRACT(got == 0, "no completion for %s within %d ms (got %d%s%s)",
		what, VC_QUIET_MS, got, got ? ", status " : "",
		got ? ibv_wc_status_str(wc.status) : "");
}

static void *
buf_alloc(size_t len, int fill)
{
	void *p = NULL;

	CONTRACT(posix_memalign(&p, 4096, len) == 0, "%zu bytes of memory",
		len);
	memset(p, fill, len);
	return keep(K_MEM, p);
}

static struct ibv_pd *
mk_pd(void)
{
	struct ibv_pd *pd = keep(K_PD, ibv_alloc_pd(dev.ctx));

	CONTRACT(pd != NULL, "ibv_alloc_pd succeeds");
	return pd;
}

static struct ibv_mr *
mk_mr(struct ibv_pd *pd, void *buf, size_t len, int access)
{
	struct ibv_mr *mr = keep(K_MR, ibv_reg_mr(pd, buf, len, access));

	CONTRACT(mr != NULL, "ibv_reg_mr(access 0x%x) succeeds (errno %d)",
		access, mr == NULL ? errno : 0);
	return mr;
}

static struct ibv_cq *
mk_cq(int cqe)
{
	struct ibv_cq *cq = keep(K_CQ, ibv_create_cq(dev.ctx, cqe, NULL,
		NULL, 0));

	CONTRACT(cq != NULL, "ibv_create_cq(%d) succeeds (errno %d)", cqe,
		cq == NULL ? errno : 0);
	return cq;
}

static struct ibv_qp *
mk_qp(struct ibv_pd *pd, struct ibv_cq *cq, enum ibv_qp_type type,
	uint32_t swr, uint32_t rwr, uint32_t inl, int sig_all)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = cq, .recv_cq = cq, .qp_type = type,
		.sq_sig_all = sig_all,
		.cap = { .max_send_wr = swr, .max_recv_wr = rwr,
			.max_send_sge = 4, .max_recv_sge = 4,
			.max_inline_data = inl },
	};
	struct ibv_qp *qp = keep(K_QP, ibv_create_qp(pd, &ia));

	CONTRACT(qp != NULL, "ibv_create_qp(type %d) succeeds (errno %d)",
		type, qp == NULL ? errno : 0);
	return qp;
}

static enum ibv_qp_state
qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;
	int rc = ibv_query_qp(qp, &a, IBV_QP_STATE, &ia);

	CONTRACT(rc == 0, "ibv_query_qp succeeds (%d)", rc);
	return a.qp_state;
}

static const char *
state_str(enum ibv_qp_state s)
{
	static const char *const n[] = { "RESET", "INIT", "RTR", "RTS",
		"SQD", "SQE", "ERR" };

	return (unsigned int)s < 7 ? n[s] : "?";
}

static void
ud_to_rts(struct ibv_qp *qp, uint32_t qkey)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .pkey_index = 0,
		.port_num = 1, .qkey = qkey };
	int rc;

	rc = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
		IBV_QP_PORT | IBV_QP_QKEY);
	CONTRACT(rc == 0, "UD RESET->INIT succeeds (%d)", rc);
	a.qp_state = IBV_QPS_RTR;
	rc = ibv_modify_qp(qp, &a, IBV_QP_STATE);
	CONTRACT(rc == 0, "UD INIT->RTR succeeds (%d)", rc);
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	rc = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
	CONTRACT(rc == 0, "UD RTR->RTS succeeds (%d)", rc);
}

#define RC_ACCESS_ALL (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ | \
	IBV_ACCESS_REMOTE_WRITE)

static int
rc_init(struct ibv_qp *qp, int access)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .pkey_index = 0,
		.port_num = 1, .qp_access_flags = access };

	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
		IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
}

static void
rtr_attr(struct ibv_qp_attr *a, uint32_t rqpn, int max_dest)
{
	memset(a, 0, sizeof(*a));
	a->qp_state = IBV_QPS_RTR;
	a->path_mtu = dev.port.active_mtu;
	a->dest_qp_num = rqpn;
	a->rq_psn = 0;
	a->max_dest_rd_atomic = max_dest;
	a->min_rnr_timer = 1;
	a->ah_attr.is_global = 1;
	a->ah_attr.port_num = 1;
	a->ah_attr.grh.dgid = dev.gid;
	a->ah_attr.grh.sgid_index = dev.gidx;
	a->ah_attr.grh.hop_limit = 64;
}

#define RTR_MASK (IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | \
	IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | \
	IBV_QP_MIN_RNR_TIMER)
#define RTS_MASK (IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | \
	IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC)

static void
rts_attr(struct ibv_qp_attr *a, int max_rd, int rnr_retry)
{
	memset(a, 0, sizeof(*a));
	a->qp_state = IBV_QPS_RTS;
	a->timeout = 14;
	a->retry_cnt = 7;
	a->rnr_retry = rnr_retry;
	a->sq_psn = 0;
	a->max_rd_atomic = max_rd;
}

/* Two RC QPs on one device connected to each other: a is the requester in
 * the cases, b the responder. Each has its own CQ. */
struct rc_pair {
	struct ibv_qp *a, *b;
	struct ibv_cq *acq, *bcq;
};

static void
mk_rc_pair(struct ibv_pd *pd, struct rc_pair *p, int b_access, int a_max_rd,
	int b_max_dest, int rnr_retry)
{
	struct ibv_qp_attr at;
	int rc;

	p->acq = mk_cq(64);
	p->bcq = mk_cq(64);
	p->a = mk_qp(pd, p->acq, IBV_QPT_RC, 32, 32, 0, 0);
	p->b = mk_qp(pd, p->bcq, IBV_QPT_RC, 32, 32, 0, 0);
	rc = rc_init(p->a, RC_ACCESS_ALL);
	CONTRACT(rc == 0, "RC RESET->INIT succeeds (%d)", rc);
	rc = rc_init(p->b, b_access);
	CONTRACT(rc == 0, "RC RESET->INIT succeeds (%d)", rc);
	rtr_attr(&at, p->b->qp_num, 1);
	rc = ibv_modify_qp(p->a, &at, RTR_MASK);
	CONTRACT(rc == 0, "RC INIT->RTR succeeds (%d)", rc);
	rtr_attr(&at, p->a->qp_num, b_max_dest);
	rc = ibv_modify_qp(p->b, &at, RTR_MASK);
	CONTRACT(rc == 0, "RC INIT->RTR (max_dest_rd_atomic %d) succeeds "
		"(%d)", b_max_dest, rc);
	rts_attr(&at, a_max_rd, rnr_retry);
	rc = ibv_modify_qp(p->a, &at, RTS_MASK);
	CONTRACT(rc == 0, "RC RTR->RTS (max_rd_atomic %d) succeeds (%d)",
		a_max_rd, rc);
	rts_attr(&at, 1, rnr_retry);
	rc = ibv_modify_qp(p->b, &at, RTS_MASK);
	CONTRACT(rc == 0, "RC RTR->RTS succeeds (%d)", rc);
}

static int
post_recv(struct ibv_qp *qp, void *addr, uint32_t len, uint32_t lkey,
	uint64_t id)
{
	struct ibv_sge sge = { .addr = (uintptr_t)addr, .length = len,
		.lkey = lkey };
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &sge,
		.num_sge = 1 };
	struct ibv_recv_wr *bad;

	return ibv_post_recv(qp, &wr, &bad);
}

/* One RC work request (SEND, WRITE, READ, ...) of one SGE. */
static int
post_rc(struct ibv_qp *qp, enum ibv_wr_opcode op, void *addr, uint32_t len,
	uint32_t lkey, uint64_t raddr, uint32_t rkey, unsigned int flags,
	uint64_t id)
{
	struct ibv_sge sge = { .addr = (uintptr_t)addr, .length = len,
		.lkey = lkey };
	struct ibv_send_wr wr = { .wr_id = id, .sg_list = &sge,
		.num_sge = len ? 1 : 0, .opcode = op, .send_flags = flags };
	struct ibv_send_wr *bad;

	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	return ibv_post_send(qp, &wr, &bad);
}

static int
post_ud(struct ibv_qp *qp, struct ibv_ah *ah, uint32_t rqpn, uint32_t qkey,
	void *addr, uint32_t len, uint32_t lkey, unsigned int flags,
	uint64_t id)
{
	struct ibv_sge sge = { .addr = (uintptr_t)addr, .length = len,
		.lkey = lkey };
	struct ibv_send_wr wr = { .wr_id = id, .sg_list = &sge,
		.num_sge = 1, .opcode = IBV_WR_SEND, .send_flags = flags };
	struct ibv_send_wr *bad;

	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = rqpn;
	wr.wr.ud.remote_qkey = qkey;
	return ibv_post_send(qp, &wr, &bad);
}

static struct ibv_ah *
mk_ah(struct ibv_pd *pd, uint8_t hop_limit, uint8_t tclass)
{
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1 };
	struct ibv_ah *ah;

	aa.grh.dgid = dev.gid;
	aa.grh.sgid_index = dev.gidx;
	aa.grh.hop_limit = hop_limit;
	aa.grh.traffic_class = tclass;
	ah = keep(K_AH, ibv_create_ah(pd, &aa));
	CONTRACT(ah != NULL, "ibv_create_ah to the own IPv4 GID succeeds "
		"(errno %d)", ah == NULL ? errno : 0);
	return ah;
}

/* --- device, port, GIDs --------------------------------------------- */

static void
test_device(void **state)
{
	struct ibv_device_attr a;
	int rc;

	(void)state;
	rc = ibv_query_device(dev.ctx, &a);
	CONTRACT(rc == 0, "ibv_query_device succeeds (%d)", rc);
	CONTRACT(a.phys_port_cnt == 1, "one physical port (%u)",
		a.phys_port_cnt);
	CONTRACT(a.max_qp_wr >= 1024, "max_qp_wr >= 1024 (%d)", a.max_qp_wr);
	CONTRACT(a.max_cqe >= 1024, "max_cqe >= 1024 (%d)", a.max_cqe);
	CONTRACT(a.max_sge >= 1, "max_sge >= 1 (%d)", a.max_sge);
	CONTRACT(a.max_qp_rd_atom >= 1 && a.max_qp_init_rd_atom >= 1,
		"read credits offered (max_qp_rd_atom %d, init %d)",
		a.max_qp_rd_atom, a.max_qp_init_rd_atom);
	/* Windows are a capability, not a must: what a device advertises
	 * it has. rxe has type 2B windows (the READ exposure design relies
	 * on them), so on rxe both stay asserted. */
	if ((a.device_cap_flags & IBV_DEVICE_MEM_WINDOW_TYPE_2B) != 0)
		CONTRACT(a.max_mw >= 1, "MEM_WINDOW_TYPE_2B advertised, so "
			"windows offered (max_mw %d)", a.max_mw);
	if (dev.is_rxe) {
		CONTRACT(a.max_mw >= 1, "rxe: memory windows offered "
			"(max_mw %d)", a.max_mw);
		CONTRACT((a.device_cap_flags &
			IBV_DEVICE_MEM_WINDOW_TYPE_2B) != 0,
			"rxe: device_cap_flags has MEM_WINDOW_TYPE_2B (0x%x)",
			a.device_cap_flags);
	}
	CONTRACT(a.max_ah >= 1, "max_ah >= 1 (%d)", a.max_ah);
	vc_info("max_qp_wr %d max_cqe %d max_sge %d max_qp_rd_atom %d "
		"max_qp_init_rd_atom %d max_mw %d max_ah %d cap 0x%x",
		a.max_qp_wr, a.max_cqe, a.max_sge, a.max_qp_rd_atom,
		a.max_qp_init_rd_atom, a.max_mw, a.max_ah,
		a.device_cap_flags);
}

static void
test_port(void **state)
{
	struct ibv_port_attr p;
	int rc;

	(void)state;
	rc = ibv_query_port(dev.ctx, 1, &p);
	CONTRACT(rc == 0, "ibv_query_port(1) succeeds (%d)", rc);
	CONTRACT(p.state == IBV_PORT_ACTIVE, "port 1 is ACTIVE (%d)",
		p.state);
	CONTRACT(p.link_layer == IBV_LINK_LAYER_ETHERNET,
		"link layer Ethernet (%d)", p.link_layer);
	/* rxe: the netdev MTU minus the RoCE headers, rounded down to an
	 * IB MTU: 1024 on the 1500-byte dummy0. */
	CONTRACT(p.active_mtu == IBV_MTU_1024,
		"active MTU 1024 on a 1500-byte link (%d)", p.active_mtu);
	CONTRACT(p.max_mtu >= p.active_mtu, "max_mtu >= active_mtu (%d)",
		p.max_mtu);
	CONTRACT(p.gid_tbl_len >= 2, "GID table has room (%d)",
		p.gid_tbl_len);
	CONTRACT(p.pkey_tbl_len >= 1, "P_Key table (%u)", p.pkey_tbl_len);
	CONTRACT(p.max_msg_sz >= 65536, "max_msg_sz >= 64 KiB (%u)",
		p.max_msg_sz);
	rc = ibv_query_port(dev.ctx, 2, &p);
	CONTRACT(rc == EINVAL, "ibv_query_port(2) on a 1-port device fails "
		"with EINVAL (%d)", rc);
}

static int
is_v4mapped(const union ibv_gid *g)
{
	static const uint8_t pfx[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0xff, 0xff };

	return memcmp(g->raw, pfx, 12) == 0;
}

static void
test_gid_table(void **state)
{
	struct ibv_gid_entry e[64], one;
	union ibv_gid g;
	ssize_t n;
	int i, v4 = 0, ll = 0, v1 = 0, rc;

	(void)state;
	n = ibv_query_gid_table(dev.ctx, e, 64, 0);
	CONTRACT(n >= 2, "ibv_query_gid_table lists >= 2 entries (%zd)", n);
	for (i = 0; i < n; i++) {
		char s[INET6_ADDRSTRLEN];

		inet_ntop(AF_INET6, e[i].gid.raw, s, sizeof(s));
		vc_info("GID[%u] %s type %s netdev %u", e[i].gid_index, s,
			e[i].gid_type == IBV_GID_TYPE_ROCE_V2 ? "RoCE v2" :
			e[i].gid_type == IBV_GID_TYPE_ROCE_V1 ? "RoCE v1" :
			"IB", e[i].ndev_ifindex);
		CONTRACT(e[i].port_num == 1, "GID entry on port 1");
		if (e[i].gid_type == IBV_GID_TYPE_ROCE_V2 &&
				is_v4mapped(&e[i].gid))
			v4++;
		if (e[i].gid_type == IBV_GID_TYPE_ROCE_V2 &&
				e[i].gid.raw[0] == 0xfe &&
				(e[i].gid.raw[1] & 0xc0) == 0x80)
			ll++;
		v1 += e[i].gid_type == IBV_GID_TYPE_ROCE_V1;
		CONTRACT(e[i].gid_type != IBV_GID_TYPE_IB,
			"no IB-type GID on an Ethernet port");
	}
	CONTRACT(v4 == 1, "exactly one IPv4-mapped RoCE v2 GID (%d)", v4);
	CONTRACT(ll >= 1, "a link-local fe80::/10 RoCE v2 GID (%d)", ll);
	vc_info("RoCE v1 GIDs: %d (rxe has RoCE v2 only; hardware lists "
		"each address as v1 and v2)", v1);
	rc = ibv_query_gid(dev.ctx, 1, dev.gidx, &g);
	CONTRACT(rc == 0 && memcmp(&g, &dev.gid, sizeof(g)) == 0,
		"ibv_query_gid agrees with the table (%d)", rc);
	rc = ibv_query_gid_ex(dev.ctx, 1, dev.gidx, &one, 0);
	CONTRACT(rc == 0 && one.gid_type == IBV_GID_TYPE_ROCE_V2,
		"ibv_query_gid_ex gives RoCE v2 for the IPv4 GID (%d)", rc);
	/* An index inside the table that holds no GID. */
	rc = ibv_query_gid_ex(dev.ctx, 1, dev.port.gid_tbl_len - 1, &one, 0);
	CONTRACT(rc == ENODATA, "ibv_query_gid_ex of an empty index: "
		"ENODATA (%d)", rc);
	rc = ibv_query_gid_ex(dev.ctx, 1, dev.port.gid_tbl_len, &one, 0);
	CONTRACT(rc == EINVAL, "ibv_query_gid_ex past the table: EINVAL "
		"(%d)", rc);
}

/* --- object creation and limits ------------------------------------- */

static void
test_pd_mr(void **state)
{
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	void *buf;
	int rc;

	(void)state;
	pd = mk_pd();
	buf = buf_alloc(VC_BUF, 0);
	mr = mk_mr(pd, buf, VC_BUF, RC_ACCESS_ALL);
	CONTRACT(mr->addr == buf && mr->length == VC_BUF,
		"the MR covers the buffer");
	CONTRACT(mr->lkey != 0 || mr->rkey != 0, "keys assigned");
	errno = 0;
	mr = ibv_reg_mr(pd, buf, VC_BUF, IBV_ACCESS_REMOTE_WRITE);
	keep(K_MR, mr);
	CONTRACT(mr == NULL && errno == EINVAL, "REMOTE_WRITE without "
		"LOCAL_WRITE refused: EINVAL (errno %d)", errno);
	errno = 0;
	mr = ibv_reg_mr(pd, buf, VC_BUF, IBV_ACCESS_REMOTE_ATOMIC);
	keep(K_MR, mr);
	CONTRACT(mr == NULL && errno == EINVAL, "REMOTE_ATOMIC without "
		"LOCAL_WRITE refused: EINVAL (errno %d)", errno);
	rc = ibv_dealloc_pd(pd);
	CONTRACT(rc == EBUSY, "ibv_dealloc_pd with an MR on it: EBUSY (%d)",
		rc);
}

static void
test_cq_limits(void **state)
{
	struct ibv_cq *cq;

	(void)state;
	cq = mk_cq(dev.attr.max_cqe);
	CONTRACT(cq->cqe >= dev.attr.max_cqe, "a CQ of max_cqe entries "
		"(%d)", cq->cqe);
	errno = 0;
	cq = keep(K_CQ, ibv_create_cq(dev.ctx, dev.attr.max_cqe + 1, NULL,
		NULL, 0));
	CONTRACT(cq == NULL && errno == EINVAL,
		"a CQ of max_cqe + 1 refused: EINVAL (errno %d)", errno);
	cq = mk_cq(1);
	CONTRACT(cq->cqe >= 1, "a one-entry CQ (cqe %d)", cq->cqe);
	errno = 0;
	cq = keep(K_CQ, ibv_create_cq(dev.ctx, 0, NULL, NULL, 0));
	vc_info("ibv_create_cq(0): %s (errno %d)", cq ? "created" : "refused",
		errno);
	CONTRACT(cq == NULL && errno == EINVAL,
		"a CQ of 0 entries refused: EINVAL (errno %d)", errno);
}

static struct ibv_qp *
try_qp(struct ibv_pd *pd, struct ibv_cq *cq, uint32_t swr, uint32_t ssge,
	uint32_t inl)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = swr, .max_recv_wr = 4,
			.max_send_sge = ssge, .max_recv_sge = 1,
			.max_inline_data = inl },
	};

	errno = 0;
	return keep(K_QP, ibv_create_qp(pd, &ia));
}

static void
test_qp_limits(void **state)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	int rc;

	(void)state;
	pd = mk_pd();
	cq = mk_cq(16);
	qp = try_qp(pd, cq, 4, 1, 32);
	CONTRACT(qp != NULL, "a small RC QP (errno %d)", errno);
	rc = ibv_query_qp(qp, &a, IBV_QP_CAP, &ia);
	CONTRACT(rc == 0, "ibv_query_qp(CAP) succeeds (%d)", rc);
	CONTRACT(a.cap.max_send_wr >= 4 && a.cap.max_inline_data >= 32,
		"caps at least as asked (send_wr %u inline %u)",
		a.cap.max_send_wr, a.cap.max_inline_data);
	vc_info("asked send_wr 4 inline 32: got send_wr %u recv_wr %u "
		"inline %u", a.cap.max_send_wr, a.cap.max_recv_wr,
		a.cap.max_inline_data);
	qp = try_qp(pd, cq, dev.attr.max_qp_wr + 1, 1, 0);
	CONTRACT(qp == NULL && errno == EINVAL, "max_send_wr > max_qp_wr "
		"refused: EINVAL (errno %d)", errno);
	qp = try_qp(pd, cq, 4, dev.attr.max_sge + 1, 0);
	CONTRACT(qp == NULL && errno == EINVAL, "max_send_sge > max_sge "
		"refused: EINVAL (errno %d)", errno);
	qp = try_qp(pd, cq, 4, 1, 1 << 20);
	CONTRACT(qp == NULL && errno == EINVAL, "max_inline_data of 1 MiB "
		"refused: EINVAL (errno %d)", errno);
}

static void
test_ah(void **state)
{
	struct ibv_ah_attr aa = { .is_global = 0, .port_num = 1 };
	struct ibv_pd *pd;
	struct ibv_ah *ah;

	(void)state;
	pd = mk_pd();
	mk_ah(pd, 64, 0);
	mk_ah(pd, 64, 0);	/* a second one to the same address */
	errno = 0;
	ah = keep(K_AH, ibv_create_ah(pd, &aa));
	CONTRACT(ah == NULL && errno == EINVAL, "an AH without GRH on RoCE "
		"refused: EINVAL (errno %d)", errno);
	aa.is_global = 1;
	aa.grh.dgid = dev.gid;
	aa.grh.sgid_index = dev.gidx;
	aa.port_num = 2;
	errno = 0;
	ah = keep(K_AH, ibv_create_ah(pd, &aa));
	CONTRACT(ah == NULL && errno == EINVAL, "an AH on port 2 refused: "
		"EINVAL (errno %d)", errno);
	aa.port_num = 1;
	aa.grh.sgid_index = dev.port.gid_tbl_len - 1;
	errno = 0;
	ah = keep(K_AH, ibv_create_ah(pd, &aa));
	CONTRACT(ah == NULL && errno == ENODATA, "an AH from an empty source "
		"GID index refused: ENODATA (errno %d)", errno);
}

/* --- the QP state machine ------------------------------------------- */

static void
test_qp_states_ud(void **state)
{
	struct ibv_qp_attr a = { 0 };
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	void *buf;
	struct ibv_mr *mr;
	int rc;

	(void)state;
	pd = mk_pd();
	cq = mk_cq(16);
	qp = mk_qp(pd, cq, IBV_QPT_UD, 4, 4, 0, 0);
	buf = buf_alloc(VC_BUF, 0);
	mr = mk_mr(pd, buf, VC_BUF, IBV_ACCESS_LOCAL_WRITE);
	CONTRACT(qp_state(qp) == IBV_QPS_RESET, "a new QP is in RESET");
	rc = post_recv(qp, buf, 64, mr->lkey, 1);
	CONTRACT(rc == EINVAL, "post_recv in RESET: EINVAL (%d)", rc);
	a.qp_state = IBV_QPS_RTR;
	rc = ibv_modify_qp(qp, &a, IBV_QP_STATE);
	CONTRACT(rc == EINVAL, "RESET->RTR: EINVAL (%d)", rc);
	a.qp_state = IBV_QPS_RTS;
	rc = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
	CONTRACT(rc == EINVAL, "RESET->RTS: EINVAL (%d)", rc);
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	rc = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PORT |
		IBV_QP_PKEY_INDEX);
	CONTRACT(rc == EINVAL, "UD RESET->INIT without QKEY: EINVAL (%d)",
		rc);
	a.qkey = VC_QKEY;
	a.port_num = 2;
	rc = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PORT |
		IBV_QP_PKEY_INDEX | IBV_QP_QKEY);
	CONTRACT(rc == EINVAL, "RESET->INIT on port 2: EINVAL (%d)", rc);
	a.port_num = 1;
	a.pkey_index = 1;
	rc = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PORT |
		IBV_QP_PKEY_INDEX | IBV_QP_QKEY);
	/* rxe does not check the P_Key index against its 1-entry table
	 * (the spec: an invalid attribute, the modify fails). */
	RXE_LENIENT(rc == 0, rc == EINVAL, "RESET->INIT with P_Key index 1 "
		"of a 1-entry table: %d", rc);
	if (rc == 0) {
		a.qp_state = IBV_QPS_RESET;
		rc = ibv_modify_qp(qp, &a, IBV_QP_STATE);
		CONTRACT(rc == 0, "INIT->RESET (%d)", rc);
		a.qp_state = IBV_QPS_INIT;
	}
	a.pkey_index = 0;
	rc = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PORT |
		IBV_QP_PKEY_INDEX | IBV_QP_QKEY);
	CONTRACT(rc == 0, "UD RESET->INIT (%d)", rc);
	CONTRACT(qp_state(qp) == IBV_QPS_INIT, "now INIT");
	rc = post_recv(qp, buf, 64, mr->lkey, 1);
	CONTRACT(rc == 0, "post_recv in INIT is allowed (%d)", rc);
	a.qp_state = IBV_QPS_RTS;
	rc = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
	CONTRACT(rc == EINVAL, "INIT->RTS: EINVAL (%d)", rc);
	a.qp_state = IBV_QPS_RTR;
	rc = ibv_modify_qp(qp, &a, IBV_QP_STATE);
	CONTRACT(rc == 0, "UD INIT->RTR with no attributes (%d)", rc);
	a.qp_state = IBV_QPS_RTS;
	rc = ibv_modify_qp(qp, &a, IBV_QP_STATE);
	CONTRACT(rc == EINVAL, "UD RTR->RTS without SQ_PSN: EINVAL (%d)", rc);
	rc = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
	CONTRACT(rc == 0, "UD RTR->RTS (%d)", rc);
	CONTRACT(qp_state(qp) == IBV_QPS_RTS, "now RTS");
	a.qp_state = IBV_QPS_INIT;
	rc = ibv_modify_qp(qp, &a, IBV_QP_STATE);
	CONTRACT(rc == EINVAL, "RTS->INIT: EINVAL (%d)", rc);
	a.qp_state = IBV_QPS_ERR;
	rc = ibv_modify_qp(qp, &a, IBV_QP_STATE);
	CONTRACT(rc == 0, "RTS->ERR (%d)", rc);
	CONTRACT(qp_state(qp) == IBV_QPS_ERR, "now ERR");
	{
		struct ibv_wc wc;

		one_wc(cq, &wc, "the receive posted before ERR");
		CONTRACT(wc.status == IBV_WC_WR_FLUSH_ERR && wc.wr_id == 1,
			"it is flushed: WR_FLUSH_ERR (%s)",
			ibv_wc_status_str(wc.status));
	}
	a.qp_state = IBV_QPS_RESET;
	rc = ibv_modify_qp(qp, &a, IBV_QP_STATE);
	CONTRACT(rc == 0, "ERR->RESET (%d)", rc);
	CONTRACT(qp_state(qp) == IBV_QPS_RESET, "now RESET again");
}

static void
test_qp_states_rc(void **state)
{
	struct ibv_qp_attr a;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp, *peer;
	int rc;

	(void)state;
	pd = mk_pd();
	cq = mk_cq(16);
	qp = mk_qp(pd, cq, IBV_QPT_RC, 4, 4, 0, 0);
	peer = mk_qp(pd, cq, IBV_QPT_RC, 4, 4, 0, 0);
	rc = rc_init(qp, RC_ACCESS_ALL);
	CONTRACT(rc == 0, "RC RESET->INIT (%d)", rc);
	rtr_attr(&a, peer->qp_num, 1);
	rc = ibv_modify_qp(qp, &a, RTR_MASK & ~IBV_QP_AV);
	CONTRACT(rc == EINVAL, "RC INIT->RTR without AV: EINVAL (%d)", rc);
	rc = ibv_modify_qp(qp, &a, RTR_MASK & ~IBV_QP_DEST_QPN);
	CONTRACT(rc == EINVAL, "RC INIT->RTR without DEST_QPN: EINVAL (%d)",
		rc);
	rc = ibv_modify_qp(qp, &a, RTR_MASK & ~IBV_QP_PATH_MTU);
	CONTRACT(rc == EINVAL, "RC INIT->RTR without PATH_MTU: EINVAL (%d)",
		rc);
	rc = ibv_modify_qp(qp, &a, RTR_MASK & ~IBV_QP_MAX_DEST_RD_ATOMIC);
	CONTRACT(rc == EINVAL, "RC INIT->RTR without MAX_DEST_RD_ATOMIC: "
		"EINVAL (%d)", rc);
	rtr_attr(&a, peer->qp_num, 1);
	a.ah_attr.grh.sgid_index = dev.port.gid_tbl_len - 1;
	rc = ibv_modify_qp(qp, &a, RTR_MASK);
	CONTRACT(rc == ENODATA, "RTR from an empty source GID index: ENODATA "
		"(%d)", rc);
	CONTRACT(qp_state(qp) == IBV_QPS_INIT, "still INIT after the "
		"refused transitions");
	rtr_attr(&a, peer->qp_num, 1);
	rc = ibv_modify_qp(qp, &a, RTR_MASK);
	CONTRACT(rc == 0, "RC INIT->RTR (%d)", rc);
	rts_attr(&a, 1, 7);
	rc = ibv_modify_qp(qp, &a, RTS_MASK & ~IBV_QP_SQ_PSN);
	CONTRACT(rc == EINVAL, "RC RTR->RTS without SQ_PSN: EINVAL (%d)", rc);
	rc = ibv_modify_qp(qp, &a, RTS_MASK & ~IBV_QP_TIMEOUT);
	CONTRACT(rc == EINVAL, "RC RTR->RTS without TIMEOUT: EINVAL (%d)",
		rc);
	rts_attr(&a, 4, 7);
	rc = ibv_modify_qp(qp, &a, RTS_MASK);
	CONTRACT(rc == 0, "RC RTR->RTS (%d)", rc);
	{
		struct ibv_qp_init_attr ia;

		rc = ibv_query_qp(qp, &a, IBV_QP_STATE | IBV_QP_MAX_QP_RD_ATOMIC
			| IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_DEST_QPN |
			IBV_QP_PATH_MTU, &ia);
		CONTRACT(rc == 0 && a.qp_state == IBV_QPS_RTS &&
			a.max_rd_atomic == 4 && a.max_dest_rd_atomic == 1 &&
			a.dest_qp_num == peer->qp_num &&
			a.path_mtu == dev.port.active_mtu,
			"ibv_query_qp reads back RTS, max_rd_atomic 4, "
			"max_dest_rd_atomic 1, dest QPN, path MTU (%s %u %u)",
			state_str(a.qp_state), a.max_rd_atomic,
			a.max_dest_rd_atomic);
	}
	/* Read credits over the device's limits, each on a fresh QP. */
	qp = mk_qp(pd, cq, IBV_QPT_RC, 4, 4, 0, 0);
	rc = rc_init(qp, RC_ACCESS_ALL);
	CONTRACT(rc == 0, "RC RESET->INIT (%d)", rc);
	rtr_attr(&a, peer->qp_num, dev.attr.max_qp_rd_atom + 1);
	rc = ibv_modify_qp(qp, &a, RTR_MASK);
	/* The spec: a value over the HCA's limit is an invalid attribute;
	 * rxe takes it (and does not enforce responder credits anyway). */
	RXE_LENIENT(rc == 0, rc == EINVAL, "max_dest_rd_atomic %d > "
		"max_qp_rd_atom: %d", dev.attr.max_qp_rd_atom + 1, rc);
	if (rc != 0) {
		rtr_attr(&a, peer->qp_num, 1);
		rc = ibv_modify_qp(qp, &a, RTR_MASK);
		CONTRACT(rc == 0, "RC INIT->RTR (%d)", rc);
	}
	rts_attr(&a, dev.attr.max_qp_init_rd_atom + 1, 7);
	rc = ibv_modify_qp(qp, &a, RTS_MASK);
	vc_info("max_rd_atomic %d > max_qp_init_rd_atom: %d",
		dev.attr.max_qp_init_rd_atom + 1, rc);
	CONTRACT(rc == EINVAL, "max_rd_atomic > max_qp_init_rd_atom: EINVAL "
		"(%d)", rc);
}

/* --- UD delivery ---------------------------------------------------- */

static uint16_t
ip_csum(const uint8_t *h)
{
	uint32_t s = 0;
	int i;

	for (i = 0; i < 20; i += 2)
		s += (uint32_t)h[i] << 8 | h[i + 1];
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

struct ud_pair {
	struct ibv_pd *pd;
	struct ibv_cq *scq, *rcq;
	struct ibv_qp *s, *r;
	struct ibv_ah *ah;
	uint8_t *sbuf, *rbuf;
	struct ibv_mr *smr, *rmr;
};

#define UD_SLOT (40 + 4096)

static void
mk_ud_pair(struct ud_pair *u, uint32_t swr, uint32_t rwr, uint32_t inl,
	uint32_t sqkey, uint32_t rqkey, uint8_t hop, uint8_t tclass)
{
	u->pd = mk_pd();
	u->scq = mk_cq(swr * 2 + 8);
	u->rcq = mk_cq(rwr * 2 + 8);
	u->s = mk_qp(u->pd, u->scq, IBV_QPT_UD, swr, 1, inl, 0);
	u->r = mk_qp(u->pd, u->rcq, IBV_QPT_UD, 1, rwr, 0, 0);
	ud_to_rts(u->s, sqkey);
	ud_to_rts(u->r, rqkey);
	u->ah = mk_ah(u->pd, hop, tclass);
	u->sbuf = buf_alloc(VC_BUF, 0);
	u->rbuf = buf_alloc((size_t)rwr * UD_SLOT, 0);
	u->smr = mk_mr(u->pd, u->sbuf, VC_BUF, IBV_ACCESS_LOCAL_WRITE);
	u->rmr = mk_mr(u->pd, u->rbuf, (size_t)rwr * UD_SLOT,
		IBV_ACCESS_LOCAL_WRITE);
}

static void
ud_post_recvs(struct ud_pair *u, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		int rc = post_recv(u->r, u->rbuf + (size_t)i * UD_SLOT,
			UD_SLOT, u->rmr->lkey, 1000 + i);

		CONTRACT(rc == 0, "post_recv %u (%d)", i, rc);
	}
}

static void
check_grh(const uint8_t *g, uint32_t payload, uint8_t hop, uint8_t tclass,
	const char *what)
{
	const uint8_t *ip = g + 20;
	int zero = 1, i;
	uint16_t tot = (uint16_t)(ip[2] << 8 | ip[3]);

	for (i = 0; i < 20; i++)
		if (g[i] != 0)
			zero = 0;
	/* The specification leaves the GRH area's first 20 bytes undefined
	 * for an IPv4 RoCE v2 packet; rxe zeroes them, the model randomises
	 * them (so that software reading them breaks visibly): strict
	 * asserts they are not all zero. */
	RXE_LENIENT(zero, !zero, "%s: GRH bytes 0-19 (undefined for IPv4) "
		"%s", what, zero ? "zeroed" : "not all zero");
	CONTRACT(ip[0] == 0x45, "%s: IPv4 version 4, IHL 5 (0x%02x)", what,
		ip[0]);
	CONTRACT(ip[1] == tclass, "%s: TOS = the AH's traffic class 0x%02x "
		"(0x%02x)", what, tclass, ip[1]);
	/* IPv4 20 + UDP 8 + BTH 12 + DETH 8 + payload padded to 4 + ICRC 4 */
	CONTRACT(tot == 20 + 8 + 12 + 8 + ((payload + 3) & ~3u) + 4,
		"%s: IPv4 total length %u = 52 + payload %u padded to 4",
		what, tot, payload);
	/* The kernel resolves a RoCE AH's route and replaces the hop limit
	 * with the route's (64, the default TTL): the AH's is ignored. */
	RXE_LENIENT(ip[8] == 64, ip[8] == hop, "%s: TTL %u (the AH's hop "
		"limit %u, the route's 64)", what, ip[8], hop);
	CONTRACT(ip[9] == 17, "%s: protocol UDP (%u)", what, ip[9]);
	CONTRACT(memcmp(ip + 12, &dev.ipv4, 4) == 0 &&
		memcmp(ip + 16, &dev.ipv4, 4) == 0,
		"%s: source and destination = the GID's IPv4 address", what);
	/* rxe's loopback hands the packet to its own receive path before IP
	 * output would fill in the checksum: the field stays 0. */
	RXE_LENIENT(ip[10] == 0 && ip[11] == 0, ip_csum(ip) == 0xffff,
		"%s: IPv4 header checksum 0x%02x%02x (%s)", what, ip[10],
		ip[11], ip_csum(ip) == 0xffff ? "valid" : "not computed");
	vc_info("%s: IPv4 id 0x%02x%02x flags/frag 0x%02x%02x checksum "
		"0x%02x%02x (sum 0x%04x)", what, ip[4], ip[5], ip[6], ip[7],
		ip[10], ip[11], ip_csum(ip));
}

static void
test_ud_grh(void **state)
{
	static const uint32_t sizes[] = { 1, 100, 1024 };
	const uint8_t hop = 17, tclass = 0x20;
	struct ud_pair u;
	struct ibv_wc wc;
	unsigned int i;
	int rc;

	(void)state;
	mk_ud_pair(&u, 8, 8, 0, VC_QKEY, VC_QKEY, hop, tclass);
	ud_post_recvs(&u, 4);
	for (i = 0; i < 3; i++) {
		uint32_t len = sizes[i];
		uint8_t *slot = u.rbuf + (size_t)i * UD_SLOT;
		char what[32];
		uint32_t k;

		snprintf(what, sizeof(what), "UD payload %u", len);
		for (k = 0; k < len; k++)
			u.sbuf[k] = (uint8_t)(k * 7 + i);
		rc = post_ud(u.s, u.ah, u.r->qp_num, VC_QKEY, u.sbuf, len,
			u.smr->lkey, IBV_SEND_SIGNALED, 10 + i);
		CONTRACT(rc == 0, "%s posted (%d)", what, rc);
		one_wc(u.scq, &wc, what);
		CONTRACT(wc.status == IBV_WC_SUCCESS &&
			wc.opcode == IBV_WC_SEND && wc.wr_id == 10 + i,
			"%s: send completion SUCCESS, opcode SEND, wr_id (%s)",
			what, ibv_wc_status_str(wc.status));
		one_wc(u.rcq, &wc, what);
		CONTRACT(wc.status == IBV_WC_SUCCESS &&
			wc.opcode == IBV_WC_RECV && wc.wr_id == 1000 + i,
			"%s: receive completion SUCCESS, RECV, in posting "
			"order (%s)", what, ibv_wc_status_str(wc.status));
		CONTRACT(wc.byte_len == len + 40, "%s: byte_len = 40 + payload "
			"(%u)", what, wc.byte_len);
		CONTRACT((wc.wc_flags & IBV_WC_GRH) != 0, "%s: IBV_WC_GRH set",
			what);
		CONTRACT(wc.src_qp == u.s->qp_num && wc.qp_num == u.r->qp_num,
			"%s: src_qp = sender, qp_num = receiver", what);
		CONTRACT(wc.pkey_index == 0, "%s: pkey_index 0 (%u)", what,
			wc.pkey_index);
		CONTRACT(memcmp(slot + 40, u.sbuf, len) == 0,
			"%s: payload after the 40-byte GRH", what);
		check_grh(slot, len, hop, tclass, what);
	}
	/* One byte over the path MTU on UD. */
	rc = post_ud(u.s, u.ah, u.r->qp_num, VC_QKEY, u.sbuf,
		1024 + 1, u.smr->lkey, IBV_SEND_SIGNALED, 20);
	CONTRACT(rc == 0, "a UD send of MTU + 1 posted (%d)", rc);
	one_wc(u.scq, &wc, "a UD send of MTU + 1");
	{
		struct ibv_wc rwc;
		int got = poll_n(u.rcq, &rwc, 1, VC_QUIET_MS * 2);

		vc_info("UD send of MTU + 1: %s, %s", ibv_wc_status_str(
			wc.status), got ? "delivered" : "not delivered");
		CONTRACT(got == 0, "a UD send of MTU + 1 is not delivered");
		/* The spec: a UD message must fit one packet of the path
		 * MTU, else the send completes with a local length error;
		 * rxe reports SUCCESS and drops it. */
		RXE_LENIENT(wc.status == IBV_WC_SUCCESS,
			wc.status == IBV_WC_LOC_LEN_ERR, "a UD send of MTU + 1 "
			"completes %s", ibv_wc_status_str(wc.status));
	}
}

static void
test_ud_qkey(void **state)
{
	struct ud_pair u;
	struct ibv_wc wc;
	int rc;

	(void)state;
	mk_ud_pair(&u, 8, 4, 0, VC_QKEY, VC_QKEY, 64, 0);
	ud_post_recvs(&u, 1);
	u.sbuf[0] = 0xaa;
	rc = post_ud(u.s, u.ah, u.r->qp_num, VC_QKEY + 1, u.sbuf, 8,
		u.smr->lkey, IBV_SEND_SIGNALED, 1);
	CONTRACT(rc == 0, "a send with the wrong QKey posted (%d)", rc);
	one_wc(u.scq, &wc, "the wrong-QKey send");
	CONTRACT(wc.status == IBV_WC_SUCCESS, "the sender sees SUCCESS: UD "
		"has no acknowledgement (%s)", ibv_wc_status_str(wc.status));
	no_wc(u.rcq, "a QKey mismatch (dropped)");
	u.sbuf[0] = 0xbb;
	rc = post_ud(u.s, u.ah, u.r->qp_num, VC_QKEY, u.sbuf, 8,
		u.smr->lkey, IBV_SEND_SIGNALED, 2);
	CONTRACT(rc == 0, "a send with the right QKey posted (%d)", rc);
	one_wc(u.scq, &wc, "the right-QKey send");
	one_wc(u.rcq, &wc, "the right-QKey send");
	CONTRACT(wc.status == IBV_WC_SUCCESS && u.rbuf[40] == 0xbb,
		"it lands in the receive the dropped one did not consume");
}

static void
test_selective_signaling(void **state)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;
	struct ud_pair u;
	struct ibv_wc wc[64];
	uint32_t cap, i, total;
	int rc, extra, got;

	(void)state;
	mk_ud_pair(&u, 4, 40, 0, VC_QKEY, VC_QKEY, 64, 0);
	rc = ibv_query_qp(u.s, &a, IBV_QP_CAP, &ia);
	CONTRACT(rc == 0, "ibv_query_qp (%d)", rc);
	cap = a.cap.max_send_wr;
	CONTRACT(cap >= 4 && cap <= 16, "send queue of %u (asked 4)", cap);
	ud_post_recvs(&u, 40);
	/* cap - 1 unsignalled then one signalled: the SQ is full. */
	for (i = 0; i < cap; i++) {
		rc = post_ud(u.s, u.ah, u.r->qp_num, VC_QKEY, u.sbuf, 8,
			u.smr->lkey, i == cap - 1 ? IBV_SEND_SIGNALED : 0,
			100 + i);
		CONTRACT(rc == 0, "send %u of %u posted (%d)", i, cap, rc);
	}
	got = poll_n(u.rcq, wc, cap, VC_WAIT_MS);
	CONTRACT(got == (int)cap, "all %u delivered (%d)", cap, got);
	/* Not polled yet: the spec keeps every slot until the signalled
	 * completion is polled; rxe frees them as it executes the WQEs. */
	rc = post_ud(u.s, u.ah, u.r->qp_num, VC_QKEY, u.sbuf, 8,
		u.smr->lkey, 0, 999);
	extra = rc == 0;
	RXE_LENIENT(rc == 0, rc == ENOMEM, "a post to a full SQ whose WQEs "
		"have executed but whose signalled completion is not polled: "
		"%d (%s)", rc, rc == 0 ? "accepted" : strerror(rc));
	got = poll_n(u.scq, wc, 64, VC_QUIET_MS * 2);
	CONTRACT(got == 1 && wc[0].wr_id == 100 + cap - 1 &&
		wc[0].status == IBV_WC_SUCCESS,
		"exactly one send completion, the signalled one (%d)", got);
	/* Its poll frees the unsignalled ones before it. */
	for (i = 0; i < cap; i++) {
		rc = post_ud(u.s, u.ah, u.r->qp_num, VC_QKEY, u.sbuf, 8,
			u.smr->lkey, i == cap - 1 ? IBV_SEND_SIGNALED : 0,
			200 + i);
		if (rc != 0 && extra && i == cap - 1)
			break;	/* rxe: the extra one still holds a slot */
		CONTRACT(rc == 0, "after the poll, send %u of %u posted (%d)",
			i, cap, rc);
	}
	total = cap + extra + (i == cap ? cap : i);
	got = poll_n(u.rcq, wc, 64, VC_WAIT_MS);
	if (got < (int)(total - cap))
		got += poll_n(u.rcq, wc + got, 64 - got, VC_WAIT_MS);
	CONTRACT((uint32_t)got == total - cap, "every posted send delivered "
		"once (%d of %u)", got, total - cap);
	if (i == cap) {
		got = poll_n(u.scq, wc, 64, VC_WAIT_MS);
		CONTRACT(got >= 1 && wc[got - 1].wr_id == 200 + cap - 1,
			"one completion per signalled send (%d)", got);
	}
}

/* A UD message larger than the receive buffer (GRH + payload). */
static void
test_ud_recv_short(void **state)
{
	struct ud_pair u;
	struct ibv_wc wc;
	int rc, got;

	(void)state;
	mk_ud_pair(&u, 4, 4, 0, VC_QKEY, VC_QKEY, 64, 0);
	rc = post_recv(u.r, u.rbuf, 40 + 32, u.rmr->lkey, 1);
	CONTRACT(rc == 0, "a receive of 40 + 32 bytes (%d)", rc);
	rc = post_ud(u.s, u.ah, u.r->qp_num, VC_QKEY, u.sbuf, 64, u.smr->lkey,
		IBV_SEND_SIGNALED, 2);
	CONTRACT(rc == 0, "a UD send of 64 bytes (%d)", rc);
	one_wc(u.scq, &wc, "the UD send");
	CONTRACT(wc.status == IBV_WC_SUCCESS, "the sender sees SUCCESS (%s)",
		ibv_wc_status_str(wc.status));
	got = poll_n(u.rcq, &wc, 1, VC_QUIET_MS * 2);
	vc_info("UD 64 bytes into 40 + 32: %s%s", got ? "completion " :
		"no completion", got ? ibv_wc_status_str(wc.status) : "");
	CONTRACT(got == 1 && wc.wr_id == 1 && wc.status != IBV_WC_SUCCESS,
		"the receive completes with an error (%s)", got ?
		ibv_wc_status_str(wc.status) : "none");
	/* The spec: a local length error; rxe: a local QP operation
	 * error, as for RC (test_rc_recv_short). */
	RXE_LENIENT(wc.status == IBV_WC_LOC_QP_OP_ERR,
		wc.status == IBV_WC_LOC_LEN_ERR, "UD 64 bytes into a receive of "
		"40 + 32 completes %s", ibv_wc_status_str(wc.status));
	/* Any error completion but a flush puts the QP in ERR, UD too: a
	 * receive buffer smaller than GRH + MTU kills the UD QP. */
	CONTRACT(qp_state(u.r) == IBV_QPS_ERR, "the UD QP is in ERR after "
		"the receive's error (%s)", state_str(qp_state(u.r)));
}

/* eRPC's flush: a signalled zero-payload send to the QP's own QPN
 * through a self AH; it comes back as a 40-byte GRH. */
static void
test_ud_self_zero(void **state)
{
	struct ibv_send_wr wr = { .wr_id = 5, .opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED, .num_sge = 0 };
	struct ibv_send_wr *bad;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_ah *ah;
	struct ibv_mr *mr;
	struct ibv_wc wc[2];
	uint8_t *buf;
	int rc, got, i, sends = 0, recvs = 0;

	(void)state;
	pd = mk_pd();
	cq = mk_cq(16);
	qp = mk_qp(pd, cq, IBV_QPT_UD, 4, 4, 0, 0);
	ud_to_rts(qp, VC_QKEY);
	ah = mk_ah(pd, 64, 0);
	buf = buf_alloc(VC_BUF, 0x77);
	mr = mk_mr(pd, buf, VC_BUF, IBV_ACCESS_LOCAL_WRITE);
	rc = post_recv(qp, buf, 40 + 1024, mr->lkey, 6);
	CONTRACT(rc == 0, "post_recv (%d)", rc);
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = qp->qp_num;
	wr.wr.ud.remote_qkey = VC_QKEY;
	rc = ibv_post_send(qp, &wr, &bad);
	CONTRACT(rc == 0, "a zero-payload send with no SGE to the own QPN "
		"(%d)", rc);
	got = poll_n(cq, wc, 2, VC_WAIT_MS);
	CONTRACT(got == 2, "two completions on the shared CQ (%d)", got);
	for (i = 0; i < got; i++) {
		if (wc[i].opcode == IBV_WC_SEND) {
			sends++;
			CONTRACT(wc[i].status == IBV_WC_SUCCESS &&
				wc[i].wr_id == 5, "the self send: SUCCESS "
				"(%s)", ibv_wc_status_str(wc[i].status));
		} else {
			recvs++;
			CONTRACT(wc[i].status == IBV_WC_SUCCESS &&
				wc[i].opcode == IBV_WC_RECV &&
				wc[i].wr_id == 6 && wc[i].byte_len == 40 &&
				wc[i].src_qp == qp->qp_num,
				"the self receive: RECV, byte_len 40 (the GRH "
				"alone), src_qp = own QPN (%u)",
				wc[i].byte_len);
		}
	}
	CONTRACT(sends == 1 && recvs == 1, "one send and one receive");
	CONTRACT(buf[40] == 0x77, "nothing written past the GRH");
}

/* An AH destroyed while a posted send that uses it has not completed:
 * the spec makes that the consumer's error (the AH must outlive the
 * WQEs referencing it); rxe copies the address vector into the WQE and
 * lets it go; the model refuses (EBUSY) until a polled completion
 * covers the send. */
static void
test_ah_lifetime(void **state)
{
	struct ud_pair u;
	struct ibv_wc wc;
	int rc;

	(void)state;
	mk_ud_pair(&u, 4, 4, 0, VC_QKEY, VC_QKEY, 64, 0);
	ud_post_recvs(&u, 1);
	rc = post_ud(u.s, u.ah, u.r->qp_num, VC_QKEY, u.sbuf, 8, u.smr->lkey,
		IBV_SEND_SIGNALED, 1);
	CONTRACT(rc == 0, "a send posted (%d)", rc);
	rc = ibv_destroy_ah(u.ah);
	RXE_LENIENT(rc == 0, rc == EBUSY, "ibv_destroy_ah with the send not "
		"polled: %d", rc);
	one_wc(u.scq, &wc, "the send");
	CONTRACT(wc.status == IBV_WC_SUCCESS, "the send completes SUCCESS "
		"(%s)", ibv_wc_status_str(wc.status));
	one_wc(u.rcq, &wc, "the send (receiver)");
	CONTRACT(wc.status == IBV_WC_SUCCESS, "it is delivered (%s)",
		ibv_wc_status_str(wc.status));
	if (rc != 0) {
		rc = ibv_destroy_ah(u.ah);
		CONTRACT(rc == 0, "ibv_destroy_ah after the poll (%d)", rc);
	}
	forget(u.ah);
}

static void
test_inline(void **state)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;
	struct ud_pair u;
	struct ibv_wc wc;
	uint8_t data[1024];
	uint32_t inl, k;
	int rc;

	(void)state;
	mk_ud_pair(&u, 8, 4, 64, VC_QKEY, VC_QKEY, 64, 0);
	rc = ibv_query_qp(u.s, &a, IBV_QP_CAP, &ia);
	inl = a.cap.max_inline_data;
	CONTRACT(rc == 0 && inl >= 64 && inl <= sizeof(data),
		"max_inline_data >= the 64 asked (%u)", inl);
	ud_post_recvs(&u, 2);
	for (k = 0; k < inl; k++)
		data[k] = (uint8_t)(k ^ 0x5a);
	/* lkey 0: an inline send's buffer need not be registered. */
	rc = post_ud(u.s, u.ah, u.r->qp_num, VC_QKEY, data, inl, 0,
		IBV_SEND_INLINE | IBV_SEND_SIGNALED, 1);
	CONTRACT(rc == 0, "an inline send of max_inline_data (%u) from "
		"unregistered memory posted (%d)", inl, rc);
	memset(data, 0xee, sizeof(data));	/* reusable at once */
	one_wc(u.scq, &wc, "the inline send");
	CONTRACT(wc.status == IBV_WC_SUCCESS, "inline send SUCCESS (%s)",
		ibv_wc_status_str(wc.status));
	one_wc(u.rcq, &wc, "the inline send");
	for (k = 0; k < inl; k++)
		if (u.rbuf[40 + k] != (uint8_t)(k ^ 0x5a))
			break;
	CONTRACT(wc.byte_len == inl + 40 && k == inl, "the receiver gets "
		"the bytes as they were at post time (%u of %u)", k, inl);
	rc = post_ud(u.s, u.ah, u.r->qp_num, VC_QKEY, data, inl + 1, 0,
		IBV_SEND_INLINE | IBV_SEND_SIGNALED, 2);
	CONTRACT(rc == EINVAL, "an inline send of max_inline_data + 1: "
		"EINVAL (%d)", rc);
	no_wc(u.scq, "the refused inline send");
}

/* --- RC ------------------------------------------------------------- */

struct rc_env {
	struct ibv_pd *pd;
	struct rc_pair p;
	uint8_t *abuf, *bbuf;
	struct ibv_mr *amr, *bmr;
};

static void
mk_rc_env(struct rc_env *e, int b_mr_access, int a_max_rd, int b_max_dest)
{
	e->pd = mk_pd();
	mk_rc_pair(e->pd, &e->p, RC_ACCESS_ALL, a_max_rd, b_max_dest, 7);
	e->abuf = buf_alloc(VC_BUF, 0x11);
	e->bbuf = buf_alloc(VC_BUF, 0x22);
	e->amr = mk_mr(e->pd, e->abuf, VC_BUF, RC_ACCESS_ALL);
	e->bmr = mk_mr(e->pd, e->bbuf, VC_BUF, b_mr_access);
}

static void
test_rc_ops(void **state)
{
	struct rc_env e;
	struct ibv_wc wc;
	int rc, k;

	(void)state;
	mk_rc_env(&e, RC_ACCESS_ALL, 1, 1);
	/* SEND */
	rc = post_recv(e.p.b, e.bbuf, VC_BUF, e.bmr->lkey, 7);
	CONTRACT(rc == 0, "post_recv (%d)", rc);
	for (k = 0; k < 2000; k++)
		e.abuf[k] = (uint8_t)(k * 3);
	rc = post_rc(e.p.a, IBV_WR_SEND, e.abuf, 2000, e.amr->lkey, 0, 0,
		IBV_SEND_SIGNALED, 1);
	CONTRACT(rc == 0, "RC SEND of 2000 bytes (two packets) posted (%d)",
		rc);
	one_wc(e.p.acq, &wc, "RC SEND");
	CONTRACT(wc.status == IBV_WC_SUCCESS && wc.opcode == IBV_WC_SEND,
		"RC SEND completes SUCCESS, opcode SEND (%s)",
		ibv_wc_status_str(wc.status));
	one_wc(e.p.bcq, &wc, "RC SEND (receiver)");
	vc_info("RC receive: src_qp %u (a %u), wc_flags 0x%x", wc.src_qp,
		e.p.a->qp_num, wc.wc_flags);
	CONTRACT(wc.status == IBV_WC_SUCCESS && wc.opcode == IBV_WC_RECV &&
		wc.byte_len == 2000 && wc.wr_id == 7,
		"RC receive: RECV, byte_len 2000 (no GRH on RC) (%u)",
		wc.byte_len);
	CONTRACT(memcmp(e.bbuf, e.abuf, 2000) == 0, "RC SEND data intact");
	/* WRITE */
	memset(e.abuf, 0x33, 3000);
	rc = post_rc(e.p.a, IBV_WR_RDMA_WRITE, e.abuf, 3000, e.amr->lkey,
		(uintptr_t)e.bbuf + 100, e.bmr->rkey, IBV_SEND_SIGNALED, 2);
	CONTRACT(rc == 0, "RDMA WRITE posted (%d)", rc);
	one_wc(e.p.acq, &wc, "RDMA WRITE");
	CONTRACT(wc.status == IBV_WC_SUCCESS && wc.opcode == IBV_WC_RDMA_WRITE,
		"RDMA WRITE completes SUCCESS, opcode RDMA_WRITE (%s)",
		ibv_wc_status_str(wc.status));
	CONTRACT(e.bbuf[99] == (uint8_t)(99 * 3) && e.bbuf[100] == 0x33 &&
		e.bbuf[3099] == 0x33 && e.bbuf[3100] == 0x22,
		"WRITE wrote exactly [100, 3100)");
	no_wc(e.p.bcq, "a WRITE without immediate (no receive consumed)");
	/* WRITE with immediate */
	rc = post_recv(e.p.b, NULL, 0, 0, 8);
	CONTRACT(rc == 0, "a zero-length receive (%d)", rc);
	{
		struct ibv_sge sge = { (uintptr_t)e.abuf, 16, e.amr->lkey };
		struct ibv_send_wr wr = { .wr_id = 3, .sg_list = &sge,
			.num_sge = 1, .opcode = IBV_WR_RDMA_WRITE_WITH_IMM,
			.send_flags = IBV_SEND_SIGNALED,
			.imm_data = htonl(0xabcd1234) };
		struct ibv_send_wr *bad;

		wr.wr.rdma.remote_addr = (uintptr_t)e.bbuf;
		wr.wr.rdma.rkey = e.bmr->rkey;
		rc = ibv_post_send(e.p.a, &wr, &bad);
	}
	CONTRACT(rc == 0, "WRITE_WITH_IMM posted (%d)", rc);
	one_wc(e.p.acq, &wc, "WRITE_WITH_IMM");
	CONTRACT(wc.status == IBV_WC_SUCCESS, "WRITE_WITH_IMM SUCCESS (%s)",
		ibv_wc_status_str(wc.status));
	one_wc(e.p.bcq, &wc, "WRITE_WITH_IMM (receiver)");
	CONTRACT(wc.status == IBV_WC_SUCCESS &&
		wc.opcode == IBV_WC_RECV_RDMA_WITH_IMM &&
		(wc.wc_flags & IBV_WC_WITH_IMM) != 0 &&
		wc.imm_data == htonl(0xabcd1234) && wc.byte_len == 16,
		"receiver: RECV_RDMA_WITH_IMM, WITH_IMM, imm_data as sent, "
		"byte_len 16 (%u)", wc.byte_len);
	/* READ */
	for (k = 0; k < VC_BUF; k++)
		e.bbuf[k] = (uint8_t)(k * 5 + 1);
	memset(e.abuf, 0, VC_BUF);
	rc = post_rc(e.p.a, IBV_WR_RDMA_READ, e.abuf, 3000, e.amr->lkey,
		(uintptr_t)e.bbuf + 1000, e.bmr->rkey, IBV_SEND_SIGNALED, 4);
	CONTRACT(rc == 0, "RDMA READ posted (%d)", rc);
	one_wc(e.p.acq, &wc, "RDMA READ");
	CONTRACT(wc.status == IBV_WC_SUCCESS && wc.opcode == IBV_WC_RDMA_READ,
		"RDMA READ SUCCESS, opcode RDMA_READ (%s)",
		ibv_wc_status_str(wc.status));
	CONTRACT(memcmp(e.abuf, e.bbuf + 1000, 3000) == 0 && e.abuf[3000] == 0,
		"READ brought exactly the 3000 bytes");
	no_wc(e.p.bcq, "a READ (no receive consumed)");
}

/* The requester's QP ends in ERR, so do further WQEs (flushed), and the
 * responder's too; checks shared by the error cases. */
static void
check_err_after(struct rc_env *e, const char *what)
{
	struct ibv_wc wc;
	int rc;

	CONTRACT(qp_state(e->p.a) == IBV_QPS_ERR, "%s: requester QP in ERR "
		"(%s)", what, state_str(qp_state(e->p.a)));
	rc = post_rc(e->p.a, IBV_WR_SEND, e->abuf, 8, e->amr->lkey, 0, 0,
		IBV_SEND_SIGNALED, 77);
	CONTRACT(rc == 0, "%s: posting to a QP in ERR is accepted (%d)", what,
		rc);
	one_wc(e->p.acq, &wc, "a WQE posted in ERR");
	CONTRACT(wc.status == IBV_WC_WR_FLUSH_ERR && wc.wr_id == 77,
		"%s: it completes WR_FLUSH_ERR (%s)", what,
		ibv_wc_status_str(wc.status));
}

static void
check_responder_err(struct rc_env *e, const char *what)
{
	struct ibv_wc wc;
	enum ibv_qp_state s = qp_state(e->p.b);
	int rc, n;

	CONTRACT(s == IBV_QPS_ERR, "%s: responder QP in ERR (%s)", what,
		state_str(s));
	rc = post_recv(e->p.b, e->bbuf, 64, e->bmr->lkey, 88);
	CONTRACT(rc == 0, "%s: post_recv on the responder (%d)", what, rc);
	/* The spec: a WQE posted to a QP in ERR completes WR_FLUSH_ERR.
	 * rxe's post_recv writes the shared queue and makes no system call,
	 * nothing runs the responder: no completion comes. */
	n = poll_n(e->p.bcq, &wc, 1, VC_QUIET_MS * 2);
	RXE_LENIENT(n == 0, n == 1 && wc.status == IBV_WC_WR_FLUSH_ERR &&
		wc.wr_id == 88, "%s: a receive posted to the responder in ERR: "
		"%s", what, n == 0 ? "no completion" :
		ibv_wc_status_str(wc.status));
}

static void
rc_expect_error(int mr_access, enum ibv_wr_opcode op, uint64_t roff,
	uint32_t len, int bad_rkey, int bad_lkey, enum ibv_wc_status want,
	int responder_err, const char *what)
{
	struct rc_env e;
	struct ibv_wc wc;
	int rc;

	mk_rc_env(&e, mr_access, 1, 1);
	if (op == IBV_WR_SEND) {
		rc = post_recv(e.p.b, e.bbuf, 16, e.bmr->lkey, 5);
		CONTRACT(rc == 0, "post_recv (%d)", rc);
	}
	rc = post_rc(e.p.a, op, e.abuf, len, bad_lkey ? e.amr->lkey ^ 0x5500
		: e.amr->lkey, (uintptr_t)e.bbuf + roff,
		bad_rkey ? e.bmr->rkey ^ 0x5500 : e.bmr->rkey,
		IBV_SEND_SIGNALED, 1);
	CONTRACT(rc == 0, "%s: posted (%d)", what, rc);
	one_wc(e.p.acq, &wc, what);
	CONTRACT(wc.status == want && wc.wr_id == 1,
		"%s: completes %s (%s)", what, ibv_wc_status_str(want),
		ibv_wc_status_str(wc.status));
	check_err_after(&e, what);
	if (responder_err)
		check_responder_err(&e, what);
}

static void
test_rc_errors(void **state)
{
	(void)state;
	rc_expect_error(RC_ACCESS_ALL, IBV_WR_RDMA_WRITE, VC_BUF - 8, 16, 0, 0,
		IBV_WC_REM_ACCESS_ERR, 1, "WRITE 8 bytes past the MR's end");
	rc_expect_error(RC_ACCESS_ALL, IBV_WR_RDMA_READ, VC_BUF - 8, 16, 0, 0,
		IBV_WC_REM_ACCESS_ERR, 1, "READ 8 bytes past the MR's end");
	rc_expect_error(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE,
		IBV_WR_RDMA_READ, 0, 16, 0, 0, IBV_WC_REM_ACCESS_ERR, 1,
		"READ from an MR without REMOTE_READ");
	rc_expect_error(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ,
		IBV_WR_RDMA_WRITE, 0, 16, 0, 0, IBV_WC_REM_ACCESS_ERR, 1,
		"WRITE to an MR without REMOTE_WRITE");
	rc_expect_error(RC_ACCESS_ALL, IBV_WR_RDMA_WRITE, 0, 16, 1, 0,
		IBV_WC_REM_ACCESS_ERR, 1, "WRITE with a wrong rkey");
}

/* A send gathered from three SGEs lands scattered over two. */
static void
test_rc_sge(void **state)
{
	struct ibv_sge s[3], r[2];
	struct ibv_send_wr wr = { .wr_id = 1, .sg_list = s, .num_sge = 3,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED };
	struct ibv_recv_wr rw = { .wr_id = 2, .sg_list = r, .num_sge = 2 };
	struct ibv_send_wr *bad;
	struct ibv_recv_wr *rbad;
	struct rc_env e;
	struct ibv_wc wc;
	uint8_t want[300];
	int rc, k;

	(void)state;
	mk_rc_env(&e, RC_ACCESS_ALL, 1, 1);
	for (k = 0; k < 1024; k++)
		e.abuf[k] = (uint8_t)(k * 11);
	s[0] = (struct ibv_sge){ (uintptr_t)e.abuf + 10, 100, e.amr->lkey };
	s[1] = (struct ibv_sge){ (uintptr_t)e.abuf + 500, 50, e.amr->lkey };
	s[2] = (struct ibv_sge){ (uintptr_t)e.abuf + 900, 150, e.amr->lkey };
	memcpy(want, e.abuf + 10, 100);
	memcpy(want + 100, e.abuf + 500, 50);
	memcpy(want + 150, e.abuf + 900, 150);
	r[0] = (struct ibv_sge){ (uintptr_t)e.bbuf + 2000, 120, e.bmr->lkey };
	r[1] = (struct ibv_sge){ (uintptr_t)e.bbuf + 100, 400, e.bmr->lkey };
	memset(e.bbuf, 0, VC_BUF);
	rc = ibv_post_recv(e.p.b, &rw, &rbad);
	CONTRACT(rc == 0, "a receive of two SGEs (%d)", rc);
	rc = ibv_post_send(e.p.a, &wr, &bad);
	CONTRACT(rc == 0, "a SEND of three SGEs (%d)", rc);
	one_wc(e.p.acq, &wc, "the gathered SEND");
	CONTRACT(wc.status == IBV_WC_SUCCESS, "SUCCESS (%s)",
		ibv_wc_status_str(wc.status));
	one_wc(e.p.bcq, &wc, "the scattered receive");
	CONTRACT(wc.status == IBV_WC_SUCCESS && wc.byte_len == 300,
		"the receive: SUCCESS, byte_len 300 (%u)", wc.byte_len);
	CONTRACT(memcmp(e.bbuf + 2000, want, 120) == 0 &&
		memcmp(e.bbuf + 100, want + 120, 180) == 0 &&
		e.bbuf[280] == 0 && e.bbuf[2120] == 0,
		"gathered in SGE order, scattered in SGE order, nothing more");
}

static void
test_rc_bad_lkey(void **state)
{
	struct rc_env e;
	struct ibv_wc wc;
	int rc;

	(void)state;
	mk_rc_env(&e, RC_ACCESS_ALL, 1, 1);
	rc = post_rc(e.p.a, IBV_WR_RDMA_WRITE, e.abuf, 16, e.amr->lkey ^
		0x5500, (uintptr_t)e.bbuf, e.bmr->rkey, IBV_SEND_SIGNALED, 1);
	CONTRACT(rc == 0, "a WRITE from a wrong lkey posted (%d)", rc);
	one_wc(e.p.acq, &wc, "a WRITE from a wrong lkey");
	CONTRACT(wc.status != IBV_WC_SUCCESS && wc.wr_id == 1,
		"a WRITE from a wrong lkey fails (%s)",
		ibv_wc_status_str(wc.status));
	/* The spec: an invalid L_Key is a local protection error. */
	RXE_LENIENT(wc.status == IBV_WC_LOC_QP_OP_ERR,
		wc.status == IBV_WC_LOC_PROT_ERR, "a WRITE from a wrong lkey "
		"completes %s", ibv_wc_status_str(wc.status));
	check_err_after(&e, "a WRITE from a wrong lkey");
	CONTRACT(qp_state(e.p.b) == IBV_QPS_RTS, "the responder is "
		"unaffected by the requester's local error (%s)",
		state_str(qp_state(e.p.b)));
}

static void
test_rc_recv_short(void **state)
{
	struct rc_env e;
	struct ibv_wc wc;
	int rc;

	(void)state;
	mk_rc_env(&e, RC_ACCESS_ALL, 1, 1);
	rc = post_recv(e.p.b, e.bbuf, 16, e.bmr->lkey, 5);
	CONTRACT(rc == 0, "post_recv of 16 bytes (%d)", rc);
	rc = post_rc(e.p.a, IBV_WR_SEND, e.abuf, 64, e.amr->lkey, 0, 0,
		IBV_SEND_SIGNALED, 1);
	CONTRACT(rc == 0, "a SEND of 64 bytes posted (%d)", rc);
	one_wc(e.p.acq, &wc, "a SEND into a short receive");
	/* The spec: the responder NAKs Invalid Request, the requester sees
	 * REM_INV_REQ_ERR; rxe NAKs Remote Operational Error. */
	RXE_LENIENT(wc.status == IBV_WC_REM_OP_ERR,
		wc.status == IBV_WC_REM_INV_REQ_ERR, "a SEND of 64 bytes into "
		"a 16-byte receive: the requester sees %s",
		ibv_wc_status_str(wc.status));
	check_err_after(&e, "a SEND into a short receive");
	one_wc(e.p.bcq, &wc, "the short receive");
	vc_info("the short receive completes %s (%d)",
		ibv_wc_status_str(wc.status), wc.status);
	CONTRACT(wc.wr_id == 5 && wc.status != IBV_WC_SUCCESS,
		"the responder's receive completes with an error (%s)",
		ibv_wc_status_str(wc.status));
	/* The spec: a receive too short for the message is a local length
	 * error; rxe reports a local QP operation error. */
	RXE_LENIENT(wc.status == IBV_WC_LOC_QP_OP_ERR,
		wc.status == IBV_WC_LOC_LEN_ERR, "the short receive completes "
		"%s", ibv_wc_status_str(wc.status));
	CONTRACT(qp_state(e.p.b) == IBV_QPS_ERR, "the responder is in ERR");
}

static void
test_rc_rnr(void **state)
{
	struct ibv_pd *pd;
	struct rc_pair p;
	struct ibv_wc wc;
	int rc;

	(void)state;
	pd = mk_pd();
	mk_rc_pair(pd, &p, RC_ACCESS_ALL, 1, 1, 0);
	rc = post_rc(p.a, IBV_WR_SEND, NULL, 0, 0, 0, 0, IBV_SEND_SIGNALED, 1);
	CONTRACT(rc == 0, "a SEND with no receive posted, rnr_retry 0 (%d)",
		rc);
	one_wc(p.acq, &wc, "a SEND meeting an empty RQ");
	CONTRACT(wc.status == IBV_WC_RNR_RETRY_EXC_ERR,
		"it completes RNR_RETRY_EXC_ERR (%s)",
		ibv_wc_status_str(wc.status));
	CONTRACT(qp_state(p.a) == IBV_QPS_ERR, "the requester is in ERR");
}

static void
test_read_credits(void **state)
{
	enum { NREAD = 8 };
	struct rc_env e;
	struct ibv_wc wc[NREAD];
	int rc, i, got, ok = 0;

	(void)state;
	/* The requester may have 16 READs outstanding, the responder
	 * promised resources for 1. */
	mk_rc_env(&e, RC_ACCESS_ALL, 16, 1);
	for (i = 0; i < NREAD; i++) {
		rc = post_rc(e.p.a, IBV_WR_RDMA_READ, e.abuf + i * 256, 256,
			e.amr->lkey, (uintptr_t)e.bbuf + i * 256, e.bmr->rkey,
			IBV_SEND_SIGNALED, i);
		CONTRACT(rc == 0, "READ %d posted (%d)", i, rc);
	}
	got = poll_n(e.p.acq, wc, NREAD, VC_WAIT_MS);
	CONTRACT(got == NREAD, "a completion for each READ (%d)", got);
	for (i = 0; i < got; i++)
		ok += wc[i].status == IBV_WC_SUCCESS;
	/* The spec: a responder with fewer resources than READs in flight
	 * answers Invalid Request (the requester exceeded the credits it
	 * was given); rxe's responder reuses its resource ring and serves
	 * them all. */
	RXE_LENIENT(ok == NREAD, ok < NREAD, "%d READs in flight against "
		"max_dest_rd_atomic 1: %d succeed", NREAD, ok);
	if (ok == NREAD)
		CONTRACT(memcmp(e.abuf, e.bbuf, NREAD * 256) == 0,
			"the READs brought the data");
}

/* --- memory windows ------------------------------------------------- */

struct mw_env {
	struct rc_env e;
	struct ibv_mw *mw;
	uint32_t rkey;	/* the bound window's */
};

/* A window on b's buffer [off, off + len), bound on b's QP (the
 * responder), REMOTE_READ only; the MR itself has no remote access. */
static void
mw_bind(struct ibv_qp *qp, struct ibv_cq *cq, struct ibv_mr *mr,
	struct ibv_mw *mw, uint64_t addr, uint64_t len, uint32_t *rkey,
	enum ibv_wc_status want)
{
	struct ibv_send_wr wr = { .wr_id = 50, .opcode = IBV_WR_BIND_MW,
		.send_flags = IBV_SEND_SIGNALED };
	struct ibv_send_wr *bad;
	struct ibv_wc wc;
	int rc;

	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
	wr.bind_mw.bind_info.mr = mr;
	wr.bind_mw.bind_info.addr = addr;
	wr.bind_mw.bind_info.length = len;
	wr.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_READ;
	rc = ibv_post_send(qp, &wr, &bad);
	CONTRACT(rc == 0, "BIND_MW posted (%d)", rc);
	one_wc(cq, &wc, "BIND_MW");
	CONTRACT(wc.status == want && wc.wr_id == 50 &&
		(want != IBV_WC_SUCCESS || wc.opcode == IBV_WC_BIND_MW),
		"BIND_MW completes %s (%s, opcode %d)",
		ibv_wc_status_str(want), ibv_wc_status_str(wc.status),
		wc.opcode);
	*rkey = wr.bind_mw.rkey;
}

static void
mk_mw_env(struct mw_env *m, int mr_access)
{
	struct ibv_mw_bind b = { 0 };
	struct ibv_device_attr a;
	int rc;

	/* Windows are a capability (test_device): a device that
	 * advertises none (the HCA model unless configured mw=1) skips the
	 * window cases. rxe advertises them, so on rxe they always run. */
	rc = ibv_query_device(dev.ctx, &a);
	CONTRACT(rc == 0, "ibv_query_device succeeds (%d)", rc);
	if (a.max_mw == 0 && !dev.is_rxe) {
		vc_info("the device offers no memory windows (max_mw 0): "
			"window cases skipped");
		skip();
	}
	mk_rc_env(&m->e, mr_access, 1, 1);
	m->mw = keep(K_MW, ibv_alloc_mw(m->e.pd, IBV_MW_TYPE_2));
	CONTRACT(m->mw != NULL && m->mw->type == IBV_MW_TYPE_2,
		"ibv_alloc_mw(TYPE_2) (errno %d)", m->mw ? 0 : errno);
	b.bind_info.mr = m->e.bmr;
	b.bind_info.addr = (uintptr_t)m->e.bbuf;
	b.bind_info.length = 64;
	b.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_READ;
	rc = ibv_bind_mw(m->e.p.b, m->mw, &b);
	CONTRACT(rc == EINVAL, "ibv_bind_mw() on a type-2 window: EINVAL "
		"(type 1 only) (%d)", rc);
}

#define MW_MR_ACCESS (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND)

static void
read_via(struct rc_env *e, uint64_t raddr, uint32_t rkey, uint32_t len,
	enum ibv_wc_status want, const char *what)
{
	struct ibv_wc wc;
	int rc;

	rc = post_rc(e->p.a, IBV_WR_RDMA_READ, e->abuf, len, e->amr->lkey,
		raddr, rkey, IBV_SEND_SIGNALED, 60);
	CONTRACT(rc == 0, "%s: READ posted (%d)", what, rc);
	one_wc(e->p.acq, &wc, what);
	CONTRACT(wc.status == want, "%s: %s (%s)", what,
		ibv_wc_status_str(want), ibv_wc_status_str(wc.status));
}

/* rxe checks a window READ against the bound MR's range only, not the
 * window's (its responder's check_rkey): a READ outside the window but
 * inside the MR succeeds. The spec: outside the window is a remote
 * access error. */
static void
read_via_lenient(struct rc_env *e, uint64_t raddr, uint32_t rkey,
	uint32_t len, const char *what)
{
	struct ibv_wc wc;
	int rc;

	rc = post_rc(e->p.a, IBV_WR_RDMA_READ, e->abuf, len, e->amr->lkey,
		raddr, rkey, IBV_SEND_SIGNALED, 61);
	CONTRACT(rc == 0, "%s: READ posted (%d)", what, rc);
	one_wc(e->p.acq, &wc, what);
	RXE_LENIENT(wc.status == IBV_WC_SUCCESS,
		wc.status == IBV_WC_REM_ACCESS_ERR, "%s: %s", what,
		ibv_wc_status_str(wc.status));
}

static void
test_mw_bind_read(void **state)
{
	struct mw_env m;
	uint8_t *win;
	int k;

	(void)state;
	mk_mw_env(&m, MW_MR_ACCESS);
	win = m.e.bbuf + 512;
	for (k = 0; k < 256; k++)
		win[k] = (uint8_t)(k + 9);
	mw_bind(m.e.p.b, m.e.p.bcq, m.e.bmr, m.mw, (uintptr_t)win, 256,
		&m.rkey, IBV_WC_SUCCESS);
	CONTRACT(m.rkey != m.e.bmr->rkey, "the window's rkey differs from "
		"the MR's");
	memset(m.e.abuf, 0, 256);
	read_via(&m.e, (uintptr_t)win, m.rkey, 256, IBV_WC_SUCCESS,
		"READ of the whole window through it");
	CONTRACT(memcmp(m.e.abuf, win, 256) == 0, "the window's bytes");
	read_via(&m.e, (uintptr_t)win + 128, m.rkey, 128, IBV_WC_SUCCESS,
		"READ of the window's second half");
	read_via_lenient(&m.e, (uintptr_t)win + 128, m.rkey, 256,
		"READ running 128 bytes past the window (inside the MR)");
	if (qp_state(m.e.p.a) == IBV_QPS_RTS)
		read_via_lenient(&m.e, (uintptr_t)m.e.bbuf + 2048, m.rkey, 64,
			"READ wholly outside the window (inside the MR)");
	if (qp_state(m.e.p.a) == IBV_QPS_RTS)
		read_via(&m.e, (uintptr_t)m.e.bbuf + VC_BUF - 32, m.rkey, 64,
			IBV_WC_REM_ACCESS_ERR,
			"READ through the window running past the MR's end");
	check_err_after(&m.e, "READ past the window");
}

static void
test_mw_mr_rkey(void **state)
{
	struct mw_env m;

	(void)state;
	mk_mw_env(&m, MW_MR_ACCESS);
	mw_bind(m.e.p.b, m.e.p.bcq, m.e.bmr, m.mw, (uintptr_t)m.e.bbuf, 256,
		&m.rkey, IBV_WC_SUCCESS);
	read_via(&m.e, (uintptr_t)m.e.bbuf, m.e.bmr->rkey, 64,
		IBV_WC_REM_ACCESS_ERR,
		"READ through the MR's own rkey (MR has no remote access)");
}

static void
test_mw_invalidate(void **state)
{
	struct ibv_send_wr wr = { .wr_id = 51, .opcode = IBV_WR_LOCAL_INV,
		.send_flags = IBV_SEND_SIGNALED };
	struct ibv_send_wr *bad;
	struct mw_env m;
	struct ibv_wc wc;
	int rc;

	(void)state;
	mk_mw_env(&m, MW_MR_ACCESS);
	mw_bind(m.e.p.b, m.e.p.bcq, m.e.bmr, m.mw, (uintptr_t)m.e.bbuf, 256,
		&m.rkey, IBV_WC_SUCCESS);
	read_via(&m.e, (uintptr_t)m.e.bbuf, m.rkey, 64, IBV_WC_SUCCESS,
		"READ through the bound window");
	wr.invalidate_rkey = m.rkey;
	rc = ibv_post_send(m.e.p.b, &wr, &bad);
	CONTRACT(rc == 0, "LOCAL_INV of the window posted (%d)", rc);
	one_wc(m.e.p.bcq, &wc, "LOCAL_INV");
	CONTRACT(wc.status == IBV_WC_SUCCESS &&
		wc.opcode == IBV_WC_LOCAL_INV,
		"LOCAL_INV completes SUCCESS, opcode LOCAL_INV (%s, %d)",
		ibv_wc_status_str(wc.status), wc.opcode);
	read_via(&m.e, (uintptr_t)m.e.bbuf, m.rkey, 64,
		IBV_WC_REM_ACCESS_ERR, "READ through the invalidated window");
}

static void
test_mw_send_inv(void **state)
{
	struct ibv_sge sge;
	struct ibv_send_wr wr = { .wr_id = 52, .opcode = IBV_WR_SEND_WITH_INV,
		.send_flags = IBV_SEND_SIGNALED, .sg_list = &sge,
		.num_sge = 1 };
	struct ibv_send_wr *bad;
	struct mw_env m;
	struct ibv_wc wc;
	int rc;

	(void)state;
	mk_mw_env(&m, MW_MR_ACCESS);
	mw_bind(m.e.p.b, m.e.p.bcq, m.e.bmr, m.mw, (uintptr_t)m.e.bbuf, 256,
		&m.rkey, IBV_WC_SUCCESS);
	rc = post_recv(m.e.p.b, m.e.bbuf + 1024, 64, m.e.bmr->lkey, 9);
	CONTRACT(rc == 0, "post_recv (%d)", rc);
	sge.addr = (uintptr_t)m.e.abuf;
	sge.length = 8;
	sge.lkey = m.e.amr->lkey;
	wr.invalidate_rkey = m.rkey;
	rc = ibv_post_send(m.e.p.a, &wr, &bad);
	CONTRACT(rc == 0, "SEND_WITH_INV posted (%d)", rc);
	one_wc(m.e.p.acq, &wc, "SEND_WITH_INV");
	CONTRACT(wc.status == IBV_WC_SUCCESS, "SEND_WITH_INV SUCCESS (%s)",
		ibv_wc_status_str(wc.status));
	one_wc(m.e.p.bcq, &wc, "SEND_WITH_INV (receiver)");
	CONTRACT(wc.status == IBV_WC_SUCCESS &&
		wc.invalidated_rkey == m.rkey,
		"receiver: invalidated_rkey = the window's (%s, "
		"flags 0x%x, rkey 0x%x, window 0x%x)",
		ibv_wc_status_str(wc.status), wc.wc_flags, wc.invalidated_rkey,
		m.rkey);
	/* The kernel's IB_WC_WITH_INVALIDATE is 4, libibverbs'
	 * IBV_WC_WITH_INV 8 (4 is IBV_WC_IP_CSUM_OK): rxe's provider copies
	 * the kernel's flags unconverted. */
	RXE_LENIENT((wc.wc_flags & (IBV_WC_WITH_INV | IBV_WC_IP_CSUM_OK)) ==
		IBV_WC_IP_CSUM_OK, (wc.wc_flags & IBV_WC_WITH_INV) != 0 &&
		(wc.wc_flags & IBV_WC_IP_CSUM_OK) == 0, "SEND_WITH_INV "
		"receiver's wc_flags 0x%x: the kernel's WITH_INVALIDATE bit "
		"(4) %s", wc.wc_flags, (wc.wc_flags & IBV_WC_WITH_INV) ?
		"converted to IBV_WC_WITH_INV" :
		"passed through, reads as IBV_WC_IP_CSUM_OK");
	read_via(&m.e, (uintptr_t)m.e.bbuf, m.rkey, 64,
		IBV_WC_REM_ACCESS_ERR,
		"READ through a window invalidated by SEND_WITH_INV");
}

static void
test_mw_other_qp(void **state)
{
	struct mw_env m;
	struct rc_pair q;

	(void)state;
	mk_mw_env(&m, MW_MR_ACCESS);
	/* A second pair on the same PD: its responder did not bind. */
	mk_rc_pair(m.e.pd, &q, RC_ACCESS_ALL, 1, 1, 7);
	mw_bind(m.e.p.b, m.e.p.bcq, m.e.bmr, m.mw, (uintptr_t)m.e.bbuf, 256,
		&m.rkey, IBV_WC_SUCCESS);
	{
		struct rc_env other = m.e;

		other.p = q;
		read_via(&other, (uintptr_t)m.e.bbuf, m.rkey, 64,
			IBV_WC_REM_ACCESS_ERR, "READ of a type-2 window "
			"through a QP other than the one that bound it");
		CONTRACT(qp_state(q.b) == IBV_QPS_ERR, "the other responder "
			"is in ERR");
	}
	read_via(&m.e, (uintptr_t)m.e.bbuf, m.rkey, 64, IBV_WC_SUCCESS,
		"READ through the binding QP still works");
}

static void
test_mw_bind_bad(void **state)
{
	struct ibv_send_wr wr = { .wr_id = 53, .opcode = IBV_WR_BIND_MW,
		.send_flags = IBV_SEND_SIGNALED };
	struct ibv_send_wr *bad;
	struct ibv_wc wc;
	struct mw_env m;
	int rc;

	(void)state;
	/* REMOTE_WRITE through a window on an MR without LOCAL_WRITE. */
	mk_mw_env(&m, IBV_ACCESS_MW_BIND);
	wr.bind_mw.mw = m.mw;
	wr.bind_mw.rkey = ibv_inc_rkey(m.mw->rkey);
	wr.bind_mw.bind_info.mr = m.e.bmr;
	wr.bind_mw.bind_info.addr = (uintptr_t)m.e.bbuf;
	wr.bind_mw.bind_info.length = 64;
	wr.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_WRITE;
	rc = ibv_post_send(m.e.p.b, &wr, &bad);
	CONTRACT(rc == 0, "BIND_MW with REMOTE_WRITE posted (%d)", rc);
	one_wc(m.e.p.bcq, &wc, "BIND_MW with REMOTE_WRITE");
	vc_info("BIND_MW REMOTE_WRITE on an MR without LOCAL_WRITE: %s",
		ibv_wc_status_str(wc.status));
	CONTRACT(wc.status == IBV_WC_MW_BIND_ERR, "a window granting "
		"REMOTE_WRITE on an MR without LOCAL_WRITE: MW_BIND_ERR (%s)",
		ibv_wc_status_str(wc.status));
	destroy_all();

	/* The MR lacks MW_BIND. */
	mk_mw_env(&m, IBV_ACCESS_LOCAL_WRITE);
	mw_bind(m.e.p.b, m.e.p.bcq, m.e.bmr, m.mw, (uintptr_t)m.e.bbuf, 256,
		&m.rkey, IBV_WC_MW_BIND_ERR);
	CONTRACT(qp_state(m.e.p.b) == IBV_QPS_ERR, "the binding QP is in "
		"ERR after the failed bind");
}

/* --- async events (last: they take the port down and delete rxe0) --- */

/* Up to max async events within ms (each acknowledged); returns how
 * many. */
static int
get_events(struct ibv_async_event *out, int max, unsigned int ms)
{
	uint64_t end = now_ms() + ms;
	int fl = fcntl(dev.ctx->async_fd, F_GETFL), n = 0;

	fcntl(dev.ctx->async_fd, F_SETFL, fl | O_NONBLOCK);
	while (n < max) {
		struct pollfd pfd = { .fd = dev.ctx->async_fd,
			.events = POLLIN };
		int64_t left = (int64_t)(end - now_ms());

		if (left <= 0)
			break;
		if (poll(&pfd, 1, (int)left) <= 0)
			continue;
		if (ibv_get_async_event(dev.ctx, &out[n]) != 0)
			continue;
		vc_info("async event %s (%d)",
			ibv_event_type_str(out[n].event_type),
			out[n].event_type);
		ibv_ack_async_event(&out[n]);
		n++;
	}
	return n;
}

static int
wait_event(enum ibv_event_type want, unsigned int ms)
{
	uint64_t end = now_ms() + ms;
	int fl = fcntl(dev.ctx->async_fd, F_GETFL);

	fcntl(dev.ctx->async_fd, F_SETFL, fl | O_NONBLOCK);
	for (;;) {
		struct pollfd pfd = { .fd = dev.ctx->async_fd,
			.events = POLLIN };
		struct ibv_async_event ev;
		int64_t left = (int64_t)(end - now_ms());

		if (left <= 0)
			return 0;
		if (poll(&pfd, 1, (int)left) <= 0)
			continue;
		if (ibv_get_async_event(dev.ctx, &ev) != 0)
			continue;
		vc_info("async event %s (%d)",
			ibv_event_type_str(ev.event_type), ev.event_type);
		ibv_ack_async_event(&ev);
		if (ev.event_type == want)
			return 1;
	}
}

static int
sh(const char *cmd)
{
	int rc = system(cmd);

	vc_info("system(\"%s\"): %d", cmd, rc);
	return rc;
}

/* The netdev under the device's IPv4 GID, from sysfs (rxe0 on dummy0 in
 * the VM); 0 if there is none to name. */
static int
gid_netdev(char *name, size_t len)
{
	char path[256];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/1/"
		"gid_attrs/ndevs/%d", dev.want_dev, dev.gidx);
	f = fopen(path, "r");
	if (f == NULL)
		return 0;
	ok = fgets(name, (int)len, f) != NULL;
	fclose(f);
	if (ok)
		name[strcspn(name, "\n")] = '\0';
	return ok && name[0] != '\0' && strspn(name, "abcdefghijklmnopqrstuv"
		"wxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") == strlen(name);
}

/* The responder of a WRITE with a bad rkey: the spec raises an
 * affiliated asynchronous event on its QP (IBV_EVENT_QP_ACCESS_ERR, a
 * local access violation work queue error) beside the requester's error
 * completion; rxe moves the QP to ERR and raises none. */
static void
test_event_qp_access(void **state)
{
	struct ibv_async_event ev[8];
	struct rc_env e;
	struct ibv_wc wc;
	int rc, n, i, acc = 0, other = 0;

	(void)state;
	get_events(ev, 8, 0);	/* drain */
	mk_rc_env(&e, RC_ACCESS_ALL, 1, 1);
	rc = post_rc(e.p.a, IBV_WR_RDMA_WRITE, e.abuf, 16, e.amr->lkey,
		(uintptr_t)e.bbuf, e.bmr->rkey ^ 0x5500, IBV_SEND_SIGNALED, 1);
	CONTRACT(rc == 0, "a WRITE with a wrong rkey posted (%d)", rc);
	one_wc(e.p.acq, &wc, "a WRITE with a wrong rkey");
	CONTRACT(wc.status == IBV_WC_REM_ACCESS_ERR, "REM_ACCESS_ERR (%s)",
		ibv_wc_status_str(wc.status));
	n = get_events(ev, 8, VC_QUIET_MS * 3);
	for (i = 0; i < n; i++) {
		if (ev[i].event_type == IBV_EVENT_QP_ACCESS_ERR &&
				ev[i].element.qp == e.p.b)
			acc++;
		else
			other++;
	}
	RXE_LENIENT(n == 0, acc == 1, "async events after a responder's "
		"access violation: %d (QP_ACCESS_ERR on the responder: %d)", n,
		acc);
	CONTRACT(other == 0, "no other async event (%d)", other);
}

/* More completions than a CQ holds. */
static void
test_event_cq_overrun(void **state)
{
	struct ibv_async_event ev[8];
	struct ibv_wc wc[16];
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_ah *ah;
	void *buf;
	struct ibv_mr *mr;
	int rc, i, n, got, cqerr = 0;

	(void)state;
	get_events(ev, 8, 0);	/* drain */
	pd = mk_pd();
	cq = mk_cq(1);
	vc_info("a CQ of 1 has %d entries", cq->cqe);
	qp = mk_qp(pd, cq, IBV_QPT_UD, 16, 1, 0, 1);
	ud_to_rts(qp, VC_QKEY);
	ah = mk_ah(pd, 64, 0);
	buf = buf_alloc(VC_BUF, 0);
	mr = mk_mr(pd, buf, VC_BUF, IBV_ACCESS_LOCAL_WRITE);
	for (i = 0; i < cq->cqe + 2; i++) {
		/* To a QPN nobody has: only send completions. */
		rc = post_ud(qp, ah, 0xfffff0, VC_QKEY, buf, 8, mr->lkey,
			IBV_SEND_SIGNALED, i);
		CONTRACT(rc == 0, "signalled send %d of %d (%d)", i,
			cq->cqe + 2, rc);
	}
	n = get_events(ev, 8, VC_QUIET_MS * 3);
	for (i = 0; i < n; i++)
		cqerr += ev[i].event_type == IBV_EVENT_CQ_ERR &&
			ev[i].element.cq == cq;
	/* rxe raises one per completion it could not queue. */
	CONTRACT(cqerr >= 1 && cqerr == n, "IBV_EVENT_CQ_ERR on the overrun "
		"CQ, nothing else (%d of %d events)", cqerr, n);
	got = poll_n(cq, wc, 16, VC_QUIET_MS);
	vc_info("after the overrun: %d completions polled, QP %s", got,
		state_str(qp_state(qp)));
}

/* Adding an address to the netdev adds an IPv4-mapped RoCE v2 GID and
 * raises IBV_EVENT_GID_CHANGE; deleting it takes both back. */
static void
test_event_gid(void **state)
{
	static const uint8_t want[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0xff, 0xff, 192, 0, 2, 99 };
	struct ibv_gid_entry e[64];
	char nd[64], cmd[160];
	ssize_t n;
	int rc, i, found;

	(void)state;
	if (!gid_netdev(nd, sizeof(nd))) {
		vc_info("no netdev under GID %d in sysfs: GID events not "
			"provoked", dev.gidx);
		skip();
	}
	snprintf(cmd, sizeof(cmd), "ip addr add 192.0.2.99/24 dev %s", nd);
	rc = sh(cmd);
	CONTRACT(rc == 0, "%s (%d)", cmd, rc);
	CONTRACT(wait_event(IBV_EVENT_GID_CHANGE, VC_WAIT_MS),
		"IBV_EVENT_GID_CHANGE after an address is added");
	n = ibv_query_gid_table(dev.ctx, e, 64, 0);
	for (i = 0, found = 0; i < n; i++)
		if (memcmp(e[i].gid.raw, want, 16) == 0 &&
				e[i].gid_type == IBV_GID_TYPE_ROCE_V2)
			found = 1;
	CONTRACT(found, "the GID table has ::ffff:192.0.2.99, RoCE v2");
	snprintf(cmd, sizeof(cmd), "ip addr del 192.0.2.99/24 dev %s", nd);
	rc = sh(cmd);
	CONTRACT(rc == 0, "%s (%d)", cmd, rc);
	CONTRACT(wait_event(IBV_EVENT_GID_CHANGE, VC_WAIT_MS),
		"IBV_EVENT_GID_CHANGE after the address is deleted");
	n = ibv_query_gid_table(dev.ctx, e, 64, 0);
	for (i = 0, found = 0; i < n; i++)
		if (memcmp(e[i].gid.raw, want, 16) == 0)
			found = 1;
	CONTRACT(!found, "::ffff:192.0.2.99 is gone from the table");
}

static void
test_event_port(void **state)
{
	struct ibv_port_attr p;
	char nd[64], cmd[128];
	int rc;

	(void)state;
	if (!gid_netdev(nd, sizeof(nd))) {
		vc_info("no netdev under GID %d in sysfs: port events not "
			"provoked", dev.gidx);
		skip();
	}
	snprintf(cmd, sizeof(cmd), "ip link set %s down", nd);
	rc = sh(cmd);
	CONTRACT(rc == 0, "%s (%d)", cmd, rc);
	CONTRACT(wait_event(IBV_EVENT_PORT_ERR, VC_WAIT_MS),
		"IBV_EVENT_PORT_ERR after the link goes down");
	rc = ibv_query_port(dev.ctx, 1, &p);
	CONTRACT(rc == 0 && p.state == IBV_PORT_DOWN, "port state DOWN (%d)",
		p.state);
	snprintf(cmd, sizeof(cmd), "ip link set %s up", nd);
	rc = sh(cmd);
	CONTRACT(rc == 0, "%s (%d)", cmd, rc);
	CONTRACT(wait_event(IBV_EVENT_PORT_ACTIVE, VC_WAIT_MS),
		"IBV_EVENT_PORT_ACTIVE after the link comes up");
	rc = ibv_query_port(dev.ctx, 1, &p);
	CONTRACT(rc == 0 && p.state == IBV_PORT_ACTIVE,
		"port state ACTIVE again (%d)", p.state);
}

static void
test_event_delete(void **state)
{
	struct ibv_device **l;
	int fatal, waited, st = 0, n, i, found = 0;
	pid_t pid, w = 0;
	uint64_t end;

	(void)state;
	pid = fork();
	CONTRACT(pid >= 0, "fork");
	if (pid == 0) {
		execlp("rdma", "rdma", "link", "delete", dev.want_dev,
			(char *)NULL);
		_exit(127);
	}
	fatal = wait_event(IBV_EVENT_DEVICE_FATAL, 3000);
	w = waitpid(pid, &st, WNOHANG);
	vc_info("rdma link delete with our context open: DEVICE_FATAL %s, "
		"command %s", fatal ? "seen" : "not seen",
		w == pid ? "done" : "still waiting");
	waited = w == 0;
	destroy_all();
	ibv_close_device(dev.ctx);
	dev.ctx = NULL;
	end = now_ms() + 10000;
	while (w != pid && now_ms() < end) {
		w = waitpid(pid, &st, WNOHANG);
		if (w == 0)
			usleep(20000);
	}
	if (w != pid) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
	}
	/* Asserted after the clean-up, so that a failure leaves no child
	 * behind. The spec's and a hardware provider's behaviour (mlx5
	 * disassociates the context): IBV_EVENT_DEVICE_FATAL, and the
	 * removal goes on. rxe has no disassociate: no event, and the
	 * removal waits until the last context is closed. */
	RXE_LENIENT(!fatal && waited, fatal, "device removal with a context "
		"open: DEVICE_FATAL %s, removal %s", fatal ? "delivered" :
		"not delivered", waited ? "waited for the close" :
		"went on");
	CONTRACT(w == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
		"rdma link delete completes once the context is closed "
		"(status 0x%x)", st);
	l = ibv_get_device_list(&n);
	for (i = 0; l != NULL && i < n; i++)
		if (strcmp(ibv_get_device_name(l[i]), dev.want_dev) == 0)
			found = 1;
	if (l != NULL)
		ibv_free_device_list(l);
	CONTRACT(!found, "%s is gone from the device list", dev.want_dev);
}

/* --- setup: the device is the one asked for, its provider rxe ------- */

static int
find_gid(void)
{
	struct ibv_gid_entry e;
	uint32_t i;

	for (i = 0; i < (uint32_t)dev.port.gid_tbl_len; i++) {
		if (ibv_query_gid_ex(dev.ctx, 1, i, &e, 0) != 0)
			continue;
		if (e.gid_type == IBV_GID_TYPE_ROCE_V2 && is_v4mapped(&e.gid)) {
			dev.gidx = (int)i;
			dev.gid = e.gid;
			memcpy(&dev.ipv4, e.gid.raw + 12, 4);
			return 0;
		}
	}
	return -1;
}

static int
open_device(void)
{
	struct ibv_device **l;
	int n, i, rc = -1;
	Dl_info di;

	l = ibv_get_device_list(&n);
	if (l == NULL)
		return -1;
	for (i = 0; i < n; i++) {
		const char *name = ibv_get_device_name(l[i]);

		printf("device %d: %s%s\n", i, name,
			strcmp(name, dev.want_dev) == 0 ? " (under test)" : "");
		if (strcmp(name, dev.want_dev) == 0)
			dev.ctx = ibv_open_device(l[i]);
	}
	ibv_free_device_list(l);
	if (dev.ctx == NULL) {
		fprintf(stderr, "verbs_conformance: device %s not found or "
			"not opened\n", dev.want_dev);
		return -1;
	}
	/* The context's post_send is the provider's: the library it lives
	 * in names the provider actually under test. */
	if (dladdr((void *)dev.ctx->ops.post_send, &di) == 0 ||
			di.dli_fname == NULL) {
		fprintf(stderr, "verbs_conformance: dladdr(post_send) "
			"failed\n");
		return -1;
	}
	printf("provider library: %s\n", di.dli_fname);
	{
		const char *b = strrchr(di.dli_fname, '/');

		b = b != NULL ? b + 1 : di.dli_fname;
		dev.is_rxe = strncmp(b, "librxe", 6) == 0 &&
			(b[6] == '-' || b[6] == '.');
	}
	if (dev.want_prov != NULL) {
		char want[64];
		const char *base = strrchr(di.dli_fname, '/');

		snprintf(want, sizeof(want), "lib%s", dev.want_prov);
		base = base != NULL ? base + 1 : di.dli_fname;
		if (strncmp(base, want, strlen(want)) != 0 ||
				(base[strlen(want)] != '-' &&
				base[strlen(want)] != '.')) {
			fprintf(stderr, "verbs_conformance: provider is %s, "
				"not %s\n", base, want);
			return -1;
		}
	}
	if (ibv_query_device(dev.ctx, &dev.attr) != 0 ||
			ibv_query_port(dev.ctx, 1, &dev.port) != 0) {
		fprintf(stderr, "verbs_conformance: query failed\n");
		return -1;
	}
	if (find_gid() != 0) {
		fprintf(stderr, "verbs_conformance: no IPv4-mapped RoCE v2 "
			"GID on port 1\n");
		return -1;
	}
	rc = 0;
	return rc;
}

static int
usage(const char *argv0)
{
	fprintf(stderr, "usage: %s [--device NAME] [--provider NAME] "
		"[--strict] [--filter PATTERNS] [--skip PATTERNS]\n"
		"  PATTERNS: comma-separated fnmatch(3) patterns of case "
		"names\n", argv0);
	return 2;
}

/* name matches one of the comma-separated patterns. */
static int
matches(const char *name, const char *patterns)
{
	char *buf, *tok, *save = NULL;
	int hit = 0;

	/* The whole list, however long: a fixed buffer cut the model's
	 * list short and silently dropped its last cases. */
	buf = strdup(patterns);
	if (buf == NULL)
		return 0;
	for (tok = strtok_r(buf, ",", &save); tok != NULL && !hit;
			tok = strtok_r(NULL, ",", &save))
		hit = fnmatch(tok, name, 0) == 0;
	free(buf);
	return hit;
}

/* The first pattern of the list that matches no case of all[n], or
 * NULL: a pattern that selects nothing is a mistake, not an empty
 * selection. Returns a pointer into a static copy. */
static const char *
unmatched(const struct CMUnitTest *all, size_t n, const char *patterns)
{
	static char bad[128];
	char *buf, *tok, *save = NULL;
	const char *ret = NULL;
	size_t k;

	buf = strdup(patterns);
	if (buf == NULL)
		return NULL;
	for (tok = strtok_r(buf, ",", &save); tok != NULL && ret == NULL;
			tok = strtok_r(NULL, ",", &save)) {
		for (k = 0; k < n; k++)
			if (fnmatch(tok, all[k].name, 0) == 0)
				break;
		if (k == n) {
			snprintf(bad, sizeof(bad), "%s", tok);
			ret = bad;
		}
	}
	free(buf);
	return ret;
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest all[] = {
#define T(f) cmocka_unit_test_teardown(f, case_teardown)
		T(test_device),
		T(test_port),
		T(test_gid_table),
		T(test_pd_mr),
		T(test_cq_limits),
		T(test_qp_limits),
		T(test_ah),
		T(test_qp_states_ud),
		T(test_qp_states_rc),
		T(test_ud_grh),
		T(test_ud_qkey),
		T(test_selective_signaling),
		T(test_inline),
		T(test_ud_recv_short),
		T(test_ud_self_zero),
		T(test_ah_lifetime),
		T(test_rc_ops),
		T(test_rc_errors),
		T(test_rc_sge),
		T(test_rc_bad_lkey),
		T(test_rc_recv_short),
		T(test_rc_rnr),
		T(test_read_credits),
		T(test_mw_bind_read),
		T(test_mw_mr_rkey),
		T(test_mw_invalidate),
		T(test_mw_send_inv),
		T(test_mw_other_qp),
		T(test_mw_bind_bad),
		T(test_event_qp_access),
		T(test_event_cq_overrun),
		T(test_event_gid),
		T(test_event_port),
		T(test_event_delete),
#undef T
	};
	struct CMUnitTest tests[sizeof(all) / sizeof(all[0])];
	const char *filter = NULL, *skip_pat = NULL;
	struct ibv_device **l;
	uint64_t t0 = now_ms();
	size_t ntests = 0, k;
	int i, n, rc;

	/*
	 * Each line as it is written, to a file too (the VM's stdout): a
	 * run killed at its time limit shows the case it was in.
	 */
	setvbuf(stdout, NULL, _IOLBF, 0);
	dev.want_dev = getenv("PMR_VERBS_DEVICE");
	dev.want_prov = getenv("PMR_VERBS_PROVIDER");
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--device") == 0 && i + 1 < argc)
			dev.want_dev = argv[++i];
		else if (strcmp(argv[i], "--provider") == 0 && i + 1 < argc)
			dev.want_prov = argv[++i];
		else if (strcmp(argv[i], "--strict") == 0)
			vc_strict = 1;
		else if (strcmp(argv[i], "--filter") == 0 && i + 1 < argc)
			filter = argv[++i];
		else if (strcmp(argv[i], "--skip") == 0 && i + 1 < argc)
			skip_pat = argv[++i];
		else
			return usage(argv[0]);
	}
	if (filter != NULL && unmatched(all, sizeof(all) / sizeof(all[0]),
			filter) != NULL) {
		fprintf(stderr, "verbs_conformance: pattern '%s' matches no "
			"case\n", unmatched(all, sizeof(all) / sizeof(all[0]),
			filter));
		return 2;
	}
	for (k = 0; k < sizeof(all) / sizeof(all[0]); k++)
		if ((filter == NULL || matches(all[k].name, filter)) &&
				(skip_pat == NULL ||
				!matches(all[k].name, skip_pat)))
			tests[ntests++] = all[k];
	if (ntests == 0) {
		fprintf(stderr, "verbs_conformance: no case matches\n");
		return 2;
	}
	errno = 0;
	l = ibv_get_device_list(&n);
	if (l == NULL && errno == ENOSYS) {
		printf("verbs_conformance: no RDMA in this kernel "
			"(ibv_get_device_list: ENOSYS): skipped\n");
		return 77;
	}
	if (l == NULL || n == 0) {
		if (l != NULL)
			ibv_free_device_list(l);
		if (dev.want_dev == NULL) {
			printf("verbs_conformance: no RDMA device: skipped\n");
			return 77;
		}
		fprintf(stderr, "verbs_conformance: no RDMA device, %s "
			"wanted\n", dev.want_dev);
		return 1;
	}
	ibv_free_device_list(l);
	if (dev.want_dev == NULL) {
		fprintf(stderr, "verbs_conformance: name the device under "
			"test (--device or PMR_VERBS_DEVICE)\n");
		return usage(argv[0]);
	}
	if (open_device() != 0)
		return 1;
	printf("device %s, IPv4 GID index %d, active MTU %d, mode %s\n",
		dev.want_dev, dev.gidx, 128 << dev.port.active_mtu,
		vc_strict ? "strict" : "rxe");
	rc = _cmocka_run_group_tests("verbs_conformance", tests, ntests, NULL,
		NULL);
	if (dev.ctx != NULL)
		ibv_close_device(dev.ctx);
	printf("verbs_conformance: summary: contract %u passed %u failed, "
		"rxe-lenient%s %u passed %u failed, %.1f s\n",
		vc_count[VC_TAG_CONTRACT], vc_failed[VC_TAG_CONTRACT],
		vc_strict ? "[strict]" : "", vc_count[VC_TAG_LENIENT],
		vc_failed[VC_TAG_LENIENT], (double)(now_ms() - t0) / 1000);
	return rc == 0 ? 0 : 1;
}
