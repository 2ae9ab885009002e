/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

#ifndef PMR_RPC_H
#define PMR_RPC_H

/**
 * @file
 * Workers, sessions, requests and responses.
 *
 * A worker is a thread-local RPC endpoint on one lcore with one transport
 * queue. pmr_worker_poll() does all of its work: it receives packets, runs
 * request handlers and continuations, sends what they produced, and takes
 * session events from the nexus.
 *
 * Each function states where it may run ("Thread:"), and doc/api.md has
 * them all in one table: set-up and tear-down run on the main lcore or a
 * control thread; counters and fixed properties may be read from any
 * thread; what touches sessions and requests runs on the worker's lcore,
 * the one thread that polls it (handlers and continuations run there).
 * Errors follow one convention (doc/api.md): a pointer is NULL with
 * rte_errno set, an int is a negative errno, and a request's outcome is
 * its enum pmr_status.
 *
 * Client side:
 * @code
 *	int s = pmr_session_create(w, "10.0.0.2:31850", 0, on_session, NULL);
 *	struct pmr_msgbuf *req = pmr_worker_msgbuf_alloc(w, 32);
 *	pmr_request(w, s, MY_TYPE, req, on_response, tag);
 *	for (;;)
 *		pmr_worker_poll(w);	// on_response(w, resp, tag) runs here
 * @endcode
 *
 * Server side: register handlers on the nexus before creating workers;
 * a handler answers with pmr_respond(), or fails the request with
 * pmr_respond_error(), now or later:
 * @code
 *	static void
 *	my_handler(struct pmr_req_ref req, void *arg)
 *	{
 *		struct pmr_msgbuf *resp = pmr_req_resp_buf(req);
 *
 *		if (resp == NULL) {
 *			pmr_respond_error(req, PMR_E_NOMEM);
 *			return;
 *		}
 *		...fill resp...
 *		pmr_respond(req, resp);
 *	}
 * @endcode
 */

#include <stdbool.h>
#include <stdint.h>

#include "pmr_msgbuf.h"
#include "pmr_nexus.h"
#include "pmr_rpc_stats.h"
#include "pmr_transport.h"

#ifdef __cplusplus
extern "C" {
#endif

struct pmr_worker;

/** Status of a request, as its continuation sees it. */
enum pmr_status {
	PMR_OK = 0,		/**< The response is there. */
	PMR_E_TIMEOUT,		/**< No response in time. */
	PMR_E_SESSION_RESET,	/**< The session went away first. */
	PMR_E_REMOTE_ERROR,	/**< The server failed it (no handler...). */
	PMR_E_NOMEM,		/**< Out of buffers, locally or remotely. */
	PMR_E_MSGSIZE,		/**< The response did not fit the buffer. */
	PMR_STATUS_MAX
};

/**
 * @return a short name of a status ("SESSION_RESET"), "UNKNOWN" for a
 *   value out of the enum.
 *
 * Thread: any.
 */
const char *pmr_status_str(enum pmr_status status);

/** Session states (pmr_session_state()). */
enum pmr_session_state {
	PMR_SESSION_FREE = 0,	/**< No such session. */
	PMR_SESSION_CONNECTING,	/**< Handshake under way. */
	PMR_SESSION_CONNECTED,	/**< Ready. */
	PMR_SESSION_FAILED,	/**< Handshake failed; destroy it. */
	PMR_SESSION_RESET,	/**< The remote side went away; destroy it. */
};

/** Session events (pmr_session_cb_t). */
enum pmr_session_event {
	/**
	 * err is 0. The nexus accepted and the session's token came on the
	 * data path (a TOKEN packet from the server worker).
	 */
	PMR_SESSION_EV_CONNECTED,
	PMR_SESSION_EV_CONNECT_FAILED,	/**< err says why. */
	PMR_SESSION_EV_RESET,		/**< The session went away (err). */
	/**
	 * Server side only (pmr_worker_conf.server_session_cb): a client
	 * asks for a session; the callback accepts it (returns 0) or
	 * refuses it (a negative errno: the client's connect fails with
	 * -ECONNREFUSED). err is 0.
	 */
	PMR_SESSION_EV_ACCEPT,
};

/**
 * Session event callback; runs on the worker's lcore. err is 0 or a
 * negative errno: -ENOENT (no such remote worker), -ENOSPC (remote out of
 * sessions), -ECONNREFUSED (the server worker's server_session_cb refused
 * it; final, not retried), -ETIMEDOUT (nobody answered), -EHOSTUNREACH
 * (URI did not resolve), -EPROTONOSUPPORT (the server worker's driver is
 * of another family: final), -EMSGSIZE (the session's packet size, the
 * smaller of both workers', cannot carry the server's or this worker's
 * max_msg_size in 65,535 packets: final), -EPROTO (incompatible peer:
 * a bad address), -ENETUNREACH on
 * PMR_SESSION_EV_CONNECT_FAILED (the remote nexus accepted, but the
 * server's TOKEN packet never reached this worker's data address within
 * req_timeout_ms: the data path is unreachable), -ECONNRESET (remote
 * closed),
 * -ETIMEDOUT on PMR_SESSION_EV_RESET (the remote nexus went silent: see
 * pmr_nexus_conf.peer_timeout_ms; or 8 requests in a row timed out in one
 * slot of the session window: the server is told, as for a close).
 */
typedef void (*pmr_session_cb_t)(struct pmr_worker *w, int session,
		enum pmr_session_event ev, int err, void *arg);

/**
 * Server session event callback (pmr_worker_conf.server_session_cb); runs
 * on the worker's lcore, inside pmr_worker_poll() (or
 * pmr_worker_destroy()). The session number is valid while it runs
 * (pmr_session_info_get() tells who the client is: state
 * PMR_SESSION_CONNECTING in PMR_SESSION_EV_ACCEPT, PMR_SESSION_RESET in
 * PMR_SESSION_EV_RESET), after a refusal or a reset it is free (or, while
 * handlers still hold requests of a reset session, in state RESET until
 * the last is answered).
 *
 * Events: PMR_SESSION_EV_ACCEPT (err 0), when a client asks for a
 * session, before anything is answered: return 0 to accept, a negative
 * errno to refuse (the client's PMR_SESSION_EV_CONNECT_FAILED then has
 * -ECONNREFUSED, counted in the server nexus's sessions_refused; a
 * client nexus older than this status drops the refusal and fails with
 * -ETIMEDOUT at its connect timeout). PMR_SESSION_EV_RESET, once for each
 * accepted session when it goes away, never for a refused one; err says
 * why: -ECONNRESET (the client closed it, or gave up on it), -ETIMEDOUT
 * (the client's nexus went silent or restarted), -ESHUTDOWN
 * (pmr_worker_destroy(): every such event runs first, before anything is
 * torn down). The return value is ignored but for PMR_SESSION_EV_ACCEPT.
 *
 * Re-entrancy: the callback may call pmr_session_info_get(),
 * pmr_session_create(), pmr_request() and pmr_session_destroy() on the
 * worker's client sessions (requests issued during -ESHUTDOWN complete
 * with PMR_E_SESSION_RESET in pmr_worker_destroy()); pmr_session_connect()
 * is refused (-EDEADLK); it must not call pmr_worker_poll(),
 * pmr_request_wait() or pmr_worker_destroy() of the same worker.
 */
typedef int (*pmr_server_session_cb_t)(struct pmr_worker *w, int session,
		enum pmr_session_event ev, int err, void *arg);

/**
 * Device async events of a worker's transport queue (pmr_worker_event_cb_t).
 * Only drivers with such events report them (verbs; not eth).
 */
enum pmr_worker_event_type {
	/** A port of the worker's device left ACTIVE (the link went down):
	 * packets are lost until PMR_WORKER_EV_PORT_UP. */
	PMR_WORKER_EV_PORT_DOWN = 1,
	PMR_WORKER_EV_PORT_UP,		/**< A port is ACTIVE again. */
	/** A port's GID table changed (an address added or removed): the
	 * worker's own address may be gone. */
	PMR_WORKER_EV_GID_CHANGE,
	/**
	 * The worker's own (UD) queue pair went to the error state, for
	 * whatever reason: packets to and from the worker are lost, as on
	 * a lossy wire, until its driver has recovered it. Told once per
	 * failure, however the driver or the device found it. A driver
	 * that recovers its QP (verbs) follows it with
	 * PMR_WORKER_EV_QP_RECOVERED (the sessions carry on: what was lost
	 * is retransmitted) or PMR_WORKER_EV_QP_RECOVERY_FAILED; with one
	 * that does not, the data path stays dead: destroy the worker
	 * (nothing hangs) and make another. Not for its RC QPs: their
	 * sessions reset on their own.
	 */
	PMR_WORKER_EV_QP_FATAL,
	PMR_WORKER_EV_QP_ACCESS_ERR,	/**< A QP's remote access error. */
	PMR_WORKER_EV_CQ_ERR,		/**< A completion queue overran. */
	/** The device is dead: destroy the worker. */
	PMR_WORKER_EV_DEVICE_FATAL,
	/**
	 * The queue pair of the last PMR_WORKER_EV_QP_FATAL works again,
	 * with the same address (peers need not know): nothing to do.
	 */
	PMR_WORKER_EV_QP_RECOVERED = 9,
	/**
	 * The queue pair of the last PMR_WORKER_EV_QP_FATAL could not be
	 * recovered (the device refused, e.g. it is dead): the worker's data
	 * path stays dead (its sends are dropped, nothing arrives) and its
	 * sessions will time out; destroy the worker and make another.
	 */
	PMR_WORKER_EV_QP_RECOVERY_FAILED,
};

/** A device event, as pmr_worker_event_cb_t gets it. */
struct pmr_worker_event {
	enum pmr_worker_event_type type;	/**< What happened. */
	/** Port events and GID changes: the port (from 1); else 0. */
	uint32_t port;
};

/**
 * Device event callback (pmr_worker_conf.event_cb). The nexus thread reads
 * the device's events (acknowledging each) and hands them to the workers
 * concerned: port, GID and device fatal events to every worker on the
 * device, QP and CQ events to the worker whose queue owns the object
 * (its UD QP and CQs; not its RC QPs). The
 * callback runs on the worker's lcore, inside pmr_worker_poll(), in the
 * order the device raised them; counted in pmr_worker_stats.dev_events
 * (and pmr_nexus_stats.dev_events*) whether or not a callback is set.
 * A driver that watches its own QP (verbs) reports its failures and
 * recoveries itself, found in its completions or in the device's event
 * (PMR_WORKER_EV_QP_FATAL, then PMR_WORKER_EV_QP_RECOVERED or
 * PMR_WORKER_EV_QP_RECOVERY_FAILED: counted in pmr_worker_stats.qp_*),
 * each failure once: the device's QP event is then not told again.
 * Sessions are not reset by it: the application decides (say, destroy
 * the worker on PMR_WORKER_EV_QP_RECOVERY_FAILED or
 * PMR_WORKER_EV_DEVICE_FATAL).
 *
 * Thread: the worker's lcore. It may call what a pmr_session_cb_t may;
 * it must not call pmr_worker_poll() or pmr_worker_destroy() of the same
 * worker.
 */
typedef void (*pmr_worker_event_cb_t)(struct pmr_worker *w,
		const struct pmr_worker_event *ev, void *arg);

/** Worker settings; zero fields take the defaults. */
struct pmr_worker_conf {
	uint16_t worker_id;	/**< Unique within the process (nexus). */
	/** Transport driver by name; NULL: the default, the first driver
	 * built, eth (doc/drivers.md). */
	const char *driver;
	const char *devargs;	/**< Its devargs (doc/drivers.md). */
	int socket_id;		/**< Memory socket; SOCKET_ID_ANY default. */
	uint32_t max_sessions;	/**< Sessions, both roles (default 256). */
	uint16_t session_window; /**< Requests in flight per session (8). */
	/**
	 * Packets a session may have in flight toward a worker (default 8).
	 * A client asks for this many; a server grants at most this many,
	 * whatever a client asks, and the client's session uses what was
	 * granted. Each session reserves its credits of the queue's receive
	 * slots (caps.rx_depth) at both ends (a client reserves its own
	 * until the grant is known): a session beyond that is refused,
	 * -ENOSPC.
	 */
	uint16_t session_credits;
	uint32_t max_requests;	/**< In flight + queued, all sessions (4096). */
	/** Largest request or response (default 8 MiB, at most 64 MiB). */
	uint32_t max_msg_size;
	uint32_t nb_msgbufs;	/**< Single-packet msgbufs (4096). */
	uint32_t nb_mid_msgbufs; /**< 64 KiB msgbufs (64). */
	uint32_t nb_large_msgbufs; /**< max_msg_size msgbufs (4). */
	/** Retransmission timeout in microseconds (default 5000). */
	uint32_t rto_us;
	/** Requests not answered in this time fail with PMR_E_TIMEOUT
	 * (default 2000 ms), plus timeout_per_mib_ms for a large one. */
	uint32_t req_timeout_ms;
	/**
	 * Fault injection, for testing applications: "key=value,..." with
	 * drop_tx, drop_rx, dup_tx, reorder_tx, reorder_rx (fractions of
	 * packets, 0 to 1) and seed. NULL or "" for none. See doc/faults.md.
	 */
	const char *faults;
	/** In pmr_worker_loop(), sched_yield() after an idle poll. */
	bool idle_yield;
	/**
	 * Server state a client leaves behind (a partial request, a
	 * response it does not fetch or acknowledge) is freed this many
	 * milliseconds after it started (its first packet, the response;
	 * default req_timeout_ms), plus timeout_per_mib_ms for a large
	 * one, whatever the client sends meanwhile. A
	 * request whose state was freed is never run again: a late copy of
	 * it is dropped.
	 */
	uint32_t srv_state_timeout_ms;
	/**
	 * Multi-packet requests of one session that may hold a
	 * max_msg_size buffer (reassembly, until the handler answers) at
	 * once; beyond that a request is refused with PMR_E_NOMEM
	 * (default nb_large_msgbufs / 2, at least 1).
	 */
	uint16_t max_large_per_session;
	/**
	 * Server side: told of each session a client opens to this worker,
	 * which it may refuse, and of its end (pmr_server_session_cb_t).
	 * NULL: every session is accepted, silently.
	 */
	pmr_server_session_cb_t server_session_cb;
	void *server_session_arg;	/**< Its arg. */
	/**
	 * Told of the device async events of the worker's queue (port
	 * down/up, GID change, its QP failing and recovering, device
	 * fatal: pmr_worker_event_cb_t). NULL: counted only.
	 */
	pmr_worker_event_cb_t event_cb;
	void *event_arg;	/**< Its arg. */
	/**
	 * Messages of more than this many bytes, and of more than one
	 * packet, go by RDMA READ (rendezvous, doc/rendezvous.md) on a
	 * queue with RC and READ: 0 is the default
	 * (PMR_RDV_THRESHOLD_DEFAULT), 1 sends every multi-packet message
	 * so, PMR_RDV_OFF none (such a worker still reads what its peers
	 * offer). The sender's threshold decides for its messages.
	 */
	uint32_t rdv_threshold;
	/**
	 * Where windows do not bound a READ to exactly the offered bytes
	 * (a device without memory windows, or rxe: doc/rendezvous.md,
	 * "Exposure"), each message offered by READ is copied first into a
	 * region made and registered with the RC QP of its pair of workers,
	 * for that peer alone: this many max_msg_size messages fit in a
	 * pair's region at once (default 1; at most 1 GiB a region). A
	 * message that does not fit goes as datagrams (rdv_fallbacks).
	 * Each of the worker's RC QPs has one, made and freed with it.
	 * Unused where windows are exact (no copy) and with rdv_threshold
	 * PMR_RDV_OFF (no offers).
	 */
	uint16_t nb_offer_msgbufs;
	/**
	 * The most one source (the address of a client nexus: every
	 * client process on it together) may hold of this worker, in
	 * percent of each resource: server sessions, the receive slots
	 * they reserve, the 64 KiB and max_msg_size buffers its requests
	 * hold (doc/security.md). 0: the default, 50; 100: no share kept
	 * for other sources. A session beyond it is refused (the client
	 * retries until its connect timeout, then -ENOSPC), a request
	 * answered PMR_E_NOMEM.
	 */
	uint8_t src_share_pct;
	/**
	 * Deadlines grow with the bytes they wait for: this many
	 * milliseconds per MiB of a multi-packet message, at any speed of
	 * the path below, are added to a client request's deadline (for
	 * the request's bytes when it is sent, for the response's when
	 * its first packet or descriptor says how long it is) and to a
	 * server slot's srv_state_timeout_ms (a partial request's, by the
	 * size its first packet gives; a kept or offered response's). 0:
	 * the default, PMR_TIMEOUT_PER_MIB_DEFAULT (500 ms per MiB: a
	 * path slower than 2 MiB/s fails large messages);
	 * PMR_TIMEOUT_PER_MIB_NONE: no allowance, every deadline as
	 * configured. At most PMR_TIMEOUT_PER_MIB_MAX. An allowance under
	 * the timer scan's resolution (rto_us / 4) is not added: a small
	 * message costs nothing more.
	 */
	uint32_t timeout_per_mib_ms;
};

/** pmr_worker_conf.timeout_per_mib_ms's default: 500 ms per MiB. */
#define PMR_TIMEOUT_PER_MIB_DEFAULT 500u
/** pmr_worker_conf.timeout_per_mib_ms: no allowance for size. */
#define PMR_TIMEOUT_PER_MIB_NONE UINT32_MAX
/** Largest pmr_worker_conf.timeout_per_mib_ms: 60 s per MiB. */
#define PMR_TIMEOUT_PER_MIB_MAX 60000u

/** pmr_worker_conf.rdv_threshold's default: 16 KiB. */
#define PMR_RDV_THRESHOLD_DEFAULT (16 * 1024)
/** pmr_worker_conf.rdv_threshold: never send by RDMA READ. */
#define PMR_RDV_OFF UINT32_MAX

/**
 * Check a fault injection specification (pmr_worker_conf.faults) before
 * any worker is made, e.g. to refuse a bad command line option at once.
 * Logs what is wrong with it, as pmr_worker_create() would.
 *
 * Thread: any.
 *
 * @return 0 if pmr_worker_create() would take it (NULL and "" too), or
 *   -EINVAL.
 */
int pmr_faults_check(const char *spec);

/**
 * Create a worker: its transport queue, msgbuf pool and session table, and
 * attach it to the nexus.
 *
 * Thread: the main lcore or a control thread (it sets up the transport
 * queue: pmr_transport_queue_create()).
 *
 * @return the worker, or NULL with rte_errno set: EINVAL (nx or conf
 *   NULL; a bad conf: max_sessions over 65536, session_window over 1024,
 *   max_msg_size over 64 MiB or more packets than a message may have, a
 *   bad faults spec, session_credits over the queue's receive depth,
 *   nb_offer_msgbufs times max_msg_size over 1 GiB where offers are
 *   copied; timeout_per_mib_ms over PMR_TIMEOUT_PER_MIB_MAX and not
 *   PMR_TIMEOUT_PER_MIB_NONE; a queue MTU too small), ENOENT (no such driver), EEXIST (worker_id
 *   taken in this nexus, or by a worker of another nexus of the process:
 *   the pools are named by it), ENOMEM, or the driver's error for the
 *   queue.
 */
struct pmr_worker *pmr_worker_create(struct pmr_nexus *nx,
		const struct pmr_worker_conf *conf);

/**
 * Destroy a worker that no lcore polls any more. Every pending request's
 * continuation runs (PMR_E_SESSION_RESET), requests still with handlers are
 * dropped, the remote ends are told, and every buffer goes back to its pool.
 *
 * Thread: the main lcore or a control thread, once no lcore polls the
 * worker (pmr_worker_stop() then rte_eal_wait_lcore(), or its service
 * stopped).
 *
 * @return 0, -EINVAL (w NULL), or -EBUSY if msgbufs of the worker's pool
 *   are still out (the application's): the pool is then left allocated.
 */
int pmr_worker_destroy(struct pmr_worker *w);

/**
 * Do one round of the worker's work. Data path: w is not checked.
 *
 * Thread: the worker's lcore, the one thread that polls it; not from its
 * own handlers or continuations.
 *
 * @return number of packets and events processed (0: idle); it cannot
 *   fail.
 */
int pmr_worker_poll(struct pmr_worker *w);

/**
 * lcore_function_t: poll the worker until pmr_worker_stop().
 * Use with rte_eal_remote_launch(pmr_worker_loop, w, lcore).
 *
 * Thread: the lcore it is launched on, which is the worker's lcore while
 * it runs.
 *
 * @return 0.
 */
int pmr_worker_loop(void *w);

/**
 * Make pmr_worker_loop() return (at its next poll). It cannot fail: w
 * must be a worker (not checked).
 *
 * Thread: any.
 */
void pmr_worker_stop(struct pmr_worker *w);

/**
 * Register the worker as an rte_service component (runstate on), to be
 * run by a service core.
 *
 * Thread: the main lcore or a control thread (as
 * rte_service_component_register()), before a service core runs it.
 *
 * @return 0 with *service_id set, -EINVAL (w or service_id NULL, or
 *   registered already), or the negative errno of
 *   rte_service_component_register() (-ENOSPC: no service slot left).
 */
int pmr_worker_service_register(struct pmr_worker *w, uint32_t *service_id);

/**
 * The worker's transport queue, to read its driver's counters with
 * pmr_transport_stats_get() and pmr_transport_xstats_get() (any thread;
 * may be slightly stale, as pmr_worker_stats_get()). The frames the
 * driver drops before the worker sees them (not IPv4, not for this
 * queue, bad checksum, ...) are counted there, by reason, and not in
 * struct pmr_worker_stats: every frame the queue received was either
 * delivered (pmr_transport_stats.rx_pkts), then accepted (rx_pkts) or
 * dropped by the worker (rx_drops, fault injection's drop_rx), or
 * dropped by the driver (pmr_transport_stats.rx_dropped). Only read
 * counters through it: the worker's lcore alone sends and receives.
 *
 * Thread: any.
 */
struct pmr_transport_queue *pmr_worker_queue(const struct pmr_worker *w);

/**
 * @return the worker's id.
 *
 * Thread: any.
 */
uint16_t pmr_worker_id(const struct pmr_worker *w);

/**
 * @return the largest request or response, in bytes.
 *
 * Thread: any.
 */
uint32_t pmr_worker_max_msg_size(const struct pmr_worker *w);

/**
 * @return the largest message that travels as one packet: the payload of
 *   the worker's packets. A session's packets are the smaller of both
 *   workers' (exchanged in the handshake), so on a session with a worker
 *   of smaller packets, a message this large may take several.
 *
 * Thread: any.
 */
uint32_t pmr_worker_pkt_size(const struct pmr_worker *w);

/**
 * @return headroom a msgbuf needs for a single-packet message to be sent
 *   without a copy (pools made with it may be used for any message).
 *
 * Thread: any.
 */
uint16_t pmr_worker_headroom(const struct pmr_worker *w);

/**
 * The worker's msgbuf pools, by class: 0 single-packet, 1 64 KiB,
 * 2 max_msg_size.
 *
 * Thread: any.
 *
 * @return the pool, or NULL past the last (not an error: rte_errno is
 *   left alone).
 */
struct rte_mempool *pmr_worker_pool(const struct pmr_worker *w,
		unsigned int cls);

/**
 * Register an application's msgbuf pool with the worker's device, so that
 * requests and responses from it are sent without a copy. A worker's own
 * pools are registered at its creation; any other pool may be sent from
 * too, but on a driver that registers memory (verbs) its packets are
 * copied first (the driver's xstat tx_bounced counts them). A no-op on a
 * driver that registers nothing (eth); registering a pool again is one.
 *
 * Thread: any control thread (the main lcore, the nexus's), also while
 * the worker's lcore polls.
 *
 * @return 0, -EINVAL (w NULL, mp not a msgbuf pool: made by
 *   pmr_msgbuf_pool_create()), or the driver's negative errno (-ENOSPC:
 *   its table of memory chunks is full).
 */
int pmr_worker_pool_register(struct pmr_worker *w, struct rte_mempool *mp);

/**
 * Undo pmr_worker_pool_register(), e.g. before freeing the pool. No
 * msgbuf of mp may still be held by the driver for a send; sending one
 * later works as from any unregistered pool.
 *
 * Thread: the worker's lcore, or any thread while the worker is not
 * polled.
 *
 * @return 0, -EINVAL (w NULL, mp not a msgbuf pool, or one of the
 *   worker's own pools), -ENOENT (mp not registered with the worker's
 *   device: a no-op driver never returns it), -EBUSY (a msgbuf of mp is
 *   in a send the driver still holds: pmr_msgbuf_tx_pending()), or the
 *   driver's negative errno.
 */
int pmr_worker_pool_unregister(struct pmr_worker *w, struct rte_mempool *mp);

/**
 * Allocate a msgbuf of len bytes from the smallest of the worker's pools
 * that fits. Data path: w is not checked.
 *
 * Thread: any (the pools are multi-thread safe; an lcore uses its cache).
 *
 * @return the msgbuf, or NULL with rte_errno ENOBUFS (that pool is
 *   empty) or EMSGSIZE (len over the largest pool's capacity:
 *   pmr_worker_max_msg_size(), or 64 KiB if that is less).
 */
struct pmr_msgbuf *pmr_worker_msgbuf_alloc(struct pmr_worker *w,
		uint32_t len);

/**
 * Open a session to worker remote_worker of the nexus at uri.
 * Returns at once; cb (may be NULL) tells the outcome. Requests may be
 * issued at once: they wait until the session is up. A URI that does
 * not resolve fails through cb (-EHOSTUNREACH).
 *
 * Thread: the worker's lcore (from its handlers and continuations too).
 *
 * @return the session number (>= 0), or -EINVAL (w or uri NULL, uri of
 *   PMR_URI_MAX bytes or more), -ENOSPC (no free session, or its
 *   session_credits would take the queue's receive slots over
 *   caps.rx_depth).
 */
int pmr_session_create(struct pmr_worker *w, const char *uri,
		uint16_t remote_worker, pmr_session_cb_t cb, void *arg);

/**
 * Close a client session: pending requests complete with
 * PMR_E_SESSION_RESET, the server is told.
 *
 * Thread: the worker's lcore (from its continuations too).
 *
 * @return 0 or -EINVAL (w NULL, no such session, a server session, or one
 *   being destroyed already).
 */
int pmr_session_destroy(struct pmr_worker *w, int session);

/**
 * @return the state of a session; PMR_SESSION_FREE for no such session
 *   (w NULL, a number out of range, one being destroyed).
 *
 * Thread: the worker's lcore.
 */
enum pmr_session_state pmr_session_state(const struct pmr_worker *w,
		int session);

/**
 * Open a session and poll the worker until it is connected or failed, at
 * most timeout_ms: pmr_session_create() and a pmr_worker_poll() loop in
 * one call, for simple clients and examples (as rrppcc's connect().await).
 * Handlers and continuations of the worker's other sessions run meanwhile.
 * Thread: the worker's lcore, outside a handler, continuation or session
 * callback of the worker (it would poll the worker inside its own poll:
 * refused with -EDEADLK), and not while the worker runs as a service or
 * under pmr_worker_loop(). The session has no callback: its reset shows
 * in pmr_session_state() and in its requests' PMR_E_SESSION_RESET.
 *
 * @return the session number (>= 0, PMR_SESSION_CONNECTED), or a
 *   negative errno: those of pmr_session_create(), -EDEADLK (see above),
 *   the err of PMR_SESSION_EV_CONNECT_FAILED (the session is then
 *   destroyed), or -ETIMEDOUT if it was not up within timeout_ms
 *   (destroyed as well; its number is free once the nexus gives up on the
 *   handshake, within its connect_timeout_ms).
 */
int pmr_session_connect(struct pmr_worker *w, const char *uri,
		uint16_t remote_worker, uint32_t timeout_ms);

/** Which end of a session this worker is (struct pmr_session_info). */
enum pmr_session_role {
	PMR_SESSION_CLIENT = 0,	/**< Opened by pmr_session_create(). */
	PMR_SESSION_SERVER,	/**< Accepted from a client. */
};

/** What pmr_session_info_get() tells of a session. */
struct pmr_session_info {
	enum pmr_session_role role;	/**< Client or server end. */
	enum pmr_session_state state;	/**< As pmr_session_state(). */
	uint16_t remote_worker;	/**< The worker id at the other end. */
	uint16_t credits;	/**< Packets in flight allowed toward the
				 * server (granted; 0 until known). */
	/** The remote nexus: at the client, the URI given to
	 * pmr_session_create() until the nexus answers, then the server
	 * nexus's address "a.b.c.d:port"; at the server, the client
	 * nexus's address "a.b.c.d:port", as its handshake came from. */
	char remote_uri[PMR_URI_MAX];
};

/**
 * Tell who is at the other end of a session (either role), e.g. from a
 * handler, with pmr_req_session(), or from a server session callback.
 *
 * Thread: the worker's lcore.
 *
 * @return 0, or -EINVAL (NULL argument, no such session, a client
 *   session destroyed already).
 */
int pmr_session_info_get(const struct pmr_worker *w, int session,
		struct pmr_session_info *info);

/** What a continuation gets. Valid only while it runs. */
struct pmr_resp {
	enum pmr_status status;	/**< How the request ended. */
	const void *data;	/**< Response bytes (zero-copy), if PMR_OK. */
	uint32_t len;		/**< Their length. */
	/** The request's msgbuf: the caller's again. */
	struct pmr_msgbuf *req;
};

/** Continuation: runs exactly once per request, on the worker's lcore. */
typedef void (*pmr_cont_t)(struct pmr_worker *w, const struct pmr_resp *resp,
		void *tag);

/**
 * Send a request. The msgbuf (from pmr_worker_msgbuf_alloc() or any pool)
 * belongs to the worker until the continuation runs: pmr_msgbuf_free() of
 * it is refused until then, and so is a second pmr_request() with it.
 * Beyond the session window, requests wait in order. Lost packets are
 * sent again; a request not answered within req_timeout_ms (plus
 * timeout_per_mib_ms for each MiB of a multi-packet request and response)
 * completes with PMR_E_TIMEOUT. The server runs each request at most once.
 *
 * Thread: the worker's lcore (from its handlers and continuations too).
 *
 * @return 0, or -EINVAL (w, req or cont NULL; no such session, a server
 *   session, or one being destroyed, failed or reset), -EBUSY (the msgbuf is
 *   the worker's already: a pending request's, a response's; counted in
 *   pmr_worker_stats.msgbuf_busy), -EMSGSIZE (over
 *   pmr_worker_max_msg_size()), -ENOBUFS (max_requests pending already);
 *   then cont never runs.
 */
int pmr_request(struct pmr_worker *w, int session, uint8_t req_type,
		struct pmr_msgbuf *req, pmr_cont_t cont, void *tag);

/**
 * pmr_request() with a deadline of its own: the continuation runs once,
 * with PMR_E_TIMEOUT if no response came within timeout_ms of this call
 * (lost packets are sent again until then), instead of the worker's
 * req_timeout_ms; the worker's timeout_per_mib_ms is added for a large
 * request and response all the same. timeout_ms 0 takes
 * req_timeout_ms. A request queued
 * beyond the session window, or for a session still connecting, times
 * out at its deadline too. Requests time out in deadline order, whatever
 * the order they were sent in.
 *
 * A request that timed out in the session window counts toward the
 * session's reset after 8 timeouts in a row in one window slot
 * (pmr_session_cb_t, PMR_SESSION_EV_RESET with -ETIMEDOUT), whatever its
 * deadline: each one may have left a request number the server never
 * saw, and the server takes at most 8 of those skipped in a slot. So a
 * deadline shorter than the server usually takes (one that gives up on a
 * handler still busy with an earlier request of the slot, say) resets the
 * session after 8 such timeouts in a row; a response in the slot starts
 * the count again.
 *
 * Cost: a request with the worker's deadline costs what pmr_request()
 * does; one with its own (or with an allowance for its size) is sorted
 * among the pending ones with their own deadlines, from the latest (O(1) when they come in deadline order, as
 * with one timeout for all of them).
 *
 * A long deadline does not make the server wait longer: it frees a
 * partial request, or a response not fetched whole, after its
 * srv_state_timeout_ms (its req_timeout_ms by default, plus its
 * timeout_per_mib_ms for the size), so a multi-packet
 * request or response still in transfer then ends in PMR_E_TIMEOUT at
 * the deadline. A handler may keep a request as long as it likes.
 *
 * Thread: the worker's lcore, as pmr_request().
 *
 * @return as pmr_request(); -EINVAL also for a timeout_ms over
 *   PMR_REQ_TIMEOUT_MAX_MS.
 */
int pmr_request_timeout(struct pmr_worker *w, int session, uint8_t req_type,
		struct pmr_msgbuf *req, pmr_cont_t cont, void *tag,
		uint32_t timeout_ms);

/** Longest per-request deadline, in ms (one hour). */
#define PMR_REQ_TIMEOUT_MAX_MS 3600000u

/**
 * A request to test or wait for, instead of a continuation. Owned by the
 * caller, who must keep it alive until it is done.
 */
struct pmr_req_handle {
	bool done;		/**< Set when the request completed. */
	enum pmr_status status;	/**< Its status, once done. */
	struct pmr_msgbuf *resp; /**< The response is copied here. */
	uint32_t resp_len;	/**< Bytes copied (also resp->len). */
};

/**
 * Send a request whose response is copied into resp; test h->done (or
 * pmr_request_done()) while polling, or pmr_request_wait(). Both req and
 * resp belong to the worker until the request is done (as for
 * pmr_request(): -EBUSY if either is the worker's already).
 *
 * Thread: the worker's lcore (from its handlers and continuations too).
 *
 * @return as pmr_request(), and -EINVAL for h or resp NULL. A response
 *   over resp's capacity completes the request with PMR_E_MSGSIZE.
 */
int pmr_request_start(struct pmr_worker *w, int session, uint8_t req_type,
		struct pmr_msgbuf *req, struct pmr_msgbuf *resp,
		struct pmr_req_handle *h);

/**
 * @return true once the request of h has completed.
 *
 * Thread: any (an acquire load: once true, h and resp hold the outcome).
 */
static inline bool
pmr_request_done(const struct pmr_req_handle *h)
{
	return __atomic_load_n(&h->done, __ATOMIC_ACQUIRE);
}

/**
 * Poll the worker until the request of h completes. w and h are not
 * checked.
 *
 * Thread: the worker's lcore, outside its handlers and continuations (it
 * polls the worker).
 *
 * @return its status.
 */
enum pmr_status pmr_request_wait(struct pmr_worker *w,
		struct pmr_req_handle *h);

#ifdef __cplusplus
}
#endif

/* The server side: what a handler is given and how it answers. */
#include "pmr_rpc_handler.h"

#endif /* PMR_RPC_H */
