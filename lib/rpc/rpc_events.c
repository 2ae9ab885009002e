/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * What the worker tells its application of its device and queue
 * (pmr_worker_event_cb_t): the device's async events, which the nexus
 * reads and hands over in ring messages, and what the worker's queue
 * found of its own QP (its failures and recoveries), read from the driver
 * in the rare work of pmr_worker_poll(). Each counted, whether or not
 * the application asked to be told.
 */

#include "pmr_transport_driver.h"
#include "rpc_private.h"
#include "rpc_session.h"

/*
 * What the worker's queue found of its own QP
 * (pmr_transport_queue_event_read()): counted, and told to the
 * application if it asked. The driver reports each failure once, and
 * moves its recovery on here too.
 */
int
rpc_queue_events(struct pmr_worker *w)
{
	struct pmr_transport_event tev[8];
	struct pmr_worker_event ev;
	int n, i, total = 0;

	RTE_BUILD_BUG_ON((int)PMR_WORKER_EV_QP_FATAL !=
		(int)PMR_TRANSPORT_EV_QP_FATAL);
	RTE_BUILD_BUG_ON((int)PMR_WORKER_EV_QP_RECOVERED !=
		(int)PMR_TRANSPORT_EV_QP_RECOVERED);
	RTE_BUILD_BUG_ON((int)PMR_WORKER_EV_QP_RECOVERY_FAILED !=
		(int)PMR_TRANSPORT_EV_QP_RECOVERY_FAILED);
	do {
		n = pmr_transport_queue_event_read(w->q, tev, RTE_DIM(tev));
		for (i = 0; i < n; i++) {
			switch (tev[i].type) {
			case PMR_TRANSPORT_EV_QP_FATAL:
				w->stats.qp_fatal++;
				break;
			case PMR_TRANSPORT_EV_QP_RECOVERED:
				w->stats.qp_recovered++;
				break;
			case PMR_TRANSPORT_EV_QP_RECOVERY_FAILED:
				w->stats.qp_recovery_failed++;
				break;
			default:
				RPC_LOG(ERR, "worker %u: queue event %u "
					"ignored", w->worker_id,
					tev[i].type);
				continue;
			}
			RPC_LOG(NOTICE, "worker %u: its QP %u: %s",
				w->worker_id, tev[i].qpn,
				tev[i].type == PMR_TRANSPORT_EV_QP_FATAL ?
				"failed (in the error state)" :
				tev[i].type == PMR_TRANSPORT_EV_QP_RECOVERED ?
				"recovered" : "not recovered: the worker's "
				"data path is dead");
			/* Same values (pmr_transport_driver.h). */
			ev.type = (enum pmr_worker_event_type)tev[i].type;
			ev.port = 0;
			if (w->ev_cb != NULL)
				w->ev_cb(w, &ev, w->ev_cb_arg);
		}
		total += n > 0 ? n : 0;
	} while (n == (int)RTE_DIM(tev));
	return total;
}

/* A device event: counted, and told to the application if it asked. */
void
rpc_device_event(struct pmr_worker *w, const struct pmr_sm_msg *m)
{
	struct pmr_worker_event ev = {
		/* Same values (pmr_transport_driver.h). */
		.type = (enum pmr_worker_event_type)m->pkt_size,
		.port = m->credits,
	};

	w->stats.dev_events++;
	/*
	 * The UD QP's failure, when its driver watches that QP itself: the
	 * driver tells it (once, however found), and learns of the device's
	 * event when asked now.
	 */
	if (ev.type == PMR_WORKER_EV_QP_FATAL &&
	    w->q->driver->queue_event_read != NULL) {
		rpc_queue_events(w);
		return;
	}
	if (w->ev_cb != NULL)
		w->ev_cb(w, &ev, w->ev_cb_arg);
}
