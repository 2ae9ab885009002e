/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * Unit tests of the eth driver's Ethernet/IPv4/UDP header functions.
 * Linked directly with eth_hdr.c, no EAL. Expected values are written by
 * hand or computed by the small checksum helpers below, never by the code
 * under test.
 */

#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "eth_hdr.h"

/* Byte offsets in a frame without IP options. */
#define OFF_ETH_DST	0
#define OFF_ETH_SRC	6
#define OFF_ETHERTYPE	12
#define OFF_IP		14
#define OFF_IP_VHL	14
#define OFF_IP_TOS	15
#define OFF_IP_LEN	16
#define OFF_IP_ID	18
#define OFF_IP_FRAG	20
#define OFF_IP_TTL	22
#define OFF_IP_PROTO	23
#define OFF_IP_CKSUM	24
#define OFF_IP_SRC	26
#define OFF_IP_DST	30
#define OFF_UDP		34
#define OFF_UDP_SPORT	34
#define OFF_UDP_DPORT	36
#define OFF_UDP_LEN	38
#define OFF_UDP_CKSUM	40
#define HDR_LEN		42
#define IP_HDR_LEN	20
#define UDP_HDR_LEN	8
#define ETH_MIN_FRAME	60	/* Without FCS. */

#define FRAME_MAX	2048

/* Sender: 02:11:22:33:44:55, 10.0.0.1, port 0x1234. */
static const struct pmr_eth_endpoint ep_a = {
	.mac = { .addr_bytes = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 } },
	.ip = RTE_BE32(0x0a000001),
	.port = RTE_BE16(0x1234),
};

/* Receiver: 02:66:77:88:99:aa, 10.0.0.2, port 0x5678. */
static const struct pmr_eth_endpoint ep_b = {
	.mac = { .addr_bytes = { 0x02, 0x66, 0x77, 0x88, 0x99, 0xaa } },
	.ip = RTE_BE32(0x0a000002),
	.port = RTE_BE16(0x5678),
};

static uint8_t frame[FRAME_MAX] __rte_aligned(8);

/* Independent one's-complement arithmetic (RFC 1071). */

static uint32_t
sum16(const uint8_t *p, size_t n, uint32_t sum)
{
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if ((n & 1) != 0)
		sum += (uint32_t)p[n - 1] << 8;
	return sum;
}

static uint16_t
fold(uint32_t sum)
{
	while ((sum >> 16) != 0)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

static uint16_t
get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

/* Checksum of an IPv4 header of ihl bytes, its checksum field taken as 0. */
static uint16_t
ip_cksum(const uint8_t *ip, size_t ihl)
{
	uint32_t sum;

	sum = sum16(ip, 10, 0);
	sum = sum16(ip + 12, ihl - 12, sum);
	return (uint16_t)~fold(sum);
}

/* Recompute the IPv4 header checksum of a frame after editing the header. */
static void
fix_ip_cksum(uint8_t *f, size_t ihl)
{
	put16(f + OFF_IP + 10, ip_cksum(f + OFF_IP, ihl));
}

/* RFC 768 UDP checksum of the datagram at udp, over its UDP length. */
static uint16_t
udp_cksum(const uint8_t *ip, const uint8_t *udp)
{
	uint16_t ulen = get16(udp + 4);
	uint32_t sum;
	uint16_t ck;

	sum = sum16(ip + 12, 8, 0);	/* Source and destination address. */
	sum += ip[9];			/* Zero, protocol. */
	sum += ulen;
	sum = sum16(udp, 6, sum);	/* Header without the checksum. */
	sum = sum16(udp + 8, ulen - 8, sum);
	ck = (uint16_t)~fold(sum);
	return ck == 0 ? 0xffff : ck;
}

static void
fill_payload(uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 7 + 3);
}

/*
 * Build a well-formed frame from ep_a to ep_b with a payload of n bytes,
 * using the library; returns its length.
 */
static uint32_t
build_frame(uint16_t n)
{
	memset(frame, 0, sizeof(frame));
	pmr_eth_hdr_template(frame, &ep_a, &ep_b);
	pmr_eth_hdr_set_len(frame, n, false);
	fill_payload(frame + HDR_LEN, n);
	return HDR_LEN + n;
}

/*
 * pmr_eth_hdr_parse(), checked against pmr_eth_hdr_parse_fast(): every
 * frame a test parses gets the same verdict and the same info from both.
 */
static enum pmr_eth_drop
parse_both(const uint8_t *f, uint32_t len,
		const struct pmr_eth_endpoint *local, uint32_t flags,
		struct pmr_eth_rx_info *info)
{
	struct pmr_eth_rx_info slow, fast;
	struct pmr_eth_rx_match m;
	enum pmr_eth_drop a, b;

	memset(&slow, 0, sizeof(slow));
	memset(&fast, 0, sizeof(fast));
	a = pmr_eth_hdr_parse(f, len, local, flags, &slow);
	pmr_eth_rx_match_init(&m, local);
	b = pmr_eth_hdr_parse_fast(f, len, &m, local, flags, &fast);
	assert_int_equal(a, b);
	if (a == PMR_ETH_RX_OK) {
		assert_memory_equal(&slow, &fast, sizeof(slow));
		*info = slow;
	}
	return a;
}

static enum pmr_eth_drop
parse(uint32_t len, uint32_t flags)
{
	struct pmr_eth_rx_info info;

	memset(&info, 0, sizeof(info));
	return parse_both(frame, len, &ep_b, flags, &info);
}

static void
assert_src_is_a(const struct pmr_eth_rx_info *info)
{
	assert_memory_equal(info->src.mac.addr_bytes, ep_a.mac.addr_bytes,
			RTE_ETHER_ADDR_LEN);
	assert_int_equal(info->src.ip, ep_a.ip);
	assert_int_equal(info->src.port, ep_a.port);
}

static const uint16_t rt_sizes[] = { 0, 1, 7, 64, 1472 };

/* Build/parse round trip. */

static void
test_round_trip(void **state __rte_unused)
{
	struct pmr_eth_rx_info info;
	uint8_t fresh[HDR_LEN];
	unsigned int i;

	/* One template, set_len per packet, as the driver does. */
	memset(frame, 0, sizeof(frame));
	pmr_eth_hdr_template(frame, &ep_a, &ep_b);
	for (i = 0; i < RTE_DIM(rt_sizes); i++) {
		uint16_t n = rt_sizes[i];

		pmr_eth_hdr_set_len(frame, n, false);
		fill_payload(frame + HDR_LEN, n);

		/* Same header as a fresh template for this size. */
		pmr_eth_hdr_template(fresh, &ep_a, &ep_b);
		pmr_eth_hdr_set_len(fresh, n, false);
		assert_memory_equal(frame, fresh, HDR_LEN);

		/* And as the incremental checksum from the template's sum. */
		pmr_eth_hdr_template(fresh, &ep_a, &ep_b);
		pmr_eth_hdr_set_len_sum(fresh, n, pmr_eth_hdr_ip_sum(fresh),
				false);
		assert_memory_equal(frame, fresh, HDR_LEN);
		pmr_eth_hdr_set_len_sum(fresh, n, pmr_eth_hdr_ip_sum(fresh),
				true);
		assert_int_equal(get16(fresh + OFF_IP_CKSUM), 0);
		assert_int_equal(get16(fresh + OFF_IP_LEN), n + 28);

		memset(&info, 0xa5, sizeof(info));
		assert_int_equal(parse_both(frame, HDR_LEN + n, &ep_b,
				0, &info), PMR_ETH_RX_OK);
		assert_src_is_a(&info);
		assert_int_equal(info.payload_off, PMR_ETH_HDR_LEN);
		assert_int_equal(info.payload_len, n);
		assert_int_equal(get16(frame + OFF_IP_LEN), n + 28);
		assert_int_equal(get16(frame + OFF_UDP_LEN), n + 8);
		assert_int_equal(get16(frame + OFF_IP_CKSUM),
				ip_cksum(frame + OFF_IP, IP_HDR_LEN));
	}
}

static void
test_round_trip_padded_frame(void **state __rte_unused)
{
	struct pmr_eth_rx_info info;
	unsigned int i;

	for (i = 0; i < RTE_DIM(rt_sizes); i++) {
		uint16_t n = rt_sizes[i];
		uint32_t len = build_frame(n);

		if (len >= ETH_MIN_FRAME)
			continue;
		/* Padding with garbage, as a NIC might deliver it. */
		memset(frame + len, 0xee, ETH_MIN_FRAME - len);

		memset(&info, 0, sizeof(info));
		assert_int_equal(parse_both(frame, ETH_MIN_FRAME,
				&ep_b, 0, &info), PMR_ETH_RX_OK);
		assert_src_is_a(&info);
		assert_int_equal(info.payload_off, PMR_ETH_HDR_LEN);
		assert_int_equal(info.payload_len, n);
	}
}

static void
test_ip_cksum_offload_needs_flag(void **state __rte_unused)
{
	struct pmr_eth_rx_info info;
	unsigned int i;

	for (i = 0; i < RTE_DIM(rt_sizes); i++) {
		uint16_t n = rt_sizes[i];

		build_frame(n);
		pmr_eth_hdr_set_len(frame, n, true);
		assert_int_equal(frame[OFF_IP_CKSUM], 0);
		assert_int_equal(frame[OFF_IP_CKSUM + 1], 0);

		memset(&info, 0, sizeof(info));
		assert_int_equal(parse_both(frame, HDR_LEN + n, &ep_b,
				PMR_ETH_PARSE_IP_CKSUM_GOOD, &info),
				PMR_ETH_RX_OK);
		assert_src_is_a(&info);
		assert_int_equal(info.payload_off, PMR_ETH_HDR_LEN);
		assert_int_equal(info.payload_len, n);

		assert_int_equal(parse(HDR_LEN + n, 0),
				PMR_ETH_DROP_IP_CKSUM);
		assert_int_equal(parse(HDR_LEN + n,
				PMR_ETH_PARSE_L4_CKSUM_GOOD),
				PMR_ETH_DROP_IP_CKSUM);
	}
}

/* Golden bytes. */

static void
test_template_golden_bytes(void **state __rte_unused)
{
	static const uint8_t golden[HDR_LEN] = {
		/* Ethernet: dst, src, IPv4. */
		0x02, 0x66, 0x77, 0x88, 0x99, 0xaa,
		0x02, 0x11, 0x22, 0x33, 0x44, 0x55,
		0x08, 0x00,
		/* IPv4: 4/5, tos 0, len 92, id 0, DF, TTL 64, UDP, cksum. */
		0x45, 0x00, 0x00, 0x5c, 0x00, 0x00, 0x40, 0x00,
		0x40, 0x11, 0x26, 0x8f,
		0x0a, 0x00, 0x00, 0x01, 0x0a, 0x00, 0x00, 0x02,
		/* UDP: 0x1234 -> 0x5678, len 72, no checksum. */
		0x12, 0x34, 0x56, 0x78, 0x00, 0x48, 0x00, 0x00,
	};

	build_frame(64);
	assert_int_equal(PMR_ETH_HDR_LEN, HDR_LEN);

	assert_int_equal(frame[OFF_ETHERTYPE], 0x08);
	assert_int_equal(frame[OFF_ETHERTYPE + 1], 0x00);
	assert_int_equal(frame[OFF_IP_VHL], 0x45);
	assert_int_equal(frame[OFF_IP_TOS], 0x00);
	assert_int_equal(frame[OFF_IP_LEN], 0x00);
	assert_int_equal(frame[OFF_IP_LEN + 1], 92);
	assert_int_equal(frame[OFF_IP_FRAG], 0x40);
	assert_int_equal(frame[OFF_IP_FRAG + 1], 0x00);
	assert_int_equal(frame[OFF_IP_TTL], 64);
	assert_int_equal(frame[OFF_IP_PROTO], 17);
	assert_int_equal(frame[OFF_UDP_SPORT], 0x12);
	assert_int_equal(frame[OFF_UDP_SPORT + 1], 0x34);
	assert_int_equal(frame[OFF_UDP_DPORT], 0x56);
	assert_int_equal(frame[OFF_UDP_DPORT + 1], 0x78);
	assert_int_equal(frame[OFF_UDP_LEN], 0x00);
	assert_int_equal(frame[OFF_UDP_LEN + 1], 72);
	assert_int_equal(frame[OFF_UDP_CKSUM], 0x00);
	assert_int_equal(frame[OFF_UDP_CKSUM + 1], 0x00);

	assert_memory_equal(frame, golden, HDR_LEN);

	/* Large payload: total length 1500 big-endian. */
	build_frame(1472);
	assert_int_equal(frame[OFF_IP_LEN], 0x05);
	assert_int_equal(frame[OFF_IP_LEN + 1], 0xdc);
	assert_int_equal(frame[OFF_UDP_LEN], 0x05);
	assert_int_equal(frame[OFF_UDP_LEN + 1], 0xc8);
}

static void
test_ip_cksum_golden(void **state __rte_unused)
{
	/* Hand-summed checksums; the second one folds carries. */
	static const struct {
		uint32_t src, dst;
		uint16_t payload_len;
		uint16_t cksum;
	} cases[] = {
		{ 0x0a000001, 0x0a000002, 64, 0x268f },
		{ 0xc0a8010a, 0xc0a80114, 1472, 0xb1a2 },
		{ 0xac10fffe, 0xac100001, 0, 0xe2b0 },
	};
	struct pmr_eth_endpoint src = ep_a, dst = ep_b;
	uint8_t hdr[HDR_LEN];
	unsigned int i;

	for (i = 0; i < RTE_DIM(cases); i++) {
		src.ip = rte_cpu_to_be_32(cases[i].src);
		dst.ip = rte_cpu_to_be_32(cases[i].dst);
		pmr_eth_hdr_template(hdr, &src, &dst);
		pmr_eth_hdr_set_len(hdr, cases[i].payload_len, false);

		/* The test's own helper agrees with the hand sum... */
		assert_int_equal(ip_cksum(hdr + OFF_IP, IP_HDR_LEN),
				cases[i].cksum);
		/* ...and so does the library. */
		assert_int_equal(get16(hdr + OFF_IP_CKSUM), cases[i].cksum);
		/* A valid header sums to 0xffff, checksum included. */
		assert_int_equal(fold(sum16(hdr + OFF_IP, IP_HDR_LEN, 0)),
				0xffff);
	}
}

/* Malformed frames, one reason each. */

static void
test_drop_short(void **state __rte_unused)
{
	uint32_t len;

	build_frame(64);
	for (len = 0; len < HDR_LEN; len++)
		assert_int_equal(parse(len, 0), PMR_ETH_DROP_SHORT);
	assert_int_equal(parse(len, 0), PMR_ETH_DROP_IP_LEN);

	/* An empty payload is the shortest acceptable frame. */
	len = build_frame(0);
	assert_int_equal(len, HDR_LEN);
	assert_int_equal(parse(len, 0), PMR_ETH_RX_OK);
	assert_int_equal(parse(len - 1, 0), PMR_ETH_DROP_SHORT);
}

static void
test_drop_ethertype(void **state __rte_unused)
{
	static const uint16_t types[] = { 0x86dd, 0x0806, 0x8100, 0x0000,
		0x0008 };
	uint32_t len;
	unsigned int i;

	for (i = 0; i < RTE_DIM(types); i++) {
		len = build_frame(16);
		put16(frame + OFF_ETHERTYPE, types[i]);
		assert_int_equal(parse(len, 0), PMR_ETH_DROP_ETHERTYPE);
	}
}

static void
test_drop_dst_mac(void **state __rte_unused)
{
	uint32_t len;
	unsigned int i;

	for (i = 0; i < RTE_ETHER_ADDR_LEN; i++) {
		len = build_frame(16);
		frame[OFF_ETH_DST + i] ^= 0x01;
		assert_int_equal(parse(len, 0), PMR_ETH_DROP_DST_MAC);
	}

	/* Broadcast is not ours either. */
	len = build_frame(16);
	memset(frame + OFF_ETH_DST, 0xff, RTE_ETHER_ADDR_LEN);
	assert_int_equal(parse(len, 0), PMR_ETH_DROP_DST_MAC);
}

static void
test_drop_ip_version(void **state __rte_unused)
{
	static const uint8_t vhl[] = { 0x65, 0x05, 0x55, 0xf5 };
	uint32_t len;
	unsigned int i;

	for (i = 0; i < RTE_DIM(vhl); i++) {
		len = build_frame(16);
		frame[OFF_IP_VHL] = vhl[i];
		fix_ip_cksum(frame, IP_HDR_LEN);
		assert_int_equal(parse(len, 0), PMR_ETH_DROP_IP_VERSION);
	}
}

static void
test_drop_ip_ihl_too_small(void **state __rte_unused)
{
	uint32_t len;
	uint8_t ihl;

	for (ihl = 0; ihl < 5; ihl++) {
		len = build_frame(64);
		frame[OFF_IP_VHL] = 0x40 | ihl;
		fix_ip_cksum(frame, IP_HDR_LEN);
		assert_int_equal(parse(len, 0), PMR_ETH_DROP_IP_IHL);
	}
}

static void
test_drop_ip_ihl_past_frame(void **state __rte_unused)
{
	uint32_t len;

	/* 60-byte IP header + UDP header do not fit in 42 + 28 bytes. */
	len = build_frame(28);
	frame[OFF_IP_VHL] = 0x4f;
	fix_ip_cksum(frame, 60);
	assert_int_equal(parse(len, 0), PMR_ETH_DROP_IP_IHL);

	/* 24-byte IP header + UDP header do not fit in a 42-byte frame. */
	len = build_frame(0);
	frame[OFF_IP_VHL] = 0x46;
	fix_ip_cksum(frame, 24);
	assert_int_equal(parse(len, 0), PMR_ETH_DROP_IP_IHL);
}

static void
test_drop_ip_len_too_small(void **state __rte_unused)
{
	static const uint16_t tot[] = { 0, 8, 20, 27 };
	uint32_t len;
	unsigned int i;

	for (i = 0; i < RTE_DIM(tot); i++) {
		len = build_frame(16);
		put16(frame + OFF_IP_LEN, tot[i]);
		fix_ip_cksum(frame, IP_HDR_LEN);
		assert_int_equal(parse(len, 0), PMR_ETH_DROP_IP_LEN);
	}
}

static void
test_drop_ip_len_past_frame(void **state __rte_unused)
{
	uint32_t len;

	len = build_frame(64);
	put16(frame + OFF_IP_LEN, 28 + 64 + 1);
	fix_ip_cksum(frame, IP_HDR_LEN);
	assert_int_equal(parse(len, 0), PMR_ETH_DROP_IP_LEN);

	len = build_frame(64);
	put16(frame + OFF_IP_LEN, 0xffff);
	fix_ip_cksum(frame, IP_HDR_LEN);
	assert_int_equal(parse(len, 0), PMR_ETH_DROP_IP_LEN);

	/* A frame truncated by one byte. */
	len = build_frame(64);
	assert_int_equal(parse(len - 1, 0), PMR_ETH_DROP_IP_LEN);
}

static void
test_drop_ip_frag_more_fragments(void **state __rte_unused)
{
	static const uint16_t frag[] = { 0x2000, 0x6000 };
	uint32_t len;
	unsigned int i;

	for (i = 0; i < RTE_DIM(frag); i++) {
		len = build_frame(16);
		put16(frame + OFF_IP_FRAG, frag[i]);
		fix_ip_cksum(frame, IP_HDR_LEN);
		assert_int_equal(parse(len, 0), PMR_ETH_DROP_IP_FRAG);
	}
}

static void
test_drop_ip_frag_offset(void **state __rte_unused)
{
	static const uint16_t frag[] = { 0x0001, 0x4001, 0x1fff, 0x0100 };
	uint32_t len;
	unsigned int i;

	for (i = 0; i < RTE_DIM(frag); i++) {
		len = build_frame(16);
		put16(frame + OFF_IP_FRAG, frag[i]);
		fix_ip_cksum(frame, IP_HDR_LEN);
		assert_int_equal(parse(len, 0), PMR_ETH_DROP_IP_FRAG);
	}

	/* Neither DF nor anything else: a whole datagram, accepted. */
	len = build_frame(16);
	put16(frame + OFF_IP_FRAG, 0x0000);
	fix_ip_cksum(frame, IP_HDR_LEN);
	assert_int_equal(parse(len, 0), PMR_ETH_RX_OK);
}

static void
test_drop_ip_cksum(void **state __rte_unused)
{
	uint32_t len;
	unsigned int i;

	/* Flip a bit in each header byte but the checksum's own. */
	for (i = 0; i < IP_HDR_LEN; i++) {
		/* Version/IHL, length, frag are checked earlier. */
		if (i == 0 || i == 2 || i == 3 || i == 6 || i == 7 ||
		    i == 10 || i == 11)
			continue;
		len = build_frame(16);
		frame[OFF_IP + i] ^= 0x10;
		assert_int_equal(parse(len, 0), PMR_ETH_DROP_IP_CKSUM);
	}

	/* A wrong checksum field. */
	len = build_frame(16);
	frame[OFF_IP_CKSUM + 1] ^= 0x01;
	assert_int_equal(parse(len, 0), PMR_ETH_DROP_IP_CKSUM);

	/* The NIC's word is taken when it has checked. */
	assert_int_equal(parse(len, PMR_ETH_PARSE_IP_CKSUM_GOOD),
			PMR_ETH_RX_OK);
}

static void
test_drop_ip_proto(void **state __rte_unused)
{
	static const uint8_t protos[] = { 6, 1, 0, 136, 255 };
	uint32_t len;
	unsigned int i;

	for (i = 0; i < RTE_DIM(protos); i++) {
		len = build_frame(16);
		frame[OFF_IP_PROTO] = protos[i];
		fix_ip_cksum(frame, IP_HDR_LEN);
		assert_int_equal(parse(len, 0), PMR_ETH_DROP_IP_PROTO);
	}
}

static void
test_drop_dst_ip(void **state __rte_unused)
{
	uint32_t len;
	unsigned int i;

	for (i = 0; i < 4; i++) {
		len = build_frame(16);
		frame[OFF_IP_DST + i] ^= 0x80;
		fix_ip_cksum(frame, IP_HDR_LEN);
		assert_int_equal(parse(len, 0), PMR_ETH_DROP_DST_IP);
	}

	/* Our address as the source only. */
	len = build_frame(16);
	memcpy(frame + OFF_IP_DST, frame + OFF_IP_SRC, 4);
	fix_ip_cksum(frame, IP_HDR_LEN);
	assert_int_equal(parse(len, 0), PMR_ETH_DROP_DST_IP);
}

static void
test_drop_dst_port(void **state __rte_unused)
{
	uint32_t len;

	len = build_frame(16);
	frame[OFF_UDP_DPORT + 1] ^= 0x01;
	assert_int_equal(parse(len, 0), PMR_ETH_DROP_DST_PORT);

	len = build_frame(16);
	put16(frame + OFF_UDP_DPORT, 0x7856);	/* Byte-swapped port. */
	assert_int_equal(parse(len, 0), PMR_ETH_DROP_DST_PORT);

	len = build_frame(16);
	put16(frame + OFF_UDP_DPORT, 0);
	assert_int_equal(parse(len, 0), PMR_ETH_DROP_DST_PORT);
}

static void
test_drop_udp_len_too_small(void **state __rte_unused)
{
	uint32_t len;
	uint16_t ulen;

	for (ulen = 0; ulen < UDP_HDR_LEN; ulen++) {
		len = build_frame(16);
		put16(frame + OFF_UDP_LEN, ulen);
		assert_int_equal(parse(len, 0), PMR_ETH_DROP_UDP_LEN);
	}
}

static void
test_drop_udp_len_past_ip_payload(void **state __rte_unused)
{
	struct pmr_eth_rx_info info;
	uint32_t len;

	len = build_frame(16);
	put16(frame + OFF_UDP_LEN, UDP_HDR_LEN + 16 + 1);
	assert_int_equal(parse(len, 0), PMR_ETH_DROP_UDP_LEN);

	/* Even when the frame has the bytes: the IP length bounds UDP. */
	len = build_frame(16);
	put16(frame + OFF_UDP_LEN, UDP_HDR_LEN + 16 + 1);
	assert_int_equal(parse(ETH_MIN_FRAME, 0), PMR_ETH_DROP_UDP_LEN);

	len = build_frame(16);
	put16(frame + OFF_UDP_LEN, 0xffff);
	assert_int_equal(parse(len, 0), PMR_ETH_DROP_UDP_LEN);

	/* A shorter UDP length is allowed and gives the payload length. */
	len = build_frame(16);
	put16(frame + OFF_UDP_LEN, UDP_HDR_LEN + 5);
	memset(&info, 0, sizeof(info));
	assert_int_equal(parse_both(frame, len, &ep_b, 0, &info),
			PMR_ETH_RX_OK);
	assert_int_equal(info.payload_len, 5);

	/* ...and its checksum covers the UDP length only (RFC 768). */
	put16(frame + OFF_UDP_CKSUM, udp_cksum(frame + OFF_IP,
			frame + OFF_UDP));
	assert_int_equal(parse_both(frame, len, &ep_b, 0, &info),
			PMR_ETH_RX_OK);
	frame[OFF_UDP + UDP_HDR_LEN + 4] ^= 0x01;
	assert_int_equal(parse_both(frame, len, &ep_b, 0, &info),
			PMR_ETH_DROP_UDP_CKSUM);
}

static void
test_udp_cksum_good_accepted(void **state __rte_unused)
{
	struct pmr_eth_rx_info info;
	unsigned int i;
	uint32_t len;
	uint16_t ck;

	for (i = 0; i < RTE_DIM(rt_sizes); i++) {
		len = build_frame(rt_sizes[i]);
		ck = udp_cksum(frame + OFF_IP, frame + OFF_UDP);
		assert_int_not_equal(ck, 0);
		put16(frame + OFF_UDP_CKSUM, ck);

		memset(&info, 0, sizeof(info));
		assert_int_equal(parse_both(frame, len, &ep_b, 0,
				&info), PMR_ETH_RX_OK);
		assert_src_is_a(&info);
		assert_int_equal(info.payload_len, rt_sizes[i]);
	}
}

static void
test_drop_udp_cksum_bad(void **state __rte_unused)
{
	uint32_t len;
	uint16_t ck;

	len = build_frame(64);
	ck = udp_cksum(frame + OFF_IP, frame + OFF_UDP) ^ 0x0101;
	assert_int_not_equal(ck, 0);
	put16(frame + OFF_UDP_CKSUM, ck);
	assert_int_equal(parse(len, 0), PMR_ETH_DROP_UDP_CKSUM);
	/* The NIC checked it: no second look. */
	assert_int_equal(parse(len, PMR_ETH_PARSE_L4_CKSUM_GOOD),
			PMR_ETH_RX_OK);

	/* A correct checksum, then a corrupted payload byte. */
	len = build_frame(64);
	put16(frame + OFF_UDP_CKSUM,
			udp_cksum(frame + OFF_IP, frame + OFF_UDP));
	assert_int_equal(parse(len, 0), PMR_ETH_RX_OK);
	frame[HDR_LEN + 10] ^= 0x04;
	assert_int_equal(parse(len, 0), PMR_ETH_DROP_UDP_CKSUM);
	assert_int_equal(parse(len, PMR_ETH_PARSE_L4_CKSUM_GOOD),
			PMR_ETH_RX_OK);
	assert_int_equal(parse(len, PMR_ETH_PARSE_IP_CKSUM_GOOD),
			PMR_ETH_DROP_UDP_CKSUM);
}

/* IP options. */

/*
 * Build a frame from ep_a to ep_b with IHL 6 (4 option bytes) and a payload
 * of n bytes; returns its length.
 */
static uint32_t
build_frame_ihl6(uint16_t n)
{
	static const uint8_t opts[4] = { 0x01, 0x01, 0x01, 0x00 }; /* NOPs. */
	uint8_t hdr[HDR_LEN];

	pmr_eth_hdr_template(hdr, &ep_a, &ep_b);
	pmr_eth_hdr_set_len(hdr, n, false);
	memset(frame, 0, sizeof(frame));
	memcpy(frame, hdr, OFF_UDP);
	memcpy(frame + OFF_UDP, opts, sizeof(opts));
	memcpy(frame + OFF_UDP + 4, hdr + OFF_UDP, UDP_HDR_LEN);
	fill_payload(frame + HDR_LEN + 4, n);
	frame[OFF_IP_VHL] = 0x46;
	put16(frame + OFF_IP_LEN, 24 + UDP_HDR_LEN + n);
	fix_ip_cksum(frame, 24);
	return HDR_LEN + 4 + n;
}

static void
test_ip_options_accepted(void **state __rte_unused)
{
	struct pmr_eth_rx_info info;
	uint32_t len;

	len = build_frame_ihl6(33);
	memset(&info, 0, sizeof(info));
	assert_int_equal(parse_both(frame, len, &ep_b, 0, &info),
			PMR_ETH_RX_OK);
	assert_src_is_a(&info);
	assert_int_equal(info.payload_off, PMR_ETH_HDR_LEN + 4);
	assert_int_equal(info.payload_len, 33);
	/* The first payload byte fill_payload() wrote. */
	assert_int_equal(frame[info.payload_off], 3);

	/* With a correct UDP checksum too. */
	put16(frame + OFF_UDP + 4 + 6,
			udp_cksum(frame + OFF_IP, frame + OFF_UDP + 4));
	assert_int_equal(parse(len, 0), PMR_ETH_RX_OK);

	/* The options are covered by the header checksum. */
	len = build_frame_ihl6(33);
	frame[OFF_UDP + 3] ^= 0x01;
	assert_int_equal(parse(len, 0), PMR_ETH_DROP_IP_CKSUM);

	/* The UDP header is found after the options. */
	len = build_frame_ihl6(33);
	frame[OFF_UDP + 4 + 3] ^= 0x01;
	assert_int_equal(parse(len, 0), PMR_ETH_DROP_DST_PORT);
}

/* Queue addresses. */

static void
test_addr_round_trip(void **state __rte_unused)
{
	static const uint8_t golden[PMR_ETH_ADDR_LEN] = {
		0x02, 0x11, 0x22, 0x33, 0x44, 0x55,
		0x0a, 0x00, 0x00, 0x01,
		0x12, 0x34,
	};
	struct pmr_transport_addr addr;
	struct pmr_eth_endpoint ep;

	memset(&addr, 0xa5, sizeof(addr));
	pmr_eth_addr_encode(&ep_a, &addr);
	assert_int_equal(addr.len, PMR_ETH_ADDR_LEN);
	assert_memory_equal(addr.bytes, golden, PMR_ETH_ADDR_LEN);

	memset(&ep, 0, sizeof(ep));
	assert_int_equal(pmr_eth_addr_decode(&addr, &ep), 0);
	assert_memory_equal(ep.mac.addr_bytes, ep_a.mac.addr_bytes,
			RTE_ETHER_ADDR_LEN);
	assert_int_equal(ep.ip, ep_a.ip);
	assert_int_equal(ep.port, ep_a.port);

	pmr_eth_addr_encode(&ep_b, &addr);
	assert_int_equal(pmr_eth_addr_decode(&addr, &ep), 0);
	assert_true(rte_is_same_ether_addr(&ep.mac, &ep_b.mac));
	assert_int_equal(ep.ip, ep_b.ip);
	assert_int_equal(ep.port, ep_b.port);
}

static void
test_addr_decode_rejects(void **state __rte_unused)
{
	static const uint8_t bad_len[] = { 0, 1, 6, 11, 13,
		PMR_TRANSPORT_ADDR_MAX };
	struct pmr_transport_addr addr;
	struct pmr_eth_endpoint ep;
	unsigned int i;

	for (i = 0; i < RTE_DIM(bad_len); i++) {
		pmr_eth_addr_encode(&ep_a, &addr);
		addr.len = bad_len[i];
		assert_int_equal(pmr_eth_addr_decode(&addr, &ep), -EINVAL);
	}

	/* Multicast MAC (group bit set). */
	pmr_eth_addr_encode(&ep_a, &addr);
	addr.bytes[0] |= 0x01;
	assert_int_equal(pmr_eth_addr_decode(&addr, &ep), -EINVAL);

	/* Broadcast MAC. */
	pmr_eth_addr_encode(&ep_a, &addr);
	memset(&addr.bytes[0], 0xff, RTE_ETHER_ADDR_LEN);
	assert_int_equal(pmr_eth_addr_decode(&addr, &ep), -EINVAL);

	/* Zero MAC. */
	pmr_eth_addr_encode(&ep_a, &addr);
	memset(&addr.bytes[0], 0, RTE_ETHER_ADDR_LEN);
	assert_int_equal(pmr_eth_addr_decode(&addr, &ep), -EINVAL);

	/* Zero IP. */
	pmr_eth_addr_encode(&ep_a, &addr);
	memset(&addr.bytes[6], 0, 4);
	assert_int_equal(pmr_eth_addr_decode(&addr, &ep), -EINVAL);

	/* Zero port. */
	pmr_eth_addr_encode(&ep_a, &addr);
	memset(&addr.bytes[10], 0, 2);
	assert_int_equal(pmr_eth_addr_decode(&addr, &ep), -EINVAL);
}

/* Drop names. */

static void
test_drop_names_distinct(void **state __rte_unused)
{
	unsigned int i, j;

	for (i = 0; i < PMR_ETH_DROP_MAX; i++) {
		const char *name = pmr_eth_drop_name(i);

		assert_non_null(name);
		assert_true(strlen(name) > 0);
		assert_string_not_equal(name, "unknown");
		for (j = 0; j < i; j++)
			assert_string_not_equal(name, pmr_eth_drop_name(j));
	}
	assert_string_equal(pmr_eth_drop_name(PMR_ETH_DROP_MAX), "unknown");
	assert_string_equal(pmr_eth_drop_name(PMR_ETH_DROP_MAX + 1),
			"unknown");
	assert_string_equal(pmr_eth_drop_name(UINT_MAX), "unknown");
}

/* Source keys. */

static void
test_src_key_distinct(void **state __rte_unused)
{
	struct pmr_eth_endpoint e = ep_a;
	uint64_t key = pmr_eth_src_key(&ep_a);

	assert_int_equal(pmr_eth_src_key(&e), key);

	e.ip = RTE_BE32(0x0a000003);
	assert_int_not_equal(pmr_eth_src_key(&e), key);

	e = ep_a;
	e.port = RTE_BE16(0x1235);
	assert_int_not_equal(pmr_eth_src_key(&e), key);

	assert_int_not_equal(pmr_eth_src_key(&ep_a), pmr_eth_src_key(&ep_b));
}

/* xorshift64: a fixed sequence, the same in every run. */
static uint64_t
next_rand(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/*
 * The fast parser against the full one on mutated frames: bytes of the
 * headers changed (with the IPv4 checksum fixed afterwards or not), lengths
 * cut or padded, offload flags on or off. parse_both() asserts they agree.
 */
static void
test_parse_fast_agrees(void **state __rte_unused)
{
	uint64_t x = 0x9e3779b97f4a7c15ull;
	unsigned int i, k, ok = 0, dropped = 0;
	struct pmr_eth_rx_info info;

	for (i = 0; i < 200000; i++) {
		uint64_t r = next_rand(&x);
		uint32_t len = build_frame((uint16_t)(r % 300));
		unsigned int edits = (unsigned int)(r >> 9) % 4;
		uint32_t flags = (uint32_t)(r >> 12) & 3;

		for (k = 0; k < edits; k++) {
			uint64_t e = next_rand(&x);
			unsigned int off = (unsigned int)(e % HDR_LEN);

			/* A bit flip, or a byte set to 0 or 0xff. */
			if ((e >> 8) % 3 == 0)
				frame[off] ^= (uint8_t)(1u << ((e >> 16) % 8));
			else
				frame[off] = (e >> 8) % 3 == 1 ? 0 : 0xff;
		}
		if ((r >> 20) % 2 == 0)
			fix_ip_cksum(frame, 20);
		switch ((r >> 24) % 4) {
		case 0:
			len -= (uint32_t)((r >> 28) % (len + 1));
			break;
		case 1:
			len += (uint32_t)((r >> 28) % 16);
			break;
		default:
			break;
		}
		if (parse_both(frame, len, &ep_b, flags, &info) ==
		    PMR_ETH_RX_OK)
			ok++;
		else
			dropped++;
	}
	/* Both kinds were exercised. */
	assert_true(ok > 10000 && dropped > 10000);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_round_trip_padded_frame),
		cmocka_unit_test(test_ip_cksum_offload_needs_flag),
		cmocka_unit_test(test_template_golden_bytes),
		cmocka_unit_test(test_ip_cksum_golden),
		cmocka_unit_test(test_drop_short),
		cmocka_unit_test(test_drop_ethertype),
		cmocka_unit_test(test_drop_dst_mac),
		cmocka_unit_test(test_drop_ip_version),
		cmocka_unit_test(test_drop_ip_ihl_too_small),
		cmocka_unit_test(test_drop_ip_ihl_past_frame),
		cmocka_unit_test(test_drop_ip_len_too_small),
		cmocka_unit_test(test_drop_ip_len_past_frame),
		cmocka_unit_test(test_drop_ip_frag_more_fragments),
		cmocka_unit_test(test_drop_ip_frag_offset),
		cmocka_unit_test(test_drop_ip_cksum),
		cmocka_unit_test(test_drop_ip_proto),
		cmocka_unit_test(test_drop_dst_ip),
		cmocka_unit_test(test_drop_dst_port),
		cmocka_unit_test(test_drop_udp_len_too_small),
		cmocka_unit_test(test_drop_udp_len_past_ip_payload),
		cmocka_unit_test(test_udp_cksum_good_accepted),
		cmocka_unit_test(test_drop_udp_cksum_bad),
		cmocka_unit_test(test_ip_options_accepted),
		cmocka_unit_test(test_addr_round_trip),
		cmocka_unit_test(test_addr_decode_rejects),
		cmocka_unit_test(test_drop_names_distinct),
		cmocka_unit_test(test_src_key_distinct),
		cmocka_unit_test(test_parse_fast_agrees),
	};

	return cmocka_run_group_tests_name("eth_hdr", tests, NULL, NULL);
}
