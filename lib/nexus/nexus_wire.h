/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

#ifndef PMR_NEXUS_WIRE_H
#define PMR_NEXUS_WIRE_H

/**
 * @file
 * The UDP messages between nexuses (internal to libpmrpc).
 *
 * Pure functions of (buffer, length): no EAL, so unit tests and fuzz
 * targets link nexus_wire.c directly. Input from the wire is hostile:
 * nexus_wire_decode() checks every field and never reads past the length.
 *
 * Layout, all integers little-endian, no padding:
 *
 *   header (16 bytes, every type)
 *     0  magic u32 (NEXUS_WIRE_MAGIC)   4  version u16   6  type u16
 *     8  handshake id u64
 *   CONNECT_REQ (77 + addr.len bytes)
 *     16 client_worker u16  18 client_session u16  20 server_worker u16
 *     22 driver family [PMR_TRANSPORT_NAME_MAX], NUL-terminated,
 *        zero-padded (pmr_transport_family(): drivers of one family
 *        talk to each other, "ib" for verbs and mlx5)
 *     38 credits u16 (packets the client may have in flight to the server;
 *        non-zero)
 *     40 pkt_size u32 (the client worker's packet payload size: its
 *        queue's caps.mtu minus the packet header; NEXUS_WIRE_PKT_SIZE_MIN
 *        to NEXUS_WIRE_PKT_SIZE_MAX)
 *     44 boot id u64 (the client nexus's, non-zero)
 *     52 cookie u64 (from the server's COOKIE; 0 in a first request)
 *     60 secret [16] (the heartbeat key the client issues to the server)
 *     76 addr.len u8  77 addr.bytes[addr.len]
 *   ACCEPT (55 + addr.len bytes)
 *     16 client_worker u16  18 client_session u16  20 server_worker u16
 *     22 server_session u16
 *     24 credits u16 (granted by the server worker, non-zero)
 *     26 pkt_size u32 (the server worker's packet payload size, as in
 *        CONNECT_REQ; the session's is the smaller of the two)
 *     30 boot id u64 (the server nexus's, non-zero)
 *     38 secret [16] (the heartbeat key the server issues to the client)
 *     54 addr.len u8  55 addr.bytes[addr.len]
 *   (no session token: the server worker sends it to the client's data
 *   address in a TOKEN packet, never in a nexus datagram)
 *   REFUSE (24 bytes)
 *     16 client_worker u16  18 client_session u16  20 server_worker u16
 *     22 status u16 (a refusal reason of enum pmr_sm_status:
 *        NO_WORKER, NO_RESOURCES, BAD_REQUEST, REFUSED, MSG_SIZE,
 *        FAMILY; a receiver drops
 *        a REFUSE with any other value as malformed, so that a reason
 *        added later fails an older client's connect only at its
 *        connect timeout, without a version change)
 *   DISCONNECT (24 bytes)
 *     16 dst_worker u16  18 dst_session u16  20 src_worker u16
 *     22 src_session u16
 *   HEARTBEAT (48 bytes; handshake id 0)
 *     16 boot id u64 (the sender's, non-zero)
 *     24 peer boot id u64 (the receiver's, as the sender knows it; non-zero)
 *     32 counter u64 (the sender's, strictly increasing, non-zero)
 *     40 MAC u64 (nexus_wire_hb_mac() of the three fields above, keyed
 *        with the secret the receiver issued to the sender)
 *   COOKIE (28 bytes)
 *     16 client_worker u16  18 client_session u16
 *     20 cookie u64 (non-zero)
 *   RC_REQ, RC_ACK (84 bytes each; handshake id 0)
 *     16 src_worker u16 (the sender's worker)
 *     18 dst_worker u16 (the receiver's worker)
 *     20 status u16 (RC_REQ: 0; RC_ACK: 0, the sender's QP is in RTR and
 *        the attributes follow, or a reason of enum pmr_sm_status:
 *        NO_WORKER, NO_RESOURCES, BAD_REQUEST, FAMILY, SHARE, with
 *        the attributes all zero; or BUSY, not an answer: the sender
 *        is still making its QP, the initiator waits longer)
 *     22 generation u32 (non-zero: the initiator's count of QPs it set up
 *        for this pair of workers; an RC_ACK repeats its RC_REQ's)
 *     26 boot id u64 (the sender's, non-zero)
 *     34 peer boot id u64 (the receiver's, as the sender knows it;
 *        non-zero)
 *     42 qpn u32 (24 bits)  46 psn u32 (24 bits)  50 gid [16]
 *     66 mtu u32 (256, 512, 1024, 2048 or 4096)
 *     70 rd_credits u8 (non-zero)  71 max_rd_atomic u8
 *     72 max_msg_size u32 (0: not known, or 4096 or more)
 *        (42 to 76: struct pmr_transport_rc_attr of the sender's QP)
 *     76 MAC u64 (nexus_wire_rc_mac(): of bytes 0 to 75, keyed with the
 *        secret the receiver issued to the sender)
 *
 * The handshake id is the client's random id of the handshake; DISCONNECT
 * carries the id of the handshake that opened the session, which is its
 * authentication (with the sender's address and the session numbers):
 * off-path senders never see it.
 *
 * Handshake: the server answers a CONNECT_REQ without a valid cookie with
 * a COOKIE, statelessly (a MAC of the source address and the handshake id
 * under a rotating secret), never larger than the request; the client
 * repeats its request with the cookie. Only a request with a valid cookie
 * (its sender receives at its source address) gets a REFUSE or an ACCEPT.
 *
 * A boot id is a random number a nexus picks when it is created: a nexus
 * restarted on the same address has another one. Each end issues the
 * other a 128-bit secret in its handshake message (CONNECT_REQ, ACCEPT); a
 * HEARTBEAT counts only with a MAC under the secret its receiver issued,
 * over both boot ids and a counter above the last one seen, so that it
 * cannot be forged by anyone who did not take part in the handshake, nor
 * replayed.
 *
 * RC setup (doc/sessions.md): the nexus of the initiating worker sends
 * RC_REQ with its QP's attributes, again until it gets the RC_ACK of that
 * generation; the other nexus creates and connects its QP (to RTR) and
 * answers RC_ACK with its own (to copies that come while its QP is still
 * being made, an RC_ACK with status BUSY). Both carry a MAC as a HEARTBEAT does, over
 * every byte before it (the type included, so that one is never taken for
 * the other), keyed with the secret the receiver issued: only a nexus
 * that took part in a handshake with the receiver can make one. The
 * generation makes them idempotent: a repeated RC_REQ of the generation
 * set up gets the same RC_ACK again, an older one nothing, so that a
 * duplicate or a replay creates no QP.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmr_transport.h"
#include "pmr_transport_rc.h"

#ifdef __cplusplus
extern "C" {
#endif

/** First four bytes of every message ("PMRN" as a little-endian u32). */
#define NEXUS_WIRE_MAGIC UINT32_C(0x4e524d50)
/**
 * Version of this format (2: boot ids and HEARTBEAT; 3: COOKIE, heartbeat
 * secrets and MACs, granted credits, no token in DISCONNECT; 4: packet
 * sizes in CONNECT_REQ and ACCEPT, REFUSE with MSG_SIZE or FAMILY, the
 * driver's family instead of its name; 5: RC_REQ and RC_ACK).
 */
#define NEXUS_WIRE_VERSION 5

/**
 * Packet payload sizes a CONNECT_REQ or ACCEPT may carry: no worker has
 * packets under the 512 bytes of a multi-packet message's first packet
 * (RPC_FIRST_PKT_MIN, lib/rpc/rpc_msg.h), nor over 64 KiB (a packet is
 * one mbuf, whose buf_len is 16 bits).
 */
#define NEXUS_WIRE_PKT_SIZE_MIN 512
#define NEXUS_WIRE_PKT_SIZE_MAX UINT16_MAX

/** Bytes of the common header. */
#define NEXUS_WIRE_HDR_LEN 16
/** Bytes of each type without its address bytes. */
#define NEXUS_WIRE_CONNECT_REQ_LEN (NEXUS_WIRE_HDR_LEN + 61)
#define NEXUS_WIRE_ACCEPT_LEN (NEXUS_WIRE_HDR_LEN + 39)
#define NEXUS_WIRE_REFUSE_LEN (NEXUS_WIRE_HDR_LEN + 8)
#define NEXUS_WIRE_DISCONNECT_LEN (NEXUS_WIRE_HDR_LEN + 8)
#define NEXUS_WIRE_HEARTBEAT_LEN (NEXUS_WIRE_HDR_LEN + 32)
#define NEXUS_WIRE_COOKIE_LEN (NEXUS_WIRE_HDR_LEN + 12)
#define NEXUS_WIRE_RC_LEN (NEXUS_WIRE_HDR_LEN + 68)
/** Bytes of an RC_REQ or RC_ACK its MAC covers (all before the MAC). */
#define NEXUS_WIRE_RC_MAC_OFF (NEXUS_WIRE_RC_LEN - 8)
/** Bytes of a heartbeat secret. */
#define NEXUS_WIRE_SECRET_LEN 16
/** Longest message. */
#define NEXUS_WIRE_MAX_LEN (NEXUS_WIRE_CONNECT_REQ_LEN + PMR_TRANSPORT_ADDR_MAX)

/** Message types. */
enum nexus_wire_type {
	NEXUS_WIRE_CONNECT_REQ = 1,	/**< Client nexus asks for a session. */
	NEXUS_WIRE_ACCEPT,		/**< Server nexus: session is up. */
	NEXUS_WIRE_REFUSE,		/**< Server nexus: no session. */
	NEXUS_WIRE_DISCONNECT,		/**< Either: the session is gone. */
	NEXUS_WIRE_HEARTBEAT,		/**< Either: still alive. */
	NEXUS_WIRE_COOKIE,		/**< Server nexus: ask again so. */
	NEXUS_WIRE_RC_REQ,		/**< Initiator: my QP, set up yours. */
	NEXUS_WIRE_RC_ACK,		/**< Responder: mine, in RTR. */
};

/** Why nexus_wire_decode() rejected a message (returned negated). */
enum nexus_wire_error {
	NEXUS_WIRE_OK = 0,
	NEXUS_WIRE_E_SHORT,	/**< Shorter than the header. */
	NEXUS_WIRE_E_MAGIC,	/**< Not NEXUS_WIRE_MAGIC. */
	NEXUS_WIRE_E_VERSION,	/**< Not NEXUS_WIRE_VERSION. */
	NEXUS_WIRE_E_TYPE,	/**< Unknown type. */
	NEXUS_WIRE_E_LENGTH,	/**< Length not exactly the type's. */
	NEXUS_WIRE_E_ADDR_LEN,	/**< Address over PMR_TRANSPORT_ADDR_MAX. */
	NEXUS_WIRE_E_NAME,	/**< Driver name not NUL-padded to its end. */
	NEXUS_WIRE_E_STATUS,	/**< Status is not a refusal reason. */
	NEXUS_WIRE_E_BOOT_ID,	/**< A boot id is zero. */
	NEXUS_WIRE_E_HS_ID,	/**< HEARTBEAT with a handshake id. */
	NEXUS_WIRE_E_CREDITS,	/**< Zero credits. */
	NEXUS_WIRE_E_ZERO,	/**< Zero heartbeat counter or cookie. */
	NEXUS_WIRE_E_PKT_SIZE,	/**< Packet size out of its bounds. */
	NEXUS_WIRE_E_RC_ATTR,	/**< RC attribute out of its bounds. */
	NEXUS_WIRE_E_MAX
};

/** CONNECT_REQ: client nexus -> server nexus. */
struct nexus_wire_connect_req {
	uint16_t client_worker;
	uint16_t client_session;
	uint16_t server_worker;
	/** Packets the client may have in flight toward the server. */
	uint16_t credits;
	/** Client worker's packet payload size. */
	uint32_t pkt_size;
	/** Client queue's driver family (pmr_transport_family()). */
	char driver[PMR_TRANSPORT_NAME_MAX];
	uint64_t boot_id;			/**< Client nexus's boot id. */
	uint64_t cookie;	/**< From the server's COOKIE, or 0. */
	/** Heartbeat key the client nexus issues to the server nexus. */
	uint8_t secret[NEXUS_WIRE_SECRET_LEN];
	struct pmr_transport_addr addr;		/**< Client queue's address. */
};

/** ACCEPT: server nexus -> client nexus. */
struct nexus_wire_accept {
	uint16_t client_worker;
	uint16_t client_session;
	uint16_t server_worker;
	uint16_t server_session;
	uint16_t credits;	/**< Granted by the server worker. */
	uint32_t pkt_size;	/**< Server worker's packet payload size. */
	uint64_t boot_id;			/**< Server nexus's boot id. */
	/** Heartbeat key the server nexus issues to the client nexus. */
	uint8_t secret[NEXUS_WIRE_SECRET_LEN];
	struct pmr_transport_addr addr;		/**< Server queue's address. */
};

/** REFUSE: server nexus -> client nexus. */
struct nexus_wire_refuse {
	uint16_t client_worker;
	uint16_t client_session;
	uint16_t server_worker;
	uint16_t status;	/**< enum pmr_sm_status, a refusal reason. */
};

/** DISCONNECT: either nexus -> the other. */
struct nexus_wire_disconnect {
	uint16_t dst_worker;	/**< Receiver's worker. */
	uint16_t dst_session;	/**< Receiver's session. */
	uint16_t src_worker;	/**< Sender's worker. */
	uint16_t src_session;	/**< Sender's session. */
};

/** HEARTBEAT: either nexus -> the other, while they share sessions. */
struct nexus_wire_heartbeat {
	uint64_t boot_id;	/**< Sender's boot id. */
	uint64_t peer_boot_id;	/**< Receiver's, as the sender knows it. */
	uint64_t counter;	/**< Sender's, strictly increasing. */
	uint64_t mac;		/**< nexus_wire_hb_mac() */
};

/** COOKIE: server nexus -> client nexus, in answer to a CONNECT_REQ. */
struct nexus_wire_cookie {
	uint16_t client_worker;
	uint16_t client_session;
	uint64_t cookie;	/**< To repeat in the CONNECT_REQ. */
};

/** RC_REQ or RC_ACK: either nexus -> the other. */
struct nexus_wire_rc {
	uint16_t src_worker;	/**< Sender's worker. */
	uint16_t dst_worker;	/**< Receiver's worker. */
	/** RC_ACK: 0 (in RTR) or a reason (nexus_wire_rc_status_valid()). */
	uint16_t status;
	uint32_t generation;	/**< Initiator's QP count for the pair. */
	uint64_t boot_id;	/**< Sender's boot id. */
	uint64_t peer_boot_id;	/**< Receiver's, as the sender knows it. */
	/** Sender's QP (all zero in an RC_ACK with a non-zero status). */
	struct pmr_transport_rc_attr attr;
	uint64_t mac;		/**< nexus_wire_rc_mac() */
};

/** A message, decoded. */
struct nexus_wire_msg {
	uint16_t type;		/**< enum nexus_wire_type */
	uint64_t hs_id;		/**< Handshake id. */
	union {
		struct nexus_wire_connect_req req;
		struct nexus_wire_accept accept;
		struct nexus_wire_refuse refuse;
		struct nexus_wire_disconnect disc;
		struct nexus_wire_heartbeat hb;
		struct nexus_wire_cookie cookie;
		struct nexus_wire_rc rc;	/**< RC_REQ, RC_ACK */
	};
};

/**
 * Encode a message.
 *
 * @return the number of bytes written to buf, or -EINVAL for a message
 *   that would not decode (unknown type, address too long, driver name
 *   without NUL, status not a refusal reason, zero boot id, credits,
 *   heartbeat counter, cookie or generation, HEARTBEAT, RC_REQ or RC_ACK
 *   with a handshake id, packet size or RC attribute out of bounds,
 *   status not valid for its type), -ENOSPC
 *   if size is too small.
 */
int nexus_wire_encode(const struct nexus_wire_msg *m, uint8_t *buf,
		size_t size);

/**
 * Decode and validate a message of len bytes.
 *
 * @return 0 with *m filled in, or a negated enum nexus_wire_error (*m is
 *   then unspecified).
 */
int nexus_wire_decode(const uint8_t *buf, size_t len,
		struct nexus_wire_msg *m);

/**
 * @return true if status may be carried by a REFUSE: PMR_SM_E_NO_WORKER,
 *   PMR_SM_E_NO_RESOURCES, PMR_SM_E_BAD_REQUEST, PMR_SM_E_REFUSED,
 *   PMR_SM_E_MSG_SIZE or PMR_SM_E_FAMILY.
 */
bool nexus_wire_refuse_status_valid(uint16_t status);

/**
 * The MAC of a HEARTBEAT: SipHash-2-4, keyed with key (the secret the
 * receiver issued to the sender), of the boot id, the peer boot id and
 * the counter, each a little-endian u64, in that order.
 */
uint64_t nexus_wire_hb_mac(const uint8_t key[NEXUS_WIRE_SECRET_LEN],
		const struct nexus_wire_heartbeat *hb);

/**
 * @return true if status may be carried by an RC_ACK: 0 (its QP is in
 *   RTR), PMR_SM_E_NO_WORKER (no such worker), PMR_SM_E_NO_RESOURCES (no
 *   QP to be had), PMR_SM_E_BAD_REQUEST (the attributes were refused) or
 *   PMR_SM_E_FAMILY (the worker's queue has no RC).
 */
bool nexus_wire_rc_status_valid(uint16_t status);

/**
 * The MAC of an RC_REQ or RC_ACK: SipHash-2-4, keyed with key (the secret
 * the receiver issued to the sender), of the message's first
 * NEXUS_WIRE_RC_MAC_OFF bytes as nexus_wire_encode() writes them (m->rc.mac
 * is not an input). m must be a valid RC_REQ or RC_ACK; for any other
 * message the result is 0.
 */
uint64_t nexus_wire_rc_mac(const uint8_t key[NEXUS_WIRE_SECRET_LEN],
		const struct nexus_wire_msg *m);

/** @return a short name of a decode error (for logs). */
const char *nexus_wire_strerror(int err);

#ifdef __cplusplus
}
#endif

#endif /* PMR_NEXUS_WIRE_H */
