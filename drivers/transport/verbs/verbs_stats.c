/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * The verbs driver's statistics and named counters.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_malloc.h>

#include "verbs_private.h"

int
verbs_stats_get(struct pmr_transport_queue *q, struct pmr_transport_stats *s)
{
	const struct verbs_stats *st = &verbs_queue(q)->stats;
	unsigned int i;

	memset(s, 0, sizeof(*s));
	s->tx_pkts = st->tx_pkts;
	s->tx_bytes = st->tx_bytes;
	s->tx_zerocopy = st->tx_zerocopy;
	s->tx_full = st->tx_full;
	s->rx_pkts = st->rx_pkts;
	s->rx_bytes = st->rx_bytes;
	/* The queue's own flush sends are no packets lost. */
	for (i = 0; i < VERBS_DROP_MAX; i++)
		if (i != VERBS_DROP_SELF_FLUSH)
			s->rx_dropped += st->rx_drop[i];
	return 0;
}

void
verbs_stats_reset(struct pmr_transport_queue *q)
{
	memset(&verbs_queue(q)->stats, 0, sizeof(verbs_queue(q)->stats));
}

static const char *const verbs_drop_names[VERBS_DROP_MAX] = {
	[VERBS_DROP_STATUS] = "status",
	[VERBS_DROP_SHORT] = "short",
	[VERBS_DROP_SELF_FLUSH] = "self_flush",
	[VERBS_DROP_GRH] = "grh",
	[VERBS_DROP_LONG] = "long",
};

int
verbs_xstats_get(struct pmr_transport_queue *q, struct pmr_transport_xstat *xs,
		unsigned int n)
{
	struct verbs_queue *vq = verbs_queue(q);
	const struct verbs_stats *st = &vq->stats;
	unsigned int i, k = 0, nb_ahs;
	uint64_t busy;

	verbs_ah_reap(vq);
	rte_spinlock_lock(&vq->ah_lock);
	nb_ahs = vq->nb_ahs;
	busy = vq->ah_destroy_busy;
	rte_spinlock_unlock(&vq->ah_lock);
#define XSTAT(nm, val) do { \
	if (k < n) { \
		snprintf(xs[k].name, sizeof(xs[k].name), "%s", nm); \
		xs[k].value = (val); \
	} \
	k++; \
} while (0)
	XSTAT("tx_invalid", st->tx_invalid);
	XSTAT("tx_unregistered", st->tx_unregistered);
	XSTAT("tx_bounced", st->tx_bounced);
	XSTAT("tx_post_err", st->tx_post_err);
	XSTAT("tx_cqe_err", st->tx_cqe_err);
	XSTAT("tx_posts", st->posts);
	XSTAT("tx_signaled", st->wqe_signaled);
	XSTAT("tx_inline", st->wqe_inline);
	XSTAT("tx_flushes", st->flushes);
	/* Sends the driver holds (posted, not yet known complete). */
	XSTAT("tx_pending", verbs_tx_pending(vq));
	XSTAT("tx_held", vq->tx_held);
	XSTAT("rx_refills", st->rx_refills);
	/* Not a drop: the receive of our own flush sends. */
	XSTAT("rx_self_flush", st->rx_drop[VERBS_DROP_SELF_FLUSH]);
	for (i = 0; i < VERBS_DROP_MAX; i++) {
		char nm[sizeof(xs[0].name)];

		if (i == VERBS_DROP_SELF_FLUSH)
			continue;
		snprintf(nm, sizeof(nm), "rx_drop_%s", verbs_drop_names[i]);
		XSTAT(nm, st->rx_drop[i]);
	}
	/* The UD QP in ERR and its recovery (verbs_recover.c). */
	XSTAT("rx_flushed", st->rx_flushed);
	XSTAT("rx_cqe_stale", st->rx_cqe_stale);
	XSTAT("tx_cqe_stale", st->tx_cqe_stale);
	XSTAT("tx_drop_qp_err", st->tx_drop_qp_err);
	XSTAT("qp_err", st->qp_err);
	XSTAT("qp_async_events", __atomic_load_n(&vq->ud_async,
		__ATOMIC_RELAXED));
	XSTAT("qp_recovered", st->qp_recovered);
	XSTAT("qp_recovery_failed", st->qp_recovery_failed);
	XSTAT("qp_reclaimed", st->qp_reclaimed);
	XSTAT("qp_events_lost", st->qp_events_lost);
	XSTAT("rc_qps", __atomic_load_n(&vq->rc_nb, __ATOMIC_RELAXED));
	XSTAT("rc_ops", st->rc_ops);
	XSTAT("rc_ops_outstanding", vq->rc_ops_out);
	XSTAT("rc_wrs", st->rc_wrs);
	XSTAT("rc_posts", st->rc_posts);
	XSTAT("rc_reads_split", st->rc_split);
	XSTAT("rc_rd_wait", st->rc_rd_wait);
	XSTAT("rc_bind_wait", st->rc_bind_wait);
	XSTAT("rc_rd_max_seen", st->rc_rd_max_seen);
	XSTAT("rc_cpl_err", st->rc_cpl_err);
	XSTAT("rc_post_err", st->rc_post_err);
	XSTAT("rc_cqe_stale", st->rc_cqe_stale);
	XSTAT("rc_fails", st->rc_fails);
	XSTAT("mw_live", vq->mw_live);
	XSTAT("mw_cached", vq->mw_cached);
	XSTAT("mw_allocated", vq->mw_allocated);
	XSTAT("mw_deallocated", vq->mw_deallocated);
	XSTAT("mw_grown", vq->mw_grown);
	XSTAT("mw_alloc_err", vq->mw_alloc_err);
	XSTAT("mw_binds", st->mw_binds);
	XSTAT("mw_invalidates", st->mw_invalidates);
	XSTAT("mw_bind_err", st->mw_bind_err);
	XSTAT("mw_inv_err", st->mw_inv_err);
	XSTAT("mw_refused", st->mw_refused);
	XSTAT("ahs_live", nb_ahs);
	XSTAT("ah_destroy_busy", busy);
#undef XSTAT
	return (int)k;
}
