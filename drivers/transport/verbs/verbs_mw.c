/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * The verbs driver's type-2 memory windows (pmr_transport_rc.h: mw_alloc,
 * mw_free, mw_rkey; BIND and INVALIDATE are RC ops, verbs_rc.c). See
 * doc/drivers.md, "Memory windows".
 *
 * A queue on a device with type-2B windows (device_cap_flags
 * MEM_WINDOW_TYPE_2B and max_mw > 0; devarg mw=1, the default) allocates
 * a few windows at set-up into a cache; mw_alloc takes one from it, or
 * allocates one more from the device (a system call, counted: mw_grown).
 * Each window has a state (enum verbs_mw_state) that the RC ops on it
 * move at post and at completion. mw_free puts back into the cache only a
 * window that is FREE (never bound, or invalidated OK): one still bound,
 * or whose BIND or INVALIDATE failed or was flushed or dropped, is
 * deallocated, never bound again (a binding on a QP in ERR cannot be
 * trusted). Queue destroy deallocates every window left, cached or not.
 *
 * Thread: the queue's lcore only (no lock), except set-up and destroy.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>

#include "verbs_private.h"

static inline struct verbs_mw *
verbs_mw(struct pmr_transport_mw *mw)
{
	return (struct verbs_mw *)mw;
}

/* A new window from the device, FREE, not in the cache; NULL: errno. */
static struct verbs_mw *
verbs_mw_new(struct verbs_queue *vq)
{
	struct verbs_mw *m;
	int ret;

	m = calloc(1, sizeof(*m));
	if (m == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	m->mw = ibv_alloc_mw(vq->dev->pd, IBV_MW_TYPE_2);
	if (m->mw == NULL) {
		ret = errno != 0 ? errno : ENOMEM;
		vq->mw_alloc_err++;
		free(m);
		errno = ret;
		return NULL;
	}
	m->rkey = m->mw->rkey;
	m->state = VERBS_MW_FREE;
	TAILQ_INSERT_TAIL(&vq->mws, m, all);
	vq->mw_live++;
	vq->mw_allocated++;
	return m;
}

/* Give the window back to the device; 0 or -errno (then kept listed, and
 * tried again at destroy). */
static int
verbs_mw_dealloc(struct verbs_queue *vq, struct verbs_mw *m)
{
	int ret;

	ret = ibv_dealloc_mw(m->mw);
	if (ret != 0) {
		VERBS_LOG(ERR, "qp %u: ibv_dealloc_mw (rkey 0x%x): %s",
			vq->qpn, m->rkey, strerror(ret));
		m->state = VERBS_MW_BROKEN;
		return -ret;
	}
	TAILQ_REMOVE(&vq->mws, m, all);
	vq->mw_live--;
	vq->mw_deallocated++;
	free(m);
	return 0;
}

int
verbs_mw_setup(struct verbs_queue *vq, const struct ibv_device_attr *da,
		unsigned int n)
{
	unsigned int i;

	TAILQ_INIT(&vq->mws);
	if ((da->device_cap_flags & IBV_DEVICE_MEM_WINDOW_TYPE_2B) == 0 ||
	    da->max_mw <= 0) {
		VERBS_LOG(INFO, "%s: no type-2B memory windows (cap flags "
			"0x%x, max_mw %d): offers use a remote-readable pool",
			vq->dev->name, (unsigned int)da->device_cap_flags,
			da->max_mw);
		return 0;
	}
	for (i = 0; i < n; i++) {
		struct verbs_mw *m = verbs_mw_new(vq);

		if (m == NULL) {
			/* A device that advertises windows and gives none
			 * has none for us: the offer-pool path instead. */
			VERBS_LOG(WARNING, "%s: ibv_alloc_mw (type 2): %s: "
				"memory windows off", vq->dev->name,
				strerror(errno));
			verbs_mw_fini(vq);
			return 0;
		}
		m->next_free = vq->mw_cache;
		vq->mw_cache = m;
		vq->mw_cached++;
	}
	vq->mw_on = true;
	return 1;
}

void
verbs_mw_fini(struct verbs_queue *vq)
{
	struct verbs_mw *m, *next;

	/* A window the engine still holds goes too: the queue is gone. */
	for (m = TAILQ_FIRST(&vq->mws); m != NULL; m = next) {
		next = TAILQ_NEXT(m, all);
		if (verbs_mw_dealloc(vq, m) != 0) {
			/* Leaked with its PD (which then cannot go). */
			TAILQ_REMOVE(&vq->mws, m, all);
			free(m);
		}
	}
	vq->mw_cache = NULL;
	vq->mw_cached = 0;
	vq->mw_on = false;
}

struct pmr_transport_mw *
verbs_mw_alloc(struct pmr_transport_queue *q)
{
	struct verbs_queue *vq = verbs_queue(q);
	struct verbs_mw *m = vq->mw_cache;

	if (m != NULL) {
		vq->mw_cache = m->next_free;
		vq->mw_cached--;
		m->next_free = NULL;
		return (struct pmr_transport_mw *)m;
	}
	m = verbs_mw_new(vq);
	if (m == NULL) {
		VERBS_LOG(ERR, "qp %u: ibv_alloc_mw (type 2, %u alive): %s",
			vq->qpn, vq->mw_live, strerror(errno));
		rte_errno = ENOMEM;
		return NULL;
	}
	vq->mw_grown++;
	return (struct pmr_transport_mw *)m;
}

void
verbs_mw_free(struct pmr_transport_queue *q, struct pmr_transport_mw *mwp)
{
	struct verbs_queue *vq = verbs_queue(q);
	struct verbs_mw *m = verbs_mw(mwp);

	if (m->state == VERBS_MW_FREE) {
		m->rc = NULL;
		m->mr = NULL;
		m->next_free = vq->mw_cache;
		vq->mw_cache = m;
		vq->mw_cached++;
		return;
	}
	verbs_mw_dealloc(vq, m);
}

uint32_t
verbs_mw_rkey(struct pmr_transport_queue *q, const struct pmr_transport_mw *mw)
{
	RTE_SET_USED(q);
	return ((const struct verbs_mw *)mw)->rkey;
}

/*
 * A BIND is taken only for a FREE window (binding a bound one would fail
 * on the device with MW_BIND_ERR and put the QP in ERR), an INVALIDATE
 * only for a window bound on this QP (LOCAL_INV of another QP's window
 * fails the same way): one op at a time per window.
 */
int
verbs_mw_post(struct verbs_queue *vq, const struct verbs_rc *rc,
		struct verbs_mw *m, uint8_t type, const struct ibv_mr *mr)
{
	if (type == PMR_RC_OP_BIND) {
		if (m->state != VERBS_MW_FREE)
			return -1;
		m->state = VERBS_MW_BINDING;
		m->rc = rc;
		m->rc_qpn = rc->qpn;
		m->mr = mr;
		/* A new key per binding: a READ with the key of an earlier
		 * binding of this window fails. */
		m->new_rkey = ibv_inc_rkey(m->rkey);
		vq->stats.mw_binds++;
		return 0;
	}
	if (m->state != VERBS_MW_BOUND || m->rc != rc ||
	    m->rc_qpn != rc->qpn)
		return -1;
	m->state = VERBS_MW_INVALIDATING;
	vq->stats.mw_invalidates++;
	return 0;
}

void
verbs_mw_done(struct verbs_queue *vq, struct verbs_mw *m, uint8_t type,
		uint8_t status)
{
	if (status != PMR_RC_OK) {
		if (type == PMR_RC_OP_BIND)
			vq->stats.mw_bind_err++;
		else
			vq->stats.mw_inv_err++;
		m->state = VERBS_MW_BROKEN;
		return;
	}
	if (type == PMR_RC_OP_BIND) {
		m->rkey = m->new_rkey;
		/* Providers name the window of a BIND WR by ibv_mw.rkey and
		 * check it against the device's current key (rxe does):
		 * keep it current, or the next BIND of it fails. */
		m->mw->rkey = m->rkey;
		m->state = VERBS_MW_BOUND;
	} else {
		m->state = VERBS_MW_FREE;
		m->rc = NULL;
		m->mr = NULL;
	}
}

/*
 * A device refuses to deregister memory a window is bound in (rxe:
 * EINVAL): a pool is unregistered only once its windows are given back
 * (mem_unregister then says -EBUSY). A window in any state but FREE may
 * be bound as far as the device knows.
 */
bool
verbs_mw_in(const struct verbs_queue *vq, const struct ibv_mr *mr)
{
	const struct verbs_mw *m;

	TAILQ_FOREACH(m, &vq->mws, all)
		if (m->state != VERBS_MW_FREE && m->mr == mr)
			return true;
	return false;
}
