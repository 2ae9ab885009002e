/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * Device async events. The nexus thread polls, beside its socket, the
 * event fd of each device an attached worker's queue is on (the driver's
 * event_fd, non-blocking), and on a wake-up with one readable reads every
 * pending event through the driver (event_read, which acknowledges each
 * before the next) and tells the workers concerned with a
 * PMR_SM_DEVICE_EVENT ring message: port, GID and device fatal events
 * every worker on that device, QP and CQ events the worker owning the
 * object. Everything runs under the nexus lock, and a worker detaches
 * under it before its queue is destroyed: the queues asked are alive.
 * Counted in pmr_nexus_stats.dev_events*.
 */

#include <poll.h>
#include <string.h>

#include "nexus_private.h"
#include "pmr_transport_driver.h"

/* Events read from one device per wake-up (the fd polls again if more). */
#define NEXUS_EVENT_BUDGET 64
#define NEXUS_EVENT_BURST 16

static int
worker_event_fd(const struct nexus_worker *w)
{
	const struct pmr_transport_driver *drv = w->q->driver;

	if (drv == NULL || drv->event_fd == NULL || drv->event_read == NULL)
		return -1;
	return drv->event_fd(w->q);
}

unsigned int
nexus_events_fds(struct pmr_nexus *nx, struct pollfd *fds, unsigned int max)
{
	struct nexus_worker *w;
	unsigned int n = 0, i;
	int fd;

	pthread_mutex_lock(&nx->lock);
	TAILQ_FOREACH(w, &nx->workers, next) {
		fd = worker_event_fd(w);
		if (fd < 0)
			continue;
		for (i = 0; i < n; i++)
			if (fds[i].fd == fd)
				break;
		if (i < n)
			continue;
		if (n == max) {
			/* Read anyway at each wake-up (nexus_events_poll). */
			continue;
		}
		fds[n++] = (struct pollfd){ .fd = fd, .events = POLLIN };
	}
	pthread_mutex_unlock(&nx->lock);
	return n;
}

static void
tell(struct nexus_worker *w, const struct pmr_transport_event *ev)
{
	struct pmr_sm_msg m = {
		.type = PMR_SM_DEVICE_EVENT,
		.pkt_size = ev->type,
		.credits = (uint16_t)ev->port,
	};

	(void)nexus_worker_send(w, &m);
}

void
nexus_events_rc(struct pmr_nexus *nx, struct nexus_worker *w,
		struct pmr_transport_rc *rc,
		const struct pmr_transport_event *ev)
{
	/*
	 * Not told to the application as a worker event:
	 * PMR_WORKER_EV_QP_FATAL is about the worker's own (UD) QP, which
	 * its driver recovers. A failed RC QP becomes a session event instead: the pair is taken
	 * back with a status (RC_DOWN), and the worker resets the sessions
	 * of that worker pair onto a fresh QP, as when an operation on it
	 * fails (which may never happen on an idle QP).
	 */
	NX_LOG(NOTICE, "worker %u: RC QP %u: device event %u", w->id,
		ev->qpn, ev->type);
	nx->stats.dev_events_rc++;
	if (ev->type == PMR_TRANSPORT_EV_QP_FATAL ||
	    ev->type == PMR_TRANSPORT_EV_QP_ACCESS_ERR)
		nexus_rc_qp_failed(nx, w, rc);
}

static void
dispatch(struct pmr_nexus *nx, int fd, const struct pmr_transport_event *ev)
{
	struct nexus_worker *w;
	bool told = false;

	nx->stats.dev_events++;
	switch (ev->type) {
	case PMR_TRANSPORT_EV_PORT_DOWN:
	case PMR_TRANSPORT_EV_PORT_UP:
		nx->stats.dev_events_port++;
		break;
	case PMR_TRANSPORT_EV_GID_CHANGE:
		nx->stats.dev_events_gid++;
		break;
	case PMR_TRANSPORT_EV_DEVICE_FATAL:
		nx->stats.dev_events_fatal++;
		break;
	case PMR_TRANSPORT_EV_QP_FATAL:
	case PMR_TRANSPORT_EV_QP_ACCESS_ERR:
		nx->stats.dev_events_qp++;
		break;
	case PMR_TRANSPORT_EV_CQ_ERR:
		nx->stats.dev_events_cq++;
		break;
	default:
		nx->stats.dev_events_orphan++;
		return;
	}
	TAILQ_FOREACH(w, &nx->workers, next) {
		if (ev->q != NULL || ev->type == PMR_TRANSPORT_EV_QP_FATAL ||
		    ev->type == PMR_TRANSPORT_EV_QP_ACCESS_ERR ||
		    ev->type == PMR_TRANSPORT_EV_CQ_ERR) {
			/* The object's owner only (pointers compared). */
			if (ev->q == NULL || w->q != ev->q)
				continue;
			if (ev->rc != NULL)
				nexus_events_rc(nx, w, ev->rc, ev);
			else
				tell(w, ev);
			told = true;
			break;
		}
		if (worker_event_fd(w) != fd)
			continue;
		tell(w, ev);
		told = true;
	}
	if (!told)
		nx->stats.dev_events_orphan++;
	NX_LOG(INFO, "device event %u (port %u, qpn %u)%s", ev->type,
		ev->port, ev->qpn, told ? "" : ": nobody's");
}

/* Read up to the budget of w's device's events. */
static void
device_read(struct pmr_nexus *nx, struct nexus_worker *w, int fd)
{
	struct pmr_transport_event ev[NEXUS_EVENT_BURST];
	unsigned int total = 0;
	int n, i;

	while (total < NEXUS_EVENT_BUDGET) {
		n = w->q->driver->event_read(w->q, ev, RTE_DIM(ev));
		if (n < 0) {
			NX_LOG(WARNING, "worker %u: device events: %s", w->id,
				strerror(-n));
			return;
		}
		for (i = 0; i < n; i++)
			dispatch(nx, fd, &ev[i]);
		if (n < (int)RTE_DIM(ev))
			return;
		total += (unsigned int)n;
	}
}

void
nexus_events_poll(struct pmr_nexus *nx, const struct pollfd *fds,
		unsigned int n)
{
	struct nexus_worker *w, *o;
	unsigned int i;
	int fd;

	TAILQ_FOREACH(w, &nx->workers, next) {
		fd = worker_event_fd(w);
		if (fd < 0)
			continue;
		/* One read per device: by its first worker in the list. */
		TAILQ_FOREACH(o, &nx->workers, next)
			if (o == w || worker_event_fd(o) == fd)
				break;
		if (o != w)
			continue;
		/* Readable, or not polled (over NEXUS_EVENT_FDS_MAX). */
		for (i = 0; i < n; i++)
			if (fds[i].fd == fd)
				break;
		if (i < n && (fds[i].revents & (POLLIN | POLLERR)) == 0)
			continue;
		device_read(nx, w, fd);
	}
}
