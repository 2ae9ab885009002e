/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

#ifndef PMR_ETH_HDR_H
#define PMR_ETH_HDR_H

/**
 * @file
 * Ethernet/IPv4/UDP headers of the eth driver, and its queue address
 * format. Pure functions of (buffer, length): no EAL, no mbufs, so unit
 * tests and fuzz targets link them directly. Input from the wire is
 * hostile: pmr_eth_hdr_parse() checks every field it relies on.
 */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_udp.h>

#include "pmr_transport.h"

/** Bytes of the headers in front of each payload (no IP options, no VLAN). */
#define PMR_ETH_HDR_LEN (sizeof(struct rte_ether_hdr) + \
		sizeof(struct rte_ipv4_hdr) + sizeof(struct rte_udp_hdr))

/** Bytes of an eth queue address: MAC, IPv4 address, UDP port. */
#define PMR_ETH_ADDR_LEN 12

/** One end of a flow: a queue's MAC, IPv4 address and UDP port. */
struct pmr_eth_endpoint {
	struct rte_ether_addr mac;
	rte_be32_t ip;		/**< Network order. */
	rte_be16_t port;	/**< Network order. */
};

/** Why a received frame was dropped; 0 means it was accepted. */
enum pmr_eth_drop {
	PMR_ETH_RX_OK = 0,
	PMR_ETH_DROP_SHORT,	/**< Shorter than Ethernet + IPv4 + UDP. */
	PMR_ETH_DROP_ETHERTYPE,	/**< Not IPv4. */
	PMR_ETH_DROP_DST_MAC,	/**< Not our MAC address. */
	PMR_ETH_DROP_IP_VERSION, /**< IP version is not 4. */
	PMR_ETH_DROP_IP_IHL,	/**< Header length under 20 or past the frame. */
	PMR_ETH_DROP_IP_LEN,	/**< Total length inconsistent with the frame. */
	PMR_ETH_DROP_IP_FRAG,	/**< A fragment (pmrpc never fragments). */
	PMR_ETH_DROP_IP_CKSUM,	/**< Bad IPv4 header checksum. */
	PMR_ETH_DROP_IP_PROTO,	/**< Not UDP. */
	PMR_ETH_DROP_DST_IP,	/**< Not our IPv4 address. */
	PMR_ETH_DROP_DST_PORT,	/**< Not our UDP port. */
	PMR_ETH_DROP_UDP_LEN,	/**< UDP length under 8 or past the IP payload. */
	PMR_ETH_DROP_UDP_CKSUM,	/**< Bad UDP checksum. */
	/** In several segments (the driver; never from the parser). */
	PMR_ETH_DROP_SEGMENTED,
	PMR_ETH_DROP_MAX
};

/** Parse flags: checks the NIC has done already. */
#define PMR_ETH_PARSE_IP_CKSUM_GOOD RTE_BIT32(0)
#define PMR_ETH_PARSE_L4_CKSUM_GOOD RTE_BIT32(1)

/** What pmr_eth_hdr_parse() learnt of an accepted frame. */
struct pmr_eth_rx_info {
	struct pmr_eth_endpoint src;	/**< Sender (MAC, IP, port). */
	uint32_t payload_off;		/**< Offset of the UDP payload. */
	uint32_t payload_len;		/**< Its length from the UDP header. */
};

/** @return a short name for a drop reason ("ip_cksum"), or "unknown". */
const char *pmr_eth_drop_name(unsigned int reason);

/**
 * Write a header template from src to dst: payload length 0, TTL 64, DF
 * set, checksums 0. pmr_eth_hdr_set_len() completes it per packet.
 *
 * @param hdr PMR_ETH_HDR_LEN bytes.
 */
void pmr_eth_hdr_template(uint8_t *hdr, const struct pmr_eth_endpoint *src,
		const struct pmr_eth_endpoint *dst);

/**
 * Set the lengths of a header made by pmr_eth_hdr_template() for a
 * payload of payload_len bytes, and compute the IPv4 header checksum unless
 * the NIC will (ip_cksum_offload). The UDP checksum is left 0 ("none",
 * allowed over IPv4).
 */
static inline void
pmr_eth_hdr_set_len(uint8_t *hdr, uint16_t payload_len, bool ip_cksum_offload)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)
		(hdr + sizeof(struct rte_ether_hdr));
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip + 1);

	ip->total_length = rte_cpu_to_be_16(payload_len +
			sizeof(*ip) + sizeof(*udp));
	udp->dgram_len = rte_cpu_to_be_16(payload_len + sizeof(*udp));
	ip->hdr_checksum = 0;
	if (!ip_cksum_offload)
		ip->hdr_checksum = rte_ipv4_cksum(ip);
}

/**
 * The IPv4 header of a template made by pmr_eth_hdr_template(), summed
 * (16-bit one's complement, not folded) without its total length and
 * checksum: what pmr_eth_hdr_set_len_sum() completes per packet. Those
 * are the only fields of the header that change from packet to packet.
 */
static inline uint32_t
pmr_eth_hdr_ip_sum(const uint8_t *hdr)
{
	struct rte_ipv4_hdr ip;

	memcpy(&ip, hdr + sizeof(struct rte_ether_hdr), sizeof(ip));
	ip.total_length = 0;
	ip.hdr_checksum = 0;
	return __rte_raw_cksum(&ip, sizeof(ip), 0);
}

/**
 * pmr_eth_hdr_set_len() for a header whose IPv4 fields but the lengths
 * are those ip_sum (pmr_eth_hdr_ip_sum()) was taken from: the checksum
 * follows from ip_sum and the new total length in a few instructions
 * instead of a pass over the header. Same bytes as pmr_eth_hdr_set_len().
 */
static inline void
pmr_eth_hdr_set_len_sum(uint8_t *hdr, uint16_t payload_len, uint32_t ip_sum,
		bool ip_cksum_offload)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)
		(hdr + sizeof(struct rte_ether_hdr));
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip + 1);
	rte_be16_t total = rte_cpu_to_be_16(payload_len +
			sizeof(*ip) + sizeof(*udp));
	uint32_t sum;

	ip->total_length = total;
	udp->dgram_len = rte_cpu_to_be_16(payload_len + sizeof(*udp));
	if (ip_cksum_offload) {
		ip->hdr_checksum = 0;
		return;
	}
	sum = ip_sum + total;
	ip->hdr_checksum = (uint16_t)~__rte_raw_cksum_reduce(sum);
}

/**
 * Validate a received frame against the local endpoint.
 *
 * @param frame
 *   The frame, from the Ethernet header on.
 * @param len
 *   Bytes of the frame (may include Ethernet padding).
 * @param local
 *   Our MAC, IP and UDP port.
 * @param flags
 *   PMR_ETH_PARSE_* checks already done by the NIC.
 * @param info
 *   Filled on success.
 * @return
 *   PMR_ETH_RX_OK, or the enum pmr_eth_drop reason.
 */
enum pmr_eth_drop pmr_eth_hdr_parse(const uint8_t *frame, uint32_t len,
		const struct pmr_eth_endpoint *local, uint32_t flags,
		struct pmr_eth_rx_info *info);

/**
 * What pmr_eth_hdr_parse_fast() compares a frame's first 40 bytes with:
 * the fields that are the same in every frame a queue accepts (our MAC,
 * IPv4 with a 20-byte header, not a fragment, UDP, our IP address and
 * port), as five 64-bit words and their masks.
 */
struct pmr_eth_rx_match {
	uint64_t val[5];
	uint64_t mask[5];
};

/** Fill m for frames to local. */
void pmr_eth_rx_match_init(struct pmr_eth_rx_match *m,
		const struct pmr_eth_endpoint *local);

/**
 * One's complement sum of a 20-byte IPv4 header (no options), folded to
 * 16 bits: 0xffff when its checksum is right. Five 32-bit words, where
 * rte_raw_cksum() goes 16 bits at a time.
 */
static inline uint16_t
pmr_eth_ip_hdr_sum20(const uint8_t *ip)
{
	uint64_t sum = 0;
	uint32_t v, i;

	for (i = 0; i < sizeof(struct rte_ipv4_hdr); i += sizeof(v)) {
		memcpy(&v, ip + i, sizeof(v));
		sum += v;
	}
	/* 64 -> 32 -> 16 bits, end-around carries (RFC 1071). */
	sum = (sum & 0xffffffff) + (sum >> 32);
	sum = (sum & 0xffffffff) + (sum >> 32);
	return __rte_raw_cksum_reduce((uint32_t)((sum & 0xffff) +
			(sum >> 16)));
}

static inline uint16_t
pmr_eth_load_be16(const uint8_t *p)
{
	rte_be16_t v;

	memcpy(&v, p, sizeof(v));
	return rte_be_to_cpu_16(v);
}

/**
 * pmr_eth_hdr_parse() for the common frame in a few word compares: a
 * frame that matches m, with consistent lengths and a good IPv4
 * checksum, is accepted here; any other goes to pmr_eth_hdr_parse(),
 * which accepts or names the reason. Same result as pmr_eth_hdr_parse()
 * for every frame (the unit tests compare them).
 */
static inline enum pmr_eth_drop
pmr_eth_hdr_parse_fast(const uint8_t *frame, uint32_t len,
		const struct pmr_eth_rx_match *m,
		const struct pmr_eth_endpoint *local, uint32_t flags,
		struct pmr_eth_rx_info *info)
{
	const uint32_t l2 = sizeof(struct rte_ether_hdr);
	const uint32_t l3 = sizeof(struct rte_ipv4_hdr);
	const uint32_t l4 = sizeof(struct rte_udp_hdr);
	uint64_t w, diff = 0;
	uint32_t ip_len, udp_len, i;
	uint16_t udp_sum;

	if (unlikely(len < PMR_ETH_HDR_LEN))
		goto slow;
	for (i = 0; i < RTE_DIM(m->val); i++) {
		memcpy(&w, frame + i * sizeof(w), sizeof(w));
		diff |= (w ^ m->val[i]) & m->mask[i];
	}
	ip_len = pmr_eth_load_be16(frame + l2 + 2);
	udp_len = pmr_eth_load_be16(frame + l2 + l3 + 4);
	memcpy(&udp_sum, frame + l2 + l3 + 6, sizeof(udp_sum));
	if (unlikely(diff != 0 || ip_len < l3 + l4 || l2 + ip_len > len ||
		     udp_len < l4 || udp_len > ip_len - l3 ||
		     (udp_sum != 0 &&
		      (flags & PMR_ETH_PARSE_L4_CKSUM_GOOD) == 0)))
		goto slow;
	if ((flags & PMR_ETH_PARSE_IP_CKSUM_GOOD) == 0 &&
	    unlikely(pmr_eth_ip_hdr_sum20(frame + l2) != 0xffff))
		goto slow;
	memcpy(&info->src.mac, frame + 6, sizeof(info->src.mac));
	memcpy(&info->src.ip, frame + l2 + 12, sizeof(info->src.ip));
	memcpy(&info->src.port, frame + l2 + l3, sizeof(info->src.port));
	info->payload_off = PMR_ETH_HDR_LEN;
	info->payload_len = udp_len - l4;
	return PMR_ETH_RX_OK;
slow:
	return pmr_eth_hdr_parse(frame, len, local, flags, info);
}

/** Source identity of an endpoint, as reported in pmr_rx_pkt.src. */
static inline uint64_t
pmr_eth_src_key(const struct pmr_eth_endpoint *ep)
{
	return ((uint64_t)rte_be_to_cpu_32(ep->ip) << 16) |
		rte_be_to_cpu_16(ep->port);
}

/** Encode an endpoint as a queue address (PMR_ETH_ADDR_LEN bytes). */
void pmr_eth_addr_encode(const struct pmr_eth_endpoint *ep,
		struct pmr_transport_addr *addr);

/**
 * Decode a queue address.
 *
 * @return 0, or -EINVAL for a wrong length, a multicast or zero MAC, or a
 *   zero IP address or port.
 */
int pmr_eth_addr_decode(const struct pmr_transport_addr *addr,
		struct pmr_eth_endpoint *ep);

#endif /* PMR_ETH_HDR_H */
