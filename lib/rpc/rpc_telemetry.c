/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * Telemetry: the counters of every live worker, and of their nexus, under
 * /pmrpc/... (doc/telemetry.md).
 *
 * Workers join a process-wide registry once created and leave it before
 * they are torn down; the callbacks run on the telemetry thread with the
 * registry locked, so a worker they look at stays alive until they are
 * done. The counters themselves are the worker's plain fields, and those
 * of its transport queue (the driver's drops, by reason), read while its
 * lcore may be updating them: a reply may be slightly stale, and two
 * counters of one reply need not be from the same instant.
 */

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_telemetry.h>

#include "rpc_private.h"
#include "rpc_rc.h"
#include "rpc_telemetry.h"

#define TEL_CMD_WORKERS "/pmrpc/workers"
#define TEL_CMD_WORKER "/pmrpc/worker"
#define TEL_CMD_NEXUS "/pmrpc/nexus"

/* The workers, by ascending id. */
static pthread_mutex_t tel_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pmr_worker **tel_workers;
static unsigned int tel_nb_workers;
static unsigned int tel_cap_workers;

/* A uint64_t counter of a struct, by name. */
struct tel_field {
	const char *name;
	size_t off;
};

#define WORKER_STAT(f) { #f, offsetof(struct pmr_worker_stats, f) }

static const struct tel_field worker_stat_fields[] = {
	WORKER_STAT(tx_pkts),
	WORKER_STAT(tx_bytes),
	WORKER_STAT(rx_pkts),
	WORKER_STAT(rx_bytes),
	WORKER_STAT(reqs_sent),
	WORKER_STAT(reqs_completed),
	WORKER_STAT(reqs_handled),
	WORKER_STAT(resps_sent),
	WORKER_STAT(tx_stalls),
	WORKER_STAT(tx_dropped),
	WORKER_STAT(retransmissions),
	WORKER_STAT(timeouts),
	WORKER_STAT(credit_stalls),
	WORKER_STAT(dup_answered),
	WORKER_STAT(fault_dropped),
	WORKER_STAT(fault_duplicated),
	WORKER_STAT(fault_reordered),
	WORKER_STAT(rx_drops),
	WORKER_STAT(stale_refs),
	WORKER_STAT(msgbuf_busy),
	WORKER_STAT(tokens_sent),
	WORKER_STAT(tokens_received),
	WORKER_STAT(connects_unreachable),
	WORKER_STAT(reqs_held),
	WORKER_STAT(srv_reclaimed),
	WORKER_STAT(resps_expired),
	WORKER_STAT(large_refused),
	WORKER_STAT(timeout_resets),
	WORKER_STAT(txfree_grown),
	WORKER_STAT(txfree_abandoned),
	WORKER_STAT(dev_events),
	WORKER_STAT(rdv_descs_sent),
	WORKER_STAT(rdv_descs_received),
	WORKER_STAT(rdv_reads),
	WORKER_STAT(rdv_read_bytes),
	WORKER_STAT(rdv_read_errors),
	WORKER_STAT(rdv_offers),
	WORKER_STAT(rdv_reclaimed),
	WORKER_STAT(rdv_fallbacks),
	WORKER_STAT(copied_bytes),
	WORKER_STAT(src_refused),
	WORKER_STAT(src_sessions_refused),
	WORKER_STAT(qp_fatal),
	WORKER_STAT(qp_recovered),
	WORKER_STAT(qp_recovery_failed),
	WORKER_STAT(rc_lost),
	WORKER_STAT(rdv_recovered),
	WORKER_STAT(rdv_reads_stuck),
};

#define DRIVER_STAT(f) { "driver_" #f, offsetof(struct pmr_transport_stats, f) }

/* The worker's transport queue: what its driver delivered and dropped. */
static const struct tel_field driver_stat_fields[] = {
	DRIVER_STAT(tx_pkts),
	DRIVER_STAT(tx_bytes),
	DRIVER_STAT(tx_zerocopy),
	DRIVER_STAT(tx_full),
	DRIVER_STAT(rx_pkts),
	DRIVER_STAT(rx_bytes),
	DRIVER_STAT(rx_dropped),
};

/* Named counters of a queue shown; the eth driver has 16. */
#define TEL_XSTATS_MAX 64

#define NEXUS_STAT(f) { #f, offsetof(struct pmr_nexus_stats, f) }

static const struct tel_field nexus_stat_fields[] = {
	NEXUS_STAT(rx_msgs),
	NEXUS_STAT(rx_bad),
	NEXUS_STAT(tx_msgs),
	NEXUS_STAT(connect_retries),
	NEXUS_STAT(sessions_accepted),
	NEXUS_STAT(sessions_refused),
	NEXUS_STAT(sessions_connected),
	NEXUS_STAT(sessions_failed),
	NEXUS_STAT(heartbeats_sent),
	NEXUS_STAT(peers_dead),
	NEXUS_STAT(sessions_reset),
	NEXUS_STAT(cookies_sent),
	NEXUS_STAT(refused_per_source),
	NEXUS_STAT(heartbeats_rejected),
	NEXUS_STAT(heartbeats_replayed),
	NEXUS_STAT(dev_events),
	NEXUS_STAT(dev_events_port),
	NEXUS_STAT(dev_events_gid),
	NEXUS_STAT(dev_events_qp),
	NEXUS_STAT(dev_events_cq),
	NEXUS_STAT(dev_events_fatal),
	NEXUS_STAT(dev_events_rc),
	NEXUS_STAT(dev_events_orphan),
	NEXUS_STAT(rc_share_refused),
	NEXUS_STAT(alive_by_data),
	NEXUS_STAT(stalls),
	NEXUS_STAT(stall_ms),
	NEXUS_STAT(stall_ms_max),
	NEXUS_STAT(rc_replaced),
};

static inline uint64_t
tel_field_get(const void *st, const struct tel_field *f)
{
	return *(const uint64_t *)(const void *)((const char *)st + f->off);
}

void
rpc_telemetry_add(struct pmr_worker *w)
{
	struct pmr_worker **a;
	unsigned int i, cap;

	pthread_mutex_lock(&tel_lock);
	if (tel_nb_workers == tel_cap_workers) {
		cap = tel_cap_workers != 0 ? 2 * tel_cap_workers : 16;
		a = realloc(tel_workers, cap * sizeof(*a));
		if (a == NULL) {
			pthread_mutex_unlock(&tel_lock);
			RPC_LOG(WARNING, "worker %u: out of memory, not in "
				"telemetry", w->worker_id);
			return;
		}
		tel_workers = a;
		tel_cap_workers = cap;
	}
	/* After the workers of the same or a lower id. */
	for (i = tel_nb_workers; i > 0; i--)
		if (tel_workers[i - 1]->worker_id <= w->worker_id)
			break;
	memmove(&tel_workers[i + 1], &tel_workers[i],
		(tel_nb_workers - i) * sizeof(*tel_workers));
	tel_workers[i] = w;
	tel_nb_workers++;
	pthread_mutex_unlock(&tel_lock);
}

void
rpc_telemetry_del(struct pmr_worker *w)
{
	unsigned int i;

	pthread_mutex_lock(&tel_lock);
	for (i = 0; i < tel_nb_workers; i++) {
		if (tel_workers[i] != w)
			continue;
		tel_nb_workers--;
		memmove(&tel_workers[i], &tel_workers[i + 1],
			(tel_nb_workers - i) * sizeof(*tel_workers));
		break;
	}
	if (tel_nb_workers == 0) {
		free(tel_workers);
		tel_workers = NULL;
		tel_cap_workers = 0;
	}
	pthread_mutex_unlock(&tel_lock);
}

/* A worker id parameter: decimal, 0 to 65535. */
static int
tel_parse_id(const char *params, uint16_t *id)
{
	unsigned long v;
	char *end;

	if (params == NULL || !isdigit((unsigned char)params[0]))
		return -EINVAL;
	errno = 0;
	v = strtoul(params, &end, 10);
	while (isspace((unsigned char)*end))
		end++;
	if (errno != 0 || *end != '\0' || v > UINT16_MAX)
		return -EINVAL;
	*id = (uint16_t)v;
	return 0;
}

/* The first worker of that id, or NULL; under tel_lock. */
static struct pmr_worker *
tel_worker_find(uint16_t id)
{
	unsigned int i;

	for (i = 0; i < tel_nb_workers; i++)
		if (tel_workers[i]->worker_id == id)
			return tel_workers[i];
	return NULL;
}

static int
tel_handle_workers(const char *cmd __rte_unused,
		const char *params __rte_unused, struct rte_tel_data *d)
{
	unsigned int i;

	rte_tel_data_start_array(d, RTE_TEL_INT_VAL);
	pthread_mutex_lock(&tel_lock);
	for (i = 0; i < tel_nb_workers; i++)
		if (rte_tel_data_add_array_int(d,
				tel_workers[i]->worker_id) != 0)
			break;		/* RTE_TEL_MAX_ARRAY_ENTRIES */
	pthread_mutex_unlock(&tel_lock);
	return 0;
}

/*
 * The counters of w's transport queue, read now (not on the worker's
 * data path): its stats and named counters (drops by reason), each under
 * its name after "driver_".
 */
static void
tel_driver_counters(const struct pmr_worker *w, struct rte_tel_data *d)
{
	struct pmr_transport_xstat xs[TEL_XSTATS_MAX];
	struct pmr_transport_stats ts;
	char name[RTE_TEL_MAX_STRING_LEN];
	unsigned int i;
	int n;

	/* Every counter of the struct has its line. */
	RTE_BUILD_BUG_ON(sizeof(struct pmr_transport_stats) !=
		sizeof(uint64_t) * RTE_DIM(driver_stat_fields));
	if (pmr_transport_stats_get(w->q, &ts) == 0)
		for (i = 0; i < RTE_DIM(driver_stat_fields); i++)
			rte_tel_data_add_dict_u64(d,
				driver_stat_fields[i].name,
				tel_field_get(&ts, &driver_stat_fields[i]));
	n = pmr_transport_xstats_get(w->q, xs, RTE_DIM(xs));
	for (i = 0; n > 0 && i < RTE_MIN((unsigned int)n, RTE_DIM(xs)); i++) {
		snprintf(name, sizeof(name), "driver_%.*s",
			(int)sizeof(xs[i].name), xs[i].name);
		rte_tel_data_add_dict_u64(d, name, xs[i].value);
	}
}

static void
tel_worker_dict(const struct pmr_worker *w, struct rte_tel_data *d)
{
	struct pmr_worker_stats st;
	char name[RTE_TEL_MAX_STRING_LEN];
	uint32_t rc_ready, rc_draining, rc_ops;
	const char *drop;
	unsigned int i;

	/* Each counter is read whole; together they may be out of step. */
	if (pmr_worker_stats_get(w, &st) != 0)
		memset(&st, 0, sizeof(st));	/* not reached: w is valid */
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "worker_id", w->worker_id);
	rte_tel_data_add_dict_string(d, "nexus", pmr_nexus_uri(w->nx));
	for (i = 0; i < RTE_DIM(worker_stat_fields); i++)
		rte_tel_data_add_dict_u64(d, worker_stat_fields[i].name,
			tel_field_get(&st, &worker_stat_fields[i]));
	for (i = 0; i < RTE_DIM(st.drops); i++) {
		drop = pmr_worker_drop_name(i);
		if (drop == NULL)
			continue;
		snprintf(name, sizeof(name), "drop_%s", drop);
		rte_tel_data_add_dict_u64(d, name, st.drops[i]);
	}
	rte_tel_data_add_dict_u64(d, "sessions_in_use",
		w->max_sessions - __atomic_load_n(&w->nb_sess_free,
			__ATOMIC_RELAXED));
	rte_tel_data_add_dict_u64(d, "sessions_max", w->max_sessions);
	rte_tel_data_add_dict_u64(d, "requests_in_use",
		w->max_requests - __atomic_load_n(&w->nb_creq_free,
			__ATOMIC_RELAXED));
	rte_tel_data_add_dict_u64(d, "requests_max", w->max_requests);
	rpc_rc_counts(w, &rc_ready, &rc_draining, &rc_ops);
	rte_tel_data_add_dict_u64(d, "rc_qps_ready", rc_ready);
	rte_tel_data_add_dict_u64(d, "rc_qps_draining", rc_draining);
	rte_tel_data_add_dict_u64(d, "rc_ops_outstanding", rc_ops);
	tel_driver_counters(w, d);
}

static int
tel_handle_worker(const char *cmd __rte_unused, const char *params,
		struct rte_tel_data *d)
{
	struct pmr_worker *w;
	uint16_t id;
	int ret;

	/*
	 * Every counter of the struct has its line (the drops[] apart): a
	 * counter added to struct pmr_worker_stats goes in the table above.
	 */
	RTE_BUILD_BUG_ON(sizeof(struct pmr_worker_stats) !=
		sizeof(uint64_t) * (RTE_DIM(worker_stat_fields) +
			RTE_DIM(((struct pmr_worker_stats *)NULL)->drops)));
	ret = tel_parse_id(params, &id);
	if (ret != 0)
		return ret;
	pthread_mutex_lock(&tel_lock);
	w = tel_worker_find(id);
	if (w != NULL)
		tel_worker_dict(w, d);
	pthread_mutex_unlock(&tel_lock);
	return w != NULL ? 0 : -EINVAL;
}

/* The nexus of w, with the ids of its workers; under tel_lock. */
static int
tel_nexus_dict(const struct pmr_worker *w, struct rte_tel_data *d)
{
	struct pmr_nexus_stats st;
	struct rte_tel_data *ids;
	unsigned int i;

	/* Every counter of the struct has its line. */
	RTE_BUILD_BUG_ON(sizeof(struct pmr_nexus_stats) !=
		sizeof(uint64_t) * RTE_DIM(nexus_stat_fields));
	if (pmr_nexus_stats_get(w->nx, &st) != 0)
		return -EINVAL;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "uri", pmr_nexus_uri(w->nx));
	for (i = 0; i < RTE_DIM(nexus_stat_fields); i++)
		rte_tel_data_add_dict_u64(d, nexus_stat_fields[i].name,
			tel_field_get(&st, &nexus_stat_fields[i]));
	ids = rte_tel_data_alloc();
	if (ids == NULL)
		return 0;
	rte_tel_data_start_array(ids, RTE_TEL_INT_VAL);
	for (i = 0; i < tel_nb_workers; i++)
		if (tel_workers[i]->nx == w->nx &&
		    rte_tel_data_add_array_int(ids,
				tel_workers[i]->worker_id) != 0)
			break;
	if (rte_tel_data_add_dict_container(d, "workers", ids, 0) != 0)
		rte_tel_data_free(ids);
	return 0;
}

static int
tel_handle_nexus(const char *cmd __rte_unused, const char *params,
		struct rte_tel_data *d)
{
	bool by_id = params != NULL && params[0] != '\0';
	struct pmr_worker *w;
	uint16_t id = 0;
	int ret;

	if (by_id) {
		ret = tel_parse_id(params, &id);
		if (ret != 0)
			return ret;
	}
	pthread_mutex_lock(&tel_lock);
	if (by_id)
		w = tel_worker_find(id);
	else
		w = tel_nb_workers > 0 ? tel_workers[0] : NULL;
	ret = w != NULL ? tel_nexus_dict(w, d) : -EINVAL;
	pthread_mutex_unlock(&tel_lock);
	return ret;
}

RTE_INIT(rpc_telemetry_init)
{
	rte_telemetry_register_cmd(TEL_CMD_WORKERS, tel_handle_workers,
		"Ids of the pmrpc workers. No parameters");
	rte_telemetry_register_cmd(TEL_CMD_WORKER, tel_handle_worker,
		"Counters of a pmrpc worker. Parameters: int worker_id");
	rte_telemetry_register_cmd(TEL_CMD_NEXUS, tel_handle_nexus,
		"Counters of the pmrpc nexus of a worker (default: the "
		"lowest id). Parameters: [int worker_id]");
}
