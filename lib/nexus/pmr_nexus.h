/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

#ifndef PMR_NEXUS_H
#define PMR_NEXUS_H

/**
 * @file
 * The nexus: one control thread per process.
 *
 * The nexus is bound to the process's URI ("host:udp_port") and does the
 * slow work workers must never do: session handshakes with remote nexuses
 * over kernel UDP (with retransmission and a timeout), creating and
 * destroying transport peers, and telling workers about session events.
 * It sleeps in poll() and talks to each worker only through two rte_rings
 * (see pmr_nexus_worker.h), so workers never block.
 *
 * Its thread is a DPDK control thread (rte_ctrl_thread_create(), named
 * "pmr-nexus"): EAL pins it to the CPUs of the process's affinity at
 * rte_eal_init() that no lcore uses or, when the lcores use them all, to
 * the main lcore's. Leave a CPU out of EAL's lcore list (-l, --lcores) to
 * keep it off the busy-polling lcores. It runs under the creating
 * thread's scheduling policy (normally SCHED_OTHER), so an lcore that
 * busy-polls on its CPU does not keep it from running when it wakes;
 * an lcore under a real-time policy there would.
 *
 * A server nexus answers a first CONNECT_REQ with a stateless cookie,
 * which the client repeats: nothing is committed (and nothing but that
 * small COOKIE is sent) for a source that does not receive at its address.
 *
 * While it has sessions up with a remote nexus, it sends that nexus a
 * heartbeat every heartbeat_interval_ms, authenticated with a key that
 * nexus issued in the handshake. A remote from which no authenticated
 * message came for peer_timeout_ms is dead, and its sessions are reset
 * (the workers are told, with status PMR_SM_E_PEER_DEAD); so are those of
 * an incarnation before the one a new handshake from its address proved
 * (it restarted). Anything else, such as heartbeats with another boot id
 * or a bad MAC, is counted and ignored.
 *
 * Those timeouts run on the nexus's own running time: when its thread did
 * not run for 10 ms or more past the time it meant to wake (kept off the
 * CPU, or waiting for its lock), it counts a stall (stalls, stall_ms,
 * stall_ms_max), moves every peer's and handshake's deadline that much
 * later (never past a whole timeout from then), heartbeats its peers at
 * once and reads what waits in its socket before it judges any. So a
 * nexus that talks to itself (client and server workers of one process)
 * does not find itself dead after a stall, and a dead peer is found dead
 * peer_timeout_ms after its last heartbeat plus the nexus's stalls since.
 *
 * Request handlers are process-wide: register them on the nexus before
 * creating workers.
 */

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Longest URI, "host:port", with its NUL. */
#define PMR_URI_MAX 64

struct pmr_nexus;
struct pmr_req_ref;

/**
 * A request handler. It runs on the worker's lcore with a reference to
 * the request (struct pmr_req_ref, a value defined in pmr_rpc.h: keep a
 * copy to answer later) and the arg it was registered with. It answers
 * the request once, now or later, with pmr_respond() or, if it cannot,
 * pmr_respond_error(); a request never answered holds its server slot.
 */
typedef void (*pmr_req_handler_t)(struct pmr_req_ref req, void *arg);

/** Nexus settings; zero fields take the defaults. */
struct pmr_nexus_conf {
	/**
	 * Give up a session handshake after this long (default 1000 ms), not
	 * counting the nexus thread's stalls.
	 */
	uint32_t connect_timeout_ms;
	/** Resend an unanswered handshake this often (default 100 ms). */
	uint32_t connect_retry_ms;
	/** Longest sleep in poll() between ring checks (default 5 ms). */
	uint32_t poll_interval_ms;
	/**
	 * Send each remote nexus with which a session is up a heartbeat this
	 * often (default 100 ms).
	 */
	uint32_t heartbeat_interval_ms;
	/**
	 * Declare a remote nexus dead, and reset its sessions, when nothing
	 * came from it for this long (default 500 ms) of the nexus's own
	 * running time: a stall of its thread (see stalls in struct
	 * pmr_nexus_stats) is not counted, and nothing a remote sends makes
	 * it longer. Must be longer than heartbeat_interval_ms.
	 */
	uint32_t peer_timeout_ms;
	/**
	 * Most sessions plus pending handshakes one source IP address may
	 * hold as a client of this nexus (default 4096); more are refused
	 * with PMR_SM_E_NO_RESOURCES, and their clients retry until their
	 * connect timeout. An application that expects more from one host
	 * (a benchmark client) raises it.
	 */
	uint32_t max_sessions_per_source;
};

/** Counters of a nexus, for tests and telemetry. */
struct pmr_nexus_stats {
	uint64_t rx_msgs;		/**< Valid UDP messages received. */
	uint64_t rx_bad;		/**< Malformed or unexpected ones. */
	uint64_t tx_msgs;		/**< UDP messages sent. */
	uint64_t connect_retries;	/**< Handshake retransmissions. */
	uint64_t sessions_accepted;	/**< As server. */
	uint64_t sessions_refused;	/**< As server. */
	uint64_t sessions_connected;	/**< As client. */
	uint64_t sessions_failed;	/**< As client: refused or timed out. */
	uint64_t heartbeats_sent;	/**< HEARTBEAT messages sent. */
	/** Remote nexuses found silent or restarted, with sessions reset. */
	uint64_t peers_dead;
	uint64_t sessions_reset;	/**< Sessions reset for a dead peer. */
	/** COOKIE replies sent to CONNECT_REQs without a good cookie. */
	uint64_t cookies_sent;
	/** CONNECT_REQs refused for max_sessions_per_source. */
	uint64_t refused_per_source;
	/**
	 * HEARTBEATs ignored: from no remote with sessions, with a boot id
	 * other than the one the handshake proved, or a bad MAC.
	 */
	uint64_t heartbeats_rejected;
	/** HEARTBEATs ignored for a counter not above the last one seen. */
	uint64_t heartbeats_replayed;
	/** Device async events read and acknowledged (all kinds). */
	uint64_t dev_events;
	uint64_t dev_events_port;	/**< ...port down or up. */
	uint64_t dev_events_gid;	/**< ...GID table changes. */
	uint64_t dev_events_qp;		/**< ...QP fatal or access error. */
	uint64_t dev_events_cq;		/**< ...CQ errors. */
	uint64_t dev_events_fatal;	/**< ...device fatal. */
	/** QP events on an RC QP (in dev_events_qp): left to the RC code,
	 * not told to the worker. */
	uint64_t dev_events_rc;
	/**
	 * QP and CQ events naming no attached worker's queue (a queue
	 * already detached, an object of another user of the device), and
	 * events of other kinds: counted, told to nobody.
	 */
	uint64_t dev_events_orphan;
	/** RC QPs refused to a remote whose address held its share of a
	 * worker's (pmr_worker_conf.src_share_pct). */
	uint64_t rc_share_refused;
	/**
	 * Remotes found alive by their sessions' traffic reaching a worker
	 * (packets, or READs of their memory completing) rather than by a
	 * heartbeat: once per worker report and remote.
	 */
	uint64_t alive_by_data;
	/**
	 * Stalls of the nexus thread: wake-ups 10 ms or more later than it
	 * meant, for want of the CPU or of the nexus's lock. That time is
	 * not held against peers (see peer_timeout_ms).
	 */
	uint64_t stalls;
	uint64_t stall_ms;	/**< ...their total length (ms). */
	uint64_t stall_ms_max;	/**< ...the longest (ms). */
	/**
	 * RC QPs a worker said failed by the transport (retries
	 * exhausted): taken back and replaced at the next ask, their
	 * sessions kept UP.
	 */
	uint64_t rc_replaced;
};

/**
 * Create the nexus and start its control thread.
 *
 * @param uri
 *   "host:port" to bind the UDP socket to: an IPv4 address or a host
 *   name, and a port (0 picks a free one; pmr_nexus_uri() tells which).
 * @param conf
 *   Settings, or NULL for the defaults.
 * @return
 *   The nexus, or NULL with rte_errno set: EINVAL for a NULL or bad URI
 *   (a host that does not resolve too) or setting (connect_retry_ms over
 *   connect_timeout_ms, peer_timeout_ms not over heartbeat_interval_ms),
 *   EADDRINUSE, EADDRNOTAVAIL (not a local address), ENOMEM, or the errno
 *   of socket(), bind() or the thread's creation.
 *
 * Thread: any, after rte_eal_init() (usually the main lcore).
 */
struct pmr_nexus *pmr_nexus_create(const char *uri,
		const struct pmr_nexus_conf *conf);

/**
 * Stop the control thread and free the nexus.
 *
 * Thread: any, once its workers are destroyed (usually the main lcore).
 *
 * @return 0, -EINVAL (nx NULL), or -EBUSY if workers are still attached
 *   (nothing is done).
 */
int pmr_nexus_destroy(struct pmr_nexus *nx);

/**
 * @return the URI the nexus is bound to, with the actual port; NULL if
 *   nx is NULL (not an error: rte_errno is left alone).
 *
 * Thread: any.
 */
const char *pmr_nexus_uri(const struct pmr_nexus *nx);

/**
 * Register the handler of a request type, before any worker is created.
 *
 * Thread: any (under the nexus's lock).
 *
 * @return 0, -EINVAL (nx or handler NULL), -EEXIST (type taken), or
 *   -EBUSY (a worker was created already: handlers are closed).
 */
int pmr_nexus_register_handler(struct pmr_nexus *nx, uint8_t req_type,
		pmr_req_handler_t handler, void *arg);

/**
 * Read the nexus's counters, all of one moment.
 *
 * Thread: any (under the nexus's lock).
 *
 * @return 0, or -EINVAL (nx or st NULL).
 */
int pmr_nexus_stats_get(struct pmr_nexus *nx, struct pmr_nexus_stats *st);

#ifdef __cplusplus
}
#endif

#endif /* PMR_NEXUS_H */
