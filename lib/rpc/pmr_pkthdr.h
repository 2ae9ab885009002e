/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

#ifndef PMR_PKTHDR_H
#define PMR_PKTHDR_H

/**
 * @file
 * The RPC packet header: 32 bytes in front of every payload, right after
 * the driver's own header. One packed struct of four little-endian 64-bit
 * words, with encode and decode as pure functions (no EAL): unit tests
 * and fuzz targets link them directly. Decode validates every field.
 *
 * Version 2 (issue 10): the session token is 64 bits, so that an
 * off-path sender cannot find it by trying; the session's data address
 * learns it from a TOKEN packet (struct pmr_pkt_token), never from a
 * nexus datagram.
 *
 * Version 3 (issue 17): descriptors of messages sent by RDMA READ
 * (PMR_PKT_REQ_DESC, PMR_PKT_RESP_DESC; doc/rendezvous.md).
 */

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_byteorder.h>
#include <rte_common.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PMR_PKTHDR_MAGIC 0xa7	/**< First byte of every packet. */
#define PMR_PKTHDR_VERSION 3	/**< Wire version this build speaks. */
#define PMR_REQ_NUM_BITS 56	/**< Request numbers wrap past 2^56. */
#define PMR_REQ_NUM_MASK ((UINT64_C(1) << PMR_REQ_NUM_BITS) - 1)

/**
 * Packet types. A message of more than one packet is sent as packets
 * 0..n-1 of equal payload but the last; pkt_num is the index.
 */
enum pmr_pkt_type {
	PMR_PKT_REQ = 1,	/**< Packet pkt_num of a request. */
	PMR_PKT_RESP = 2,	/**< Packet pkt_num of a response; status. */
	PMR_PKT_CR = 3,		/**< Credit return: request packet pkt_num
				 * arrived (not sent for the last one). */
	PMR_PKT_RFR = 4,	/**< Request for response packet pkt_num. */
	/**
	 * Server to client, once per handshake (a few copies): the
	 * session's token in the header, struct pmr_pkt_token as payload.
	 */
	PMR_PKT_TOKEN = 5,
	/**
	 * Client to server: a request sent by RDMA READ, in place of its
	 * packets (the request's only packet, answered by response packet
	 * 0); struct pmr_pkt_desc as payload, msg_size the request's size.
	 */
	PMR_PKT_REQ_DESC = 6,
	/** Server to client: response packet 0 of a response sent by READ. */
	PMR_PKT_RESP_DESC = 7,
	PMR_PKT_TYPE_MAX
};

/** The header on the wire. */
struct pmr_pkthdr_wire {
	/* Word 0 */
	uint8_t magic;
	uint8_t version;
	uint8_t pkt_type;	/**< enum pmr_pkt_type */
	uint8_t req_type;	/**< The application's request type. */
	rte_le16_t dest_session; /**< Session number at the receiver. */
	rte_le16_t pkt_num;	/**< Packet index in the message. */
	/* Word 1 */
	rte_le32_t msg_size;	/**< Bytes of the whole message. */
	rte_le32_t reserved;	/**< Zero. */
	/* Word 2 */
	rte_le64_t token;	/**< The session's random token. */
	/* Word 3 */
	/** Low 56 bits: request number; high 8 bits: status (responses). */
	rte_le64_t req_num_status;
} __rte_packed;

/** Bytes of the header on the wire. */
#define PMR_PKTHDR_LEN ((uint32_t)sizeof(struct pmr_pkthdr_wire))

/**
 * The header's fields, decoded: four 64-bit words laid out so that
 * pmr_pkthdr_decode() stores each wire word (or two halves of one) at
 * once on a little-endian host, not field by field. Word 0 is the wire's
 * word 0, magic and version included.
 */
struct pmr_pkthdr {
	uint8_t magic;		/**< As received; encode ignores it. */
	uint8_t version;	/**< As received; encode ignores it. */
	uint8_t pkt_type;
	uint8_t req_type;
	uint16_t dest_session;
	uint16_t pkt_num;
	uint32_t msg_size;
	uint8_t status;		/**< enum pmr_status of a response, else 0. */
	uint64_t token;
	uint64_t req_num;	/**< PMR_REQ_NUM_BITS bits. */
};

/** Why decoding failed; 0 means the header is valid. */
enum pmr_pkthdr_err {
	PMR_PKTHDR_OK = 0,
	PMR_PKTHDR_E_SHORT,	/**< Shorter than the header. */
	PMR_PKTHDR_E_MAGIC,	/**< Not a pmrpc packet. */
	PMR_PKTHDR_E_VERSION,	/**< Another wire version. */
	PMR_PKTHDR_E_TYPE,	/**< Unknown packet type. */
	PMR_PKTHDR_E_PKT_NUM,	/**< A later packet holding a whole message. */
	PMR_PKTHDR_E_SIZE,	/**< Payload inconsistent with msg_size. */
	PMR_PKTHDR_E_STATUS,	/**< Status on a non-response, or too big. */
	PMR_PKTHDR_E_RESERVED,	/**< A reserved or unused field not zero. */
	PMR_PKTHDR_E_MAX
};

/** @return a short name for a decode error ("magic"). */
const char *pmr_pkthdr_err_name(unsigned int err);

/**
 * Write a header from its fields into buf (PMR_PKTHDR_LEN bytes): the
 * bytes of struct pmr_pkthdr_wire as four little-endian 64-bit words, so
 * the hot path does four stores. buf need not be aligned.
 */
static inline void
pmr_pkthdr_write(void *buf, uint8_t pkt_type, uint8_t req_type,
		uint16_t dest_session, uint16_t pkt_num, uint32_t msg_size,
		uint64_t token, uint64_t req_num, uint8_t status)
{
	uint8_t *p = (uint8_t *)buf;
	uint64_t w0, w1, w2, w3;

	w0 = rte_cpu_to_le_64(PMR_PKTHDR_MAGIC |
			(uint64_t)PMR_PKTHDR_VERSION << 8 |
			(uint64_t)pkt_type << 16 | (uint64_t)req_type << 24 |
			(uint64_t)dest_session << 32 |
			(uint64_t)pkt_num << 48);
	w1 = rte_cpu_to_le_64((uint64_t)msg_size);
	w2 = rte_cpu_to_le_64(token);
	w3 = rte_cpu_to_le_64((req_num & PMR_REQ_NUM_MASK) |
			((uint64_t)status << PMR_REQ_NUM_BITS));
	memcpy(p, &w0, sizeof(w0));
	memcpy(p + 8, &w1, sizeof(w1));
	memcpy(p + 16, &w2, sizeof(w2));
	memcpy(p + 24, &w3, sizeof(w3));
}

/** Write h into buf (PMR_PKTHDR_LEN bytes). */
static inline void
pmr_pkthdr_encode(void *buf, const struct pmr_pkthdr *h)
{
	pmr_pkthdr_write(buf, h->pkt_type, h->req_type, h->dest_session,
			h->pkt_num, h->msg_size, h->token, h->req_num,
			h->status);
}

/** Number of response statuses a header may carry (enum pmr_status). */
#define PMR_PKTHDR_STATUS_MAX 16

/**
 * The payload of a TOKEN packet, decoded. The packet's header carries the
 * session's token and the client's session number (dest_session); the
 * client believes it only if hs_id is the one it picked for the handshake.
 */
struct pmr_pkt_token {
	uint64_t hs_id;		/**< The client worker's handshake id. */
	uint16_t server_session; /**< The session's number at the server. */
	uint16_t credits;	/**< Credits the server granted, >= 1. */
};

/**
 * Bytes of a TOKEN packet's payload: hs_id (le64), server_session (le16),
 * credits (le16), 4 reserved bytes (zero).
 */
#define PMR_PKT_TOKEN_LEN 16

/** Write t as a TOKEN packet's payload (PMR_PKT_TOKEN_LEN bytes). */
static inline void
pmr_pkt_token_encode(void *buf, const struct pmr_pkt_token *t)
{
	uint8_t *p = (uint8_t *)buf;
	uint64_t w0 = rte_cpu_to_le_64(t->hs_id);
	uint64_t w1 = rte_cpu_to_le_64((uint64_t)t->server_session |
			(uint64_t)t->credits << 16);

	memcpy(p, &w0, sizeof(w0));
	memcpy(p + 8, &w1, sizeof(w1));
}

/**
 * Decode a TOKEN packet's payload of len bytes (what follows a header
 * pmr_pkthdr_decode() accepted).
 *
 * @return 0 with t filled, or -EINVAL: wrong length, hs_id or credits 0,
 *   reserved bytes not zero.
 */
static inline int
pmr_pkt_token_decode(const void *buf, uint32_t len, struct pmr_pkt_token *t)
{
	const uint8_t *p = (const uint8_t *)buf;
	uint64_t w0, w1;

	if (len != PMR_PKT_TOKEN_LEN)
		return -EINVAL;
	memcpy(&w0, p, sizeof(w0));
	memcpy(&w1, p + 8, sizeof(w1));
	w0 = rte_le_to_cpu_64(w0);
	w1 = rte_le_to_cpu_64(w1);
	t->hs_id = w0;
	t->server_session = (uint16_t)w1;
	t->credits = (uint16_t)(w1 >> 16);
	if (t->hs_id == 0 || t->credits == 0 || (w1 >> 32) != 0)
		return -EINVAL;
	return 0;
}

/**
 * The payload of a descriptor packet (PMR_PKT_REQ_DESC, _RESP_DESC): where
 * the message lies at its sender and the key that reads it there; its
 * size is the header's msg_size.
 */
struct pmr_pkt_desc {
	uint64_t addr;		/**< The message's first byte. */
	uint32_t rkey;		/**< A window's key, or a pair region's */
	/**
	 * The number of the sender's RC QP the offer is bound on (24
	 * bits): the reader reads it only through the QP connected to
	 * that one, else asks for the message as datagrams.
	 */
	uint32_t qpn;
};

/**
 * Bytes of a descriptor's payload: addr (le64), rkey (le32), qpn (le32,
 * its high byte zero).
 */
#define PMR_PKT_DESC_LEN 16

/** Write d as a descriptor's payload (PMR_PKT_DESC_LEN bytes). */
static inline void
pmr_pkt_desc_encode(void *buf, const struct pmr_pkt_desc *d)
{
	uint8_t *p = (uint8_t *)buf;
	uint64_t w0 = rte_cpu_to_le_64(d->addr);
	uint64_t w1 = rte_cpu_to_le_64((uint64_t)d->rkey |
			(uint64_t)d->qpn << 32);

	memcpy(p, &w0, sizeof(w0));
	memcpy(p + 8, &w1, sizeof(w1));
}

/**
 * Decode a descriptor's payload of len bytes (what follows a header
 * pmr_pkthdr_decode() accepted).
 *
 * @return 0 with d filled, or -EINVAL: wrong length, a QP number over
 *   24 bits.
 */
static inline int
pmr_pkt_desc_decode(const void *buf, uint32_t len, struct pmr_pkt_desc *d)
{
	const uint8_t *p = (const uint8_t *)buf;
	uint64_t w0, w1;

	if (len != PMR_PKT_DESC_LEN)
		return -EINVAL;
	memcpy(&w0, p, sizeof(w0));
	memcpy(&w1, p + 8, sizeof(w1));
	w1 = rte_le_to_cpu_64(w1);
	if ((w1 >> 56) != 0)
		return -EINVAL;
	d->addr = rte_le_to_cpu_64(w0);
	d->rkey = (uint32_t)w1;
	d->qpn = (uint32_t)(w1 >> 32);
	return 0;
}

/*
 * pmr_pkthdr_decode()'s checks of a header's sizes, type against payload,
 * and status, from the wire words w0 (type, request type, packet number)
 * and rs (request number and status).
 */
static inline enum pmr_pkthdr_err
pmr_pkthdr_check_size(uint8_t type, uint16_t pkt_num, uint32_t msg_size,
		uint32_t len, uint64_t w0, uint64_t rs)
{
	uint8_t status = (uint8_t)(rs >> PMR_REQ_NUM_BITS);

	if (likely(type <= PMR_PKT_RESP)) {	/* PMR_PKT_REQ or _RESP */
		if (unlikely(pkt_num != 0 && len >= msg_size))
			return PMR_PKTHDR_E_PKT_NUM;
		if (unlikely(len > msg_size || (len == 0 && msg_size != 0)))
			return PMR_PKTHDR_E_SIZE;
	} else if (unlikely(type == PMR_PKT_TOKEN)) {
		if (pkt_num != 0)
			return PMR_PKTHDR_E_PKT_NUM;
		if (len != PMR_PKT_TOKEN_LEN || msg_size != len)
			return PMR_PKTHDR_E_SIZE;
		if ((uint8_t)(w0 >> 24) != 0 ||
		    (rs & PMR_REQ_NUM_MASK) != 0)
			return PMR_PKTHDR_E_RESERVED;
	} else if (type == PMR_PKT_REQ_DESC || type == PMR_PKT_RESP_DESC) {
		if (pkt_num != 0)
			return PMR_PKTHDR_E_PKT_NUM;
		if (len != PMR_PKT_DESC_LEN || msg_size == 0)
			return PMR_PKTHDR_E_SIZE;
	} else if (unlikely(len != 0)) {
		return PMR_PKTHDR_E_SIZE;
	}
	if (unlikely(status != 0 && (status >= PMR_PKTHDR_STATUS_MAX ||
				     type != PMR_PKT_RESP)))
		return PMR_PKTHDR_E_STATUS;
	return PMR_PKTHDR_OK;
}

/**
 * Decode and validate the header of a packet of len bytes (header and
 * payload), in this order: length, magic, version, type, then the fields
 * (h is filled from there on, also when they fail). The reserved field is
 * zero. A request or response packet carries a payload of 1..msg_size
 * bytes (0 only for an empty message), and only packet 0 may hold the
 * whole message; credit returns and requests for response carry no
 * payload; a TOKEN packet is packet 0 of a PMR_PKT_TOKEN_LEN message,
 * whole, with request type and number 0; a descriptor is packet 0 of a
 * message of 1 or more bytes with a PMR_PKT_DESC_LEN payload. Where a
 * packet's payload lies in its message is for the receiver's state to
 * check.
 *
 * @return PMR_PKTHDR_OK with h filled, or an enum pmr_pkthdr_err.
 */
static inline enum pmr_pkthdr_err
pmr_pkthdr_decode(const void *buf, uint32_t len, struct pmr_pkthdr *h)
{
	const uint8_t *p = (const uint8_t *)buf;
	uint64_t w0, w1, tok, rs;
	uint8_t type;

	RTE_BUILD_BUG_ON(4 * sizeof(w0) != PMR_PKTHDR_LEN);
	RTE_BUILD_BUG_ON(PMR_PKT_REQ != 1 || PMR_PKT_RESP != 2 ||
		PMR_PKT_RFR != PMR_PKT_CR + 1);
	if (unlikely(len < PMR_PKTHDR_LEN))
		return PMR_PKTHDR_E_SHORT;
	/* Four scalar loads (one array would go through the stack). */
	memcpy(&w0, p, sizeof(w0));
	memcpy(&w1, p + 8, sizeof(w1));
	memcpy(&tok, p + 16, sizeof(tok));
	memcpy(&rs, p + 24, sizeof(rs));
	w0 = rte_le_to_cpu_64(w0);
	w1 = rte_le_to_cpu_64(w1);
	tok = rte_le_to_cpu_64(tok);
	rs = rte_le_to_cpu_64(rs);
	if (unlikely((w0 & 0xffff) !=
		     (PMR_PKTHDR_MAGIC | PMR_PKTHDR_VERSION << 8))) {
		if ((uint8_t)w0 != PMR_PKTHDR_MAGIC)
			return PMR_PKTHDR_E_MAGIC;
		return PMR_PKTHDR_E_VERSION;
	}
	type = (uint8_t)(w0 >> 16);
	/* Unsigned: type 0 wraps to the top. */
	if (unlikely((uint8_t)(type - 1) >= PMR_PKT_TYPE_MAX - 1))
		return PMR_PKTHDR_E_TYPE;
	/* Word by word; the fields are read from h where they are used. */
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
	{
		uint64_t w1s = (uint32_t)w1 |
			(rs >> PMR_REQ_NUM_BITS) << 32;	/* size, status */

		RTE_BUILD_BUG_ON(offsetof(struct pmr_pkthdr, msg_size) != 8 ||
			offsetof(struct pmr_pkthdr, status) != 12);
		memcpy(h, &w0, sizeof(w0));
		memcpy((uint8_t *)h + 8, &w1s, sizeof(w1s));
	}
#else
	h->magic = (uint8_t)w0;
	h->version = (uint8_t)(w0 >> 8);
	h->pkt_type = type;
	h->req_type = (uint8_t)(w0 >> 24);
	h->dest_session = (uint16_t)(w0 >> 32);
	h->pkt_num = (uint16_t)(w0 >> 48);
	h->msg_size = (uint32_t)w1;
	h->status = (uint8_t)(rs >> PMR_REQ_NUM_BITS);
#endif
	h->token = tok;
	h->req_num = rs & PMR_REQ_NUM_MASK;
	len -= PMR_PKTHDR_LEN;
	/*
	 * The common shapes in one test: no reserved bit, no status, and
	 * either a request or response whole in its packet 0 or a credit
	 * return or request for response without payload.
	 */
	if (likely(((w1 >> 32) | (rs >> PMR_REQ_NUM_BITS)) == 0 &&
		   (type <= PMR_PKT_RESP ?
		    (w0 >> 48) == 0 && (uint32_t)w1 == len :
		    (uint8_t)(type - PMR_PKT_CR) <= 1 && len == 0)))
		return PMR_PKTHDR_OK;
	if (unlikely((w1 >> 32) != 0))
		return PMR_PKTHDR_E_RESERVED;
	return pmr_pkthdr_check_size(type, (uint16_t)(w0 >> 48),
			(uint32_t)w1, len, w0, rs);
}

/**
 * The data path's shape test, ahead of pmr_pkthdr_decode(): is the
 * packet of len bytes a request or a response whole in its packet 0
 * (packet number 0, msg_size the payload's length, reserved field and
 * status zero) of this wire version? Such a header is valid (decode
 * accepts it and fills h the same); any other goes to decode. Three tests
 * of the wire words where decode takes a dozen: the magic, version, type
 * and packet number in one masked word, size and reserved field in one
 * compare, the status in one shift.
 *
 * @return PMR_PKT_REQ or PMR_PKT_RESP with h filled, or 0 with h
 *   undefined.
 */
static inline uint8_t
pmr_pkthdr_whole(const void *buf, uint32_t len, struct pmr_pkthdr *h)
{
	/* Magic, version, type, packet number: the bytes tested in word 0. */
	const uint64_t mask = UINT64_C(0xffff000000ffffff);
	const uint64_t req = PMR_PKTHDR_MAGIC | PMR_PKTHDR_VERSION << 8 |
		(uint64_t)PMR_PKT_REQ << 16;
	const uint8_t *p = (const uint8_t *)buf;
	uint64_t w0, w1, rs;

	if (unlikely(len < PMR_PKTHDR_LEN))
		return 0;
	memcpy(&w0, p, sizeof(w0));
	memcpy(&w1, p + 8, sizeof(w1));
	memcpy(&rs, p + 24, sizeof(rs));
	w0 = rte_le_to_cpu_64(w0);
	w1 = rte_le_to_cpu_64(w1);
	rs = rte_le_to_cpu_64(rs);
	/* Type 1 or 2 (PMR_PKT_REQ, _RESP): word 0 is req + 0 or + 1 << 16. */
	if ((((w0 & mask) - req) & ~(UINT64_C(1) << 16)) != 0 ||
	    w1 != len - PMR_PKTHDR_LEN || (rs >> PMR_REQ_NUM_BITS) != 0)
		return 0;
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
	/*
	 * The reserved field and the status are zero: the struct's words
	 * are the wire's (status and padding zero, req_num all of word 3).
	 */
	RTE_BUILD_BUG_ON(sizeof(*h) != PMR_PKTHDR_LEN);
	memcpy(h, p, PMR_PKTHDR_LEN);
#else
	h->magic = (uint8_t)w0;
	h->version = (uint8_t)(w0 >> 8);
	h->pkt_type = (uint8_t)(w0 >> 16);
	h->req_type = (uint8_t)(w0 >> 24);
	h->dest_session = (uint16_t)(w0 >> 32);
	h->pkt_num = 0;
	h->msg_size = (uint32_t)w1;
	h->status = 0;
	memcpy(&h->token, p + 16, sizeof(h->token));
	h->token = rte_le_to_cpu_64(h->token);
	h->req_num = rs;
#endif
	return (uint8_t)(w0 >> 16);
}

#ifdef __cplusplus
}
#endif

#endif /* PMR_PKTHDR_H */
