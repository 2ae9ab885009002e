/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * The verbs driver's peers and their address handles: one ibv_ah per
 * remote GID, shared by the peers to it, kept as a zombie once the last
 * peer goes until every send that may name it has completed.
 *
 * Threading. peer_create and peer_destroy run on the nexus thread while
 * the queue's lcore runs the data path. The data path reads only a
 * peer's own fields (its ibv_ah, QPN, QKey), written before the peer is
 * handed out and never changed; the AH table and the zombie list are the
 * control path's, under ah_lock, which the data path never takes. The one
 * thing the control path reads from the data path is the send sequence
 * (tx_seq, tx_done: atomics), to know when a dead AH's last WQE is done.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "verbs_private.h"

struct ibv_ah *
verbs_ah_make(struct verbs_queue *vq, const uint8_t gid[16])
{
	struct ibv_ah_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.is_global = 1;
	memcpy(attr.grh.dgid.raw, gid, 16);
	attr.grh.sgid_index = (uint8_t)vq->gid_index;
	attr.grh.hop_limit = 64;
	attr.port_num = vq->port;
	return ibv_create_ah(vq->dev->pd, &attr);
}

/* Destroy the zombie AHs whose last send has completed (ah_lock held). */
static void
verbs_ah_reap_locked(struct verbs_queue *vq, bool all)
{
	uint64_t done = __atomic_load_n(&vq->tx_done, __ATOMIC_ACQUIRE);
	struct verbs_ah **pp = &vq->zombies, *z;
	int ret;

	while ((z = *pp) != NULL) {
		if (!all && z->dead_seq > done) {
			pp = &z->next;
			continue;
		}
		ret = ibv_destroy_ah(z->ah);
		if (ret != 0) {
			/* EBUSY: a WQE still uses it; our bookkeeping is
			 * wrong. Keep it, count it: tests assert 0. */
			vq->ah_destroy_busy++;
			VERBS_LOG(ERR, "qp %u: ibv_destroy_ah: %s", vq->qpn,
				strerror(ret));
			pp = &z->next;
			if (!all)
				continue;
			break;
		}
		*pp = z->next;
		vq->nb_ahs--;
		free(z);
	}
}

void
verbs_ah_reap(struct verbs_queue *vq)
{
	rte_spinlock_lock(&vq->ah_lock);
	verbs_ah_reap_locked(vq, false);
	rte_spinlock_unlock(&vq->ah_lock);
}

void
verbs_ah_reap_all(struct verbs_queue *vq)
{
	rte_spinlock_lock(&vq->ah_lock);
	verbs_ah_reap_locked(vq, true);
	rte_spinlock_unlock(&vq->ah_lock);
}

void
verbs_ah_reap_try(struct verbs_queue *vq)
{
	if (__atomic_load_n(&vq->zombies, __ATOMIC_RELAXED) != NULL &&
	    rte_spinlock_trylock(&vq->ah_lock)) {
		verbs_ah_reap_locked(vq, false);
		rte_spinlock_unlock(&vq->ah_lock);
	}
}

struct pmr_transport_peer *
verbs_peer_create(struct pmr_transport_queue *q,
		const struct pmr_transport_addr *addr)
{
	struct verbs_queue *vq = verbs_queue(q);
	struct verbs_peer *peer;
	struct verbs_ah *v, **pp;
	uint8_t gid[16];
	uint32_t qpn, qkey;

	if (pmr_verbs_addr_decode(addr->bytes, addr->len, gid, &qpn,
			&qkey) != 0) {
		rte_errno = EINVAL;
		return NULL;
	}
	peer = rte_zmalloc("pmr_verbs_peer", sizeof(*peer),
			RTE_CACHE_LINE_SIZE);
	if (peer == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	rte_spinlock_lock(&vq->ah_lock);
	verbs_ah_reap_locked(vq, false);
	for (v = vq->ahs; v != NULL; v = v->next)
		if (memcmp(v->gid, gid, 16) == 0)
			break;
	if (v == NULL) {
		/* A dying AH to the same GID comes back to life. */
		for (pp = &vq->zombies; *pp != NULL; pp = &(*pp)->next)
			if (memcmp((*pp)->gid, gid, 16) == 0) {
				v = *pp;
				*pp = v->next;
				v->next = vq->ahs;
				vq->ahs = v;
				break;
			}
	}
	if (v == NULL) {
		v = calloc(1, sizeof(*v));
		if (v != NULL)
			v->ah = verbs_ah_make(vq, gid);
		if (v == NULL || v->ah == NULL) {
			char str[INET6_ADDRSTRLEN];

			rte_errno = v == NULL ? ENOMEM :
				(errno != 0 ? errno : ENOMEM);
			inet_ntop(AF_INET6, gid, str, sizeof(str));
			VERBS_LOG(ERR, "qp %u: no AH to %s: %s", vq->qpn, str,
				strerror(rte_errno));
			free(v);
			rte_spinlock_unlock(&vq->ah_lock);
			rte_free(peer);
			return NULL;
		}
		memcpy(v->gid, gid, 16);
		v->next = vq->ahs;
		vq->ahs = v;
		vq->nb_ahs++;
	}
	v->refs++;
	vq->nb_peers++;
	rte_spinlock_unlock(&vq->ah_lock);

	peer->ah = v->ah;
	peer->vah = v;
	peer->qpn = qpn;
	peer->qkey = qkey;
	peer->pub.src = pmr_verbs_src_key(gid, qpn);
	return &peer->pub;
}

void
verbs_peer_destroy(struct pmr_transport_queue *q,
		struct pmr_transport_peer *p)
{
	struct verbs_queue *vq = verbs_queue(q);
	struct verbs_peer *peer = container_of(p, struct verbs_peer, pub);
	struct verbs_ah *v = peer->vah, **pp;

	rte_spinlock_lock(&vq->ah_lock);
	vq->nb_peers--;
	if (--v->refs == 0) {
		/* Unsignalled WQEs may still name it: every send posted so
		 * far must complete first (the caller sends no more to this
		 * peer, so tx_seq bounds its last use). */
		for (pp = &vq->ahs; *pp != NULL; pp = &(*pp)->next)
			if (*pp == v) {
				*pp = v->next;
				break;
			}
		v->dead_seq = __atomic_load_n(&vq->tx_seq, __ATOMIC_ACQUIRE);
		v->next = vq->zombies;
		vq->zombies = v;
	}
	verbs_ah_reap_locked(vq, false);
	rte_spinlock_unlock(&vq->ah_lock);
	rte_free(peer);
}
