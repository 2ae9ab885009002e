/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * The worker's messages to the nexus: the from_worker ring, and the
 * outbox that keeps what the ring cannot take yet, sized so that no
 * session message is ever lost.
 */

#include <rte_ring.h>

#include "rpc_private.h"
#include "rpc_session.h"

/*
 * Outbox entries a worker of max_sessions sessions needs so that no
 * session message is ever lost, however long the nexus takes to drain the
 * from_worker ring. Each session number has at most two messages pending
 * (not yet taken by the nexus):
 * - a client session sends CONNECT when created and DISCONNECT when its
 *   peer goes; it is freed only after the nexus answered its CONNECT
 *   (CONNECTED or CONNECT_FAILED, also when destroyed while connecting),
 *   so the CONNECT of its next life can queue behind at most the
 *   DISCONNECT of this one, and that CONNECT must itself be taken before
 *   anything more is sent for the number;
 * - a server session sends ACCEPT when created and DISCONNECT when its
 *   peer goes; the nexus knows its number only from the ACCEPT, so it
 *   cannot be reset (DISCONNECTED) before the ACCEPT was taken: again an
 *   ACCEPT behind at most one DISCONNECT.
 * Worker destruction sends at most one DISCONNECT per session, within the
 * same bound. REFUSE answers a CONNECT_IN without taking a session: the
 * outbox holds at most RPC_OUTBOX_REFUSES of them, as rpc_sm_poll() takes
 * no more nexus messages while it holds that many.
 */
uint32_t
rpc_outbox_size(uint32_t max_sessions)
{
	/* Plus an RC_WANT per session and an RC_RELEASED per QP (rpc_rc.c):
	 * a QP is shared by one or more sessions. */
	return 4 * max_sessions + RPC_OUTBOX_REFUSES;
}

/* Queue a message to the nexus; keep it in the outbox if the ring is full. */
void
rpc_sm_send(struct pmr_worker *w, const struct pmr_sm_msg *m)
{
	if (rte_ring_empty(w->outbox) &&
	    rte_ring_enqueue_elem(w->from_worker, (void *)(uintptr_t)m,
			sizeof(*m)) == 0)
		return;
	if (unlikely(rte_ring_enqueue_elem(w->outbox, (void *)(uintptr_t)m,
			sizeof(*m)) != 0)) {
		/* Cannot happen (rpc_outbox_size()): a bug if seen. */
		RPC_LOG(ERR, "worker %u: nexus ring and outbox full, "
			"session message %u lost", w->worker_id, m->type);
		return;
	}
	w->outbox_refuses += m->type == PMR_SM_REFUSE;
}

/*
 * Move what the outbox holds to the from_worker ring, oldest first, as
 * far as it fits; true if the outbox is empty then.
 */
bool
rpc_outbox_flush(struct pmr_worker *w)
{
	struct pmr_sm_msg msgs[PMR_BURST_MAX];
	unsigned int i, n;

	while (!rte_ring_empty(w->outbox)) {
		/*
		 * This worker is the ring's only producer: what is free now
		 * stays free until it enqueues.
		 */
		n = RTE_MIN(rte_ring_free_count(w->from_worker),
				RTE_DIM(msgs));
		if (n == 0)
			return false;
		n = rte_ring_dequeue_burst_elem(w->outbox, msgs,
				sizeof(msgs[0]), n, NULL);
		rte_ring_enqueue_bulk_elem(w->from_worker, msgs,
				sizeof(msgs[0]), n, NULL);
		for (i = 0; i < n; i++)
			w->outbox_refuses -= msgs[i].type == PMR_SM_REFUSE;
	}
	return true;
}
