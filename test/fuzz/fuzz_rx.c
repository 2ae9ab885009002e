/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * Fuzz target: the packet receive path, as eth_rx_burst() and rpc_rx_one()
 * run it. Input: one byte of parse flags (its low two bits are the
 * PMR_ETH_PARSE_* checks the NIC claims to have done), then a received
 * frame from its Ethernet header on. The frame goes through
 * pmr_eth_hdr_parse() against a fixed local endpoint, without and with the
 * flags, and the UDP payload of an accepted frame through
 * pmr_pkthdr_decode(). Checked on the way:
 * - pmr_eth_hdr_parse_fast(), the data path's, gives the same verdict
 *   and info as pmr_eth_hdr_parse(), with and without the flags;
 * - the flags only skip the checksums: the verdict with them is the one
 *   without, except that a checksum drop the flags cover turns into a
 *   later drop or an accept;
 * - an accepted frame's payload lies inside the frame, right after the
 *   UDP header, and its source is the one the headers carry;
 * - a header pmr_eth_hdr_template() writes from that source back to us is
 *   accepted, with the same source and payload length;
 * - a decoded packet header keeps the rules of pmr_pkthdr_decode() and
 *   re-encodes to the same PMR_PKTHDR_LEN (32) bytes; a TOKEN packet's
 *   payload that pmr_pkt_token_decode() takes re-encodes to the same
 *   PMR_PKT_TOKEN_LEN bytes; a descriptor (version 3) is packet 0 of a
 *   non-empty message with exactly PMR_PKT_DESC_LEN payload bytes, which
 *   pmr_pkt_desc_decode() takes iff its reserved bytes are zero and
 *   which then re-encode to the same;
 * - pmr_pkthdr_whole(), the data path's shape test, takes exactly the
 *   requests and responses decode accepts whole in packet 0 with status
 *   0, and fills the same fields.
 * The frame is copied to a buffer of its exact length (aligned, as in an
 * mbuf), so ASan sees any read past it. test/fuzz/make_corpus.py writes
 * the seeds for the same local endpoint.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "eth_hdr.h"
#include "pmr_fuzz.h"
#include "pmr_pkthdr.h"

/* 02:00:00:00:00:01, 10.0.0.1, UDP port 31850 (make_corpus.py: LOCAL_*). */
static const struct pmr_eth_endpoint local = {
	.mac = { .addr_bytes = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 } },
	.ip = RTE_BE32(RTE_IPV4(10, 0, 0, 1)),
	.port = RTE_BE16(31850),
};

#define PARSE_FLAGS (PMR_ETH_PARSE_IP_CKSUM_GOOD | PMR_ETH_PARSE_L4_CKSUM_GOOD)

/* The fast parser agrees with the full one on this frame and flags. */
static void
check_fast(const uint8_t *frame, uint32_t len, uint32_t flags,
		enum pmr_eth_drop why, const struct pmr_eth_rx_info *info)
{
	struct pmr_eth_rx_match m;
	struct pmr_eth_rx_info fast;

	pmr_eth_rx_match_init(&m, &local);
	memset(&fast, 0, sizeof(fast));
	FUZZ_CHECK(pmr_eth_hdr_parse_fast(frame, len, &m, &local, flags,
			&fast) == why);
	if (why == PMR_ETH_RX_OK)
		FUZZ_CHECK(memcmp(&fast, info, sizeof(fast)) == 0);
}

/* A TOKEN payload: if decode takes it, encode gives it back. */
static void
check_token(const uint8_t *p, uint32_t len)
{
	uint8_t again[PMR_PKT_TOKEN_LEN];
	struct pmr_pkt_token t;

	if (pmr_pkt_token_decode(p, len, &t) != 0)
		return;
	FUZZ_CHECK(t.hs_id != 0 && t.credits != 0);
	pmr_pkt_token_encode(again, &t);
	FUZZ_CHECK(memcmp(again, p, sizeof(again)) == 0);
}

/*
 * A descriptor's payload (REQ_DESC, RESP_DESC): decode takes the
 * PMR_PKT_DESC_LEN bytes the header let through exactly when the QP
 * number's high byte is zero (24 bits), and encode gives them back.
 */
static void
check_desc(const uint8_t *p, uint32_t len)
{
	uint8_t again[PMR_PKT_DESC_LEN];
	struct pmr_pkt_desc d;
	int ret;

	ret = pmr_pkt_desc_decode(p, len, &d);
	FUZZ_CHECK((ret == 0) == (p[15] == 0));
	if (ret != 0)
		return;
	pmr_pkt_desc_encode(again, &d);
	FUZZ_CHECK(memcmp(again, p, sizeof(again)) == 0);
}

/* The shape test agrees with decode (err, h) on this packet. */
static void
check_whole(const uint8_t *pkt, uint32_t len, enum pmr_pkthdr_err err,
		const struct pmr_pkthdr *h)
{
	struct pmr_pkthdr f;
	uint8_t whole;
	bool want;

	memset(&f, 0, sizeof(f));
	whole = pmr_pkthdr_whole(pkt, len, &f);
	want = err == PMR_PKTHDR_OK &&
		(h->pkt_type == PMR_PKT_REQ || h->pkt_type == PMR_PKT_RESP) &&
		h->pkt_num == 0 && h->status == 0 &&
		h->msg_size == len - PMR_PKTHDR_LEN;
	FUZZ_CHECK((whole != 0) == want);
	if (!want)
		return;
	FUZZ_CHECK(whole == h->pkt_type);
	FUZZ_CHECK(f.magic == h->magic && f.version == h->version);
	FUZZ_CHECK(f.pkt_type == h->pkt_type && f.req_type == h->req_type);
	FUZZ_CHECK(f.dest_session == h->dest_session && f.pkt_num == 0);
	FUZZ_CHECK(f.msg_size == h->msg_size && f.status == 0);
	FUZZ_CHECK(f.token == h->token && f.req_num == h->req_num);
}

static void
check_pkthdr(const uint8_t *pkt, uint32_t len)
{
	uint8_t again[PMR_PKTHDR_LEN];
	enum pmr_pkthdr_err err;
	struct pmr_pkthdr h;
	uint32_t payload;

	memset(&h, 0, sizeof(h));
	err = pmr_pkthdr_decode(pkt, len, &h);
	FUZZ_CHECK(err < PMR_PKTHDR_E_MAX);
	FUZZ_CHECK(strcmp(pmr_pkthdr_err_name(err), "unknown") != 0);
	check_whole(pkt, len, err, &h);
	if (err != PMR_PKTHDR_OK)
		return;

	FUZZ_CHECK(len >= PMR_PKTHDR_LEN);
	payload = len - PMR_PKTHDR_LEN;
	FUZZ_CHECK(h.pkt_type >= PMR_PKT_REQ && h.pkt_type < PMR_PKT_TYPE_MAX);
	FUZZ_CHECK(h.req_num <= PMR_REQ_NUM_MASK);
	FUZZ_CHECK(h.status < PMR_PKTHDR_STATUS_MAX);
	FUZZ_CHECK(h.status == 0 || h.pkt_type == PMR_PKT_RESP);
	if (h.pkt_type == PMR_PKT_REQ || h.pkt_type == PMR_PKT_RESP) {
		FUZZ_CHECK(payload <= h.msg_size);
		FUZZ_CHECK(payload != 0 || h.msg_size == 0);
		FUZZ_CHECK(h.pkt_num == 0 || payload < h.msg_size);
	} else if (h.pkt_type == PMR_PKT_TOKEN) {
		FUZZ_CHECK(payload == PMR_PKT_TOKEN_LEN);
		FUZZ_CHECK(h.msg_size == payload && h.pkt_num == 0);
		FUZZ_CHECK(h.req_type == 0 && h.req_num == 0);
		check_token(pkt + PMR_PKTHDR_LEN, payload);
	} else if (h.pkt_type == PMR_PKT_REQ_DESC ||
		   h.pkt_type == PMR_PKT_RESP_DESC) {
		/* Packet 0 of a non-empty message, its descriptor whole. */
		FUZZ_CHECK(payload == PMR_PKT_DESC_LEN);
		FUZZ_CHECK(h.pkt_num == 0 && h.msg_size != 0);
		check_desc(pkt + PMR_PKTHDR_LEN, payload);
	} else {
		FUZZ_CHECK(h.pkt_type == PMR_PKT_CR ||
			   h.pkt_type == PMR_PKT_RFR);
		FUZZ_CHECK(payload == 0);
	}

	/* Decode covers every bit of the header: encode gives it back. */
	pmr_pkthdr_encode(again, &h);
	FUZZ_CHECK(memcmp(again, pkt, PMR_PKTHDR_LEN) == 0);
}

/* What an accepted frame's info must say about the frame. */
static void
check_accepted(const uint8_t *frame, uint32_t len,
		const struct pmr_eth_rx_info *info)
{
	const size_t ip_off = sizeof(struct rte_ether_hdr);
	uint32_t ihl, udp_off;

	ihl = (uint32_t)(frame[ip_off] & RTE_IPV4_HDR_IHL_MASK) *
		RTE_IPV4_IHL_MULTIPLIER;
	udp_off = ip_off + ihl;
	FUZZ_CHECK(ihl >= sizeof(struct rte_ipv4_hdr));
	FUZZ_CHECK(info->payload_off == udp_off + sizeof(struct rte_udp_hdr));
	FUZZ_CHECK(info->payload_off <= len);
	FUZZ_CHECK(info->payload_len <= len - info->payload_off);
	FUZZ_CHECK(memcmp(&info->src.mac,
			frame + offsetof(struct rte_ether_hdr, src_addr),
			RTE_ETHER_ADDR_LEN) == 0);
	FUZZ_CHECK(memcmp(&info->src.ip,
			frame + ip_off + offsetof(struct rte_ipv4_hdr, src_addr),
			sizeof(info->src.ip)) == 0);
	FUZZ_CHECK(memcmp(&info->src.port,
			frame + udp_off + offsetof(struct rte_udp_hdr, src_port),
			sizeof(info->src.port)) == 0);
}

/* A reply's header, as our TX side writes it, must come back the same. */
static void
check_template(const struct pmr_eth_rx_info *info)
{
	struct pmr_eth_rx_info back;
	uint32_t len;
	uint8_t *frame;

	/* The IPv4 total length is 16 bits. */
	if (info->payload_len > UINT16_MAX - PMR_ETH_HDR_LEN)
		return;
	len = PMR_ETH_HDR_LEN + info->payload_len;
	frame = calloc(1, len);
	FUZZ_CHECK(frame != NULL);
	pmr_eth_hdr_template(frame, &info->src, &local);
	pmr_eth_hdr_set_len(frame, (uint16_t)info->payload_len, false);
	FUZZ_CHECK(pmr_eth_hdr_parse(frame, len, &local, 0, &back) ==
			PMR_ETH_RX_OK);
	FUZZ_CHECK(back.payload_off == PMR_ETH_HDR_LEN);
	FUZZ_CHECK(back.payload_len == info->payload_len);
	FUZZ_CHECK(rte_is_same_ether_addr(&back.src.mac, &info->src.mac));
	FUZZ_CHECK(back.src.ip == info->src.ip);
	FUZZ_CHECK(back.src.port == info->src.port);
	FUZZ_CHECK(pmr_eth_src_key(&back.src) == pmr_eth_src_key(&info->src));
	free(frame);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pmr_eth_rx_info info0, info;
	enum pmr_eth_drop why0, why;
	uint32_t flags, len;
	uint8_t *frame;

	/* An mbuf's data_len is 16 bits. */
	if (size < 1 || size - 1 > UINT16_MAX)
		return 0;
	flags = data[0] & PARSE_FLAGS;
	len = (uint32_t)(size - 1);
	frame = malloc(len != 0 ? len : 1);
	FUZZ_CHECK(frame != NULL);
	if (len != 0)
		memcpy(frame, data + 1, len);

	/* Zeroed: compared whole, padding included. */
	memset(&info0, 0, sizeof(info0));
	memset(&info, 0, sizeof(info));
	why0 = pmr_eth_hdr_parse(frame, len, &local, 0, &info0);
	FUZZ_CHECK(why0 < PMR_ETH_DROP_MAX);
	FUZZ_CHECK(strcmp(pmr_eth_drop_name(why0), "unknown") != 0);
	why = pmr_eth_hdr_parse(frame, len, &local, flags, &info);
	FUZZ_CHECK(why < PMR_ETH_DROP_MAX);

	/* The drop reasons are numbered in the order they are checked. */
	if (why0 == PMR_ETH_DROP_IP_CKSUM &&
	    (flags & PMR_ETH_PARSE_IP_CKSUM_GOOD) != 0)
		FUZZ_CHECK(why == PMR_ETH_RX_OK || why > why0);
	else if (why0 == PMR_ETH_DROP_UDP_CKSUM &&
		 (flags & PMR_ETH_PARSE_L4_CKSUM_GOOD) != 0)
		FUZZ_CHECK(why == PMR_ETH_RX_OK);
	else
		FUZZ_CHECK(why == why0);
	if (why0 == PMR_ETH_RX_OK)
		FUZZ_CHECK(memcmp(&info0, &info, sizeof(info)) == 0);
	check_fast(frame, len, 0, why0, &info0);
	check_fast(frame, len, flags, why, &info);

	if (why == PMR_ETH_RX_OK) {
		check_accepted(frame, len, &info);
		check_template(&info);
		check_pkthdr(frame + info.payload_off, info.payload_len);
	}
	free(frame);
	return 0;
}
