/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

#ifndef PMR_RPC_SESSION_H
#define PMR_RPC_SESSION_H

/*
 * Sessions: the table, the nexus's session messages and the outbox
 * (rpc_session.c), and the handshake's data-path half, TOKEN packets
 * (rpc_handshake.c).
 */

#include <rte_cycles.h>

#include "rpc_private.h"

#pragma GCC visibility push(hidden)

/*
 * TOKEN packets a server session sends at most (issue 10): one on
 * CONNECT_IN, then again after gaps of rto, 2 rto, 4 rto, ... 64 rto
 * (0.6 s at the default rto) until the client's first valid packet
 * arrives. The span outlives a TX path that is dead for a while when the
 * session is taken: a memif port whose link flag lags its peer's connect
 * under load dropped the first copies, and 4 copies over 35 ms lost them
 * all (test hostile_session_defect6, token_outlives_tx_stall).
 */
#define RPC_TOKEN_COPIES 8

/* rpc_events.c: what the application is told of its device and queue. */
/* A PMR_SM_DEVICE_EVENT from the nexus. */
void rpc_device_event(struct pmr_worker *w, const struct pmr_sm_msg *m);
/* Tell what the worker's queue found of its own QP (the rare work). */
int rpc_queue_events(struct pmr_worker *w);
/* rpc_live.c: signs of life of the peers, for the nexus. */
void rpc_live_init(struct pmr_worker *w);
void rpc_live_report(struct pmr_worker *w, uint64_t now);

/* From the rare poll: report if an interval passed. */
static inline void
rpc_live_poll(struct pmr_worker *w)
{
	uint64_t now = rte_get_timer_cycles();

	if (now >= w->live_next)
		rpc_live_report(w, now);
}

/* rpc_outbox.c */
uint32_t rpc_outbox_size(uint32_t max_sessions);
bool rpc_outbox_flush(struct pmr_worker *w);
void rpc_sm_send(struct pmr_worker *w, const struct pmr_sm_msg *m);
/* rpc_session.c */
int rpc_sm_poll(struct pmr_worker *w);
void rpc_session_release(struct pmr_worker *w, uint16_t sn, bool notify);
void rpc_session_up(struct pmr_worker *w, uint16_t sn);
void rpc_session_reset_local(struct pmr_worker *w, uint16_t sn, int err);
void rpc_session_connect_fail(struct pmr_worker *w, uint16_t sn,
		bool notify, int err);
void rpc_server_reset_event(struct pmr_worker *w, uint16_t sn, int err);

/* rpc_handshake.c */
void rpc_hs_rx_token(struct pmr_worker *w, const struct pmr_pkthdr *h,
		const struct pmr_rx_pkt *pkt);
void rpc_hs_server_start(struct pmr_worker *w, uint16_t sn);
void rpc_hs_client_wait(struct pmr_worker *w, struct rpc_session *s);
void rpc_hs_timers(struct pmr_worker *w);
void rpc_hs_stop(struct pmr_worker *w, struct rpc_session *s);

#pragma GCC visibility pop

#endif /* PMR_RPC_SESSION_H */
