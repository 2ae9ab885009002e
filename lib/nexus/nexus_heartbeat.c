/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * Failure detection between nexuses, on the nexus thread or under the
 * nexus lock.
 *
 * A remote nexus with which this one has sessions UP (either role) is
 * tracked by its UDP address: it gets a HEARTBEAT every
 * heartbeat_interval_ms. Signs of life are authenticated messages only: a
 * HEARTBEAT with the boot id the handshake proved, a MAC under the key
 * this nexus issued to that remote (nexus_keys.c) and a counter above the
 * last one seen (no replay), or a completed handshake with it. Anything
 * else from its address (junk, forged or replayed heartbeats, refusals
 * of unknown handshakes) is counted and ignored. Without a sign of life
 * for peer_timeout_ms of this nexus's own running time, it is dead: each
 * of its sessions is
 * reset (its worker gets PMR_SM_DISCONNECTED with PMR_SM_E_PEER_DEAD and
 * the session becomes REMOTE_CLOSED, so that the worker's DISCONNECT sends
 * nothing to the dead nexus), and the remote is forgotten. A remote is
 * also forgotten when its last UP session leaves that state. The tracked
 * remotes are kept oldest sign of life first, so that finding the dead
 * ones and the next deadline costs nothing per wake-up.
 *
 * Stalls: when the nexus thread did not run for a while (starved of the
 * CPU, or of its lock), its heartbeats did not go out, to remotes or to
 * itself (a nexus with sessions between its own workers is its own
 * remote), and what came in waited in its socket. The thread measures
 * such a stall when it runs again (nexus_thread.c), moves every remote's
 * last sign of life that much later (never past now), heartbeats them
 * all at once, reads what waits in its socket, and only then judges. A
 * dead remote is so found dead peer_timeout_ms after its last sign of
 * life plus the stalls of this nexus since: nothing a remote sends makes
 * that longer, since a stall is measured on this nexus's clocks alone.
 *
 * Restarts: each session holds the boot id its remote nexus gave in the
 * handshake. A new boot id is believed only from a completed handshake
 * with the address (an ACCEPT to one of our random handshake ids, or a
 * cookie-checked CONNECT_REQ that a worker accepted): the incarnation
 * before is then dead, its sessions are reset at once, and sessions made
 * with the new one stay. A restarted remote no longer has the key we
 * issued it, so it cannot prove itself by heartbeats: if it does not
 * handshake again, the old incarnation's sessions end peer_timeout_ms
 * after its last authenticated heartbeat, like those of a dead one.
 *
 * The data path is a sign of life too: a remote whose sessions' packets
 * keep reaching our workers (token and source checked by the worker), or
 * whose memory our READs keep reading, is alive, however silent its
 * nexus: a thread starved by busy lcores on its host, heartbeats lost on
 * a wire the data saturates. Each worker reports those sessions about
 * every heartbeat interval (PMR_SM_ALIVE); the report refreshes their
 * remotes as a heartbeat does (alive_by_data). Only a live peer's worker
 * can send such packets, so an attacker without the session's token
 * cannot keep a dead peer's sessions.
 */

#include <arpa/inet.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_jhash.h>
#include <rte_tailq.h>

#include "nexus_private.h"

static unsigned int
remote_bucket(const struct pmr_nexus *nx, const struct sockaddr_in *addr)
{
	return rte_jhash_2words(addr->sin_addr.s_addr, addr->sin_port,
			nx->shs_seed) & (NEXUS_REMOTE_BUCKETS - 1);
}

struct nexus_remote *
nexus_remote_find(struct pmr_nexus *nx, const struct sockaddr_in *addr)
{
	struct nexus_remote *r;

	LIST_FOREACH(r, &nx->remote_hash[remote_bucket(nx, addr)], hash)
		if (r->addr.sin_addr.s_addr == addr->sin_addr.s_addr &&
		    r->addr.sin_port == addr->sin_port)
			return r;
	return NULL;
}

/* Take the incarnation a handshake proved: its boot id and keys. */
static void
remote_adopt(struct nexus_remote *r, const struct nexus_session *s)
{
	r->boot_id = s->remote_boot;
	memcpy(r->tx_key, s->tx_key, sizeof(r->tx_key));
	memcpy(r->rx_key, s->rx_key, sizeof(r->rx_key));
	r->rx_counter = 0;
	r->rc_rx_gen = 0;	/* a new incarnation counts from 1 */
}

static struct nexus_remote *
remote_new(struct pmr_nexus *nx, const struct nexus_session *s,
		uint64_t now)
{
	struct nexus_remote *r = calloc(1, sizeof(*r));
	const struct sockaddr_in *addr = &s->remote;

	if (r == NULL)
		return NULL;
	r->addr = *addr;
	remote_adopt(r, s);
	r->last_seen_ms = now;
	TAILQ_INIT(&r->sessions);
	/* The handshake was a sign of life: the first beat is due later. */
	if (TAILQ_EMPTY(&nx->remotes))
		nx->next_heartbeat_ms = now + nx->conf.heartbeat_interval_ms;
	LIST_INSERT_HEAD(&nx->remote_hash[remote_bucket(nx, addr)], r, hash);
	TAILQ_INSERT_TAIL(&nx->remotes, r, next);
	return r;
}

/* Forget a remote (it has no sessions left). */
static void
remote_free(struct pmr_nexus *nx, struct nexus_remote *r)
{
	LIST_REMOVE(r, hash);
	TAILQ_REMOVE(&nx->remotes, r, next);
	free(r);
}

/* A sign of life: r goes to the end of the list, which stays in order. */
static void
remote_refresh(struct pmr_nexus *nx, struct nexus_remote *r, uint64_t now)
{
	r->last_seen_ms = now;
	r->stalled_ms = 0;
	TAILQ_REMOVE(&nx->remotes, r, next);
	TAILQ_INSERT_TAIL(&nx->remotes, r, next);
}

static void
remote_send_heartbeat(struct pmr_nexus *nx, const struct nexus_remote *r)
{
	struct nexus_wire_msg m = {
		.type = NEXUS_WIRE_HEARTBEAT,
		.hb = {
			.boot_id = nx->boot_id,
			.peer_boot_id = r->boot_id,
			.counter = ++nx->hb_counter,
		},
	};

	m.hb.mac = nexus_wire_hb_mac(r->tx_key, &m.hb);
	if (nexus_udp_send_msg(nx, &r->addr, &m) == 0)
		nx->stats.heartbeats_sent++;
}

static void
remote_name(const struct nexus_remote *r, char *buf, size_t size)
{
	char ip[INET_ADDRSTRLEN];

	inet_ntop(AF_INET, &r->addr.sin_addr, ip, sizeof(ip));
	snprintf(buf, size, "%s:%u", ip, ntohs(r->addr.sin_port));
}

/*
 * Reset r's sessions whose remote boot id is not keep (all of them if keep
 * is 0); r itself stays, maybe empty. Return how many were reset.
 */
static unsigned int
remote_reset(struct pmr_nexus *nx, struct nexus_remote *r, uint64_t keep)
{
	struct nexus_session *s, *tmp;
	unsigned int n = 0;

	RTE_TAILQ_FOREACH_SAFE(s, &r->sessions, rnext, tmp) {
		if (keep != 0 && s->remote_boot == keep)
			continue;
		TAILQ_REMOVE(&r->sessions, s, rnext);
		r->nb_sessions--;
		s->rem = NULL;
		nexus_session_tell_closed(nx, s, PMR_SM_E_PEER_DEAD);
		n++;
	}
	nx->stats.sessions_reset += n;
	return n;
}

static void
remote_dead(struct pmr_nexus *nx, struct nexus_remote *r, uint64_t now)
{
	char name[PMR_URI_MAX];
	unsigned int n;

	remote_name(r, name, sizeof(name));
	n = remote_reset(nx, r, 0);
	if (r->stalled_ms == 0)
		NX_LOG(NOTICE, "peer %s silent for %" PRIu64 " ms: %u "
			"session%s reset", name, now - r->last_seen_ms, n,
			n == 1 ? "" : "s");
	else
		NX_LOG(NOTICE, "peer %s silent for %" PRIu64 " ms, not "
			"counting %" PRIu64 " ms this nexus stalled: %u "
			"session%s reset", name, now - r->last_seen_ms,
			r->stalled_ms, n, n == 1 ? "" : "s");
	nx->stats.peers_dead++;
	remote_free(nx, r);
}

/*
 * r proved, by the handshake of s, to have restarted: reset the sessions
 * of its incarnation before. Return r, or NULL if no session was left
 * with it (it is then forgotten).
 */
static struct nexus_remote *
remote_restarted(struct pmr_nexus *nx, struct nexus_remote *r,
		const struct nexus_session *s, uint64_t now)
{
	uint64_t boot_id = s->remote_boot;
	char name[PMR_URI_MAX];
	unsigned int n;

	n = remote_reset(nx, r, boot_id);
	if (n > 0) {
		remote_name(r, name, sizeof(name));
		NX_LOG(NOTICE, "peer %s restarted (boot id %016" PRIx64 "): "
			"%u session%s reset", name, boot_id, n,
			n == 1 ? "" : "s");
		nx->stats.peers_dead++;
	}
	remote_adopt(r, s);
	if (r->nb_sessions == 0) {
		remote_free(nx, r);
		return NULL;
	}
	remote_refresh(nx, r, now);
	/* Let it hear from us with its new boot id at once. */
	remote_send_heartbeat(nx, r);
	return r;
}

/* s has just become UP: watch its remote nexus. */
void
nexus_remote_link(struct pmr_nexus *nx, struct nexus_session *s)
{
	struct nexus_remote *r = nexus_remote_find(nx, &s->remote);
	uint64_t now = nexus_now_ms();

	/* A completed handshake: a sign of life, and proof of its boot id. */
	if (r != NULL && s->remote_boot != r->boot_id)
		r = remote_restarted(nx, r, s, now);
	else if (r != NULL)
		remote_refresh(nx, r, now);
	if (r == NULL) {
		r = remote_new(nx, s, now);
		if (r == NULL) {
			NX_LOG(WARNING, "worker %u session %u: no memory to "
				"watch its peer", s->w->id, s->local_session);
			return;
		}
	}
	TAILQ_INSERT_TAIL(&r->sessions, s, rnext);
	r->nb_sessions++;
	s->rem = r;
	nexus_rc_session_up(nx, s);
}

/* s leaves the UP state: forget its remote if it was the last session. */
void
nexus_remote_unlink(struct pmr_nexus *nx, struct nexus_session *s)
{
	struct nexus_remote *r = s->rem;

	nexus_rc_session_down(nx, s);
	TAILQ_REMOVE(&r->sessions, s, rnext);
	s->rem = NULL;
	if (--r->nb_sessions == 0)
		remote_free(nx, r);
}

void
nexus_remote_rx_heartbeat(struct pmr_nexus *nx, const struct sockaddr_in *src,
		const struct nexus_wire_msg *m)
{
	const struct nexus_wire_heartbeat *hb = &m->hb;
	struct nexus_remote *r = nexus_remote_find(nx, src);
	uint8_t key[NEXUS_WIRE_SECRET_LEN];

	if (r == NULL) {
		/*
		 * No session with it (any more): a late one from a peer we
		 * had is no fault (its MAC is good under the key we would
		 * issue it); anything else is.
		 */
		nexus_secret_issue(nx, src, key);
		if (hb->peer_boot_id == nx->boot_id &&
		    hb->mac == nexus_wire_hb_mac(key, hb)) {
			nx->stats.rx_msgs++;
			return;
		}
	}
	/*
	 * For an incarnation of ours or of its before this one, or forged:
	 * counted, ignored.
	 */
	if (r == NULL || hb->peer_boot_id != nx->boot_id ||
	    hb->boot_id != r->boot_id ||
	    hb->mac != nexus_wire_hb_mac(r->rx_key, hb)) {
		nx->stats.heartbeats_rejected++;
		nx->stats.rx_bad++;
		return;
	}
	if (hb->counter <= r->rx_counter) {
		nx->stats.heartbeats_replayed++;
		nx->stats.rx_bad++;
		return;
	}
	nx->stats.rx_msgs++;
	r->rx_counter = hb->counter;
	remote_refresh(nx, r, nexus_now_ms());
}

void
nexus_remote_timers(struct pmr_nexus *nx, uint64_t now)
{
	struct nexus_remote *r;

	while ((r = TAILQ_FIRST(&nx->remotes)) != NULL &&
	       now >= r->last_seen_ms + nx->conf.peer_timeout_ms)
		remote_dead(nx, r, now);
	if (TAILQ_EMPTY(&nx->remotes) || now < nx->next_heartbeat_ms)
		return;
	TAILQ_FOREACH(r, &nx->remotes, next)
		remote_send_heartbeat(nx, r);
	nx->next_heartbeat_ms = now + nx->conf.heartbeat_interval_ms;
}

void
nexus_remote_stalled(struct pmr_nexus *nx, uint64_t stall_ms, uint64_t now)
{
	struct nexus_remote *r;
	uint64_t seen;

	/* The same shift for all, capped at now: the list stays in order. */
	TAILQ_FOREACH(r, &nx->remotes, next) {
		seen = RTE_MIN(r->last_seen_ms + stall_ms, now);
		if (seen > r->last_seen_ms) {
			r->stalled_ms += seen - r->last_seen_ms;
			r->last_seen_ms = seen;
		}
	}
	if (TAILQ_EMPTY(&nx->remotes))
		return;
	/* They (this nexus too, if it is its own remote) did not hear us. */
	TAILQ_FOREACH(r, &nx->remotes, next)
		remote_send_heartbeat(nx, r);
	nx->next_heartbeat_ms = now + nx->conf.heartbeat_interval_ms;
}

/* @return ms from now to the next heartbeat or death, UINT64_MAX if none. */
uint64_t
nexus_remote_next_ms(struct pmr_nexus *nx, uint64_t now)
{
	struct nexus_remote *r = TAILQ_FIRST(&nx->remotes);
	uint64_t next;

	if (r == NULL)
		return UINT64_MAX;
	next = RTE_MIN(nx->next_heartbeat_ms,
			r->last_seen_ms + nx->conf.peer_timeout_ms);
	return next > now ? next - now : 0;
}

/* PMR_SM_ALIVE from worker w: the remotes of those sessions are alive. */
void
nexus_remote_alive(struct pmr_nexus *nx, struct nexus_worker *w,
		const struct pmr_sm_msg *msg)
{
	uint64_t bits = msg->cookie, now = nexus_now_ms();
	struct nexus_session *s;
	uint32_t sn;

	for (; bits != 0; bits &= bits - 1) {
		sn = msg->local_session + rte_bsf64(bits);
		if (sn > UINT16_MAX)
			break;
		s = nexus_session_get(w, (uint16_t)sn);
		if (s == NULL || s->state != NEXUS_S_UP || s->rem == NULL ||
		    s->rem->last_seen_ms == now)
			continue;
		remote_refresh(nx, s->rem, now);
		nx->stats.alive_by_data++;
	}
}
