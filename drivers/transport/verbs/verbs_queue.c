/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * The verbs driver's control path: devargs, the shared device context and
 * PD, the UD QP of a queue. See doc/drivers.md, "The verbs driver". Peers
 * and their shared address handles are in verbs_peer.c, memory
 * registration in verbs_mem.c, statistics in verbs_stats.c, RC QPs and
 * one-sided operations in verbs_rc.c, the UD QP's recovery from the error
 * state in verbs_recover.c.
 *
 * devargs (DPDK kvargs, unknown keys refused): dev=<name>, port=<n>,
 * gid_index=<n>, sig_every=<n>, txd=<n>, rxd=<n>, max_inline=<bytes>,
 * rc_sq=<n>, rc_rd=<n>, rc_max_msg=<bytes>, rc_timeout=<n>, rc_retry=<n>,
 * mw=0|1, mw_exact=0|1.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_kvargs.h>
#include <rte_malloc.h>
#include <rte_random.h>

#include "verbs_private.h"

RTE_LOG_REGISTER(pmr_verbs_logtype, pmr.verbs, NOTICE);

#define VERBS_TXD_DEFAULT 512
#define VERBS_RXD_DEFAULT 1024
#define VERBS_SIG_EVERY_DEFAULT 64
#define VERBS_MAX_INLINE_DEFAULT 128
#define VERBS_QUEUE_MAX 16384

/* Devices opened by this process (control path, under dev_lock). */
static struct verbs_dev *devs;
static pthread_mutex_t dev_lock = PTHREAD_MUTEX_INITIALIZER;

static const char *const verbs_valid_args[] = {
	"dev", "port", "gid_index", "sig_every", "txd", "rxd", "max_inline",
	"rc_sq", "rc_rd", "rc_max_msg", "rc_timeout", "rc_retry", "mw",
	"mw_exact", NULL,
};

struct verbs_args {
	char dev[IBV_SYSFS_NAME_MAX];	/* "": the first device */
	uint32_t port;
	int gid_index;			/* PMR_VERBS_GID_AUTO */
	uint32_t sig_every;
	uint32_t txd;
	uint32_t rxd;
	uint32_t max_inline;
	uint32_t rc_sq;
	uint32_t rc_rd;
	uint32_t rc_max_msg;		/* 0: the port's */
	uint32_t rc_timeout;
	uint32_t rc_retry;
	uint32_t mw;			/* 0: no memory windows */
	uint32_t mw_exact;		/* 0: windows not taken as exact */
};

static int
arg_u32(const char *key __rte_unused, const char *value, void *opaque)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(value, &end, 0);
	if (errno != 0 || end == value || *end != '\0' || value[0] == '-' ||
	    v > UINT32_MAX)
		return -EINVAL;
	*(uint32_t *)opaque = (uint32_t)v;
	return 0;
}

static int
arg_dev(const char *key __rte_unused, const char *value, void *opaque)
{
	if (value[0] == '\0' || strlen(value) >= IBV_SYSFS_NAME_MAX)
		return -EINVAL;
	strcpy(opaque, value);
	return 0;
}

static int
verbs_parse_args(const char *devargs, struct verbs_args *a)
{
	struct rte_kvargs *kv;
	uint32_t gid = UINT32_MAX;
	int ret = 0;

	memset(a, 0, sizeof(*a));
	a->port = 1;
	a->gid_index = PMR_VERBS_GID_AUTO;
	a->sig_every = VERBS_SIG_EVERY_DEFAULT;
	a->txd = VERBS_TXD_DEFAULT;
	a->rxd = VERBS_RXD_DEFAULT;
	a->max_inline = VERBS_MAX_INLINE_DEFAULT;
	a->rc_sq = VERBS_RC_SQ_DEFAULT;
	a->rc_rd = VERBS_RC_RD_DEFAULT;
	a->rc_timeout = VERBS_RC_TIMEOUT_DEFAULT;
	a->rc_retry = VERBS_RC_RETRY_DEFAULT;
	a->mw = 1;
	a->mw_exact = 1;

	kv = rte_kvargs_parse(devargs != NULL ? devargs : "",
			verbs_valid_args);
	if (kv == NULL) {
		VERBS_LOG(ERR, "bad devargs '%s' (keys: dev port gid_index "
			"sig_every txd rxd max_inline rc_sq rc_rd "
			"rc_max_msg rc_timeout rc_retry mw mw_exact)",
			devargs);
		return -EINVAL;
	}
#define ARG(key, fn, ptr) do { \
	if (ret == 0 && rte_kvargs_count(kv, key) > 1) { \
		VERBS_LOG(ERR, "devarg %s given twice", key); \
		ret = -EINVAL; \
	} \
	if (ret == 0 && rte_kvargs_count(kv, key) == 1) { \
		ret = fn(key, rte_kvargs_get(kv, key), ptr); \
		if (ret != 0) \
			VERBS_LOG(ERR, "devarg %s=%s: %s", key, \
				rte_kvargs_get(kv, key), strerror(-ret)); \
	} \
} while (0)
	ARG("dev", arg_dev, a->dev);
	ARG("port", arg_u32, &a->port);
	ARG("gid_index", arg_u32, &gid);
	ARG("sig_every", arg_u32, &a->sig_every);
	ARG("txd", arg_u32, &a->txd);
	ARG("rxd", arg_u32, &a->rxd);
	ARG("max_inline", arg_u32, &a->max_inline);
	ARG("rc_sq", arg_u32, &a->rc_sq);
	ARG("rc_rd", arg_u32, &a->rc_rd);
	ARG("rc_max_msg", arg_u32, &a->rc_max_msg);
	ARG("rc_timeout", arg_u32, &a->rc_timeout);
	ARG("rc_retry", arg_u32, &a->rc_retry);
	ARG("mw", arg_u32, &a->mw);
	ARG("mw_exact", arg_u32, &a->mw_exact);
#undef ARG
	rte_kvargs_free(kv);
	if (ret != 0)
		return ret;
	if (gid != UINT32_MAX) {
		if (gid > INT16_MAX) {
			VERBS_LOG(ERR, "devarg gid_index=%u: out of range",
				gid);
			return -EINVAL;
		}
		a->gid_index = (int)gid;
	}
	if (a->port == 0 || a->port > 255) {
		VERBS_LOG(ERR, "devarg port=%u: ports are 1 to 255", a->port);
		return -EINVAL;
	}
	if (a->txd < 4 || a->txd > VERBS_QUEUE_MAX ||
	    !rte_is_power_of_2(a->txd)) {
		VERBS_LOG(ERR, "devarg txd=%u: a power of two, 4 to %u",
			a->txd, VERBS_QUEUE_MAX);
		return -EINVAL;
	}
	if (a->rxd < 2 * VERBS_RX_REFILL || a->rxd > VERBS_QUEUE_MAX) {
		VERBS_LOG(ERR, "devarg rxd=%u: %u to %u", a->rxd,
			2 * VERBS_RX_REFILL, VERBS_QUEUE_MAX);
		return -EINVAL;
	}
	/* A full SQ must hold a signalled WQE (verbs_rxtx.c). */
	if (a->sig_every == 0 || a->sig_every > a->txd / 2) {
		VERBS_LOG(ERR, "devarg sig_every=%u: 1 to txd/2 (%u)",
			a->sig_every, a->txd / 2);
		return -EINVAL;
	}
	if (a->max_inline > 1024) {
		VERBS_LOG(ERR, "devarg max_inline=%u: at most 1024",
			a->max_inline);
		return -EINVAL;
	}
	if (a->rc_sq < 4 || a->rc_sq > VERBS_RC_SQ_MAX ||
	    !rte_is_power_of_2(a->rc_sq)) {
		VERBS_LOG(ERR, "devarg rc_sq=%u: a power of two, 4 to %u",
			a->rc_sq, VERBS_RC_SQ_MAX);
		return -EINVAL;
	}
	if (a->rc_rd == 0 || a->rc_rd > 255) {
		VERBS_LOG(ERR, "devarg rc_rd=%u: 1 to 255", a->rc_rd);
		return -EINVAL;
	}
	/* 0 is "wait for ever" in the IB spec: a lost ACK would hang. */
	if (a->rc_timeout == 0 || a->rc_timeout > 31) {
		VERBS_LOG(ERR, "devarg rc_timeout=%u: 1 to 31 (4.096 us << n)",
			a->rc_timeout);
		return -EINVAL;
	}
	if (a->rc_retry > 7) {
		VERBS_LOG(ERR, "devarg rc_retry=%u: 0 to 7", a->rc_retry);
		return -EINVAL;
	}
	if (a->mw > 1 || a->mw_exact > 1) {
		VERBS_LOG(ERR, "devarg mw%s=%u: 0 or 1", a->mw > 1 ? "" :
			"_exact", a->mw > 1 ? a->mw : a->mw_exact);
		return -EINVAL;
	}
	if (a->rc_max_msg != 0 && a->rc_max_msg < 4096) {
		VERBS_LOG(ERR, "devarg rc_max_msg=%u: at least 4096",
			a->rc_max_msg);
		return -EINVAL;
	}
	return 0;
}

/* Open (or share) the device named, or the first one; sets rte_errno. */
static struct verbs_dev *
verbs_dev_get(const char *name)
{
	struct ibv_device **list, *found = NULL;
	struct verbs_dev *d;
	int i, nb = 0;

	pthread_mutex_lock(&dev_lock);
	list = ibv_get_device_list(&nb);
	if (list == NULL || nb == 0) {
		VERBS_LOG(ERR, "no RDMA device found%s%s%s",
			name[0] != '\0' ? " (dev=" : "", name,
			name[0] != '\0' ? ")" : "");
		goto nodev;
	}
	for (i = 0; i < nb; i++)
		if (name[0] == '\0' ||
		    strcmp(ibv_get_device_name(list[i]), name) == 0) {
			found = list[i];
			break;
		}
	if (found == NULL) {
		VERBS_LOG(ERR, "no RDMA device '%s' (%d device%s: first '%s')",
			name, nb, nb == 1 ? "" : "s",
			ibv_get_device_name(list[0]));
		goto nodev;
	}
	for (d = devs; d != NULL; d = d->next)
		if (strcmp(d->name, ibv_get_device_name(found)) == 0) {
			d->refs++;
			goto out;
		}
	d = calloc(1, sizeof(*d));
	if (d == NULL) {
		rte_errno = ENOMEM;
		goto out;
	}
	snprintf(d->name, sizeof(d->name), "%s", ibv_get_device_name(found));
	d->ctx = ibv_open_device(found);
	if (d->ctx == NULL) {
		rte_errno = errno != 0 ? errno : ENODEV;
		VERBS_LOG(ERR, "%s: cannot open: %s", d->name,
			strerror(rte_errno));
		free(d);
		d = NULL;
		goto out;
	}
	d->pd = ibv_alloc_pd(d->ctx);
	if (d->pd == NULL) {
		rte_errno = errno != 0 ? errno : ENOMEM;
		VERBS_LOG(ERR, "%s: no PD: %s", d->name, strerror(rte_errno));
		ibv_close_device(d->ctx);
		free(d);
		d = NULL;
		goto out;
	}
	verbs_events_dev_init(d);
	d->refs = 1;
	d->next = devs;
	devs = d;
out:
	ibv_free_device_list(list);
	pthread_mutex_unlock(&dev_lock);
	return d;
nodev:
	if (list != NULL)
		ibv_free_device_list(list);
	pthread_mutex_unlock(&dev_lock);
	rte_errno = ENODEV;
	return NULL;
}

/* Drop a queue's reference; the last closes the PD and the device. */
static void
verbs_dev_put(struct verbs_dev *d)
{
	struct verbs_dev **pp;
	int ret;

	pthread_mutex_lock(&dev_lock);
	if (--d->refs > 0) {
		pthread_mutex_unlock(&dev_lock);
		return;
	}
	for (pp = &devs; *pp != NULL; pp = &(*pp)->next)
		if (*pp == d) {
			*pp = d->next;
			break;
		}
	pthread_mutex_unlock(&dev_lock);
	ret = ibv_dealloc_pd(d->pd);
	if (ret != 0)
		VERBS_LOG(ERR, "%s: ibv_dealloc_pd: %s (leaked)", d->name,
			strerror(ret));
	else
		ibv_close_device(d->ctx);
	free(d);
}

static const char *
link_layer_str(uint8_t ll)
{
	switch (ll) {
	case IBV_LINK_LAYER_INFINIBAND: return "InfiniBand";
	case IBV_LINK_LAYER_ETHERNET: return "Ethernet";
	default: return "unspecified";
	}
}

/* Check the port; pick the GID. 0 or a negative errno, logged. */
static int
verbs_port_setup(struct verbs_queue *vq, const struct verbs_args *a,
		struct ibv_port_attr *pa)
{
	struct pmr_verbs_gid_ent *tbl;
	const char *why = NULL;
	char str[INET6_ADDRSTRLEN + 8];
	int i, ret;

	ret = ibv_query_port(vq->dev->ctx, (uint8_t)a->port, pa);
	if (ret != 0) {
		VERBS_LOG(ERR, "%s: port %u: %s", vq->dev->name, a->port,
			strerror(ret));
		return -EINVAL;
	}
	if (pa->state != IBV_PORT_ACTIVE) {
		VERBS_LOG(ERR, "%s: port %u is %s, not ACTIVE", vq->dev->name,
			a->port, ibv_port_state_str(pa->state));
		return -ENETDOWN;
	}
	if (pa->link_layer != IBV_LINK_LAYER_ETHERNET) {
		VERBS_LOG(ERR, "%s: port %u: link layer %s: only RoCE "
			"(Ethernet) is supported for now", vq->dev->name,
			a->port, link_layer_str(pa->link_layer));
		return -ENOTSUP;
	}
	if (pa->gid_tbl_len <= 0) {
		VERBS_LOG(ERR, "%s: port %u: empty GID table", vq->dev->name,
			a->port);
		return -EADDRNOTAVAIL;
	}
	tbl = calloc((size_t)pa->gid_tbl_len, sizeof(*tbl));
	if (tbl == NULL)
		return -ENOMEM;
	for (i = 0; i < pa->gid_tbl_len; i++) {
		struct ibv_gid_entry e;

		if (ibv_query_gid_ex(vq->dev->ctx, a->port, (uint32_t)i, &e,
				0) != 0)
			continue;	/* empty (ENODATA) or unreadable */
		tbl[i].valid = true;
		tbl[i].type = (uint8_t)e.gid_type;
		memcpy(tbl[i].raw, e.gid.raw, 16);
	}
	ret = pmr_verbs_gid_choose(tbl, (unsigned int)pa->gid_tbl_len,
			a->gid_index, &why);
	if (ret < 0) {
		if (a->gid_index >= 0)
			VERBS_LOG(ERR, "%s: port %u: gid_index=%d: %s (table "
				"of %d)", vq->dev->name, a->port, a->gid_index,
				why, pa->gid_tbl_len);
		else
			VERBS_LOG(ERR, "%s: port %u: %s", vq->dev->name,
				a->port, why);
		free(tbl);
		return ret == -ENODATA ? -EINVAL : ret;
	}
	vq->gid_index = ret;
	memcpy(vq->gid, tbl[ret].raw, 16);
	free(tbl);
	vq->local_v4 = pmr_verbs_gid_is_v4(vq->gid);
	inet_ntop(AF_INET6, vq->gid, str, sizeof(str));
	VERBS_LOG(INFO, "%s: port %u: GID %d %s (%s)", vq->dev->name, a->port,
		vq->gid_index, str, why);
	return 0;
}

static int
verbs_qp_setup(struct verbs_queue *vq, const struct verbs_args *a)
{
	struct ibv_qp_init_attr ia;
	int ret;

	/* Contexts: async events name the queue (verbs_events.c). */
	vq->scq = ibv_create_cq(vq->dev->ctx, (int)a->txd, vq, NULL, 0);
	vq->rcq = ibv_create_cq(vq->dev->ctx, (int)a->rxd, vq, NULL, 0);
	if (vq->scq == NULL || vq->rcq == NULL) {
		ret = errno != 0 ? errno : ENOMEM;
		VERBS_LOG(ERR, "%s: ibv_create_cq: %s", vq->dev->name,
			strerror(ret));
		return -ret;
	}
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = vq->scq;
	ia.recv_cq = vq->rcq;
	ia.qp_type = IBV_QPT_UD;
	ia.qp_context = vq;
	ia.cap.max_send_wr = a->txd;
	ia.cap.max_recv_wr = a->rxd;
	ia.cap.max_send_sge = 2;
	ia.cap.max_recv_sge = 1;
	ia.cap.max_inline_data = a->max_inline;
	vq->qp = ibv_create_qp(vq->dev->pd, &ia);
	if (vq->qp == NULL) {
		ret = errno != 0 ? errno : ENOMEM;
		VERBS_LOG(ERR, "%s: ibv_create_qp (UD, %u/%u WRs, inline %u): "
			"%s", vq->dev->name, a->txd, a->rxd, a->max_inline,
			strerror(ret));
		return -ret;
	}
	vq->qpn = vq->qp->qp_num;
	/* What the provider granted, which may be more than asked. */
	vq->max_inline = RTE_MIN(ia.cap.max_inline_data, a->max_inline);
	ret = verbs_qp_to_rts(vq);
	if (ret != 0)
		VERBS_LOG(ERR, "%s: qp %u to RTS: %s", vq->dev->name, vq->qpn,
			strerror(-ret));
	return ret;
}

int
verbs_qp_to_rts(struct verbs_queue *vq)
{
	struct ibv_qp_attr qa;
	int ret;

	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_INIT;
	qa.pkey_index = 0;
	qa.port_num = vq->port;
	qa.qkey = vq->qkey;
	ret = ibv_modify_qp(vq->qp, &qa, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			IBV_QP_PORT | IBV_QP_QKEY);
	if (ret == 0) {
		memset(&qa, 0, sizeof(qa));
		qa.qp_state = IBV_QPS_RTR;
		ret = ibv_modify_qp(vq->qp, &qa, IBV_QP_STATE);
	}
	if (ret == 0) {
		memset(&qa, 0, sizeof(qa));
		qa.qp_state = IBV_QPS_RTS;
		qa.sq_psn = rte_rand() & 0xffffff;
		ret = ibv_modify_qp(vq->qp, &qa, IBV_QP_STATE | IBV_QP_SQ_PSN);
	}
	return -ret;
}

/* Buffers: TX descriptors and header slots, RX buffers; registered. */
static int
verbs_mem_setup(struct verbs_queue *vq, int socket_id)
{
	uint32_t i;

	vq->txd = rte_zmalloc_socket("pmr_verbs_txd",
			sizeof(*vq->txd) * vq->sq_size, RTE_CACHE_LINE_SIZE,
			socket_id);
	vq->hdr_slots = rte_zmalloc_socket("pmr_verbs_hdr",
			(size_t)VERBS_HDR_SLOT * vq->sq_size,
			RTE_CACHE_LINE_SIZE, socket_id);
	vq->rx_bufs = rte_zmalloc_socket("pmr_verbs_rx",
			(size_t)vq->rx_buf_len * vq->rq_size,
			RTE_CACHE_LINE_SIZE, socket_id);
	vq->rx_free = rte_zmalloc_socket("pmr_verbs_rxfree",
			sizeof(*vq->rx_free) * vq->rq_size,
			RTE_CACHE_LINE_SIZE, socket_id);
	vq->rx_on_rq = rte_zmalloc_socket("pmr_verbs_rxon", vq->rq_size,
			RTE_CACHE_LINE_SIZE, socket_id);
	if (vq->txd == NULL || vq->hdr_slots == NULL || vq->rx_bufs == NULL ||
	    vq->rx_free == NULL || vq->rx_on_rq == NULL)
		return -ENOMEM;
	vq->hdr_mr = ibv_reg_mr(vq->dev->pd, vq->hdr_slots,
			(size_t)VERBS_HDR_SLOT * vq->sq_size, 0);
	vq->rx_mr = ibv_reg_mr(vq->dev->pd, vq->rx_bufs,
			(size_t)vq->rx_buf_len * vq->rq_size,
			IBV_ACCESS_LOCAL_WRITE);
	if (vq->hdr_mr == NULL || vq->rx_mr == NULL) {
		int ret = errno != 0 ? errno : ENOMEM;

		VERBS_LOG(ERR, "%s: ibv_reg_mr: %s", vq->dev->name,
			strerror(ret));
		return -ret;
	}
	vq->hdr_lkey = vq->hdr_mr->lkey;
	vq->rx_lkey = vq->rx_mr->lkey;
	for (i = 0; i < vq->rq_size; i++)
		vq->rx_free[i] = vq->rq_size - 1 - i;
	vq->nb_rx_free = vq->rq_size;
	return 0;
}

static void verbs_queue_destroy(struct pmr_transport_queue *q);

static struct pmr_transport_queue *
verbs_queue_create(const struct pmr_transport_driver *drv, const char *devargs,
		int socket_id)
{
	struct verbs_queue *vq;
	struct verbs_args a;
	struct ibv_port_attr pa;
	struct ibv_device_attr da;
	int ret;

	ret = verbs_parse_args(devargs, &a);
	if (ret != 0) {
		rte_errno = -ret;
		return NULL;
	}
	vq = rte_zmalloc_socket("pmr_verbs_queue", sizeof(*vq),
			RTE_CACHE_LINE_SIZE, socket_id);
	if (vq == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	rte_spinlock_init(&vq->ah_lock);
	pthread_mutex_init(&vq->rc_lock, NULL);
	TAILQ_INIT(&vq->mws);
	vq->pub.tx_burst = verbs_tx_burst;
	vq->pub.rx_burst = verbs_rx_burst;
	vq->pub.rx_release = verbs_rx_release;
	vq->pub.caps = drv->caps;
	vq->port = (uint8_t)a.port;
	vq->sq_size = a.txd;
	vq->sq_mask = a.txd - 1;
	vq->sig_every = a.sig_every;
	/* As if signalled just before the first send. */
	vq->last_sig = UINT64_MAX;
	vq->rq_size = a.rxd;
	/* Random per queue, high bit clear (set means "the QP's QKey"). */
	vq->qkey = (uint32_t)rte_rand() & 0x7fffffff;

	vq->dev = verbs_dev_get(a.dev);
	if (vq->dev == NULL) {
		ret = -rte_errno;
		goto fail;
	}
	ret = verbs_port_setup(vq, &a, &pa);
	if (ret != 0)
		goto fail;
	vq->pub.caps.mtu = 128u << pa.active_mtu;
	vq->path_mtu = pa.active_mtu;
	vq->rc_sq = a.rc_sq;
	vq->rc_rd = a.rc_rd;
	vq->rc_timeout = (uint8_t)a.rc_timeout;
	vq->rc_retry = (uint8_t)a.rc_retry;
	vq->pub.caps.rc_max = VERBS_RC_MAX;	/* fewer if CQEs are short */
	/* 0 would make a WR of no bytes (the push would never end). */
	vq->rc_max_msg = pa.max_msg_sz != 0 ? pa.max_msg_sz : 1u << 31;
	if (a.rc_max_msg != 0 && a.rc_max_msg < vq->rc_max_msg)
		vq->rc_max_msg = a.rc_max_msg;
	/*
	 * A receive must hold whatever a peer can send us, not only what
	 * our MTU allows: rxe places a UD packet whatever the port's active
	 * MTU (its netdev carries the frame), and a receive too short for
	 * it completes in error and moves the QP to ERR. So the GRH and the
	 * largest MTU the port can be given; what is over caps.mtu is
	 * dropped (rx_drop_long).
	 */
	vq->rx_len_max = VERBS_GRH_LEN + vq->pub.caps.mtu;
	vq->rx_buf_len = VERBS_GRH_LEN +
		RTE_MAX(vq->pub.caps.mtu, pa.max_mtu >= IBV_MTU_256 &&
			pa.max_mtu <= IBV_MTU_4096 ?
			128u << pa.max_mtu : 0u);
	/* Windows before any registration: pools get MW_BIND with them. */
	vq->pub.caps.flags &= ~(PMR_TRANSPORT_CAP_MW |
			PMR_TRANSPORT_CAP_MW_EXACT);
	if (a.mw != 0) {
		ret = ibv_query_device(vq->dev->ctx, &da);
		if (ret != 0) {
			VERBS_LOG(ERR, "%s: ibv_query_device: %s",
				vq->dev->name, strerror(ret));
			ret = -ret;
			goto fail;
		}
		if (verbs_mw_setup(vq, &da, VERBS_MW_PREALLOC) == 1)
			vq->pub.caps.flags |= PMR_TRANSPORT_CAP_MW;
		/* rxe (its vendor id) bounds a window's access by the MR
		 * only: never exact there, whatever mw_exact says. */
		if (vq->mw_on && a.mw_exact != 0 &&
		    da.vendor_id != VERBS_RXE_VENDOR_ID)
			vq->pub.caps.flags |= PMR_TRANSPORT_CAP_MW_EXACT;
		/* And executes a BIND again when it retries a READ posted
		 * before it (verbs_rc.c): its BINDs wait for those. */
		vq->bind_after_reads = vq->mw_on &&
			da.vendor_id == VERBS_RXE_VENDOR_ID;
	}
	ret = verbs_qp_setup(vq, &a);
	if (ret != 0)
		goto fail;
	ret = verbs_mem_setup(vq, socket_id);
	if (ret != 0)
		goto fail;
	vq->self_ah = verbs_ah_make(vq, vq->gid);
	if (vq->self_ah == NULL) {
		ret = -(errno != 0 ? errno : ENOMEM);
		VERBS_LOG(ERR, "%s: cannot create the self AH (GID %d): %s",
			vq->dev->name, vq->gid_index, strerror(-ret));
		goto fail;
	}
	ret = verbs_rx_refill(vq, 1);
	if (ret != 0) {
		VERBS_LOG(ERR, "%s: qp %u: ibv_post_recv: %s", vq->dev->name,
			vq->qpn, strerror(-ret));
		goto fail;
	}
	/* UD has no RNR: what the RQ holds, less a refill batch the engine
	 * may hold back and the self flush's receive. */
	vq->pub.caps.rx_depth = vq->rq_size - VERBS_RX_REFILL - 1;
	VERBS_LOG(INFO, "%s: port %u: qp %u, MTU %u, SQ %u (signal 1/%u, "
		"inline %u), RQ %u of %u bytes, memory windows %s%s",
		vq->dev->name, vq->port, vq->qpn, vq->pub.caps.mtu,
		vq->sq_size, vq->sig_every, vq->max_inline, vq->rq_size,
		vq->rx_buf_len, !vq->mw_on ? "off" : (vq->pub.caps.flags &
		PMR_TRANSPORT_CAP_MW_EXACT) != 0 ? "on (exact)" :
		"on (bounded by their MR only)", vq->bind_after_reads ?
		", BINDs wait for their QP's READs" : "");
	return &vq->pub;
fail:
	verbs_queue_destroy(&vq->pub);
	rte_errno = -ret;
	return NULL;
}

/* Wait for every posted send: a flush then polls, bounded. */
static void
verbs_drain(struct verbs_queue *vq)
{
	unsigned int i;

	/* A QP in ERR completes nothing more: what it holds is dropped
	 * with it (below). */
	for (i = 0; i < 100000 && verbs_tx_pending(vq) != 0 &&
	     vq->ud_state == VERBS_UD_OK; i++)
		verbs_tx_flush(vq, true);
	if (verbs_tx_pending(vq) != 0 && vq->ud_state == VERBS_UD_OK)
		VERBS_LOG(WARNING, "qp %u: %" PRIu64 " sends still pending at "
			"destroy", vq->qpn, verbs_tx_pending(vq));
}

static void
verbs_queue_destroy(struct pmr_transport_queue *q)
{
	struct verbs_queue *vq = verbs_queue(q);
	uint64_t s;
	unsigned int i;

	verbs_rc_fini(vq);
	/* After the QPs (no BIND left to complete), before the PD. */
	verbs_mw_fini(vq);
	if (vq->qp != NULL && vq->self_ah != NULL)
		verbs_drain(vq);
	if (vq->qp != NULL) {
		/* Whatever never completed: the device is gone with the
		 * QP, so the references are ours to drop. */
		for (s = vq->tx_done; s < vq->tx_seq; s++) {
			struct verbs_tx_desc *d = &vq->txd[s & vq->sq_mask];

			if (d->mb != NULL) {
				pmr_msgbuf_tx_unref(d->mb);
				d->mb = NULL;
			}
		}
		ibv_destroy_qp(vq->qp);
	}
	verbs_ah_reap_all(vq);
	if (vq->nb_peers != 0 || vq->ahs != NULL)
		VERBS_LOG(ERR, "qp %u: destroyed with %u peers left", vq->qpn,
			vq->nb_peers);
	if (vq->self_ah != NULL)
		ibv_destroy_ah(vq->self_ah);
	if (vq->scq != NULL)
		ibv_destroy_cq(vq->scq);
	if (vq->rcq != NULL)
		ibv_destroy_cq(vq->rcq);
	if (vq->hdr_mr != NULL)
		ibv_dereg_mr(vq->hdr_mr);
	if (vq->bounce_mr != NULL)
		ibv_dereg_mr(vq->bounce_mr);
	rte_free(vq->bounce);
	if (vq->rx_mr != NULL)
		ibv_dereg_mr(vq->rx_mr);
	for (i = 0; i < vq->nb_mrs; i++)
		ibv_dereg_mr(vq->mrs[i].mr);
	if (vq->dev != NULL)
		verbs_dev_put(vq->dev);
	rte_free(vq->txd);
	rte_free(vq->hdr_slots);
	rte_free(vq->rx_bufs);
	rte_free(vq->rx_free);
	rte_free(vq->rx_on_rq);
	rte_free(vq);
}

static int
verbs_queue_addr(struct pmr_transport_queue *q, struct pmr_transport_addr *addr)
{
	struct verbs_queue *vq = verbs_queue(q);

	pmr_verbs_addr_encode(addr->bytes, vq->gid, vq->qpn, vq->qkey);
	addr->len = PMR_VERBS_ADDR_LEN;
	return 0;
}

static int
verbs_flush(struct pmr_transport_queue *q)
{
	struct verbs_queue *vq = verbs_queue(q);
	int ret;

	if (unlikely(vq->ud_state != VERBS_UD_OK))
		verbs_ud_step(vq);
	ret = verbs_tx_flush(vq, false);
	/* The data path's lcore, quiet: reap dead AHs if nobody else is at
	 * it (never wait for the control path here). */
	verbs_ah_reap_try(vq);
	if (ret < 0)
		return ret;
	/* Still holding msgbufs or dead AHs: flush again later. */
	return vq->tx_held != 0 ||
		__atomic_load_n(&vq->zombies, __ATOMIC_RELAXED) != NULL;
}

const struct pmr_transport_driver pmr_verbs_driver = {
	.name = "verbs",
	/* mlx5 will speak the same wire: one family in the handshake. */
	.family = "ib",
	.caps = {
		.flags = PMR_TRANSPORT_CAP_TX_ZEROCOPY |
			PMR_TRANSPORT_CAP_RX_ZEROCOPY |
			PMR_TRANSPORT_CAP_MEM_REG |
			PMR_TRANSPORT_CAP_RC |
			PMR_TRANSPORT_CAP_RDMA_READ |
			/* A queue keeps it only on a device with type-2B
			 * windows (verbs_mw.c) and without mw=0. */
			PMR_TRANSPORT_CAP_MW |
			/* And this one with it, unless rxe or mw_exact=0. */
			PMR_TRANSPORT_CAP_MW_EXACT,
		.mtu = 4096,
		.headroom = 0,
		.addr_len = PMR_VERBS_ADDR_LEN,
	},
	.queue_create = verbs_queue_create,
	.queue_destroy = verbs_queue_destroy,
	.queue_addr = verbs_queue_addr,
	.peer_create = verbs_peer_create,
	.peer_destroy = verbs_peer_destroy,
	.mem_register = verbs_mem_register,
	.mem_unregister = verbs_mem_unregister,
	.mem_key = verbs_mem_key,
	.tx_flush = verbs_flush,
	.stats_get = verbs_stats_get,
	.stats_reset = verbs_stats_reset,
	.xstats_get = verbs_xstats_get,
	.mem_register_access = verbs_mem_register_access,
	.rc_create = verbs_rc_create,
	.rc_connect = verbs_rc_connect,
	.rc_destroy = verbs_rc_destroy,
	.rc_state = verbs_rc_state,
	.rc_post = verbs_rc_post,
	.rc_poll = verbs_rc_poll,
	.rc_fail = verbs_rc_fail_qp,
	.mw_alloc = verbs_mw_alloc,
	.mw_free = verbs_mw_free,
	.mw_rkey = verbs_mw_rkey,
	.event_fd = verbs_event_fd,
	.event_read = verbs_event_read,
	.queue_event_read = verbs_queue_event_read,
	.rc_region_conf = verbs_rc_region_conf,
	.rc_region = verbs_rc_region,
};
