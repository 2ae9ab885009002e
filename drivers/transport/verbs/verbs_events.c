/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * Device async events of the verbs driver: the device context's async fd,
 * made non-blocking at open, and ibv_get_async_event() mapped to the
 * driver-neutral struct pmr_transport_event. Each event is acknowledged
 * before the next is read: an unacknowledged QP or CQ event makes its
 * destroy hang on rdma-core (EBUSY on the model). The QPs and CQs of a
 * queue carry it (or its RC slot) as their context, set at create, so an
 * event names its queue without any table; the context is read before the
 * acknowledgement, while the object cannot be destroyed.
 */

#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include "verbs_private.h"

void
verbs_events_dev_init(struct verbs_dev *d)
{
	int fl;

	/* rdma-core's async fd blocks: the nexus polls it beside its
	 * socket and must never sleep in a read. */
	fl = fcntl(d->ctx->async_fd, F_GETFL);
	if (fl < 0 || fcntl(d->ctx->async_fd, F_SETFL, fl | O_NONBLOCK) < 0)
		VERBS_LOG(WARNING, "%s: async fd not made non-blocking (%s): "
			"its events are not read", d->name, strerror(errno));
	else
		d->async_nb = true;
}

int
verbs_event_fd(struct pmr_transport_queue *q)
{
	struct verbs_dev *d = verbs_queue(q)->dev;

	/* Never block the nexus; no system call: it asks often. */
	if (!d->async_nb)
		return -ENOTSUP;
	return d->ctx->async_fd;
}

static void
event_map(const struct ibv_async_event *ae, struct pmr_transport_event *ev)
{
	struct ibv_qp *qp = NULL;
	struct verbs_rc *rc;

	memset(ev, 0, sizeof(*ev));
	switch (ae->event_type) {
	case IBV_EVENT_PORT_ERR:
		ev->type = PMR_TRANSPORT_EV_PORT_DOWN;
		ev->port = (uint32_t)ae->element.port_num;
		return;
	case IBV_EVENT_PORT_ACTIVE:
		ev->type = PMR_TRANSPORT_EV_PORT_UP;
		ev->port = (uint32_t)ae->element.port_num;
		return;
	case IBV_EVENT_GID_CHANGE:
		ev->type = PMR_TRANSPORT_EV_GID_CHANGE;
		ev->port = (uint32_t)ae->element.port_num;
		return;
	case IBV_EVENT_DEVICE_FATAL:
		ev->type = PMR_TRANSPORT_EV_DEVICE_FATAL;
		return;
	case IBV_EVENT_CQ_ERR:
		ev->type = PMR_TRANSPORT_EV_CQ_ERR;
		if (ae->element.cq != NULL &&
		    ae->element.cq->cq_context != NULL)
			ev->q = &((struct verbs_queue *)
					ae->element.cq->cq_context)->pub;
		return;
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
		ev->type = PMR_TRANSPORT_EV_QP_FATAL;
		qp = ae->element.qp;
		break;
	case IBV_EVENT_QP_ACCESS_ERR:
		ev->type = PMR_TRANSPORT_EV_QP_ACCESS_ERR;
		qp = ae->element.qp;
		break;
	default:
		ev->type = PMR_TRANSPORT_EV_OTHER;
		return;
	}
	if (qp == NULL)
		return;
	ev->qpn = qp->qp_num;
	if (qp->qp_context == NULL)
		return;
	if (qp->qp_type == IBV_QPT_RC) {
		rc = qp->qp_context;
		ev->rc = (struct pmr_transport_rc *)rc;
		/* rc->vq is set just after the QP is made. */
		ev->q = rc->vq != NULL ? &rc->vq->pub : NULL;
	} else if (qp->qp_type == IBV_QPT_UD) {
		struct verbs_queue *vq = qp->qp_context;

		ev->q = &vq->pub;
		/* For its lcore, which owns the QP: it checks and recovers
		 * it (verbs_recover.c), and tells the worker once. */
		__atomic_fetch_add(&vq->ud_async, 1, __ATOMIC_RELEASE);
	}
}

int
verbs_event_read(struct pmr_transport_queue *q,
		struct pmr_transport_event *ev, unsigned int n)
{
	struct ibv_context *ctx = verbs_queue(q)->dev->ctx;
	struct ibv_async_event ae;
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (ibv_get_async_event(ctx, &ae) != 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK ||
			    errno == EINTR || i > 0)
				break;
			return -errno;
		}
		event_map(&ae, &ev[i]);
		VERBS_LOG(INFO, "%s: async event %s (%d)",
			verbs_queue(q)->dev->name,
			ibv_event_type_str(ae.event_type), (int)ae.event_type);
		ibv_ack_async_event(&ae);
	}
	return (int)i;
}
