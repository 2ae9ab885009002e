/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

#ifndef PMR_RPC_MSG_H
#define PMR_RPC_MSG_H

/*
 * Messages in packets, for requests and responses alike: how a message of
 * size bytes is cut into packets of plen payload (all the same size but
 * the last, packet j at offset j * plen), what packet 0 of a multi-packet
 * message must look like, and reassembly in order into one msgbuf. The
 * sender's side is rpc_tx_pkt() (rpc_tx.c); the receivers are the client
 * (responses) and the server (requests).
 */

#include <string.h>

#include "pmr_msgbuf.h"

#pragma GCC visibility push(hidden)

/*
 * Packets of a message, at most, on both sides: pkt_num is 16 bits and the
 * client's ack of a response is "packet resp_pkts", so 65,535.
 */
#define RPC_MSG_PKTS_MAX UINT16_MAX

/*
 * Payload of the first packet of a multi-packet message, at least (a
 * sender's packets are all the same size but the last; a tiny first packet
 * claiming a large message would pin a large buffer cheaply). A worker
 * whose packets are smaller is refused at creation.
 */
#define RPC_FIRST_PKT_MIN 512

/* Packets of a message of size bytes, in packets of plen payload. */
static inline uint32_t
rpc_msg_pkts(uint32_t size, uint32_t plen)
{
	return size <= plen ? 1 : (size + plen - 1) / plen;
}

/* Payload bytes of packet j of a message of size bytes. */
static inline uint32_t
rpc_msg_pkt_len(uint32_t size, uint32_t plen, uint32_t j)
{
	uint32_t off = j * plen;

	return size - off < plen ? size - off : plen;
}

/* A multi-packet message being received, in order. */
struct rpc_msg_rx {
	struct pmr_msgbuf *mb;		/* NULL until allocated */
	uint32_t size;			/* bytes of the message */
	uint32_t plen;			/* payload of its packet 0 */
	uint32_t pkts;
	uint32_t num_rx;		/* packets taken, in order */
};

/*
 * Packet 0 of a message of size bytes carrying len of them: its shape in
 * m (m->mb untouched). -EPROTO if no correct sender cuts a message so (a
 * first packet under RPC_FIRST_PKT_MIN, more than RPC_MSG_PKTS_MAX
 * packets).
 */
static inline int
rpc_msg_rx_shape(struct rpc_msg_rx *m, uint32_t size, uint32_t len)
{
	uint32_t pkts = rpc_msg_pkts(size, len);

	if (pkts > 1 && (pkts > RPC_MSG_PKTS_MAX || len < RPC_FIRST_PKT_MIN))
		return -EPROTO;
	m->size = size;
	m->plen = len;
	m->pkts = pkts;
	m->num_rx = 0;
	return 0;
}

/*
 * Packet j (of a message of size bytes, len of payload) is the next one of
 * m, and where m's shape puts it?
 */
static inline bool
rpc_msg_rx_fits(const struct rpc_msg_rx *m, uint32_t j, uint32_t size,
		uint32_t len)
{
	return j == m->num_rx && size == m->size && j < m->pkts &&
		len == rpc_msg_pkt_len(m->size, m->plen, j);
}

/* Take packet j (rpc_msg_rx_fits()): true if the message is complete. */
static inline bool
rpc_msg_rx_put(struct rpc_msg_rx *m, uint32_t j, const void *data,
		uint32_t len)
{
	memcpy(m->mb->data + j * m->plen, data, len);
	m->num_rx++;
	if (m->num_rx < m->pkts)
		return false;
	m->mb->len = m->size;
	return true;
}

#pragma GCC visibility pop

#endif /* PMR_RPC_MSG_H */
