/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * What rpcperf reads from the workers' and drivers' counters, never on
 * the data path: the packets they dropped and why, and the path large
 * messages took (READs, descriptors, fallbacks, copies).
 */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>

#include "rpcperf.h"

/*
 * Packets a worker dropped since st0 and d0: refused on receipt, by
 * --faults, or by its driver.
 */
static uint64_t
worker_drops(struct pmr_worker *w, const struct pmr_worker_stats *st0,
		const struct rpcperf_drv_drops *d0)
{
	struct rpcperf_drv_drops d;
	struct pmr_worker_stats st;

	pmr_worker_stats_get(w, &st);
	rpcperf_drv_drops_get(w, &d);
	return st.rx_drops - st0->rx_drops +
		st.fault_dropped - st0->fault_dropped + d.total - d0->total;
}

uint64_t
rpcperf_client_drops(const struct rpcperf_run *run, unsigned int k)
{
	const struct rpcperf_client *c = &run->clients[k];
	uint64_t n;

	n = worker_drops(c->worker, &c->st0, &c->drv0);
	/* In-process, server k answers client k. */
	if (k < run->nb_servers)
		n += worker_drops(run->servers[k], &c->srv0, &c->srvdrv0);
	return n;
}

void
rpcperf_path_add(struct rpcperf_path *p, struct pmr_worker *w,
		const struct pmr_worker_stats *st0)
{
	struct pmr_worker_stats st;

	pmr_worker_stats_get(w, &st);
	p->reads += st.rdv_reads - st0->rdv_reads;
	p->read_bytes += st.rdv_read_bytes - st0->rdv_read_bytes;
	p->read_errors += st.rdv_read_errors - st0->rdv_read_errors;
	p->descs_sent += st.rdv_descs_sent - st0->rdv_descs_sent;
	p->fallbacks += st.rdv_fallbacks - st0->rdv_fallbacks;
	p->copied_bytes += st.copied_bytes - st0->copied_bytes;
}

void
rpcperf_drops_print(const char *who, const struct pmr_worker_stats *st,
		const struct pmr_worker_stats *st0)
{
	unsigned int i;

	if (st->rx_drops == st0->rx_drops)
		return;
	fprintf(stderr, "rpcperf: %s dropped %" PRIu64 " packets:", who,
		st->rx_drops - st0->rx_drops);
	for (i = 0; i < RTE_DIM(st->drops); i++)
		if (st->drops[i] != st0->drops[i])
			fprintf(stderr, " %s %" PRIu64, pmr_worker_drop_name(i),
				st->drops[i] - st0->drops[i]);
	fprintf(stderr, "\n");
}

void
rpcperf_drv_drops_get(struct pmr_worker *w, struct rpcperf_drv_drops *d)
{
	struct pmr_transport_queue *q = pmr_worker_queue(w);
	struct pmr_transport_stats ts;
	int n;

	memset(d, 0, sizeof(*d));
	if (pmr_transport_stats_get(q, &ts) == 0)
		d->total = ts.rx_dropped;
	n = pmr_transport_xstats_get(q, d->x, RTE_DIM(d->x));
	d->n = n > 0 ? RTE_MIN((unsigned int)n, RTE_DIM(d->x)) : 0;
}

void
rpcperf_drv_drops_print(const char *who, const struct rpcperf_drv_drops *d,
		const struct rpcperf_drv_drops *d0)
{
	static const char prefix[] = "rx_drop_";
	const size_t plen = sizeof(prefix) - 1;
	uint64_t v0;
	unsigned int i;

	if (d->total == (d0 != NULL ? d0->total : 0))
		return;
	fprintf(stderr, "rpcperf: %s driver dropped %" PRIu64 " frames:", who,
		d->total - (d0 != NULL ? d0->total : 0));
	/* The eth driver's reasons are its rx_drop_* counters. */
	for (i = 0; i < d->n; i++) {
		if (strncmp(d->x[i].name, prefix, plen) != 0)
			continue;
		v0 = d0 != NULL && i < d0->n &&
			strcmp(d0->x[i].name, d->x[i].name) == 0 ?
			d0->x[i].value : 0;
		if (d->x[i].value != v0)
			fprintf(stderr, " %.*s %" PRIu64,
				(int)(sizeof(d->x[i].name) - plen),
				d->x[i].name + plen, d->x[i].value - v0);
	}
	fprintf(stderr, "\n");
}

void
rpcperf_worker_drops_print(const char *who, unsigned int id,
		struct pmr_worker *w, const struct pmr_worker_stats *st0,
		const struct rpcperf_drv_drops *d0)
{
	struct rpcperf_drv_drops d;
	struct pmr_worker_stats st;
	char name[64];

	pmr_worker_stats_get(w, &st);
	rpcperf_drv_drops_get(w, &d);
	snprintf(name, sizeof(name), "%s %u", who, id);
	rpcperf_drops_print(name, &st, st0);
	rpcperf_drv_drops_print(name, &d, d0);
}
