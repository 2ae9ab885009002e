/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

#ifndef PMR_NEXUS_WORKER_H
#define PMR_NEXUS_WORKER_H

/**
 * @file
 * The contract between the nexus and the workers (internal to libpmrpc).
 *
 * Each attached worker has two single-producer/single-consumer rte_rings of
 * struct pmr_sm_msg elements: to_worker (nexus produces) and from_worker
 * (worker produces). Workers only ever use non-blocking enqueue/dequeue;
 * nothing else crosses between the nexus thread and a worker.
 *
 * Session handshake, client side (worker W1 of nexus N1 opens a session to
 * worker W2 of nexus N2):
 *   W1 -> N1  PMR_SM_CONNECT {local_session, remote_worker, uri, hs_id,
 *             credits (asked, non-zero), pkt_size (W1's packet payload
 *             size)}
 *   N1 -> N2  UDP connect request (resent every connect_retry_ms)
 *   N2 -> N1  a first request, without a cookie: UDP cookie, and nothing
 *             else; N1 repeats its request with the cookie at once
 *   N2        over the per-source cap (max_sessions_per_source): UDP
 *             refuse (PMR_SM_E_NO_RESOURCES); no worker W2: UDP refuse
 *             (PMR_SM_E_NO_WORKER); else creates a peer on W2's queue for
 *             W1's address and a random 64-bit token:
 *   N2        a request from a driver family other than W2's queue's
 *             (pmr_transport_driver.family, its name if NULL): UDP
 *             refuse (PMR_SM_E_FAMILY); with an address of the wrong
 *             length: UDP refuse (PMR_SM_E_BAD_REQUEST)
 *   N2 -> W2  PMR_SM_CONNECT_IN {cookie, peer, remote_session, token,
 *             hs_id, credits (as asked), pkt_size (W1's), remote_worker,
 *             uri (N1's address "a.b.c.d:port", as the request came
 *             from)}
 *   W2 -> N2  PMR_SM_ACCEPT {cookie, local_session, credits (granted:
 *             at most asked and at most the worker's own session credits;
 *             0 is taken as "as asked"), pkt_size (W2's own)} or
 *             PMR_SM_REFUSE {cookie, status: PMR_SM_E_NO_RESOURCES,
 *             PMR_SM_E_BAD_REQUEST, PMR_SM_E_MSG_SIZE when the session's
 *             packet size (the smaller of W1's and W2's) cannot carry W2's
 *             max_msg_size in RPC_MSG_PKTS_MAX packets, or
 *             PMR_SM_E_REFUSED when the worker's server session callback
 *             said no; N2 takes any other status as NO_RESOURCES}
 *   N2 -> N1  UDP accept {server session, W2's address, granted credits;
 *             TRANSITIONAL: the token, until the TOKEN packet lands} or
 *             refuse
 *   N1 -> W1  PMR_SM_CONNECTED {local_session, remote_session, hs_id,
 *             credits (granted), pkt_size (W2's, from the ACCEPT: W1
 *             checks it against its own max_msg_size as W2 did, and fails
 *             the session with PMR_SM_E_MSG_SIZE's error, telling the
 *             server, if it cannot carry it), peer (created on W1's
 *             queue), uri (N2's
 *             address "a.b.c.d:port", resolved); TRANSITIONAL: token} or
 *             PMR_SM_CONNECT_FAILED
 *             {local_session, status}; status PMR_SM_E_TIMEOUT when
 *             connect_timeout_ms passed without an answer. A refusal
 *             PMR_SM_E_NO_RESOURCES is not final: N1 asks again with a
 *             backoff until connect_timeout_ms, and fails with that
 *             status only then. PMR_SM_E_REFUSED is final. (A nexus of
 *             before PMR_SM_E_REFUSED drops such a REFUSE as malformed
 *             and fails with PMR_SM_E_TIMEOUT at connect_timeout_ms.)
 *
 * Teardown: a worker that frees a session (its own decision, or after
 * PMR_SM_DISCONNECTED) sends PMR_SM_DISCONNECT {local_session, peer,
 * status}; the nexus destroys the peer and, unless the remote side started
 * the teardown (status PMR_SM_E_REMOTE), tells the remote nexus, which sends
 * its worker PMR_SM_DISCONNECTED {local_session} (status PMR_SM_E_REMOTE).
 *
 * Failure detection: the nexuses exchange authenticated UDP heartbeats
 * while they have sessions up with each other. When no authenticated
 * message came from a remote nexus for peer_timeout_ms (not counting the
 * nexus thread's own stalls), or a completed
 * handshake from its address shows another boot id (it restarted), the
 * nexus sends PMR_SM_DISCONNECTED {local_session} with status
 * PMR_SM_E_PEER_DEAD for each session with it (of the incarnation before,
 * after a restart); the worker answers with PMR_SM_DISCONNECT as for any
 * DISCONNECTED, and nothing is sent to the dead remote.
 *
 * RC queue pairs (lib/nexus/nexus_rc.c, doc/sessions.md): one per pair of
 * workers (local worker, remote worker of one remote nexus incarnation),
 * shared by the sessions UP between them; the nexus owns it (creates,
 * connects, destroys) and lends it to the worker:
 *   W -> N   PMR_SM_RC_WANT {local_session, hs_id}: session local_session
 *            (UP) wants the pair's QP. Never blocks: the answer comes
 *            later.
 *   N -> W   PMR_SM_RC_READY {local_session, hs_id, status, remote_worker,
 *            cookie (the pair's id, non-zero), rc}: the answer to the
 *            session of that handshake id, which the worker ignores if
 *            the number is another session's by then; status 0, the QP is
 *            connected (the remote one is at least in RTR) and the worker
 *            may post on it from now on; the worker links it into its
 *            tables now, not before. Every session that asked gets one.
 *            Or status non-zero and rc NULL: no QP (PMR_SM_E_TIMEOUT,
 *            PMR_SM_E_NO_RESOURCES, PMR_SM_E_FAMILY: no RC on a queue,
 *            PMR_SM_E_NO_WORKER, PMR_SM_E_BAD_REQUEST: session not UP).
 *   N -> W   PMR_SM_RC_DOWN {cookie, rc}: the pair's last session left
 *            (closed, peer dead): the worker unlinks the QP, waits for the
 *            completions of what it posted on it, then
 *   W -> N   PMR_SM_RC_RELEASED {cookie, rc}, and the nexus destroys it.
 *   W -> N   PMR_SM_RC_FAILED {cookie, rc}: the QP failed by the
 *            transport; RC_DOWN follows, and the next RC_WANT gets a
 *            new pair (the sessions stay UP).
 * A worker that detaches has drained its QPs itself: the nexus destroys
 * them without RC_DOWN.
 */

#include <stdint.h>

#include <rte_ring.h>

#include "pmr_nexus.h"
#include "pmr_transport.h"
#include "pmr_transport_rc.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Ring message types. */
enum pmr_sm_type {
	/* worker -> nexus */
	PMR_SM_CONNECT = 1,	/**< Client: open local_session. */
	PMR_SM_ACCEPT,		/**< Server: took CONNECT_IN as local_session. */
	PMR_SM_REFUSE,		/**< Server: refused CONNECT_IN (status). */
	PMR_SM_DISCONNECT,	/**< Either: local_session is gone. */
	/* nexus -> worker */
	PMR_SM_CONNECT_IN,	/**< Server: a client asks for a session. */
	PMR_SM_CONNECTED,	/**< Client: local_session is up. */
	PMR_SM_CONNECT_FAILED,	/**< Client: refused or timed out (status). */
	PMR_SM_DISCONNECTED,	/**< The remote side closed or died (status). */
	/* RC queue pairs: worker -> nexus, nexus -> worker, alternating */
	PMR_SM_RC_WANT,		/**< W: local_session wants its pair's QP. */
	PMR_SM_RC_READY,	/**< N: the QP is connected (or status). */
	PMR_SM_RC_DOWN,		/**< N: unlink and drain the QP. */
	PMR_SM_RC_RELEASED,	/**< W: drained; the nexus destroys it. */
	/**
	 * A device async event that concerns the worker (nexus_events.c):
	 * pkt_size is its enum pmr_transport_event_type, credits its port
	 * (port and GID events; else 0); local_session is 0 and unused.
	 * Port, GID and device fatal events go to every worker whose queue
	 * is on the device; QP and CQ events to the worker owning the
	 * object (not those of its RC QPs: nexus_events_rc()).
	 */
	PMR_SM_DEVICE_EVENT,
	/**
	 * W -> N, best effort: signs of life from the data path. The
	 * sessions local_session + i, for each bit i set in cookie, took
	 * a packet of their peer (token and source checked) or a READ of
	 * its memory completed since the worker's last report: their
	 * remote nexus is alive, however silent (nexus_heartbeat.c). Sent
	 * about each heartbeat interval (pmr_nexus_heartbeat_ms()) while
	 * such traffic flows, never through the outbox.
	 */
	PMR_SM_ALIVE,
	/**
	 * W -> N: an operation on the pair's QP {cookie, rc} failed for
	 * want of the transport (retries exhausted; PMR_RC_RETRY_EXCEEDED
	 * or PMR_RC_FLUSHED): the worker's sessions stay UP and let go of
	 * it. The nexus takes it back (RC_DOWN, status 0) and makes a
	 * fresh pair at the sessions' next RC_WANT (its RC_REQ of a new
	 * generation makes the remote nexus take its end back too).
	 */
	PMR_SM_RC_FAILED,
};

/** Handshake results and reasons (pmr_sm_msg.status). */
enum pmr_sm_status {
	PMR_SM_OK = 0,
	PMR_SM_E_NO_WORKER,	/**< No such remote worker. */
	PMR_SM_E_NO_RESOURCES,	/**< Remote worker out of sessions/memory. */
	PMR_SM_E_TIMEOUT,	/**< Nobody answered in time. */
	PMR_SM_E_BAD_REQUEST,	/**< Malformed request or bad address. */
	PMR_SM_E_UNREACHABLE,	/**< URI did not resolve, or send failed. */
	PMR_SM_E_REMOTE,	/**< DISCONNECT: the remote side closed. */
	PMR_SM_E_PEER_DEAD,	/**< DISCONNECTED: remote nexus dead. */
	PMR_SM_E_REFUSED,	/**< The server worker's callback said no. */
	/**
	 * The session's packet size (the smaller of both workers') cannot
	 * carry the server worker's max_msg_size in the packets a message
	 * may have (-EMSGSIZE to the application). Final, like REFUSED.
	 */
	PMR_SM_E_MSG_SIZE,
	/**
	 * The client's driver family is not the server worker's (say
	 * eth against ib): they cannot reach each other
	 * (-EPROTONOSUPPORT to the application). Final.
	 */
	PMR_SM_E_FAMILY,
	/**
	 * RC_READY (and RC_ACK on the wire): the remote worker keeps the
	 * rest of its RC QPs for other sources; this one's address holds
	 * its share (-EDQUOT to the session's RC state).
	 */
	PMR_SM_E_SHARE,
	/**
	 * RC_ACK on the wire only: the responder is still making its QP
	 * (a large region on a slow host); the initiator waits longer.
	 */
	PMR_SM_E_BUSY,
};

/** One message on a worker ring. */
struct pmr_sm_msg {
	uint16_t type;		/**< enum pmr_sm_type */
	uint16_t status;	/**< enum pmr_sm_status */
	uint16_t local_session;	/**< Session number at the receiver/sender. */
	uint16_t remote_session; /**< Session number at the other end. */
	uint16_t remote_worker;	/**< Worker id at the other end. */
	/**
	 * CONNECT: the client's session credits (packets it may have in
	 * flight toward the server, non-zero); CONNECT_IN: the same, as
	 * asked; ACCEPT: what the server worker granted and reserved
	 * (at most asked, at most its own session credits; 0: as asked);
	 * CONNECTED: the granted credits, which the client must keep to.
	 */
	uint16_t credits;
	/**
	 * CONNECT: the client worker's packet payload size (its queue's
	 * caps.mtu minus the packet header); CONNECT_IN: the same, as the
	 * request carried it; ACCEPT: the server worker's own; CONNECTED:
	 * the server worker's, as the ACCEPT carried it. A session's packet
	 * size is the smaller of the two.
	 */
	uint32_t pkt_size;
	/**
	 * CONNECT_IN: the session's random token, which the server worker
	 * sends to the client's data address in a TOKEN packet (never in a
	 * nexus datagram); the client worker learns it only from that
	 * packet. RC_READY (status 0): the QP's number (low 32 bits) and
	 * that of the remote QP it is connected to (high 32 bits), which
	 * descriptors carry (doc/rendezvous.md).
	 */
	uint64_t token;
	/**
	 * Nexus's handshake id, echoed back; RC_READY, RC_DOWN,
	 * RC_RELEASED: the worker pair's id.
	 */
	uint64_t cookie;
	/**
	 * CONNECT: the handshake id, random and non-zero, picked by the
	 * client worker (the nexus uses it on the wire); CONNECT_IN and
	 * CONNECTED: the same id, which the TOKEN packet carries so that
	 * the client worker can tell a real one from a forged one. RC_WANT:
	 * the asking session's; RC_READY: that of the session answered.
	 */
	uint64_t hs_id;
	struct pmr_transport_peer *peer;	/**< Created by the nexus. */
	/** RC_READY, RC_DOWN, RC_RELEASED: the QP (the nexus's). */
	struct pmr_transport_rc *rc;
	/**
	 * CONNECT: remote nexus "host:port"; CONNECT_IN: the client
	 * nexus's address, CONNECTED: the server nexus's, both
	 * "a.b.c.d:port".
	 */
	char uri[PMR_URI_MAX];
};

/**
 * The nexus's heartbeat interval (pmr_nexus_conf.heartbeat_interval_ms,
 * its default applied): how often a worker reports PMR_SM_ALIVE.
 */
uint32_t pmr_nexus_heartbeat_ms(const struct pmr_nexus *nx);

/** Elements of each worker ring. */
#define PMR_NEXUS_RING_SIZE 1024

/** A registered handler, as workers copy them. */
struct pmr_nexus_handler {
	pmr_req_handler_t fn;
	void *arg;
};

/**
 * Attach a worker: the nexus creates its two rings and learns its queue
 * (for peers and for the address it gives to remote nexuses).
 *
 * @return 0, -EEXIST (worker_id taken), -EINVAL, -ENOMEM.
 */
int pmr_nexus_worker_attach(struct pmr_nexus *nx, uint16_t worker_id,
		struct pmr_transport_queue *q, struct rte_ring **to_worker,
		struct rte_ring **from_worker);

/**
 * Detach a worker. The worker must have sent PMR_SM_DISCONNECT for each
 * of its sessions; the nexus processes what is left on its from_worker
 * ring (destroying those peers), forgets its handshakes, frees both rings.
 */
void pmr_nexus_worker_detach(struct pmr_nexus *nx, uint16_t worker_id);

/**
 * The most one source (a remote address) may hold of the worker's RC
 * queue pairs, in percent of its queue's (caps.rc_max; at least one):
 * the nexus refuses the QP of a pair over it with PMR_SM_E_SHARE, unless
 * the worker has a client session with that remote worker (its own
 * doing). 50 until this is called.
 *
 * @return 0, -ENOENT (no such worker), -EINVAL (pct 0 or over 100).
 */
int pmr_nexus_worker_share(struct pmr_nexus *nx, uint16_t worker_id,
		uint8_t pct);

/**
 * Copy the handler table (256 entries; unregistered types have fn NULL)
 * and mark handler registration closed.
 */
void pmr_nexus_handlers_get(struct pmr_nexus *nx,
		struct pmr_nexus_handler *table);

#ifdef __cplusplus
}
#endif

#endif /* PMR_NEXUS_WORKER_H */
