/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * Unit tests of the nexus UDP message format and of SipHash-2-4, its MAC.
 * Linked directly with nexus_wire.c and nexus_siphash.c, no EAL. Offsets and golden bytes are written by hand from
 * the layout in nexus_wire.h. Decoding always works on a heap copy of
 * exactly the given length, so that a sanitizer build catches any read
 * past it.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "nexus_siphash.h"
#include "nexus_wire.h"
#include "pmr_nexus_worker.h"

/* Hand-written offsets (see nexus_wire.h). */
#define OFF_MAGIC	0
#define OFF_VERSION	4
#define OFF_TYPE	6
#define OFF_REQ_DRIVER	22
#define OFF_HS_ID	8
#define OFF_REQ_CREDITS	38
#define OFF_REQ_PKT	40
#define OFF_REQ_BOOT	44
#define OFF_REQ_COOKIE	52
#define OFF_REQ_SECRET	60
#define OFF_REQ_ALEN	76
#define OFF_ACC_CREDITS	24
#define OFF_ACC_PKT	26
#define OFF_ACC_BOOT	30
#define OFF_ACC_SECRET	38
#define OFF_ACC_ALEN	54
#define OFF_REF_STATUS	22
#define OFF_HB_BOOT	16
#define OFF_HB_PEER	24
#define OFF_HB_COUNTER	32
#define OFF_HB_MAC	40
#define OFF_CK_COOKIE	20

/* Decode len bytes of buf from an exactly sized heap copy. */
static int
decode_exact(const uint8_t *buf, size_t len, struct nexus_wire_msg *m)
{
	uint8_t *copy = malloc(len > 0 ? len : 1);
	int ret;

	assert_non_null(copy);
	memcpy(copy, buf, len);
	ret = nexus_wire_decode(copy, len, m);
	free(copy);
	return ret;
}

static void
sample_addr(struct pmr_transport_addr *a, uint8_t len, uint8_t seed)
{
	uint8_t i;

	memset(a, 0, sizeof(*a));
	a->len = len;
	for (i = 0; i < len; i++)
		a->bytes[i] = (uint8_t)(seed + i * 13);
}

static struct nexus_wire_msg
sample_req(void)
{
	struct nexus_wire_msg m = {
		.type = NEXUS_WIRE_CONNECT_REQ,
		.hs_id = UINT64_C(0x0123456789abcdef),
		.req = {
			.client_worker = 0x1234,
			.client_session = 0xfffe,
			.server_worker = 7,
			.credits = 0x0102,
			.pkt_size = 0x0abc,
			.boot_id = UINT64_C(0x1122334455667788),
			.cookie = UINT64_C(0x0c0c0c0c0c0c0c01),
		},
	};
	unsigned int i;

	for (i = 0; i < NEXUS_WIRE_SECRET_LEN; i++)
		m.req.secret[i] = (uint8_t)(0xa0 + i);
	strcpy(m.req.driver, "eth");
	sample_addr(&m.req.addr, 12, 0x40);
	return m;
}

static struct nexus_wire_msg
sample_accept(void)
{
	struct nexus_wire_msg m = {
		.type = NEXUS_WIRE_ACCEPT,
		.hs_id = UINT64_C(0xfedcba9876543210),
		.accept = {
			.client_worker = 1,
			.client_session = 2,
			.server_worker = 3,
			.server_session = 0x8001,
			.credits = 0x0304,
			.pkt_size = 0x1000,
			.boot_id = UINT64_C(0xa1b2c3d4e5f60718),
		},
	};
	unsigned int i;

	for (i = 0; i < NEXUS_WIRE_SECRET_LEN; i++)
		m.accept.secret[i] = (uint8_t)(0x10 + i);
	sample_addr(&m.accept.addr, PMR_TRANSPORT_ADDR_MAX, 0x80);
	return m;
}

static struct nexus_wire_msg
sample_refuse(void)
{
	return (struct nexus_wire_msg){
		.type = NEXUS_WIRE_REFUSE,
		.hs_id = 42,
		.refuse = {
			.client_worker = 10,
			.client_session = 11,
			.server_worker = 12,
			.status = PMR_SM_E_NO_RESOURCES,
		},
	};
}

static struct nexus_wire_msg
sample_disconnect(void)
{
	return (struct nexus_wire_msg){
		.type = NEXUS_WIRE_DISCONNECT,
		.hs_id = UINT64_MAX,
		.disc = {
			.dst_worker = 0xffff,
			.dst_session = 0,
			.src_worker = 0x00ff,
			.src_session = 0xff00,
		},
	};
}

static struct nexus_wire_msg
sample_heartbeat(void)
{
	return (struct nexus_wire_msg){
		.type = NEXUS_WIRE_HEARTBEAT,
		.hb = {
			.boot_id = UINT64_C(0x0102030405060708),
			.peer_boot_id = UINT64_C(0xf0e0d0c0b0a09080),
			.counter = 0x77,
			.mac = UINT64_C(0x8877665544332211),
		},
	};
}

static struct nexus_wire_msg
sample_cookie(void)
{
	return (struct nexus_wire_msg){
		.type = NEXUS_WIRE_COOKIE,
		.hs_id = 99,
		.cookie = {
			.client_worker = 0x0201,
			.client_session = 0x0403,
			.cookie = UINT64_C(0x0807060504030201),
		},
	};
}

/* The attributes of an RC QP, every byte distinct. */
static struct pmr_transport_rc_attr
sample_rc_attr(void)
{
	struct pmr_transport_rc_attr a = {
		.qpn = 0x00123456,
		.psn = 0x00abcdef,
		.mtu = 1024,
		.rd_credits = 16,
		.max_rd_atomic = 8,
		.max_msg_size = UINT32_C(0x80000000),
	};
	unsigned int i;

	for (i = 0; i < sizeof(a.gid); i++)
		a.gid[i] = (uint8_t)(0xf0 + i);
	return a;
}

static struct nexus_wire_msg
sample_rc_req(void)
{
	return (struct nexus_wire_msg){
		.type = NEXUS_WIRE_RC_REQ,
		.rc = {
			.src_worker = 0x0102,
			.dst_worker = 0x0304,
			.generation = UINT32_C(0x05060708),
			.boot_id = UINT64_C(0x1112131415161718),
			.peer_boot_id = UINT64_C(0x2122232425262728),
			.attr = sample_rc_attr(),
			.mac = UINT64_C(0x3132333435363738),
		},
	};
}

static struct nexus_wire_msg
sample_rc_ack(void)
{
	struct nexus_wire_msg m = sample_rc_req();

	m.type = NEXUS_WIRE_RC_ACK;
	m.rc.src_worker = 0x0304;
	m.rc.dst_worker = 0x0102;
	m.rc.boot_id = UINT64_C(0x2122232425262728);
	m.rc.peer_boot_id = UINT64_C(0x1112131415161718);
	m.rc.attr.qpn = 0x00ffffff;
	m.rc.attr.psn = 0;
	m.rc.attr.mtu = 4096;
	m.rc.attr.rd_credits = 1;
	m.rc.attr.max_rd_atomic = 0;
	m.rc.attr.max_msg_size = 0;	/* not known */
	return m;
}

/* An RC_ACK refusing: a status, no attributes. */
static struct nexus_wire_msg
sample_rc_refused(void)
{
	struct nexus_wire_msg m = sample_rc_ack();

	m.rc.status = PMR_SM_E_NO_RESOURCES;
	memset(&m.rc.attr, 0, sizeof(m.rc.attr));
	return m;
}

static int
encode(const struct nexus_wire_msg *m, uint8_t *buf)
{
	int len = nexus_wire_encode(m, buf, NEXUS_WIRE_MAX_LEN);

	assert_true(len >= NEXUS_WIRE_HDR_LEN);
	return len;
}

static void
assert_addr_equal(const struct pmr_transport_addr *a,
		const struct pmr_transport_addr *b)
{
	assert_int_equal(a->len, b->len);
	assert_memory_equal(a->bytes, b->bytes, a->len);
}

static void
test_roundtrip_connect_req(void **state)
{
	struct nexus_wire_msg m = sample_req(), d;
	uint8_t buf[NEXUS_WIRE_MAX_LEN];
	int len;

	(void)state;
	len = encode(&m, buf);
	assert_int_equal(len, 77 + 12);
	assert_int_equal(decode_exact(buf, (size_t)len, &d), 0);
	assert_int_equal(d.type, NEXUS_WIRE_CONNECT_REQ);
	assert_true(d.hs_id == m.hs_id);
	assert_int_equal(d.req.client_worker, 0x1234);
	assert_int_equal(d.req.client_session, 0xfffe);
	assert_int_equal(d.req.server_worker, 7);
	assert_int_equal(d.req.credits, 0x0102);
	assert_int_equal(d.req.pkt_size, 0x0abc);
	assert_true(d.req.boot_id == UINT64_C(0x1122334455667788));
	assert_true(d.req.cookie == m.req.cookie);
	assert_memory_equal(d.req.secret, m.req.secret,
			NEXUS_WIRE_SECRET_LEN);
	assert_string_equal(d.req.driver, "eth");
	assert_addr_equal(&d.req.addr, &m.req.addr);

	/* Credits at both ends of their range; no cookie yet. */
	m.req.credits = 1;
	m.req.cookie = 0;
	len = encode(&m, buf);
	assert_int_equal(decode_exact(buf, (size_t)len, &d), 0);
	assert_int_equal(d.req.credits, 1);
	assert_true(d.req.cookie == 0);
	assert_addr_equal(&d.req.addr, &m.req.addr);
	m.req.credits = 65535;
	len = encode(&m, buf);
	assert_int_equal(decode_exact(buf, (size_t)len, &d), 0);
	assert_int_equal(d.req.credits, 65535);
	assert_addr_equal(&d.req.addr, &m.req.addr);

	/* Empty address and a name of the longest length. */
	m.req.addr.len = 0;
	memset(m.req.driver, 'x', PMR_TRANSPORT_NAME_MAX - 1);
	m.req.driver[PMR_TRANSPORT_NAME_MAX - 1] = '\0';
	len = encode(&m, buf);
	assert_int_equal(len, NEXUS_WIRE_CONNECT_REQ_LEN);
	assert_int_equal(len, 77);
	assert_int_equal(decode_exact(buf, (size_t)len, &d), 0);
	assert_string_equal(d.req.driver, m.req.driver);
	assert_int_equal(d.req.credits, 65535);
	assert_int_equal(d.req.addr.len, 0);

	/* Packet sizes at both ends of their range. */
	m.req.pkt_size = NEXUS_WIRE_PKT_SIZE_MIN;
	len = encode(&m, buf);
	assert_int_equal(decode_exact(buf, (size_t)len, &d), 0);
	assert_int_equal(d.req.pkt_size, 512);
	m.req.pkt_size = NEXUS_WIRE_PKT_SIZE_MAX;
	len = encode(&m, buf);
	assert_int_equal(decode_exact(buf, (size_t)len, &d), 0);
	assert_int_equal(d.req.pkt_size, 65535);
}

static void
test_roundtrip_accept(void **state)
{
	struct nexus_wire_msg m = sample_accept(), d;
	uint8_t buf[NEXUS_WIRE_MAX_LEN];
	int len;

	(void)state;
	len = encode(&m, buf);
	assert_int_equal(len, 55 + PMR_TRANSPORT_ADDR_MAX);
	assert_int_equal(decode_exact(buf, (size_t)len, &d), 0);
	assert_int_equal(d.type, NEXUS_WIRE_ACCEPT);
	assert_true(d.hs_id == m.hs_id);
	assert_int_equal(d.accept.client_worker, 1);
	assert_int_equal(d.accept.client_session, 2);
	assert_int_equal(d.accept.server_worker, 3);
	assert_int_equal(d.accept.server_session, 0x8001);
	assert_int_equal(d.accept.credits, 0x0304);
	assert_int_equal(d.accept.pkt_size, 0x1000);
	assert_true(d.accept.boot_id == UINT64_C(0xa1b2c3d4e5f60718));
	assert_memory_equal(d.accept.secret, m.accept.secret,
			NEXUS_WIRE_SECRET_LEN);
	assert_addr_equal(&d.accept.addr, &m.accept.addr);

	/* An empty address: the message ends with its length byte. */
	m.accept.addr.len = 0;
	len = encode(&m, buf);
	assert_int_equal(len, NEXUS_WIRE_ACCEPT_LEN);
	assert_int_equal(len, 55);
	assert_int_equal(decode_exact(buf, (size_t)len, &d), 0);
	assert_int_equal(d.accept.addr.len, 0);
}

static void
test_roundtrip_cookie(void **state)
{
	struct nexus_wire_msg m = sample_cookie(), d;
	uint8_t buf[NEXUS_WIRE_MAX_LEN];
	int len;

	(void)state;
	len = encode(&m, buf);
	assert_int_equal(len, NEXUS_WIRE_COOKIE_LEN);
	assert_int_equal(len, 28);
	/* Never larger than the smallest CONNECT_REQ it answers. */
	assert_true(NEXUS_WIRE_COOKIE_LEN < NEXUS_WIRE_CONNECT_REQ_LEN);
	assert_int_equal(decode_exact(buf, (size_t)len, &d), 0);
	assert_int_equal(d.type, NEXUS_WIRE_COOKIE);
	assert_true(d.hs_id == 99);
	assert_int_equal(d.cookie.client_worker, 0x0201);
	assert_int_equal(d.cookie.client_session, 0x0403);
	assert_true(d.cookie.cookie == UINT64_C(0x0807060504030201));
}

static void
test_roundtrip_refuse(void **state)
{
	static const uint16_t ok[] = {
		PMR_SM_E_NO_WORKER, PMR_SM_E_NO_RESOURCES,
		PMR_SM_E_BAD_REQUEST, PMR_SM_E_REFUSED, PMR_SM_E_MSG_SIZE,
		PMR_SM_E_FAMILY,
	};
	struct nexus_wire_msg m = sample_refuse(), d;
	uint8_t buf[NEXUS_WIRE_MAX_LEN];
	unsigned int i;
	int len;

	(void)state;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		m.refuse.status = ok[i];
		len = encode(&m, buf);
		assert_int_equal(len, 24);
		assert_int_equal(decode_exact(buf, (size_t)len, &d), 0);
		assert_int_equal(d.type, NEXUS_WIRE_REFUSE);
		assert_true(d.hs_id == 42);
		assert_int_equal(d.refuse.client_worker, 10);
		assert_int_equal(d.refuse.client_session, 11);
		assert_int_equal(d.refuse.server_worker, 12);
		assert_int_equal(d.refuse.status, ok[i]);
	}
}

static void
test_roundtrip_disconnect(void **state)
{
	struct nexus_wire_msg m = sample_disconnect(), d;
	uint8_t buf[NEXUS_WIRE_MAX_LEN];
	int len;

	(void)state;
	len = encode(&m, buf);
	assert_int_equal(len, 24);
	assert_int_equal(decode_exact(buf, (size_t)len, &d), 0);
	assert_int_equal(d.type, NEXUS_WIRE_DISCONNECT);
	assert_true(d.hs_id == UINT64_MAX);
	assert_int_equal(d.disc.dst_worker, 0xffff);
	assert_int_equal(d.disc.dst_session, 0);
	assert_int_equal(d.disc.src_worker, 0x00ff);
	assert_int_equal(d.disc.src_session, 0xff00);
}

static void
test_roundtrip_heartbeat(void **state)
{
	struct nexus_wire_msg m = sample_heartbeat(), d;
	uint8_t buf[NEXUS_WIRE_MAX_LEN];
	int len;

	(void)state;
	len = encode(&m, buf);
	assert_int_equal(len, NEXUS_WIRE_HEARTBEAT_LEN);
	assert_int_equal(len, 48);
	assert_int_equal(decode_exact(buf, (size_t)len, &d), 0);
	assert_int_equal(d.type, NEXUS_WIRE_HEARTBEAT);
	assert_true(d.hs_id == 0);
	assert_true(d.hb.boot_id == UINT64_C(0x0102030405060708));
	assert_true(d.hb.peer_boot_id == UINT64_C(0xf0e0d0c0b0a09080));
	assert_true(d.hb.counter == 0x77);
	assert_true(d.hb.mac == UINT64_C(0x8877665544332211));

	/* Boot ids at the ends of their range. */
	m.hb.boot_id = 1;
	m.hb.peer_boot_id = UINT64_MAX;
	len = encode(&m, buf);
	assert_int_equal(decode_exact(buf, (size_t)len, &d), 0);
	assert_true(d.hb.boot_id == 1);
	assert_true(d.hb.peer_boot_id == UINT64_MAX);
}

/* Little-endian layout, byte for byte, worked out by hand. */
static void
test_golden_bytes(void **state)
{
	static const uint8_t refuse[] = {
		0x50, 0x4d, 0x52, 0x4e,		/* "PMRN" */
		0x05, 0x00,			/* version 5 */
		0x03, 0x00,			/* REFUSE */
		0x2a, 0, 0, 0, 0, 0, 0, 0,	/* hs_id 42 */
		0x0a, 0x00, 0x0b, 0x00, 0x0c, 0x00,	/* 10, 11, 12 */
		0x02, 0x00,			/* NO_RESOURCES */
	};
	static const uint8_t req[] = {
		0x50, 0x4d, 0x52, 0x4e,		/* "PMRN" */
		0x05, 0x00,			/* version 5 */
		0x01, 0x00,			/* CONNECT_REQ */
		0xef, 0xcd, 0xab, 0x89, 0x67, 0x45, 0x23, 0x01,	/* hs_id */
		0x34, 0x12, 0xfe, 0xff, 0x07, 0x00,	/* 0x1234, 0xfffe, 7 */
		'e', 't', 'h', 0, 0, 0, 0, 0,	/* driver, NUL-padded */
		0, 0, 0, 0, 0, 0, 0, 0,		/* to its 16 bytes */
		0x02, 0x01,			/* credits 0x0102 */
		0xbc, 0x0a, 0x00, 0x00,		/* pkt_size 0x0abc */
		0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11,	/* boot id */
		0x01, 0x0c, 0x0c, 0x0c, 0x0c, 0x0c, 0x0c, 0x0c,	/* cookie */
		0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7,	/* secret */
		0xa8, 0xa9, 0xaa, 0xab, 0xac, 0xad, 0xae, 0xaf,
		0x0c,				/* addr.len 12 */
		0x40, 0x4d, 0x5a, 0x67, 0x74, 0x81,	/* 0x40 + 13 * i */
		0x8e, 0x9b, 0xa8, 0xb5, 0xc2, 0xcf,
	};
	static const uint8_t accept_head[] = {
		0x50, 0x4d, 0x52, 0x4e, 0x05, 0x00, 0x02, 0x00,
		0x10, 0x32, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe,
		0x01, 0x00, 0x02, 0x00, 0x03, 0x00, 0x01, 0x80,
		0x04, 0x03,			/* credits 0x0304 */
		0x00, 0x10, 0x00, 0x00,		/* pkt_size 0x1000 */
		0x18, 0x07, 0xf6, 0xe5, 0xd4, 0xc3, 0xb2, 0xa1,	/* boot id */
		0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17,	/* secret */
		0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f,
		PMR_TRANSPORT_ADDR_MAX,		/* addr.len */
		0x80, 0x8d,			/* first addr bytes */
	};
	/* The last address byte ends the message: no token in an ACCEPT. */
	static const uint8_t accept_tail[] = {
		(uint8_t)(0x80 + 13 * (PMR_TRANSPORT_ADDR_MAX - 1)),
	};
	static const uint8_t heartbeat[] = {
		0x50, 0x4d, 0x52, 0x4e,		/* "PMRN" */
		0x05, 0x00,			/* version 5 */
		0x05, 0x00,			/* HEARTBEAT */
		0, 0, 0, 0, 0, 0, 0, 0,		/* no handshake id */
		0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,	/* boot id */
		0x80, 0x90, 0xa0, 0xb0, 0xc0, 0xd0, 0xe0, 0xf0,	/* peer's */
		0x77, 0, 0, 0, 0, 0, 0, 0,	/* counter */
		0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,	/* MAC */
	};
	static const uint8_t cookie[] = {
		0x50, 0x4d, 0x52, 0x4e,		/* "PMRN" */
		0x05, 0x00,			/* version 5 */
		0x06, 0x00,			/* COOKIE */
		0x63, 0, 0, 0, 0, 0, 0, 0,	/* hs_id 99 */
		0x01, 0x02, 0x03, 0x04,		/* worker, session */
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,	/* cookie */
	};
	struct nexus_wire_msg m;
	uint8_t buf[NEXUS_WIRE_MAX_LEN];
	int len;

	(void)state;
	m = sample_refuse();
	len = encode(&m, buf);
	assert_int_equal(len, sizeof(refuse));
	assert_memory_equal(buf, refuse, sizeof(refuse));

	m = sample_accept();
	len = encode(&m, buf);
	assert_memory_equal(buf, accept_head, sizeof(accept_head));
	assert_int_equal(len, 55 + PMR_TRANSPORT_ADDR_MAX);
	assert_memory_equal(buf + len - sizeof(accept_tail), accept_tail,
			sizeof(accept_tail));
	assert_int_equal(buf[OFF_ACC_CREDITS], 0x04);
	assert_int_equal(buf[OFF_ACC_PKT + 1], 0x10);
	assert_int_equal(buf[OFF_ACC_SECRET], 0x10);
	assert_int_equal(buf[OFF_ACC_ALEN], PMR_TRANSPORT_ADDR_MAX);

	m = sample_cookie();
	len = encode(&m, buf);
	assert_int_equal(len, sizeof(cookie));
	assert_memory_equal(buf, cookie, sizeof(cookie));
	assert_int_equal(buf[OFF_CK_COOKIE], 0x01);

	m = sample_req();
	len = encode(&m, buf);
	assert_int_equal(len, sizeof(req));
	assert_memory_equal(buf, req, sizeof(req));
	assert_int_equal(buf[OFF_REQ_CREDITS], 0x02);
	assert_int_equal(buf[OFF_REQ_CREDITS + 1], 0x01);
	assert_int_equal(buf[OFF_REQ_PKT], 0xbc);
	assert_int_equal(buf[OFF_REQ_BOOT], 0x88);
	assert_int_equal(buf[OFF_REQ_COOKIE], 0x01);
	assert_int_equal(buf[OFF_REQ_SECRET], 0xa0);
	assert_int_equal(buf[OFF_REQ_ALEN], 12);

	m = sample_heartbeat();
	len = encode(&m, buf);
	assert_int_equal(len, sizeof(heartbeat));
	assert_memory_equal(buf, heartbeat, sizeof(heartbeat));
	assert_int_equal(buf[OFF_HB_BOOT], 0x08);
	assert_int_equal(buf[OFF_HB_PEER + 7], 0xf0);
	assert_int_equal(buf[OFF_HB_COUNTER], 0x77);
	assert_int_equal(buf[OFF_HB_MAC], 0x11);
}

/* Every prefix shorter than the message is rejected, and so is one more. */
static void
check_truncations(const struct nexus_wire_msg *m)
{
	uint8_t buf[NEXUS_WIRE_MAX_LEN + 1];
	struct nexus_wire_msg d;
	size_t len, full;
	int ret;

	full = (size_t)encode(m, buf);
	for (len = 0; len < full; len++) {
		ret = decode_exact(buf, len, &d);
		if (len < NEXUS_WIRE_HDR_LEN)
			assert_int_equal(ret, -NEXUS_WIRE_E_SHORT);
		else
			assert_int_equal(ret, -NEXUS_WIRE_E_LENGTH);
	}
	buf[full] = 0;
	assert_int_equal(decode_exact(buf, full + 1, &d),
			-NEXUS_WIRE_E_LENGTH);
	assert_int_equal(nexus_wire_decode(NULL, full, &d),
			-NEXUS_WIRE_E_SHORT);
}

static void
test_short_and_long_rejected(void **state)
{
	struct nexus_wire_msg m;

	(void)state;
	m = sample_req();
	check_truncations(&m);
	m = sample_accept();
	check_truncations(&m);
	m = sample_refuse();
	check_truncations(&m);
	m = sample_disconnect();
	check_truncations(&m);
	m = sample_heartbeat();
	check_truncations(&m);
	m = sample_cookie();
	check_truncations(&m);
	m = sample_rc_req();
	check_truncations(&m);
	m = sample_rc_ack();
	check_truncations(&m);
	m = sample_rc_refused();
	check_truncations(&m);
}

static void
test_bad_magic(void **state)
{
	struct nexus_wire_msg m = sample_disconnect(), d;
	uint8_t buf[NEXUS_WIRE_MAX_LEN];
	int len, i;

	(void)state;
	len = encode(&m, buf);
	for (i = 0; i < 4; i++) {
		buf[OFF_MAGIC + i] ^= 0x01;
		assert_int_equal(decode_exact(buf, (size_t)len, &d),
				-NEXUS_WIRE_E_MAGIC);
		buf[OFF_MAGIC + i] ^= 0x01;
	}
	assert_int_equal(decode_exact(buf, (size_t)len, &d), 0);
}

static void
test_bad_version(void **state)
{
	struct nexus_wire_msg m = sample_refuse(), d;
	uint8_t buf[NEXUS_WIRE_MAX_LEN];
	int len;

	(void)state;
	len = encode(&m, buf);
	buf[OFF_VERSION] = 1;		/* before boot ids */
	assert_int_equal(decode_exact(buf, (size_t)len, &d),
			-NEXUS_WIRE_E_VERSION);
	buf[OFF_VERSION] = 2;		/* before cookies and MACs */
	assert_int_equal(decode_exact(buf, (size_t)len, &d),
			-NEXUS_WIRE_E_VERSION);
	buf[OFF_VERSION] = 3;		/* before packet sizes */
	assert_int_equal(decode_exact(buf, (size_t)len, &d),
			-NEXUS_WIRE_E_VERSION);
	buf[OFF_VERSION] = 4;		/* before RC_REQ and RC_ACK */
	assert_int_equal(decode_exact(buf, (size_t)len, &d),
			-NEXUS_WIRE_E_VERSION);
	buf[OFF_VERSION] = 6;
	assert_int_equal(decode_exact(buf, (size_t)len, &d),
			-NEXUS_WIRE_E_VERSION);
	buf[OFF_VERSION] = 0;
	assert_int_equal(decode_exact(buf, (size_t)len, &d),
			-NEXUS_WIRE_E_VERSION);
	buf[OFF_VERSION] = 5;
	buf[OFF_VERSION + 1] = 1;	/* 261 */
	assert_int_equal(decode_exact(buf, (size_t)len, &d),
			-NEXUS_WIRE_E_VERSION);
}

static void
test_unknown_type(void **state)
{
	static const uint16_t bad[] = { 0, 9, 0x0100, 0x0107, 0xffff };
	struct nexus_wire_msg m = sample_refuse(), d;
	uint8_t buf[NEXUS_WIRE_MAX_LEN];
	unsigned int i;
	int len;

	(void)state;
	len = encode(&m, buf);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		buf[OFF_TYPE] = (uint8_t)bad[i];
		buf[OFF_TYPE + 1] = (uint8_t)(bad[i] >> 8);
		assert_int_equal(decode_exact(buf, (size_t)len, &d),
				-NEXUS_WIRE_E_TYPE);
	}
}

/* A REFUSE-sized DISCONNECT and the like: lengths are per type. */
static void
test_wrong_length_for_type(void **state)
{
	struct nexus_wire_msg m, d;
	uint8_t buf[NEXUS_WIRE_MAX_LEN];
	int len;

	(void)state;
	m = sample_cookie();
	len = encode(&m, buf);
	buf[OFF_TYPE] = NEXUS_WIRE_REFUSE;	/* 28 bytes, REFUSE is 24 */
	assert_int_equal(decode_exact(buf, (size_t)len, &d),
			-NEXUS_WIRE_E_LENGTH);
	buf[OFF_TYPE] = NEXUS_WIRE_DISCONNECT;	/* 28 bytes, needs 24 */
	assert_int_equal(decode_exact(buf, (size_t)len, &d),
			-NEXUS_WIRE_E_LENGTH);
	m = sample_refuse();
	len = encode(&m, buf);
	buf[OFF_TYPE] = NEXUS_WIRE_COOKIE;	/* 24 bytes, needs 28 */
	assert_int_equal(decode_exact(buf, (size_t)len, &d),
			-NEXUS_WIRE_E_LENGTH);
	/* An address length that disagrees with the datagram's length. */
	m = sample_req();
	len = encode(&m, buf);
	buf[OFF_REQ_ALEN] = 11;
	assert_int_equal(decode_exact(buf, (size_t)len, &d),
			-NEXUS_WIRE_E_LENGTH);
	buf[OFF_REQ_ALEN] = 13;
	assert_int_equal(decode_exact(buf, (size_t)len, &d),
			-NEXUS_WIRE_E_LENGTH);
	/* The 49 bytes of an empty-address CONNECT_REQ of version 2. */
	m.req.addr.len = 0;
	len = encode(&m, buf);
	assert_int_equal(len, 77);
	assert_int_equal(decode_exact(buf, 49, &d), -NEXUS_WIRE_E_LENGTH);
	/* And the 73 of one of version 3 (no packet size). */
	assert_int_equal(decode_exact(buf, 73, &d), -NEXUS_WIRE_E_LENGTH);
	/* An ACCEPT with 8 bytes more (version 3's transitional token). */
	m = sample_accept();
	len = encode(&m, buf);
	memset(buf + len, 0xee, 8);
	assert_int_equal(decode_exact(buf, (size_t)len + 8, &d),
			-NEXUS_WIRE_E_LENGTH);
	/* A HEARTBEAT of DISCONNECT's length, and the other way round. */
	m = sample_disconnect();
	len = encode(&m, buf);
	buf[OFF_TYPE] = NEXUS_WIRE_HEARTBEAT;	/* 24 bytes, needs 48 */
	assert_int_equal(decode_exact(buf, (size_t)len, &d),
			-NEXUS_WIRE_E_LENGTH);
	m = sample_heartbeat();
	len = encode(&m, buf);
	buf[OFF_TYPE] = NEXUS_WIRE_DISCONNECT;	/* 48 bytes, needs 24 */
	assert_int_equal(decode_exact(buf, (size_t)len, &d),
			-NEXUS_WIRE_E_LENGTH);
	buf[OFF_TYPE] = NEXUS_WIRE_HEARTBEAT;
	/* A HEARTBEAT of version 2: no counter, no MAC. */
	assert_int_equal(decode_exact(buf, (size_t)len - 16, &d),
			-NEXUS_WIRE_E_LENGTH);
	buf[len] = 0;
	assert_int_equal(decode_exact(buf, (size_t)len + 1, &d),
			-NEXUS_WIRE_E_LENGTH);
	assert_int_equal(decode_exact(buf, (size_t)len, &d), 0);
}

/* A zero boot id anywhere, and a HEARTBEAT with a handshake id. */
static void
test_boot_id_zero(void **state)
{
	uint8_t buf[NEXUS_WIRE_MAX_LEN];
	struct nexus_wire_msg m, d;
	int len, i;

	(void)state;
	m = sample_req();
	len = encode(&m, buf);
	memset(buf + OFF_REQ_BOOT, 0, 8);
	assert_int_equal(decode_exact(buf, (size_t)len, &d),
			-NEXUS_WIRE_E_BOOT_ID);
	buf[OFF_REQ_BOOT + 7] = 0x80;	/* any non-zero byte will do */
	assert_int_equal(decode_exact(buf, (size_t)len, &d), 0);
	assert_true(d.req.boot_id == UINT64_C(0x8000000000000000));

	m = sample_accept();
	len = encode(&m, buf);
	memset(buf + OFF_ACC_BOOT, 0, 8);
	assert_int_equal(decode_exact(buf, (size_t)len, &d),
			-NEXUS_WIRE_E_BOOT_ID);

	m = sample_heartbeat();
	len = encode(&m, buf);
	memset(buf + OFF_HB_BOOT, 0, 8);
	assert_int_equal(decode_exact(buf, (size_t)len, &d),
			-NEXUS_WIRE_E_BOOT_ID);
	len = encode(&m, buf);
	memset(buf + OFF_HB_PEER, 0, 8);
	assert_int_equal(decode_exact(buf, (size_t)len, &d),
			-NEXUS_WIRE_E_BOOT_ID);
	for (i = 0; i < 8; i++) {
		len = encode(&m, buf);
		buf[OFF_HS_ID + i] = 1;
		assert_int_equal(decode_exact(buf, (size_t)len, &d),
				-NEXUS_WIRE_E_HS_ID);
	}
}

/* Zero credits, heartbeat counter or cookie: refused both ways. */
static void
test_zero_fields(void **state)
{
	uint8_t buf[NEXUS_WIRE_MAX_LEN];
	struct nexus_wire_msg m, d;
	int len;

	(void)state;
	m = sample_req();
	len = encode(&m, buf);
	memset(buf + OFF_REQ_CREDITS, 0, 2);
	assert_int_equal(decode_exact(buf, (size_t)len, &d),
			-NEXUS_WIRE_E_CREDITS);
	m.req.credits = 0;
	assert_int_equal(nexus_wire_encode(&m, buf, sizeof(buf)), -EINVAL);

	m = sample_accept();
	len = encode(&m, buf);
	memset(buf + OFF_ACC_CREDITS, 0, 2);
	assert_int_equal(decode_exact(buf, (size_t)len, &d),
			-NEXUS_WIRE_E_CREDITS);
	m.accept.credits = 0;
	assert_int_equal(nexus_wire_encode(&m, buf, sizeof(buf)), -EINVAL);

	m = sample_heartbeat();
	len = encode(&m, buf);
	memset(buf + OFF_HB_COUNTER, 0, 8);
	assert_int_equal(decode_exact(buf, (size_t)len, &d),
			-NEXUS_WIRE_E_ZERO);
	m.hb.counter = 0;
	assert_int_equal(nexus_wire_encode(&m, buf, sizeof(buf)), -EINVAL);

	m = sample_cookie();
	len = encode(&m, buf);
	memset(buf + OFF_CK_COOKIE, 0, 8);
	assert_int_equal(decode_exact(buf, (size_t)len, &d),
			-NEXUS_WIRE_E_ZERO);
	m.cookie.cookie = 0;
	assert_int_equal(nexus_wire_encode(&m, buf, sizeof(buf)), -EINVAL);
}

/*
 * Packet sizes: zero, under the smallest a worker may have, over what a
 * packet can be; refused both ways, in CONNECT_REQ and ACCEPT.
 */
static void
test_pkt_size_bounds(void **state)
{
	static const uint32_t bad[] = {
		0, 1, NEXUS_WIRE_PKT_SIZE_MIN - 1, NEXUS_WIRE_PKT_SIZE_MAX + 1,
		UINT32_C(0x01000200), UINT32_MAX,
	};
	uint8_t buf[NEXUS_WIRE_MAX_LEN];
	struct nexus_wire_msg m, d;
	unsigned int i, j;
	int len;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		m = sample_req();
		len = encode(&m, buf);
		for (j = 0; j < 4; j++)
			buf[OFF_REQ_PKT + j] = (uint8_t)(bad[i] >> (8 * j));
		assert_int_equal(decode_exact(buf, (size_t)len, &d),
				-NEXUS_WIRE_E_PKT_SIZE);
		m.req.pkt_size = bad[i];
		assert_int_equal(nexus_wire_encode(&m, buf, sizeof(buf)),
				-EINVAL);

		m = sample_accept();
		len = encode(&m, buf);
		for (j = 0; j < 4; j++)
			buf[OFF_ACC_PKT + j] = (uint8_t)(bad[i] >> (8 * j));
		assert_int_equal(decode_exact(buf, (size_t)len, &d),
				-NEXUS_WIRE_E_PKT_SIZE);
		m.accept.pkt_size = bad[i];
		assert_int_equal(nexus_wire_encode(&m, buf, sizeof(buf)),
				-EINVAL);
	}
	assert_string_equal(nexus_wire_strerror(-NEXUS_WIRE_E_PKT_SIZE),
			"pkt_size");
}

/*
 * SipHash-2-4 against the reference vectors: key 00 01 .. 0f, message
 * 00 01 .. (n - 1). n = 15 is the paper's worked example (appendix A);
 * the others are from the reference implementation's vectors.
 */
static void
test_siphash_vectors(void **state)
{
	static const struct {
		size_t n;
		uint64_t out;
	} v[] = {
		{ 0, UINT64_C(0x726fdb47dd0e0e31) },
		{ 1, UINT64_C(0x74f839c593dc67fd) },
		{ 2, UINT64_C(0x0d6c8009d9a94f5a) },
		{ 3, UINT64_C(0x85676696d7fb7e2d) },
		{ 15, UINT64_C(0xa129ca6149be45e5) },
		{ 63, UINT64_C(0x958a324ceb064572) },
	};
	uint8_t key[NEXUS_SIPHASH_KEY_LEN], msg[64];
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(key); i++)
		key[i] = (uint8_t)i;
	for (i = 0; i < sizeof(msg); i++)
		msg[i] = (uint8_t)i;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		uint8_t *copy = malloc(v[i].n > 0 ? v[i].n : 1);

		/* An exact copy: a sanitizer build sees any overread. */
		assert_non_null(copy);
		memcpy(copy, msg, v[i].n);
		assert_true(nexus_siphash24(key, copy, v[i].n) == v[i].out);
		free(copy);
	}
}

/* The heartbeat MAC covers every field but itself, under the key. */
static void
test_hb_mac(void **state)
{
	struct nexus_wire_msg m = sample_heartbeat();
	uint8_t key[NEXUS_WIRE_SECRET_LEN], in[24];
	struct nexus_wire_heartbeat hb;
	uint64_t mac;
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(key); i++)
		key[i] = (uint8_t)(0x30 + i);
	mac = nexus_wire_hb_mac(key, &m.hb);
	/* SipHash of the three u64, little-endian, in order. */
	for (i = 0; i < 8; i++) {
		in[i] = (uint8_t)(m.hb.boot_id >> (8 * i));
		in[8 + i] = (uint8_t)(m.hb.peer_boot_id >> (8 * i));
		in[16 + i] = (uint8_t)(m.hb.counter >> (8 * i));
	}
	assert_true(mac == nexus_siphash24(key, in, sizeof(in)));
	hb = m.hb;
	hb.mac = ~hb.mac;	/* not an input */
	assert_true(nexus_wire_hb_mac(key, &hb) == mac);
	hb = m.hb;
	hb.boot_id++;
	assert_true(nexus_wire_hb_mac(key, &hb) != mac);
	hb = m.hb;
	hb.peer_boot_id++;
	assert_true(nexus_wire_hb_mac(key, &hb) != mac);
	hb = m.hb;
	hb.counter++;
	assert_true(nexus_wire_hb_mac(key, &hb) != mac);
	key[15] ^= 1;
	assert_true(nexus_wire_hb_mac(key, &m.hb) != mac);
}

static void
test_addr_len_over_max(void **state)
{
	uint8_t buf[NEXUS_WIRE_MAX_LEN + 256];
	struct nexus_wire_msg m, d;
	size_t len;

	(void)state;
	memset(buf, 0x5a, sizeof(buf));
	m = sample_req();
	encode(&m, buf);
	buf[OFF_REQ_ALEN] = PMR_TRANSPORT_ADDR_MAX + 1;
	/* Even with the bytes present, the length is refused as such. */
	len = NEXUS_WIRE_CONNECT_REQ_LEN + PMR_TRANSPORT_ADDR_MAX + 1;
	assert_int_equal(decode_exact(buf, len, &d), -NEXUS_WIRE_E_ADDR_LEN);
	buf[OFF_REQ_ALEN] = 255;
	assert_int_equal(decode_exact(buf, NEXUS_WIRE_CONNECT_REQ_LEN + 255,
			&d), -NEXUS_WIRE_E_ADDR_LEN);

	m = sample_accept();
	encode(&m, buf);
	buf[OFF_ACC_ALEN] = PMR_TRANSPORT_ADDR_MAX + 1;
	len = NEXUS_WIRE_ACCEPT_LEN + PMR_TRANSPORT_ADDR_MAX + 1;
	assert_int_equal(decode_exact(buf, len, &d), -NEXUS_WIRE_E_ADDR_LEN);
}

static void
test_driver_name_unterminated(void **state)
{
	struct nexus_wire_msg m = sample_req(), d;
	uint8_t buf[NEXUS_WIRE_MAX_LEN];
	int len;

	(void)state;
	len = encode(&m, buf);
	memset(buf + OFF_REQ_DRIVER, 'A', PMR_TRANSPORT_NAME_MAX);
	assert_int_equal(decode_exact(buf, (size_t)len, &d),
			-NEXUS_WIRE_E_NAME);
	/* Junk after the NUL is refused too: one canonical encoding. */
	len = encode(&m, buf);
	buf[OFF_REQ_DRIVER + PMR_TRANSPORT_NAME_MAX - 1] = 'z';
	assert_int_equal(decode_exact(buf, (size_t)len, &d),
			-NEXUS_WIRE_E_NAME);
}

static void
test_status_out_of_range(void **state)
{
	static const uint16_t bad[] = {
		PMR_SM_OK, PMR_SM_E_TIMEOUT, PMR_SM_E_UNREACHABLE,
		PMR_SM_E_REMOTE, PMR_SM_E_PEER_DEAD, PMR_SM_E_FAMILY + 1,
		0x0100, 0xffff,
	};
	struct nexus_wire_msg m = sample_refuse(), d;
	uint8_t buf[NEXUS_WIRE_MAX_LEN];
	unsigned int i;
	int len;

	(void)state;
	len = encode(&m, buf);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		buf[OFF_REF_STATUS] = (uint8_t)bad[i];
		buf[OFF_REF_STATUS + 1] = (uint8_t)(bad[i] >> 8);
		assert_int_equal(decode_exact(buf, (size_t)len, &d),
				-NEXUS_WIRE_E_STATUS);
	}
}

static void
test_encode_refuses_invalid(void **state)
{
	uint8_t buf[NEXUS_WIRE_MAX_LEN];
	struct nexus_wire_msg m;

	(void)state;
	m = sample_req();
	m.type = 9;
	assert_int_equal(nexus_wire_encode(&m, buf, sizeof(buf)), -EINVAL);
	m = sample_req();
	m.req.addr.len = PMR_TRANSPORT_ADDR_MAX + 1;
	assert_int_equal(nexus_wire_encode(&m, buf, sizeof(buf)), -EINVAL);
	m = sample_req();
	memset(m.req.driver, 'a', sizeof(m.req.driver));
	assert_int_equal(nexus_wire_encode(&m, buf, sizeof(buf)), -EINVAL);
	m = sample_accept();
	m.accept.addr.len = PMR_TRANSPORT_ADDR_MAX + 1;
	assert_int_equal(nexus_wire_encode(&m, buf, sizeof(buf)), -EINVAL);
	m = sample_refuse();
	m.refuse.status = PMR_SM_OK;
	assert_int_equal(nexus_wire_encode(&m, buf, sizeof(buf)), -EINVAL);
	m = sample_req();
	m.req.boot_id = 0;
	assert_int_equal(nexus_wire_encode(&m, buf, sizeof(buf)), -EINVAL);
	m = sample_accept();
	m.accept.boot_id = 0;
	assert_int_equal(nexus_wire_encode(&m, buf, sizeof(buf)), -EINVAL);
	m = sample_heartbeat();
	m.hb.boot_id = 0;
	assert_int_equal(nexus_wire_encode(&m, buf, sizeof(buf)), -EINVAL);
	m = sample_heartbeat();
	m.hb.peer_boot_id = 0;
	assert_int_equal(nexus_wire_encode(&m, buf, sizeof(buf)), -EINVAL);
	m = sample_heartbeat();
	m.hs_id = 1;
	assert_int_equal(nexus_wire_encode(&m, buf, sizeof(buf)), -EINVAL);
	m = sample_heartbeat();
	assert_int_equal(nexus_wire_encode(&m, buf, 47), -ENOSPC);
	assert_int_equal(nexus_wire_encode(&m, buf, 48), 48);
	m = sample_disconnect();
	assert_int_equal(nexus_wire_encode(&m, buf, 23), -ENOSPC);
	assert_int_equal(nexus_wire_encode(&m, buf, 24), 24);
	m = sample_cookie();
	assert_int_equal(nexus_wire_encode(&m, buf, 27), -ENOSPC);
	assert_int_equal(nexus_wire_encode(&m, buf, 28), 28);
	assert_int_equal(nexus_wire_encode(NULL, buf, 28), -EINVAL);
}

static void
test_strerror(void **state)
{
	(void)state;
	assert_string_equal(nexus_wire_strerror(0), "ok");
	assert_string_equal(nexus_wire_strerror(-NEXUS_WIRE_E_MAGIC),
			"magic");
	assert_string_equal(nexus_wire_strerror(-NEXUS_WIRE_E_STATUS),
			"status");
	assert_string_equal(nexus_wire_strerror(-NEXUS_WIRE_E_BOOT_ID),
			"boot_id");
	assert_string_equal(nexus_wire_strerror(-NEXUS_WIRE_E_HS_ID),
			"hs_id");
	assert_string_equal(nexus_wire_strerror(-NEXUS_WIRE_E_CREDITS),
			"credits");
	assert_string_equal(nexus_wire_strerror(-NEXUS_WIRE_E_ZERO),
			"zero");
	assert_string_equal(nexus_wire_strerror(-NEXUS_WIRE_E_RC_ATTR),
			"rc_attr");
	assert_string_equal(nexus_wire_strerror(-1000), "unknown");
}

/* RC_REQ, RC_ACK and a refusing RC_ACK survive a round trip whole. */
static void
test_roundtrip_rc(void **state)
{
	struct nexus_wire_msg (*const samples[])(void) = {
		sample_rc_req, sample_rc_ack, sample_rc_refused,
	};
	uint8_t buf[NEXUS_WIRE_MAX_LEN];
	struct nexus_wire_msg m, d;
	unsigned int i;
	int len;

	(void)state;
	for (i = 0; i < sizeof(samples) / sizeof(samples[0]); i++) {
		m = samples[i]();
		len = encode(&m, buf);
		assert_int_equal(len, 84);
		assert_int_equal(len, NEXUS_WIRE_RC_LEN);
		assert_int_equal(decode_exact(buf, (size_t)len, &d), 0);
		assert_int_equal(d.type, m.type);
		assert_true(d.hs_id == 0);
		assert_int_equal(d.rc.src_worker, m.rc.src_worker);
		assert_int_equal(d.rc.dst_worker, m.rc.dst_worker);
		assert_int_equal(d.rc.status, m.rc.status);
		assert_int_equal(d.rc.generation, m.rc.generation);
		assert_true(d.rc.boot_id == m.rc.boot_id);
		assert_true(d.rc.peer_boot_id == m.rc.peer_boot_id);
		assert_int_equal(d.rc.attr.qpn, m.rc.attr.qpn);
		assert_int_equal(d.rc.attr.psn, m.rc.attr.psn);
		assert_memory_equal(d.rc.attr.gid, m.rc.attr.gid, 16);
		assert_int_equal(d.rc.attr.mtu, m.rc.attr.mtu);
		assert_int_equal(d.rc.attr.rd_credits, m.rc.attr.rd_credits);
		assert_int_equal(d.rc.attr.max_rd_atomic,
				m.rc.attr.max_rd_atomic);
		assert_int_equal(d.rc.attr.max_msg_size,
				m.rc.attr.max_msg_size);
		assert_true(d.rc.mac == m.rc.mac);
		assert_int_equal(nexus_wire_encode(&m, buf, 83), -ENOSPC);
	}
}

/* Little-endian layout of an RC_REQ, byte for byte, worked out by hand. */
static void
test_golden_rc(void **state)
{
	static const uint8_t req[] = {
		0x50, 0x4d, 0x52, 0x4e,		/* "PMRN" */
		0x05, 0x00,			/* version 5 */
		0x07, 0x00,			/* RC_REQ */
		0, 0, 0, 0, 0, 0, 0, 0,		/* no handshake id */
		0x02, 0x01, 0x04, 0x03,		/* src, dst worker */
		0x00, 0x00,			/* status */
		0x08, 0x07, 0x06, 0x05,		/* generation */
		0x18, 0x17, 0x16, 0x15, 0x14, 0x13, 0x12, 0x11,	/* boot id */
		0x28, 0x27, 0x26, 0x25, 0x24, 0x23, 0x22, 0x21,	/* peer's */
		0x56, 0x34, 0x12, 0x00,		/* qpn */
		0xef, 0xcd, 0xab, 0x00,		/* psn */
		0xf0, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7,	/* gid */
		0xf8, 0xf9, 0xfa, 0xfb, 0xfc, 0xfd, 0xfe, 0xff,
		0x00, 0x04, 0x00, 0x00,		/* mtu 1024 */
		0x10,				/* rd_credits 16 */
		0x08,				/* max_rd_atomic 8 */
		0x00, 0x00, 0x00, 0x80,		/* max_msg_size 2 GiB */
		0x38, 0x37, 0x36, 0x35, 0x34, 0x33, 0x32, 0x31,	/* MAC */
	};
	static const uint8_t refused_body[] = {
		0x04, 0x03, 0x02, 0x01,		/* src, dst worker */
		0x02, 0x00,			/* NO_RESOURCES */
	};
	struct nexus_wire_msg m;
	uint8_t buf[NEXUS_WIRE_MAX_LEN];
	unsigned int i;
	int len;

	(void)state;
	m = sample_rc_req();
	len = encode(&m, buf);
	assert_int_equal(len, sizeof(req));
	assert_memory_equal(buf, req, sizeof(req));

	m = sample_rc_refused();
	len = encode(&m, buf);
	assert_int_equal(buf[OFF_TYPE], 8);	/* RC_ACK */
	assert_memory_equal(buf + 16, refused_body, sizeof(refused_body));
	for (i = 42; i < 76; i++)	/* no attributes */
		assert_int_equal(buf[i], 0);
}

/* Put v little-endian in n bytes at p. */
static void
put_le(uint8_t *p, uint64_t v, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* Decode buf with the n bytes at off set to v: expect want. */
static void
expect_rc(const struct nexus_wire_msg *m, size_t off, uint64_t v,
		unsigned int n, int want)
{
	uint8_t buf[NEXUS_WIRE_MAX_LEN];
	struct nexus_wire_msg d;
	int len = encode(m, buf);

	put_le(buf + off, v, n);
	assert_int_equal(decode_exact(buf, (size_t)len, &d), want);
}

/*
 * Each header and key field of RC_REQ and RC_ACK: refused when wrong by
 * decode, with its own error, and by encode.
 */
static void
test_rc_fields(void **state)
{
	static const uint16_t ack_ok[] = {
		PMR_SM_E_NO_WORKER, PMR_SM_E_NO_RESOURCES,
		PMR_SM_E_BAD_REQUEST, PMR_SM_E_FAMILY,
	};
	static const uint16_t ack_bad[] = {
		PMR_SM_E_TIMEOUT, PMR_SM_E_PEER_DEAD, PMR_SM_E_REFUSED,
		PMR_SM_E_MSG_SIZE, 0xffff,
	};
	uint8_t buf[NEXUS_WIRE_MAX_LEN];
	struct nexus_wire_msg m, e;
	unsigned int i, t;

	(void)state;
	for (t = 0; t < 2; t++) {
		m = t == 0 ? sample_rc_req() : sample_rc_ack();
		for (i = 0; i < 8; i++)
			expect_rc(&m, OFF_HS_ID + i, 1, 1,
					-NEXUS_WIRE_E_HS_ID);
		expect_rc(&m, 22, 0, 4, -NEXUS_WIRE_E_ZERO);
		expect_rc(&m, 26, 0, 8, -NEXUS_WIRE_E_BOOT_ID);
		expect_rc(&m, 34, 0, 8, -NEXUS_WIRE_E_BOOT_ID);
		expect_rc(&m, 22, 1, 4, 0);	/* any other generation */
		e = m;
		e.hs_id = 1;
		assert_int_equal(nexus_wire_encode(&e, buf, sizeof(buf)),
				-EINVAL);
		e = m;
		e.rc.generation = 0;
		assert_int_equal(nexus_wire_encode(&e, buf, sizeof(buf)),
				-EINVAL);
		e = m;
		e.rc.boot_id = 0;
		assert_int_equal(nexus_wire_encode(&e, buf, sizeof(buf)),
				-EINVAL);
		e = m;
		e.rc.peer_boot_id = 0;
		assert_int_equal(nexus_wire_encode(&e, buf, sizeof(buf)),
				-EINVAL);
	}

	/* An RC_REQ carries no status. */
	m = sample_rc_req();
	expect_rc(&m, 20, PMR_SM_E_NO_RESOURCES, 2, -NEXUS_WIRE_E_STATUS);
	m.rc.status = PMR_SM_E_NO_RESOURCES;
	memset(&m.rc.attr, 0, sizeof(m.rc.attr));
	assert_int_equal(nexus_wire_encode(&m, buf, sizeof(buf)), -EINVAL);

	/* An RC_ACK: 0 or a refusal reason of its own list. */
	m = sample_rc_refused();
	for (i = 0; i < sizeof(ack_ok) / sizeof(ack_ok[0]); i++) {
		assert_true(nexus_wire_rc_status_valid(ack_ok[i]));
		expect_rc(&m, 20, ack_ok[i], 2, 0);
	}
	for (i = 0; i < sizeof(ack_bad) / sizeof(ack_bad[0]); i++) {
		assert_false(nexus_wire_rc_status_valid(ack_bad[i]));
		expect_rc(&m, 20, ack_bad[i], 2, -NEXUS_WIRE_E_STATUS);
		e = m;
		e.rc.status = ack_bad[i];
		assert_int_equal(nexus_wire_encode(&e, buf, sizeof(buf)),
				-EINVAL);
	}
	/* A refusal with attributes, any byte of them. */
	for (i = 42; i < 76; i++)
		expect_rc(&m, i, 0x01, 1, -NEXUS_WIRE_E_RC_ATTR);
	e = m;
	e.rc.attr.gid[15] = 1;
	assert_int_equal(nexus_wire_encode(&e, buf, sizeof(buf)), -EINVAL);
	/* And a status 0 whose attributes are the zeros of a refusal. */
	expect_rc(&m, 20, 0, 2, -NEXUS_WIRE_E_RC_ATTR);
}

/*
 * The attributes as pmr_transport_rc_connect() takes them: 24-bit QPN
 * and PSN, an IB MTU, read credits, 0 or 4096 bytes and more per WR.
 */
static void
test_rc_attr_bounds(void **state)
{
	static const struct {
		size_t off;
		unsigned int n;
		uint64_t v;
		bool ok;
	} c[] = {
		{ 42, 4, 0x00ffffff, true }, { 42, 4, 0x01000000, false },
		{ 42, 4, UINT32_MAX, false }, { 42, 4, 0, true },
		{ 46, 4, 0x00ffffff, true }, { 46, 4, 0x01000000, false },
		{ 66, 4, 256, true }, { 66, 4, 512, true },
		{ 66, 4, 2048, true }, { 66, 4, 4096, true },
		{ 66, 4, 0, false }, { 66, 4, 128, false },
		{ 66, 4, 1500, false }, { 66, 4, 8192, false },
		{ 70, 1, 0, false }, { 70, 1, 255, true },
		{ 71, 1, 0, true }, { 71, 1, 255, true },
		{ 72, 4, 0, true }, { 72, 4, 4096, true },
		{ 72, 4, 4095, false }, { 72, 4, 1, false },
		{ 72, 4, UINT32_MAX, true },
	};
	struct nexus_wire_msg m, d;
	uint8_t buf[NEXUS_WIRE_MAX_LEN];
	unsigned int i, t;
	int len;

	(void)state;
	for (t = 0; t < 2; t++) {
		for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
			m = t == 0 ? sample_rc_req() : sample_rc_ack();
			expect_rc(&m, c[i].off, c[i].v, c[i].n,
					c[i].ok ? 0 : -NEXUS_WIRE_E_RC_ATTR);
			/* Encode agrees with decode. */
			len = encode(&m, buf);
			put_le(buf + c[i].off, c[i].v, c[i].n);
			if (!c[i].ok)
				continue;
			assert_int_equal(decode_exact(buf, (size_t)len, &d),
					0);
			assert_int_equal(nexus_wire_encode(&d, buf,
					sizeof(buf)), len);
		}
		m = t == 0 ? sample_rc_req() : sample_rc_ack();
		m.rc.attr.qpn = 0x01000000;
		assert_int_equal(nexus_wire_encode(&m, buf, sizeof(buf)),
				-EINVAL);
		m = t == 0 ? sample_rc_req() : sample_rc_ack();
		m.rc.attr.mtu = 1500;
		assert_int_equal(nexus_wire_encode(&m, buf, sizeof(buf)),
				-EINVAL);
		m = t == 0 ? sample_rc_req() : sample_rc_ack();
		m.rc.attr.rd_credits = 0;
		assert_int_equal(nexus_wire_encode(&m, buf, sizeof(buf)),
				-EINVAL);
		m = t == 0 ? sample_rc_req() : sample_rc_ack();
		m.rc.attr.max_msg_size = 100;
		assert_int_equal(nexus_wire_encode(&m, buf, sizeof(buf)),
				-EINVAL);
	}
}

/*
 * The RC MAC: SipHash of the encoded bytes before it, under the key; it
 * changes with every one of them (the type too: an RC_REQ's MAC is not an
 * RC_ACK's), not with the MAC field, and not for any other message.
 */
static void
test_rc_mac(void **state)
{
	uint8_t key[NEXUS_WIRE_SECRET_LEN], key2[NEXUS_WIRE_SECRET_LEN];
	uint8_t buf[NEXUS_WIRE_MAX_LEN];
	struct nexus_wire_msg m, d, hb;
	uint64_t mac;
	unsigned int i, changed = 0;
	int len;

	(void)state;
	for (i = 0; i < sizeof(key); i++) {
		key[i] = (uint8_t)(0x50 + i);
		key2[i] = key[i];
	}
	key2[7] ^= 0x01;
	m = sample_rc_req();
	mac = nexus_wire_rc_mac(key, &m);
	len = encode(&m, buf);
	assert_true(mac == nexus_siphash24(key, buf, 76));
	assert_true(nexus_wire_rc_mac(key2, &m) != mac);
	d = m;
	d.rc.mac = ~d.rc.mac;	/* not an input */
	assert_true(nexus_wire_rc_mac(key, &d) == mac);
	d = m;
	d.type = NEXUS_WIRE_RC_ACK;
	assert_true(nexus_wire_rc_mac(key, &d) != mac);

	/* Each valid one-byte change before the MAC changes it. */
	for (i = 0; i < 76; i++) {
		len = encode(&m, buf);
		buf[i] ^= 0x01;
		if (decode_exact(buf, (size_t)len, &d) != 0)
			continue;
		assert_true(nexus_wire_rc_mac(key, &d) != mac);
		changed++;
	}
	assert_true(changed >= 50);

	/* No MAC of messages that are not valid RC_REQ or RC_ACK. */
	hb = sample_heartbeat();
	assert_true(nexus_wire_rc_mac(key, &hb) == 0);
	d = m;
	d.rc.generation = 0;
	assert_true(nexus_wire_rc_mac(key, &d) == 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip_connect_req),
		cmocka_unit_test(test_roundtrip_accept),
		cmocka_unit_test(test_roundtrip_refuse),
		cmocka_unit_test(test_roundtrip_disconnect),
		cmocka_unit_test(test_roundtrip_heartbeat),
		cmocka_unit_test(test_roundtrip_cookie),
		cmocka_unit_test(test_golden_bytes),
		cmocka_unit_test(test_short_and_long_rejected),
		cmocka_unit_test(test_bad_magic),
		cmocka_unit_test(test_bad_version),
		cmocka_unit_test(test_unknown_type),
		cmocka_unit_test(test_wrong_length_for_type),
		cmocka_unit_test(test_boot_id_zero),
		cmocka_unit_test(test_zero_fields),
		cmocka_unit_test(test_pkt_size_bounds),
		cmocka_unit_test(test_siphash_vectors),
		cmocka_unit_test(test_hb_mac),
		cmocka_unit_test(test_addr_len_over_max),
		cmocka_unit_test(test_driver_name_unterminated),
		cmocka_unit_test(test_status_out_of_range),
		cmocka_unit_test(test_encode_refuses_invalid),
		cmocka_unit_test(test_strerror),
		cmocka_unit_test(test_roundtrip_rc),
		cmocka_unit_test(test_golden_rc),
		cmocka_unit_test(test_rc_fields),
		cmocka_unit_test(test_rc_attr_bounds),
		cmocka_unit_test(test_rc_mac),
	};

	return cmocka_run_group_tests_name("nexus_wire", tests, NULL, NULL);
}
