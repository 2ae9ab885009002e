/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/* Worker life cycle: create, destroy, stop, service, counters. */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_random.h>
#include <rte_service_component.h>

#include "pmr_transport_driver.h"
#include "rpc_client.h"
#include "rpc_msg.h"
#include "rpc_private.h"
#include "rpc_rc.h"
#include "rpc_rdv.h"
#include "rpc_server.h"
#include "rpc_session.h"
#include "rpc_source.h"
#include "rpc_tx.h"
#include "rpc_telemetry.h"

RTE_LOG_REGISTER(pmr_rpc_logtype, pmr.rpc, NOTICE);

#define DEFAULT_MAX_SESSIONS 256
#define DEFAULT_WINDOW 8
#define DEFAULT_CREDITS 8
#define DEFAULT_MAX_REQUESTS 4096
#define DEFAULT_MAX_MSG (8u << 20)
#define LIMIT_MAX_MSG (64u << 20)
#define DEFAULT_NB_MSGBUFS 4096
#define DEFAULT_NB_MID 64
#define DEFAULT_NB_LARGE 4
#define DEFAULT_RTO_US 5000
#define DEFAULT_REQ_TIMEOUT_MS 2000
#define SHUTDOWN_WAIT_MS 2000

static const char *const status_names[PMR_STATUS_MAX] = {
	[PMR_OK] = "OK",
	[PMR_E_TIMEOUT] = "TIMEOUT",
	[PMR_E_SESSION_RESET] = "SESSION_RESET",
	[PMR_E_REMOTE_ERROR] = "REMOTE_ERROR",
	[PMR_E_NOMEM] = "NOMEM",
	[PMR_E_MSGSIZE] = "MSGSIZE",
};

const char *
pmr_status_str(enum pmr_status status)
{
	return (unsigned int)status < PMR_STATUS_MAX ?
		status_names[status] : "UNKNOWN";
}

static const char *const drop_names[RPC_DROP_MAX] = {
	[PMR_PKTHDR_E_SHORT] = "hdr_short",
	[PMR_PKTHDR_E_MAGIC] = "hdr_magic",
	[PMR_PKTHDR_E_VERSION] = "hdr_version",
	[PMR_PKTHDR_E_TYPE] = "hdr_pkt_type",
	[PMR_PKTHDR_E_PKT_NUM] = "hdr_pkt_num",
	[PMR_PKTHDR_E_SIZE] = "hdr_msg_size",
	[PMR_PKTHDR_E_STATUS] = "hdr_status",
	[PMR_PKTHDR_E_RESERVED] = "hdr_reserved",
	[RPC_DROP_NO_SESSION] = "no_session",
	[RPC_DROP_TOKEN] = "bad_token",
	[RPC_DROP_SOURCE] = "bad_source",
	[RPC_DROP_ROLE] = "wrong_role",
	[RPC_DROP_STALE] = "stale",
	[RPC_DROP_ORDER] = "out_of_order",
	[RPC_DROP_BUSY] = "slot_busy",
	[RPC_DROP_BAD_PKT] = "bad_packet",
	[RPC_DROP_TOKEN_PKT] = "bad_token_pkt",
	[RPC_DROP_REQ_NUM] = "bad_req_num",
	[RPC_DROP_CREDITS] = "over_credits",
	[RPC_DROP_EXPIRED] = "expired",
	[RPC_DROP_PKT_SIZE] = "over_pkt_size",
	[RPC_DROP_RDV_NO_QP] = "rdv_no_qp",
};

const char *
pmr_worker_drop_name(unsigned int idx)
{
	/* A new drop reason needs room in the public counters. */
	RTE_BUILD_BUG_ON(RPC_DROP_MAX >
		RTE_DIM(((struct pmr_worker_stats *)NULL)->drops));
	return idx < RPC_DROP_MAX ? drop_names[idx] : NULL;
}

static void
worker_free(struct pmr_worker *w)
{
	rpc_src_fini(w);
	rte_ring_free(w->outbox);
	rte_free(w->txfree.mbs);
	rte_free(w->creq_free);
	rte_free(w->creqs);
	if (w->sessions != NULL) {
		rte_free(w->sessions[0].window);
		rte_free(w->sessions[0].srv);
		rte_free(w->sessions[0].slot_req_num);
		rte_free(w->sessions[0].slot_timeouts);
	}
	rte_free(w->sess_free);
	rte_free(w->sessions);
	rte_free(w);
}

static int
worker_alloc_tables(struct pmr_worker *w, uint32_t nb_msgbufs, int socket)
{
	char name[RTE_RING_NAMESIZE];
	struct rpc_creq **windows;
	struct pmr_srv_slot *srv;
	uint64_t *slot_req;
	uint8_t *slot_to;
	uint32_t i, j;

	w->sessions = rte_zmalloc_socket("pmr_sessions",
			w->max_sessions * sizeof(*w->sessions), 0, socket);
	w->sess_free = rte_malloc_socket("pmr_sess_free",
			w->max_sessions * sizeof(*w->sess_free), 0, socket);
	windows = rte_zmalloc_socket("pmr_windows", (size_t)w->max_sessions *
			w->window * sizeof(*windows), 0, socket);
	srv = rte_zmalloc_socket("pmr_srv", (size_t)w->max_sessions *
			w->window * sizeof(*srv), 0, socket);
	slot_req = rte_zmalloc_socket("pmr_slot_req", (size_t)w->max_sessions *
			w->window * sizeof(*slot_req), 0, socket);
	slot_to = rte_zmalloc_socket("pmr_slot_to", (size_t)w->max_sessions *
			w->window * sizeof(*slot_to), 0, socket);
	w->creqs = rte_zmalloc_socket("pmr_creqs",
			w->max_requests * sizeof(*w->creqs), 0, socket);
	w->creq_free = rte_malloc_socket("pmr_creq_free",
			w->max_requests * sizeof(*w->creq_free), 0, socket);
	w->txfree.size = rte_align32pow2(nb_msgbufs + 2 * PMR_BURST_MAX);
	w->txfree.mbs = rte_malloc_socket("pmr_txfree",
			w->txfree.size * sizeof(*w->txfree.mbs), 0, socket);
	snprintf(name, sizeof(name), "pmr_ob%" PRIxPTR, (uintptr_t)w);
	w->outbox = rte_ring_create_elem(name, sizeof(struct pmr_sm_msg),
			rpc_outbox_size(w->max_sessions), socket,
			RING_F_SP_ENQ | RING_F_SC_DEQ | RING_F_EXACT_SZ);
	if (w->sessions == NULL || w->sess_free == NULL || windows == NULL ||
	    srv == NULL || slot_req == NULL || slot_to == NULL ||
	    w->creqs == NULL ||
	    w->creq_free == NULL || w->txfree.mbs == NULL ||
	    w->outbox == NULL) {
		if (w->sessions == NULL) {
			rte_free(windows);
			rte_free(srv);
			rte_free(slot_req);
			rte_free(slot_to);
		} else {
			w->sessions[0].window = windows;
			w->sessions[0].srv = srv;
			w->sessions[0].slot_req_num = slot_req;
			w->sessions[0].slot_timeouts = slot_to;
		}
		return -ENOMEM;
	}
	for (i = 0; i < w->max_sessions; i++) {
		w->sessions[i].window = &windows[(size_t)i * w->window];
		w->sessions[i].srv = &srv[(size_t)i * w->window];
		for (j = 0; j < w->window; j++) {
			/* A slot's worker and session never change. */
			srv[(size_t)i * w->window + j].w = w;
			srv[(size_t)i * w->window + j].session = (uint16_t)i;
			srv[(size_t)i * w->window + j].s = &w->sessions[i];
		}
		w->sessions[i].slot_req_num = &slot_req[(size_t)i * w->window];
		w->sessions[i].slot_timeouts = &slot_to[(size_t)i * w->window];
		TAILQ_INIT(&w->sessions[i].backlog);
		w->sess_free[i] = (uint16_t)i;
	}
	/*
	 * In random order (Fisher-Yates), and session_alloc() takes a random
	 * one of the free numbers: a session number tells nothing of the
	 * next one, so a forged packet has to guess it too.
	 */
	for (i = w->max_sessions - 1; i > 0; i--) {
		uint32_t j = (uint32_t)rte_rand_max(i + 1);
		uint16_t t = w->sess_free[i];

		w->sess_free[i] = w->sess_free[j];
		w->sess_free[j] = t;
	}
	w->nb_sess_free = w->max_sessions;
	for (i = 0; i < w->max_requests; i++)
		w->creq_free[i] = &w->creqs[i];
	w->nb_creq_free = w->max_requests;
	TAILQ_INIT(&w->completing);
	TAILQ_INIT(&w->all);
	TAILQ_INIT(&w->timed);
	TAILQ_INIT(&w->hs_pending);
	TAILQ_INIT(&w->srv_timed);
	TAILQ_INIT(&w->srv_long);
	return 0;
}

/* The msgbuf classes: single-packet, 64 KiB, max_msg_size. */
static int
worker_pools_create(struct pmr_worker *w, const struct pmr_worker_conf *conf,
		uint16_t headroom, int socket)
{
	const uint32_t counts[RPC_NB_CLASSES] = {
		conf->nb_msgbufs != 0 ? conf->nb_msgbufs : DEFAULT_NB_MSGBUFS,
		conf->nb_mid_msgbufs != 0 ? conf->nb_mid_msgbufs :
			DEFAULT_NB_MID,
		conf->nb_large_msgbufs != 0 ? conf->nb_large_msgbufs :
			DEFAULT_NB_LARGE,
	};
	char name[RTE_MEMPOOL_NAMESIZE];
	unsigned int c;

	w->pool_cap[0] = w->plen;
	w->pool_cap[1] = RTE_MAX((uint32_t)RPC_MID_SIZE, w->plen);
	w->pool_cap[2] = RTE_MAX(w->max_msg, w->pool_cap[1]);
	for (c = 0; c < RPC_NB_CLASSES; c++) {
		snprintf(name, sizeof(name), "pmr_w%u_c%u", w->worker_id, c);
		w->pools[c] = pmr_msgbuf_pool_create(name, counts[c],
				RTE_MIN(counts[c] / 4, 64u), w->pool_cap[c],
				headroom, socket);
		if (w->pools[c] == NULL)
			return -rte_errno;
	}
	return 0;
}

static void
worker_pools_free(struct pmr_worker *w, int *ret)
{
	unsigned int c;

	for (c = 0; c < RPC_NB_CLASSES; c++) {
		if (w->pools[c] == NULL)
			continue;
		if (pmr_msgbuf_pool_free(w->pools[c]) != 0) {
			RPC_LOG(ERR, "worker %u: %u msgbufs still out of %s, "
				"pool kept", w->worker_id,
				pmr_msgbuf_pool_in_use(w->pools[c]),
				w->pools[c]->name);
			*ret = -EBUSY;
		}
	}
}

struct pmr_worker *
pmr_worker_create(struct pmr_nexus *nx, const struct pmr_worker_conf *conf)
{
	const struct pmr_transport_driver *drv;
	struct pmr_transport_caps caps;
	struct pmr_worker *w;
	unsigned int c;
	int socket, ret, c_ret;

	if (nx == NULL || conf == NULL ||
	    conf->max_sessions > UINT16_MAX + 1u ||
	    conf->session_window > 1024 || conf->max_msg_size > LIMIT_MAX_MSG) {
		rte_errno = EINVAL;
		return NULL;
	}
	drv = conf->driver != NULL ? pmr_transport_find(conf->driver) :
		pmr_transport_default();
	if (drv == NULL) {
		rte_errno = ENOENT;
		return NULL;
	}
	socket = conf->socket_id;
	w = rte_zmalloc_socket("pmr_worker", sizeof(*w), RTE_CACHE_LINE_SIZE,
			socket);
	if (w == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	w->nx = nx;
	w->worker_id = conf->worker_id;
	w->idle_yield = conf->idle_yield;
	w->srv_cb = conf->server_session_cb;
	w->srv_cb_arg = conf->server_session_arg;
	w->ev_cb = conf->event_cb;
	w->ev_cb_arg = conf->event_arg;
	w->max_sessions = conf->max_sessions != 0 ? conf->max_sessions :
		DEFAULT_MAX_SESSIONS;
	w->window = conf->session_window != 0 ? conf->session_window :
		DEFAULT_WINDOW;
	w->window_pow2 = rte_is_power_of_2(w->window);
	w->max_requests = conf->max_requests != 0 ? conf->max_requests :
		DEFAULT_MAX_REQUESTS;
	w->credits = conf->session_credits != 0 ? conf->session_credits :
		DEFAULT_CREDITS;
	w->max_msg = conf->max_msg_size != 0 ? conf->max_msg_size :
		DEFAULT_MAX_MSG;
	w->rto = rte_get_timer_hz() * (conf->rto_us != 0 ? conf->rto_us :
			DEFAULT_RTO_US) / 1000000;
	w->req_timeout = rte_get_timer_hz() * (conf->req_timeout_ms != 0 ?
			conf->req_timeout_ms : DEFAULT_REQ_TIMEOUT_MS) / 1000;
	w->srv_timeout = rte_get_timer_hz() * (conf->srv_state_timeout_ms != 0 ?
			conf->srv_state_timeout_ms : conf->req_timeout_ms != 0 ?
			conf->req_timeout_ms : DEFAULT_REQ_TIMEOUT_MS) / 1000;
	if (conf->timeout_per_mib_ms > PMR_TIMEOUT_PER_MIB_MAX &&
	    conf->timeout_per_mib_ms != PMR_TIMEOUT_PER_MIB_NONE) {
		RPC_LOG(ERR, "worker %u: timeout_per_mib_ms %u over %u",
			w->worker_id, conf->timeout_per_mib_ms,
			PMR_TIMEOUT_PER_MIB_MAX);
		ret = -EINVAL;
		goto fail;
	}
	w->tmo_per_mib = conf->timeout_per_mib_ms ==
		PMR_TIMEOUT_PER_MIB_NONE ? 0 : rte_get_timer_hz() *
		(conf->timeout_per_mib_ms != 0 ? conf->timeout_per_mib_ms :
		 PMR_TIMEOUT_PER_MIB_DEFAULT) / 1000;
	w->max_large_sess = conf->max_large_per_session != 0 ?
		conf->max_large_per_session :
		RTE_MAX(1u, (conf->nb_large_msgbufs != 0 ?
			conf->nb_large_msgbufs : DEFAULT_NB_LARGE) / 2);
	ret = rpc_faults_parse(&w->faults, conf->faults, w->worker_id);
	w->nb_tx_free = w->faults.on;	/* bursts through the faults */
	if (ret != 0)
		goto fail;
	ret = worker_alloc_tables(w, (conf->nb_msgbufs != 0 ? conf->nb_msgbufs :
			DEFAULT_NB_MSGBUFS) + (conf->nb_mid_msgbufs != 0 ?
			conf->nb_mid_msgbufs : DEFAULT_NB_MID) +
			(conf->nb_large_msgbufs != 0 ? conf->nb_large_msgbufs :
			DEFAULT_NB_LARGE), socket);
	if (ret != 0)
		goto fail;

	w->q = pmr_transport_queue_create(drv, conf->devargs, socket);
	if (w->q == NULL) {
		ret = -rte_errno;
		goto fail;
	}
	pmr_transport_queue_caps(w->q, &caps);
	if (caps.mtu <= PMR_PKTHDR_LEN) {
		ret = -EINVAL;
		goto fail;
	}
	w->plen = caps.mtu - PMR_PKTHDR_LEN;
	if (w->plen < RPC_FIRST_PKT_MIN) {
		RPC_LOG(ERR, "worker %u: packets of %u bytes, under the %u of "
			"a multi-packet message's first packet", w->worker_id,
			w->plen, RPC_FIRST_PKT_MIN);
		ret = -EINVAL;
		goto fail;
	}
	if (rpc_msg_pkts(w->max_msg, w->plen) > RPC_MSG_PKTS_MAX) {
		RPC_LOG(ERR, "worker %u: a %u-byte message in packets of %u "
			"is over %u packets", w->worker_id, w->max_msg,
			w->plen, RPC_MSG_PKTS_MAX);
		ret = -EINVAL;
		goto fail;
	}
	w->rx_budget = caps.rx_depth;
	if (w->credits > w->rx_budget) {
		RPC_LOG(ERR, "worker %u: %u session credits exceed the "
			"queue's %u receive slots", w->worker_id, w->credits,
			w->rx_budget);
		ret = -EINVAL;
		goto fail;
	}
	w->headroom = caps.headroom + PMR_PKTHDR_LEN;
	/*
	 * Constants of the server's fast paths: the timers' epoch
	 * (rpc_timers.h), a power of 2 of TSC cycles, srv_timeout / 16 or
	 * less; the largest request or response sent in place (one packet,
	 * headers in the msgbuf's headroom); the first poll looks at the
	 * nexus ring (rpc_poll_rare()).
	 */
	w->srv_tmask = w->srv_timeout / 16 < 2 ? 1 :
		rte_align64prevpow2(w->srv_timeout / 16) - 1;
	w->inplace_max = RTE_MIN(w->plen, w->max_msg);
	/*
	 * No allowance for a message of one packet, nor one under the
	 * scan's resolution (rto / 4): those keep submit order as
	 * deadline order (rpc_timers.h).
	 */
	w->tmo_min_len = w->tmo_per_mib == 0 ? UINT32_MAX :
		(uint32_t)RTE_MIN((uint64_t)UINT32_MAX, RTE_MAX(
			(uint64_t)w->plen + 1,
			((w->rto / 4) << 20) / w->tmo_per_mib));
	w->rare_in = 1;
	ret = worker_pools_create(w, conf, w->headroom, socket);
	if (ret == 0) {
		/* What one source may hold a share of (rpc_source.h). */
		const uint32_t total[RPC_SRC_NB_RES] = {
			[RPC_SRC_SESSIONS] = w->max_sessions,
			[RPC_SRC_RX] = w->rx_budget,
			[RPC_SRC_MID] = w->pools[1]->size,
			[RPC_SRC_LARGE] = w->pools[RPC_NB_CLASSES - 1]->size,
		};

		ret = rpc_src_init(w, conf, total);
	}
	for (c = 0; ret == 0 && c < RPC_NB_CLASSES; c++)
		ret = pmr_transport_mem_register(w->q, w->pools[c]);
	if (ret == 0)
		ret = rpc_rdv_init(w, conf, caps.flags);
	if (ret != 0)
		goto fail;

	ret = pmr_nexus_worker_attach(nx, w->worker_id, w->q, &w->to_worker,
			&w->from_worker);
	if (ret != 0)
		goto fail;
	rpc_live_init(w);
	/* Its RC QPs are shared out per source as the rest (rpc_source.h). */
	ret = pmr_nexus_worker_share(nx, w->worker_id,
			conf->src_share_pct != 0 ? conf->src_share_pct :
			RPC_SRC_SHARE_PCT_DEFAULT);
	if (ret != 0) {
		pmr_nexus_worker_detach(nx, w->worker_id);
		goto fail;
	}
	pmr_nexus_handlers_get(nx, w->handlers);
	rpc_telemetry_add(w);
	return w;
fail:
	rpc_rdv_destroy(w);
	worker_pools_free(w, &c_ret);
	pmr_transport_queue_destroy(w->q);
	worker_free(w);
	rte_errno = -ret;
	return NULL;
}

/* Wait, within reason, for the driver to let go of sent msgbufs. */
static void
worker_drain(struct pmr_worker *w)
{
	uint64_t deadline = rte_get_timer_cycles() +
		rte_get_timer_hz() * SHUTDOWN_WAIT_MS / 1000;
	struct pmr_rx_pkt rx[PMR_BURST_MAX];
	uint16_t nb;

	if (w->nb_tx != 0)
		rpc_tx_flush(w);
	for (;;) {
		/* Packets still arriving are dropped, freeing peers' buffers. */
		while ((nb = pmr_transport_rx_burst(w->q, rx,
				PMR_BURST_MAX)) > 0)
			pmr_transport_rx_release(w->q, rx, nb);
		pmr_transport_tx_flush(w->q);
		/* Offers' invalidates and READs complete there. */
		if (w->rc != NULL)
			rpc_rc_poll(w);
		rpc_completing_poll(w);
		rpc_txfree_poll(w);
		if ((TAILQ_EMPTY(&w->completing) &&
		     w->txfree.head == w->txfree.tail) ||
		    rte_get_timer_cycles() > deadline)
			break;
		rte_delay_us_sleep(100);
	}
}

int
pmr_worker_destroy(struct pmr_worker *w)
{
	uint64_t deadline;
	uint32_t sn;
	int ret = 0;

	if (w == NULL)
		return -EINVAL;
	rpc_telemetry_del(w);
	if (w->has_service) {
		rte_service_component_runstate_set(w->service_id, 0);
		rte_service_component_unregister(w->service_id);
	}
	/*
	 * Each accepted server session's PMR_SESSION_EV_RESET first, while
	 * the worker is whole: what a callback does to client sessions
	 * (requests, closes) is then undone below like the rest.
	 */
	/* No pmr_session_connect() from a callback from now on. */
	w->polling++;
	for (sn = 0; sn < w->max_sessions; sn++)
		if (w->sessions[sn].state != PMR_SESSION_FREE)
			rpc_server_reset_event(w, (uint16_t)sn, -ESHUTDOWN);
	for (sn = 0; sn < w->max_sessions; sn++) {
		struct rpc_session *s = &w->sessions[sn];

		if (s->state == PMR_SESSION_FREE)
			continue;
		if (s->client) {
			s->closing = true;	/* before the continuations */
			rpc_session_rx_update(s);
			rpc_creq_fail_all(w, s, PMR_E_SESSION_RESET);
			rpc_session_release(w, (uint16_t)sn, true);
			continue;
		}
		/* Requests handlers never answered: dropped. */
		rpc_server_session_clear(w, s);
		s->srv_active = 0;
		rpc_session_release(w, (uint16_t)sn, true);
	}
	worker_drain(w);
	/* Its QPs drained: the nexus destroys them at detach. */
	rpc_rc_destroy(w);
	rpc_rdv_destroy(w);
	if (!TAILQ_EMPTY(&w->completing) || w->txfree.head != w->txfree.tail)
		RPC_LOG(ERR, "worker %u: the driver still holds sent buffers "
			"after %u ms", w->worker_id, SHUTDOWN_WAIT_MS);
	/*
	 * Hand what is left to the nexus, which drains the ring as it runs,
	 * then detach (which takes what is left in the ring).
	 */
	deadline = rte_get_timer_cycles() +
		rte_get_timer_hz() * SHUTDOWN_WAIT_MS / 1000;
	while (!rpc_outbox_flush(w)) {
		if (rte_get_timer_cycles() > deadline) {
			RPC_LOG(ERR, "worker %u: nexus not taking session "
				"messages, %u lost", w->worker_id,
				rte_ring_count(w->outbox));
			break;
		}
		rte_delay_us_sleep(100);
	}
	pmr_nexus_worker_detach(w->nx, w->worker_id);
	if (w->faults.has_held)
		pmr_transport_rx_release(w->q, &w->faults.held, 1);
	pmr_transport_queue_destroy(w->q);
	worker_pools_free(w, &ret);
	worker_free(w);
	return ret;
}

void
pmr_worker_stop(struct pmr_worker *w)
{
	__atomic_store_n(&w->stop, true, __ATOMIC_RELAXED);
}

static int32_t
worker_service(void *arg)
{
	pmr_worker_poll(arg);
	return 0;
}

int
pmr_worker_service_register(struct pmr_worker *w, uint32_t *service_id)
{
	struct rte_service_spec spec;
	int ret;

	if (w == NULL || service_id == NULL || w->has_service)
		return -EINVAL;
	memset(&spec, 0, sizeof(spec));
	snprintf(spec.name, sizeof(spec.name), "pmr_worker_%u", w->worker_id);
	spec.callback = worker_service;
	spec.callback_userdata = w;
	spec.socket_id = SOCKET_ID_ANY;
	ret = rte_service_component_register(&spec, &w->service_id);
	if (ret != 0)
		return ret;
	ret = rte_service_component_runstate_set(w->service_id, 1);
	if (ret != 0) {
		rte_service_component_unregister(w->service_id);
		return ret;
	}
	w->has_service = true;
	*service_id = w->service_id;
	return 0;
}

int
pmr_worker_stats_get(const struct pmr_worker *w,
		struct pmr_worker_stats *stats)
{
	uint32_t sn;

	if (w == NULL || stats == NULL)
		return -EINVAL;
	*stats = w->stats;
	/* The gauge: requests with handlers, server sessions alike. */
	stats->reqs_held = 0;
	for (sn = 0; sn < w->max_sessions; sn++)
		if (!w->sessions[sn].client)
			stats->reqs_held += w->sessions[sn].srv_active;
	return 0;
}

struct pmr_transport_queue *
pmr_worker_queue(const struct pmr_worker *w)
{
	return w->q;
}

uint16_t
pmr_worker_id(const struct pmr_worker *w)
{
	return w->worker_id;
}

uint32_t
pmr_worker_max_msg_size(const struct pmr_worker *w)
{
	return w->max_msg;
}

uint32_t
pmr_worker_pkt_size(const struct pmr_worker *w)
{
	return w->plen;
}

uint16_t
pmr_worker_headroom(const struct pmr_worker *w)
{
	return w->headroom;
}

struct rte_mempool *
pmr_worker_pool(const struct pmr_worker *w, unsigned int cls)
{
	return cls < RPC_NB_CLASSES ? w->pools[cls] : NULL;
}

int
pmr_worker_pool_register(struct pmr_worker *w, struct rte_mempool *mp)
{
	if (w == NULL || !pmr_msgbuf_pool_check(mp))
		return -EINVAL;
	return pmr_transport_mem_register(w->q, mp);
}

static void
pool_held_one(struct rte_mempool *mp, void *arg, void *obj,
		unsigned int idx)
{
	unsigned int *held = arg;

	(void)mp;
	(void)idx;
	*held += pmr_msgbuf_tx_pending(obj) != 0;
}

int
pmr_worker_pool_unregister(struct pmr_worker *w, struct rte_mempool *mp)
{
	unsigned int c, held = 0;

	if (w == NULL || !pmr_msgbuf_pool_check(mp))
		return -EINVAL;
	for (c = 0; c < RPC_NB_CLASSES; c++)
		if (mp == w->pools[c])
			return -EINVAL;
	/* Unregistered under a send the device still reads, the send
	 * would fail (on verbs: the QP in error): refuse. */
	rte_mempool_obj_iter(mp, pool_held_one, &held);
	if (held != 0)
		return -EBUSY;
	return pmr_transport_mem_unregister(w->q, mp);
}

struct pmr_msgbuf *
rpc_msgbuf_alloc(struct pmr_worker *w, uint32_t len)
{
	unsigned int c;

	for (c = 0; c < RPC_NB_CLASSES; c++)
		if (len <= w->pool_cap[c])
			return pmr_msgbuf_alloc(w->pools[c], len);
	rte_errno = EMSGSIZE;
	return NULL;
}

struct pmr_msgbuf *
pmr_worker_msgbuf_alloc(struct pmr_worker *w, uint32_t len)
{
	return rpc_msgbuf_alloc(w, len);
}
