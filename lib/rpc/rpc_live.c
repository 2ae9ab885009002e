/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * Signs of life from the data path, for the nexus: which sessions took a
 * packet of their peer (rpc_rx_session(): token and source checked) or
 * completed a READ of its memory since the last report. The nexus takes
 * them as it takes a heartbeat (nexus_heartbeat.c), so that a peer whose
 * nexus is silent (its thread starved on a busy host, its heartbeats lost
 * on a wire the data fills) is not judged dead while its workers are
 * visibly talking to ours.
 *
 * About once per nexus heartbeat interval, from the rare poll: a walk of
 * the session table (a flag each) and one PMR_SM_ALIVE per 64 sessions
 * with news. Best effort: never through the outbox (whose room is counted
 * for session messages), skipped while it holds anything; the next
 * interval reports again.
 */

#include <string.h>

#include <rte_cycles.h>
#include <rte_ring.h>

#include "rpc_private.h"
#include "rpc_session.h"

void
rpc_live_init(struct pmr_worker *w)
{
	w->live_period = rte_get_timer_hz() * pmr_nexus_heartbeat_ms(w->nx) /
		1000;
	w->live_next = rte_get_timer_cycles() + w->live_period;
}

void
rpc_live_report(struct pmr_worker *w, uint64_t now)
{
	struct pmr_sm_msg m;
	struct rpc_session *s;
	uint32_t base, i, n;
	uint64_t bits;

	w->live_next = now + w->live_period;
	if (!rte_ring_empty(w->outbox))
		return;		/* session messages first */
	memset(&m, 0, sizeof(m));
	m.type = PMR_SM_ALIVE;
	for (base = 0; base < w->max_sessions; base += 64) {
		n = RTE_MIN(64u, w->max_sessions - base);
		bits = 0;
		for (i = 0; i < n; i++) {
			s = &w->sessions[base + i];
			if (!s->rx_live)
				continue;
			s->rx_live = false;
			if (s->state == PMR_SESSION_CONNECTED)
				bits |= UINT64_C(1) << i;
		}
		if (bits == 0)
			continue;
		m.local_session = (uint16_t)base;
		m.cookie = bits;
		if (rte_ring_enqueue_elem(w->from_worker, &m, sizeof(m)) != 0)
			return;	/* the ring is full: next interval */
	}
}
