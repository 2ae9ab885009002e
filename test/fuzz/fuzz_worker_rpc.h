/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

#ifndef FUZZ_WORKER_RPC_H
#define FUZZ_WORKER_RPC_H

/**
 * @file
 * Everything the worker fuzz target (fuzz_worker.c) knows of lib/rpc
 * beyond its stable public API, in one place: the request handle a
 * handler answers through and how it answers, the packet header, where a
 * session keeps its token and window numbers, the timers, the drop
 * reasons counted before a packet is accepted, and how two quiet workers
 * are brought back to fresh sessions between inputs. When the header,
 * the handler API or the session state machines change, this file and
 * fuzz_worker_rpc.c change with them; fuzz_worker.c should not need to.
 */

#include <stdbool.h>
#include <stdint.h>

#include "pmr_rpc.h"

/** Bytes of the RPC packet header in front of each payload. */
uint32_t fz_hdr_len(void);

/** The fields of a packet header the harness sets. */
struct fz_hdr {
	uint8_t pkt_type;	/**< FZ_PKT_* */
	uint8_t req_type;
	uint16_t dest_session;
	uint16_t pkt_num;
	uint32_t msg_size;
	uint64_t token;
	uint64_t req_num;
	uint8_t status;
};

/** Packet types, as the wire has them. */
enum {
	FZ_PKT_REQ = 1,
	FZ_PKT_RESP,
	FZ_PKT_CR,
	FZ_PKT_RFR,
	FZ_PKT_TOKEN,
	FZ_PKT_REQ_DESC,	/**< A request sent by RDMA READ (version 3). */
	FZ_PKT_RESP_DESC,	/**< A response sent by RDMA READ. */
};

/** Bytes of a descriptor's payload. */
uint32_t fz_desc_len(void);

/**
 * Write a descriptor's payload (fz_desc_len() bytes) into buf: a message
 * at addr read with rkey; bad: its reserved bytes not zero.
 */
void fz_desc_write(uint8_t *buf, uint64_t addr, uint32_t rkey, bool bad);

/** Write h as a header into buf (fz_hdr_len() bytes). */
void fz_hdr_write(uint8_t *buf, const struct fz_hdr *h);

/**
 * Decode the header of a packet of len bytes into h.
 * @return true if it is a valid header.
 */
bool fz_hdr_read(const uint8_t *buf, uint32_t len, struct fz_hdr *h);

/** A request a handler got, to answer now or later. */
struct fz_req {
	struct pmr_req_ref req;
};

/**
 * What fuzz_worker.c does with each request; the handler registered by
 * fz_register_handler() calls it.
 */
void fz_on_request(struct fz_req r, const void *data, uint32_t len,
		uint8_t type, void *arg);

/** Register the handler of request type on the nexus. @return 0/-errno. */
int fz_register_handler(struct pmr_nexus *nx, uint8_t type, void *arg);

/** A response buffer for the request, capacity pmr_worker_pkt_size(). */
struct pmr_msgbuf *fz_req_resp_buf(struct fz_req r);

/**
 * Answer a request with mb.
 * @return 0 (answered, mb is the worker's); -EMSGSIZE (answered with an
 *   error status, mb freed); another -errno: not answered by this call,
 *   mb is still the caller's (a stale or already answered handle).
 */
int fz_respond(struct fz_req r, struct pmr_msgbuf *mb);

/**
 * Fail a request with status, as a handler that cannot answer would.
 * @return 0 (answered), or -errno: not answered (then the caller must
 *   still answer it some other way).
 */
int fz_respond_error(struct fz_req r, enum pmr_status status);

/** @return the token of session sn of w. */
uint64_t fz_session_token(const struct pmr_worker *w, uint16_t sn);

/** @return the session number at the other end of session sn of w. */
uint16_t fz_session_remote(const struct pmr_worker *w, uint16_t sn);

/** @return true if mb is in w's TX burst, queued but not sent yet. */
bool fz_tx_queued(const struct pmr_worker *w, const struct pmr_msgbuf *mb);

/** @return the requests a session may have in flight (window). */
uint16_t fz_window(const struct pmr_worker *w);

/** A server slot, as the harness picks numbers relative to it. */
struct fz_srv_slot {
	bool busy;		/**< Not free. */
	uint64_t req_num;	/**< Its request (or the last one). */
	uint32_t req_size;
	uint32_t num_rx;	/**< Request packets received. */
	uint32_t resp_pkts;	/**< Of the kept response; 0 if none. */
	bool status_only;	/**< The kept response is a status alone. */
};

/** Read slot i of server session sn of w. */
void fz_srv_slot(const struct pmr_worker *w, uint16_t sn, uint16_t i,
		struct fz_srv_slot *v);

/** A client slot. */
struct fz_cli_slot {
	bool busy;		/**< A request is in it. */
	uint64_t req_num;	/**< Its number, if busy. */
	uint64_t next_num;	/**< The slot's next request's number. */
	uint32_t req_pkts;
	uint32_t resp_pkts;	/**< 0 until known. */
	uint32_t resp_size;
	uint32_t num_tx;	/**< Packets sent (request, then RFRs). */
	uint32_t num_rx;	/**< Answers received. */
};

/** Read slot i of client session sn of w. */
void fz_cli_slot(const struct pmr_worker *w, uint16_t sn, uint16_t i,
		struct fz_cli_slot *v);

/** What "some time later" the harness can ask for. */
enum fz_time {
	FZ_TIME_RTO,		/**< A retransmission timeout passed. */
	/**
	 * Every request timed out; on a server, whatever a silent peer
	 * left (partial requests) is reclaimed.
	 */
	FZ_TIME_REQ_TIMEOUT,
	FZ_TIME_MAX
};

/** Run w's timers as if time t had passed since its last packets. */
void fz_advance_time(struct pmr_worker *w, enum fz_time t);

/** @return server slots of w holding part of a request. */
unsigned int fz_srv_partial(const struct pmr_worker *w);

/**
 * Packets w's counters account for having received: accepted, or
 * dropped before being taken by a session. Every packet the queue
 * delivers must be one of them.
 */
uint64_t fz_rx_accounted(const struct pmr_worker_stats *st);

/**
 * w's queue has neither RC nor READ (fuzzq): check that nothing of the
 * rendezvous ran (doc/rendezvous.md): no descriptor sent or taken, no
 * READ, no offer, no QP asked for on a descriptor's account.
 */
void fz_rdv_check_none(const struct pmr_worker_stats *st);

/**
 * Check w's session table: each number free at most once and only if its
 * session is free, the receive slots reserved those of the others.
 */
void fz_sessions_check(const struct pmr_worker *w);

/**
 * Both workers are quiet (no request pending or with a handler, nothing
 * on the wire): check what must hold of an idle session (every credit
 * back, an empty window) and bring the sessions back to their state
 * right after the handshake, so that each input starts from the same
 * place. The server's kept responses go back to the pools (after the
 * server's next poll).
 */
void fz_sessions_resync(struct pmr_worker *srv, struct pmr_worker *cli,
		const int *cli_sessions, unsigned int n);

#endif /* FUZZ_WORKER_RPC_H */
