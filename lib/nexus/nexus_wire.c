/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * Encoding and validating decoding of the UDP messages between nexuses
 * (layout in nexus_wire.h). Byte by byte, so host byte order and alignment
 * do not matter.
 */

#include <errno.h>
#include <string.h>

#include "nexus_siphash.h"
#include "nexus_wire.h"
#include "pmr_nexus_worker.h"

/* Offsets shared by the types (see the layout in nexus_wire.h). */
#define OFF_MAGIC	0
#define OFF_VERSION	4
#define OFF_TYPE	6
#define OFF_HS_ID	8
#define OFF_W0		16	/* first u16 of every body */
#define OFF_W1		18
#define OFF_W2		20
#define OFF_W3		22	/* ACCEPT, REFUSE, DISCONNECT */
#define OFF_REQ_DRIVER	22
#define OFF_REQ_CREDITS	(OFF_REQ_DRIVER + PMR_TRANSPORT_NAME_MAX)
#define OFF_REQ_PKT	(OFF_REQ_CREDITS + 2)
#define OFF_REQ_BOOT	(OFF_REQ_PKT + 4)
#define OFF_REQ_COOKIE	(OFF_REQ_BOOT + 8)
#define OFF_REQ_SECRET	(OFF_REQ_COOKIE + 8)
#define OFF_REQ_ADDR	(OFF_REQ_SECRET + NEXUS_WIRE_SECRET_LEN)
#define OFF_ACC_CREDITS	24
#define OFF_ACC_PKT	26
#define OFF_ACC_BOOT	(OFF_ACC_PKT + 4)
#define OFF_ACC_SECRET	(OFF_ACC_BOOT + 8)
#define OFF_ACC_ADDR	(OFF_ACC_SECRET + NEXUS_WIRE_SECRET_LEN)
#define OFF_HB_BOOT	16
#define OFF_HB_PEER	24
#define OFF_HB_COUNTER	32
#define OFF_HB_MAC	40
#define OFF_CK_COOKIE	20
#define OFF_RC_STATUS	20
#define OFF_RC_GEN	22
#define OFF_RC_BOOT	26
#define OFF_RC_PEER	34
#define OFF_RC_QPN	42
#define OFF_RC_PSN	46
#define OFF_RC_GID	50
#define OFF_RC_MTU	66
#define OFF_RC_RD	70
#define OFF_RC_MAX_RD	71
#define OFF_RC_MAX_MSG	72
#define OFF_RC_MAC	NEXUS_WIRE_RC_MAC_OFF

static inline void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void
put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)v);
	put16(p + 2, (uint16_t)(v >> 16));
}

static inline void
put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

static inline uint16_t
get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}

static inline uint32_t
get32(const uint8_t *p)
{
	return get16(p) | ((uint32_t)get16(p + 2) << 16);
}

static inline uint64_t
get64(const uint8_t *p)
{
	return get32(p) | ((uint64_t)get32(p + 4) << 32);
}

bool
nexus_wire_refuse_status_valid(uint16_t status)
{
	return status == PMR_SM_E_NO_WORKER ||
		status == PMR_SM_E_NO_RESOURCES ||
		status == PMR_SM_E_BAD_REQUEST ||
		status == PMR_SM_E_REFUSED ||
		status == PMR_SM_E_MSG_SIZE ||
		status == PMR_SM_E_FAMILY;
}

bool
nexus_wire_rc_status_valid(uint16_t status)
{
	return status == 0 ||
		status == PMR_SM_E_NO_WORKER ||
		status == PMR_SM_E_NO_RESOURCES ||
		status == PMR_SM_E_BAD_REQUEST ||
		status == PMR_SM_E_FAMILY ||
		status == PMR_SM_E_SHARE ||
		status == PMR_SM_E_BUSY;
}

/*
 * The attributes of a QP as pmr_transport_rc_connect() takes them (the
 * verbs driver refuses the same), or all zero with a refusing status.
 */
static bool
rc_attr_valid(uint16_t status, const struct pmr_transport_rc_attr *a)
{
	static const struct pmr_transport_rc_attr zero;

	if (status != 0)
		return a->qpn == 0 && a->psn == 0 && a->mtu == 0 &&
			a->rd_credits == 0 && a->max_rd_atomic == 0 &&
			a->max_msg_size == 0 &&
			memcmp(a->gid, zero.gid, sizeof(a->gid)) == 0;
	return a->qpn <= 0xffffff && a->psn <= 0xffffff &&
		(a->mtu == 256 || a->mtu == 512 || a->mtu == 1024 ||
		 a->mtu == 2048 || a->mtu == 4096) &&
		a->rd_credits != 0 &&
		(a->max_msg_size == 0 || a->max_msg_size >= 4096);
}

static bool
rc_valid(uint16_t type, uint64_t hs_id, const struct nexus_wire_rc *r)
{
	if (hs_id != 0 || r->generation == 0 || r->boot_id == 0 ||
	    r->peer_boot_id == 0)
		return false;
	if (type == NEXUS_WIRE_RC_REQ ? r->status != 0 :
	    !nexus_wire_rc_status_valid(r->status))
		return false;
	return rc_attr_valid(r->status, &r->attr);
}

/* The body of an RC_REQ or RC_ACK, MAC included. */
static void
put_rc(uint8_t *buf, const struct nexus_wire_rc *r)
{
	put16(buf + OFF_W0, r->src_worker);
	put16(buf + OFF_W1, r->dst_worker);
	put16(buf + OFF_RC_STATUS, r->status);
	put32(buf + OFF_RC_GEN, r->generation);
	put64(buf + OFF_RC_BOOT, r->boot_id);
	put64(buf + OFF_RC_PEER, r->peer_boot_id);
	put32(buf + OFF_RC_QPN, r->attr.qpn);
	put32(buf + OFF_RC_PSN, r->attr.psn);
	memcpy(buf + OFF_RC_GID, r->attr.gid, sizeof(r->attr.gid));
	put32(buf + OFF_RC_MTU, r->attr.mtu);
	buf[OFF_RC_RD] = r->attr.rd_credits;
	buf[OFF_RC_MAX_RD] = r->attr.max_rd_atomic;
	put32(buf + OFF_RC_MAX_MSG, r->attr.max_msg_size);
	put64(buf + OFF_RC_MAC, r->mac);
}

static bool
pkt_size_valid(uint32_t pkt_size)
{
	return pkt_size >= NEXUS_WIRE_PKT_SIZE_MIN &&
		pkt_size <= NEXUS_WIRE_PKT_SIZE_MAX;
}

/* A name field is valid if it has a NUL and only zeros after it. */
static bool
name_valid(const uint8_t *p)
{
	const uint8_t *nul = memchr(p, '\0', PMR_TRANSPORT_NAME_MAX);
	const uint8_t *end = p + PMR_TRANSPORT_NAME_MAX;

	if (nul == NULL)
		return false;
	for (; nul < end; nul++)
		if (*nul != 0)
			return false;
	return true;
}

/* Put an address as its length byte and its bytes; return bytes written. */
static size_t
put_addr(uint8_t *p, const struct pmr_transport_addr *addr)
{
	p[0] = addr->len;
	memcpy(p + 1, addr->bytes, addr->len);
	return 1 + (size_t)addr->len;
}

/*
 * Read an address at off, which must be followed by exactly trail bytes
 * to the end of the message. Return 0 or a negated enum nexus_wire_error.
 */
static int
get_addr(const uint8_t *buf, size_t len, size_t off, size_t trail,
		struct pmr_transport_addr *addr)
{
	uint8_t alen;

	if (len <= off)
		return -NEXUS_WIRE_E_LENGTH;
	alen = buf[off];
	if (alen > PMR_TRANSPORT_ADDR_MAX)
		return -NEXUS_WIRE_E_ADDR_LEN;
	if (len != off + 1 + alen + trail)
		return -NEXUS_WIRE_E_LENGTH;
	memset(addr, 0, sizeof(*addr));
	addr->len = alen;
	memcpy(addr->bytes, buf + off + 1, alen);
	return 0;
}

static size_t
encoded_len(const struct nexus_wire_msg *m)
{
	switch (m->type) {
	case NEXUS_WIRE_CONNECT_REQ:
		return NEXUS_WIRE_CONNECT_REQ_LEN + m->req.addr.len;
	case NEXUS_WIRE_ACCEPT:
		return NEXUS_WIRE_ACCEPT_LEN + m->accept.addr.len;
	case NEXUS_WIRE_REFUSE:
		return NEXUS_WIRE_REFUSE_LEN;
	case NEXUS_WIRE_DISCONNECT:
		return NEXUS_WIRE_DISCONNECT_LEN;
	case NEXUS_WIRE_HEARTBEAT:
		return NEXUS_WIRE_HEARTBEAT_LEN;
	case NEXUS_WIRE_COOKIE:
		return NEXUS_WIRE_COOKIE_LEN;
	case NEXUS_WIRE_RC_REQ:
	case NEXUS_WIRE_RC_ACK:
		return NEXUS_WIRE_RC_LEN;
	default:
		return 0;
	}
}

int
nexus_wire_encode(const struct nexus_wire_msg *m, uint8_t *buf, size_t size)
{
	size_t len;

	if (m == NULL || buf == NULL)
		return -EINVAL;
	len = encoded_len(m);
	if (len == 0)
		return -EINVAL;
	switch (m->type) {
	case NEXUS_WIRE_CONNECT_REQ:
		if (m->req.addr.len > PMR_TRANSPORT_ADDR_MAX ||
		    m->req.boot_id == 0 || m->req.credits == 0 ||
		    !pkt_size_valid(m->req.pkt_size) ||
		    memchr(m->req.driver, '\0', sizeof(m->req.driver)) == NULL)
			return -EINVAL;
		break;
	case NEXUS_WIRE_ACCEPT:
		if (m->accept.addr.len > PMR_TRANSPORT_ADDR_MAX ||
		    m->accept.boot_id == 0 || m->accept.credits == 0 ||
		    !pkt_size_valid(m->accept.pkt_size))
			return -EINVAL;
		break;
	case NEXUS_WIRE_HEARTBEAT:
		if (m->hs_id != 0 || m->hb.boot_id == 0 ||
		    m->hb.peer_boot_id == 0 || m->hb.counter == 0)
			return -EINVAL;
		break;
	case NEXUS_WIRE_COOKIE:
		if (m->cookie.cookie == 0)
			return -EINVAL;
		break;
	case NEXUS_WIRE_REFUSE:
		if (!nexus_wire_refuse_status_valid(m->refuse.status))
			return -EINVAL;
		break;
	case NEXUS_WIRE_RC_REQ:
	case NEXUS_WIRE_RC_ACK:
		if (!rc_valid(m->type, m->hs_id, &m->rc))
			return -EINVAL;
		break;
	default:
		break;
	}
	if (size < len)
		return -ENOSPC;

	memset(buf, 0, len);
	put32(buf + OFF_MAGIC, NEXUS_WIRE_MAGIC);
	put16(buf + OFF_VERSION, NEXUS_WIRE_VERSION);
	put16(buf + OFF_TYPE, m->type);
	put64(buf + OFF_HS_ID, m->hs_id);
	switch (m->type) {
	case NEXUS_WIRE_CONNECT_REQ:
		put16(buf + OFF_W0, m->req.client_worker);
		put16(buf + OFF_W1, m->req.client_session);
		put16(buf + OFF_W2, m->req.server_worker);
		/* Zero-padded after the NUL (buf was cleared). */
		memcpy(buf + OFF_REQ_DRIVER, m->req.driver,
				strlen(m->req.driver));
		put16(buf + OFF_REQ_CREDITS, m->req.credits);
		put32(buf + OFF_REQ_PKT, m->req.pkt_size);
		put64(buf + OFF_REQ_BOOT, m->req.boot_id);
		put64(buf + OFF_REQ_COOKIE, m->req.cookie);
		memcpy(buf + OFF_REQ_SECRET, m->req.secret,
				NEXUS_WIRE_SECRET_LEN);
		put_addr(buf + OFF_REQ_ADDR, &m->req.addr);
		break;
	case NEXUS_WIRE_ACCEPT:
		put16(buf + OFF_W0, m->accept.client_worker);
		put16(buf + OFF_W1, m->accept.client_session);
		put16(buf + OFF_W2, m->accept.server_worker);
		put16(buf + OFF_W3, m->accept.server_session);
		put16(buf + OFF_ACC_CREDITS, m->accept.credits);
		put32(buf + OFF_ACC_PKT, m->accept.pkt_size);
		put64(buf + OFF_ACC_BOOT, m->accept.boot_id);
		memcpy(buf + OFF_ACC_SECRET, m->accept.secret,
				NEXUS_WIRE_SECRET_LEN);
		put_addr(buf + OFF_ACC_ADDR, &m->accept.addr);
		break;
	case NEXUS_WIRE_REFUSE:
		put16(buf + OFF_W0, m->refuse.client_worker);
		put16(buf + OFF_W1, m->refuse.client_session);
		put16(buf + OFF_W2, m->refuse.server_worker);
		put16(buf + OFF_W3, m->refuse.status);
		break;
	case NEXUS_WIRE_DISCONNECT:
		put16(buf + OFF_W0, m->disc.dst_worker);
		put16(buf + OFF_W1, m->disc.dst_session);
		put16(buf + OFF_W2, m->disc.src_worker);
		put16(buf + OFF_W3, m->disc.src_session);
		break;
	case NEXUS_WIRE_HEARTBEAT:
		put64(buf + OFF_HB_BOOT, m->hb.boot_id);
		put64(buf + OFF_HB_PEER, m->hb.peer_boot_id);
		put64(buf + OFF_HB_COUNTER, m->hb.counter);
		put64(buf + OFF_HB_MAC, m->hb.mac);
		break;
	case NEXUS_WIRE_COOKIE:
		put16(buf + OFF_W0, m->cookie.client_worker);
		put16(buf + OFF_W1, m->cookie.client_session);
		put64(buf + OFF_CK_COOKIE, m->cookie.cookie);
		break;
	case NEXUS_WIRE_RC_REQ:
	case NEXUS_WIRE_RC_ACK:
		put_rc(buf, &m->rc);
		break;
	}
	return (int)len;
}

static int
decode_connect_req(const uint8_t *buf, size_t len,
		struct nexus_wire_connect_req *r)
{
	if (len < NEXUS_WIRE_CONNECT_REQ_LEN)
		return -NEXUS_WIRE_E_LENGTH;
	r->client_worker = get16(buf + OFF_W0);
	r->client_session = get16(buf + OFF_W1);
	r->server_worker = get16(buf + OFF_W2);
	if (!name_valid(buf + OFF_REQ_DRIVER))
		return -NEXUS_WIRE_E_NAME;
	memcpy(r->driver, buf + OFF_REQ_DRIVER, PMR_TRANSPORT_NAME_MAX);
	r->credits = get16(buf + OFF_REQ_CREDITS);
	if (r->credits == 0)
		return -NEXUS_WIRE_E_CREDITS;
	r->pkt_size = get32(buf + OFF_REQ_PKT);
	if (!pkt_size_valid(r->pkt_size))
		return -NEXUS_WIRE_E_PKT_SIZE;
	r->boot_id = get64(buf + OFF_REQ_BOOT);
	if (r->boot_id == 0)
		return -NEXUS_WIRE_E_BOOT_ID;
	r->cookie = get64(buf + OFF_REQ_COOKIE);
	memcpy(r->secret, buf + OFF_REQ_SECRET, NEXUS_WIRE_SECRET_LEN);
	return get_addr(buf, len, OFF_REQ_ADDR, 0, &r->addr);
}

static int
decode_accept(const uint8_t *buf, size_t len, struct nexus_wire_accept *a)
{
	int ret;

	if (len < NEXUS_WIRE_ACCEPT_LEN)
		return -NEXUS_WIRE_E_LENGTH;
	a->client_worker = get16(buf + OFF_W0);
	a->client_session = get16(buf + OFF_W1);
	a->server_worker = get16(buf + OFF_W2);
	a->server_session = get16(buf + OFF_W3);
	a->credits = get16(buf + OFF_ACC_CREDITS);
	if (a->credits == 0)
		return -NEXUS_WIRE_E_CREDITS;
	a->pkt_size = get32(buf + OFF_ACC_PKT);
	if (!pkt_size_valid(a->pkt_size))
		return -NEXUS_WIRE_E_PKT_SIZE;
	a->boot_id = get64(buf + OFF_ACC_BOOT);
	if (a->boot_id == 0)
		return -NEXUS_WIRE_E_BOOT_ID;
	memcpy(a->secret, buf + OFF_ACC_SECRET, NEXUS_WIRE_SECRET_LEN);
	ret = get_addr(buf, len, OFF_ACC_ADDR, 0, &a->addr);
	if (ret != 0)
		return ret;
	return 0;
}

static int
decode_refuse(const uint8_t *buf, size_t len, struct nexus_wire_refuse *r)
{
	if (len != NEXUS_WIRE_REFUSE_LEN)
		return -NEXUS_WIRE_E_LENGTH;
	r->client_worker = get16(buf + OFF_W0);
	r->client_session = get16(buf + OFF_W1);
	r->server_worker = get16(buf + OFF_W2);
	r->status = get16(buf + OFF_W3);
	if (!nexus_wire_refuse_status_valid(r->status))
		return -NEXUS_WIRE_E_STATUS;
	return 0;
}

static int
decode_disconnect(const uint8_t *buf, size_t len,
		struct nexus_wire_disconnect *d)
{
	if (len != NEXUS_WIRE_DISCONNECT_LEN)
		return -NEXUS_WIRE_E_LENGTH;
	d->dst_worker = get16(buf + OFF_W0);
	d->dst_session = get16(buf + OFF_W1);
	d->src_worker = get16(buf + OFF_W2);
	d->src_session = get16(buf + OFF_W3);
	return 0;
}

static int
decode_heartbeat(const uint8_t *buf, size_t len, uint64_t hs_id,
		struct nexus_wire_heartbeat *h)
{
	if (len != NEXUS_WIRE_HEARTBEAT_LEN)
		return -NEXUS_WIRE_E_LENGTH;
	if (hs_id != 0)
		return -NEXUS_WIRE_E_HS_ID;
	h->boot_id = get64(buf + OFF_HB_BOOT);
	h->peer_boot_id = get64(buf + OFF_HB_PEER);
	if (h->boot_id == 0 || h->peer_boot_id == 0)
		return -NEXUS_WIRE_E_BOOT_ID;
	h->counter = get64(buf + OFF_HB_COUNTER);
	if (h->counter == 0)
		return -NEXUS_WIRE_E_ZERO;
	h->mac = get64(buf + OFF_HB_MAC);
	return 0;
}

static int
decode_cookie(const uint8_t *buf, size_t len, struct nexus_wire_cookie *c)
{
	if (len != NEXUS_WIRE_COOKIE_LEN)
		return -NEXUS_WIRE_E_LENGTH;
	c->client_worker = get16(buf + OFF_W0);
	c->client_session = get16(buf + OFF_W1);
	c->cookie = get64(buf + OFF_CK_COOKIE);
	if (c->cookie == 0)
		return -NEXUS_WIRE_E_ZERO;
	return 0;
}

static int
decode_rc(const uint8_t *buf, size_t len, uint16_t type, uint64_t hs_id,
		struct nexus_wire_rc *r)
{
	if (len != NEXUS_WIRE_RC_LEN)
		return -NEXUS_WIRE_E_LENGTH;
	if (hs_id != 0)
		return -NEXUS_WIRE_E_HS_ID;
	r->src_worker = get16(buf + OFF_W0);
	r->dst_worker = get16(buf + OFF_W1);
	r->status = get16(buf + OFF_RC_STATUS);
	if (type == NEXUS_WIRE_RC_REQ ? r->status != 0 :
	    !nexus_wire_rc_status_valid(r->status))
		return -NEXUS_WIRE_E_STATUS;
	r->generation = get32(buf + OFF_RC_GEN);
	if (r->generation == 0)
		return -NEXUS_WIRE_E_ZERO;
	r->boot_id = get64(buf + OFF_RC_BOOT);
	r->peer_boot_id = get64(buf + OFF_RC_PEER);
	if (r->boot_id == 0 || r->peer_boot_id == 0)
		return -NEXUS_WIRE_E_BOOT_ID;
	r->attr.qpn = get32(buf + OFF_RC_QPN);
	r->attr.psn = get32(buf + OFF_RC_PSN);
	memcpy(r->attr.gid, buf + OFF_RC_GID, sizeof(r->attr.gid));
	r->attr.mtu = get32(buf + OFF_RC_MTU);
	r->attr.rd_credits = buf[OFF_RC_RD];
	r->attr.max_rd_atomic = buf[OFF_RC_MAX_RD];
	r->attr.max_msg_size = get32(buf + OFF_RC_MAX_MSG);
	if (!rc_attr_valid(r->status, &r->attr))
		return -NEXUS_WIRE_E_RC_ATTR;
	r->mac = get64(buf + OFF_RC_MAC);
	return 0;
}

int
nexus_wire_decode(const uint8_t *buf, size_t len, struct nexus_wire_msg *m)
{
	if (buf == NULL || m == NULL || len < NEXUS_WIRE_HDR_LEN)
		return -NEXUS_WIRE_E_SHORT;
	if (get32(buf + OFF_MAGIC) != NEXUS_WIRE_MAGIC)
		return -NEXUS_WIRE_E_MAGIC;
	if (get16(buf + OFF_VERSION) != NEXUS_WIRE_VERSION)
		return -NEXUS_WIRE_E_VERSION;
	memset(m, 0, sizeof(*m));
	m->type = get16(buf + OFF_TYPE);
	m->hs_id = get64(buf + OFF_HS_ID);
	switch (m->type) {
	case NEXUS_WIRE_CONNECT_REQ:
		return decode_connect_req(buf, len, &m->req);
	case NEXUS_WIRE_ACCEPT:
		return decode_accept(buf, len, &m->accept);
	case NEXUS_WIRE_REFUSE:
		return decode_refuse(buf, len, &m->refuse);
	case NEXUS_WIRE_DISCONNECT:
		return decode_disconnect(buf, len, &m->disc);
	case NEXUS_WIRE_HEARTBEAT:
		return decode_heartbeat(buf, len, m->hs_id, &m->hb);
	case NEXUS_WIRE_COOKIE:
		return decode_cookie(buf, len, &m->cookie);
	case NEXUS_WIRE_RC_REQ:
	case NEXUS_WIRE_RC_ACK:
		return decode_rc(buf, len, m->type, m->hs_id, &m->rc);
	default:
		return -NEXUS_WIRE_E_TYPE;
	}
}

uint64_t
nexus_wire_hb_mac(const uint8_t key[NEXUS_WIRE_SECRET_LEN],
		const struct nexus_wire_heartbeat *hb)
{
	uint8_t in[24];

	put64(in, hb->boot_id);
	put64(in + 8, hb->peer_boot_id);
	put64(in + 16, hb->counter);
	return nexus_siphash24(key, in, sizeof(in));
}

uint64_t
nexus_wire_rc_mac(const uint8_t key[NEXUS_WIRE_SECRET_LEN],
		const struct nexus_wire_msg *m)
{
	uint8_t buf[NEXUS_WIRE_RC_LEN];

	if ((m->type != NEXUS_WIRE_RC_REQ && m->type != NEXUS_WIRE_RC_ACK) ||
	    !rc_valid(m->type, m->hs_id, &m->rc))
		return 0;
	/* Exactly the bytes nexus_wire_encode() writes before the MAC. */
	if (nexus_wire_encode(m, buf, sizeof(buf)) != NEXUS_WIRE_RC_LEN)
		return 0;
	return nexus_siphash24(key, buf, NEXUS_WIRE_RC_MAC_OFF);
}

const char *
nexus_wire_strerror(int err)
{
	static const char *const names[NEXUS_WIRE_E_MAX] = {
		[NEXUS_WIRE_OK] = "ok",
		[NEXUS_WIRE_E_SHORT] = "short",
		[NEXUS_WIRE_E_MAGIC] = "magic",
		[NEXUS_WIRE_E_VERSION] = "version",
		[NEXUS_WIRE_E_TYPE] = "type",
		[NEXUS_WIRE_E_LENGTH] = "length",
		[NEXUS_WIRE_E_ADDR_LEN] = "addr_len",
		[NEXUS_WIRE_E_NAME] = "name",
		[NEXUS_WIRE_E_STATUS] = "status",
		[NEXUS_WIRE_E_BOOT_ID] = "boot_id",
		[NEXUS_WIRE_E_HS_ID] = "hs_id",
		[NEXUS_WIRE_E_CREDITS] = "credits",
		[NEXUS_WIRE_E_ZERO] = "zero",
		[NEXUS_WIRE_E_PKT_SIZE] = "pkt_size",
		[NEXUS_WIRE_E_RC_ATTR] = "rc_attr",
	};

	if (err < 0)
		err = -err;
	if (err >= NEXUS_WIRE_E_MAX)
		return "unknown";
	return names[err];
}
