/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

#ifndef PMR_RPC_STATS_H
#define PMR_RPC_STATS_H

/**
 * @file
 * A worker's counters (struct pmr_worker_stats), read with
 * pmr_worker_stats_get(), and the names of its drop reasons. pmr_rpc.h
 * includes this header; doc/telemetry.md says where else they show.
 */

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct pmr_worker;

/** Per-worker counters. */
struct pmr_worker_stats {
	uint64_t tx_pkts;	/**< Packets sent. */
	uint64_t tx_bytes;	/**< Message bytes sent. */
	uint64_t rx_pkts;	/**< Packets accepted. */
	uint64_t rx_bytes;	/**< Message bytes accepted. */
	uint64_t reqs_sent;	/**< Requests sent (client). */
	uint64_t reqs_completed; /**< Continuations run (client). */
	uint64_t reqs_handled;	/**< Requests given to handlers (server). */
	uint64_t resps_sent;	/**< Responses sent (server). */
	uint64_t tx_stalls;	/**< Bursts the queue did not take whole. */
	uint64_t tx_dropped;	/**< Packets dropped: the queue stayed full
				 * (recovered as any loss). */
	uint64_t retransmissions; /**< Go-back-N rollbacks (client). */
	uint64_t timeouts;	/**< Requests failed with PMR_E_TIMEOUT. */
	uint64_t credit_stalls;	/**< Sends held back for want of credits. */
	uint64_t dup_answered;	/**< Retransmitted requests answered from
				 * the kept response (server). */
	uint64_t fault_dropped;	/**< Packets dropped by fault injection. */
	uint64_t fault_duplicated; /**< ...duplicated by it. */
	uint64_t fault_reordered; /**< ...reordered by it. */
	uint64_t rx_drops;	/**< Sum of drops[]. */
	/** Drops by reason: see pmr_worker_drop_name(). */
	uint64_t drops[32];
	/** pmr_respond()/pmr_respond_error() with a stale pmr_req_ref:
	 * refused, never delivered (server). */
	uint64_t stale_refs;
	/** Msgbufs refused as not the caller's to give (-EBUSY): one already
	 * in a pending request given to pmr_request() or
	 * pmr_request_start(), or to pmr_respond() one in flight or another
	 * request's. */
	uint64_t msgbuf_busy;
	/** TOKEN packets sent (server: each session's token, a few copies). */
	uint64_t tokens_sent;
	/** TOKEN packets taken (client; forged ones are drops instead). */
	uint64_t tokens_received;
	/**
	 * Connects failed for want of a token: the nexus answered, the data
	 * path did not (PMR_SESSION_EV_CONNECT_FAILED, -ENETUNREACH).
	 */
	uint64_t connects_unreachable;
	uint64_t reqs_held;	/**< Requests with handlers now (a gauge,
				 * server). */
	uint64_t srv_reclaimed;	/**< Partial requests freed after
				 * srv_state_timeout_ms (server). */
	uint64_t resps_expired;	/**< Kept responses freed after
				 * srv_state_timeout_ms (server). */
	uint64_t large_refused;	/**< Requests refused (PMR_E_NOMEM): their
				 * session held max_large_per_session
				 * large buffers (server). */
	uint64_t timeout_resets; /**< Sessions reset after
				 * RPC_SLOT_TIMEOUTS_MAX timeouts in a row
				 * on one window slot (client). */
	uint64_t txfree_grown;	/**< Times the list of sent msgbufs waiting
				 * for the driver grew (responses from
				 * the application's own pools). */
	uint64_t txfree_abandoned; /**< Sent msgbufs a driver held over a
				 * second when that list was full and could
				 * not grow: left to it, not freed. */
	/** Device async events the nexus told this worker of
	 * (pmr_worker_event_cb_t). */
	uint64_t dev_events;
	/* Large messages by RDMA READ (doc/rendezvous.md). */
	uint64_t rdv_descs_sent;	/**< Descriptors sent (each copy). */
	uint64_t rdv_descs_received;	/**< Descriptors accepted. */
	uint64_t rdv_reads;		/**< READs posted (one per message). */
	uint64_t rdv_read_bytes;	/**< Bytes of READs completed OK. */
	uint64_t rdv_read_errors;	/**< READs completed with an error. */
	uint64_t rdv_offers;	/**< Messages exposed (in place, or copied
				 * into their pair's region). */
	uint64_t rdv_reclaimed;	/**< Offers taken back before the reader
				 * said it was done (timeout, reset). */
	uint64_t rdv_fallbacks;	/**< Messages over rdv_threshold sent as
				 * datagrams (no QP, nothing to expose them
				 * with: no window, the pair's region full;
				 * unregistered memory). */
	/** Payload bytes the engine copied: reassembly of multi-packet
	 * datagram messages, offers copied into their pair's region. */
	uint64_t copied_bytes;
	/** Requests refused (PMR_E_NOMEM): their source held its share
	 * of the buffers they need (pmr_worker_conf.src_share_pct;
	 * server). */
	uint64_t src_refused;
	/** Sessions refused: their source held its share of the worker's
	 * sessions or receive slots (server). */
	uint64_t src_sessions_refused;
	/* The worker's own QP (pmr_worker_event_cb_t), as its driver told. */
	uint64_t qp_fatal;	/**< Failures (PMR_WORKER_EV_QP_FATAL). */
	uint64_t qp_recovered;	/**< Recoveries (PMR_WORKER_EV_QP_RECOVERED). */
	/** Recoveries that failed (PMR_WORKER_EV_QP_RECOVERY_FAILED). */
	uint64_t qp_recovery_failed;
	/**
	 * RC QPs lost to the transport (an operation's retries ran out, or
	 * it was failed as stuck): given back for a fresh one, their
	 * sessions kept (doc/rendezvous.md, "When things fail").
	 */
	uint64_t rc_lost;
	/**
	 * Large messages sent again as datagrams because their READ failed
	 * that way: requests sent again by this client, responses this
	 * server sent again.
	 */
	uint64_t rdv_recovered;
	/**
	 * READs taken for stuck (their QP completed nothing for 500 ms plus
	 * twice their timeout_per_mib_ms allowance, at most half a
	 * request's deadline): their QP failed, the pair replaced, the
	 * message sent again as datagrams.
	 */
	uint64_t rdv_reads_stuck;
};

/**
 * @return the name of drop reason idx of pmr_worker_stats.drops, or NULL
 *   for an index no reason has (not an error: rte_errno is left alone).
 *
 * Thread: any.
 */
const char *pmr_worker_drop_name(unsigned int idx);

/**
 * Read the worker's counters. Each counter is read whole; together they
 * may be slightly out of step with each other and stale by a poll.
 *
 * Thread: any.
 *
 * @return 0, or -EINVAL (w or stats NULL).
 */
int pmr_worker_stats_get(const struct pmr_worker *w,
		struct pmr_worker_stats *stats);

#ifdef __cplusplus
}
#endif

#endif /* PMR_RPC_STATS_H */
