/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

#include <errno.h>
#include <string.h>

#include "eth_hdr.h"

static const char *const drop_names[PMR_ETH_DROP_MAX] = {
	[PMR_ETH_RX_OK] = "ok",
	[PMR_ETH_DROP_SHORT] = "short",
	[PMR_ETH_DROP_ETHERTYPE] = "ethertype",
	[PMR_ETH_DROP_DST_MAC] = "dst_mac",
	[PMR_ETH_DROP_IP_VERSION] = "ip_version",
	[PMR_ETH_DROP_IP_IHL] = "ip_ihl",
	[PMR_ETH_DROP_IP_LEN] = "ip_len",
	[PMR_ETH_DROP_IP_FRAG] = "ip_frag",
	[PMR_ETH_DROP_IP_CKSUM] = "ip_cksum",
	[PMR_ETH_DROP_IP_PROTO] = "ip_proto",
	[PMR_ETH_DROP_DST_IP] = "dst_ip",
	[PMR_ETH_DROP_DST_PORT] = "dst_port",
	[PMR_ETH_DROP_UDP_LEN] = "udp_len",
	[PMR_ETH_DROP_UDP_CKSUM] = "udp_cksum",
	[PMR_ETH_DROP_SEGMENTED] = "segmented",
};

const char *
pmr_eth_drop_name(unsigned int reason)
{
	return reason < PMR_ETH_DROP_MAX ? drop_names[reason] : "unknown";
}

void
pmr_eth_hdr_template(uint8_t *hdr, const struct pmr_eth_endpoint *src,
		const struct pmr_eth_endpoint *dst)
{
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)hdr;
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 1);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip + 1);

	memset(hdr, 0, PMR_ETH_HDR_LEN);
	rte_ether_addr_copy(&dst->mac, &eth->dst_addr);
	rte_ether_addr_copy(&src->mac, &eth->src_addr);
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);

	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->type_of_service = 0;
	ip->fragment_offset = rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = src->ip;
	ip->dst_addr = dst->ip;

	udp->src_port = src->port;
	udp->dst_port = dst->port;
	udp->dgram_cksum = 0;
	pmr_eth_hdr_set_len(hdr, 0, false);
}

/*
 * RFC 768 checksum over the UDP length (which may be shorter than the IP
 * payload: DPDK's helpers sum the IP payload instead).
 */
static bool
udp_cksum_ok(const struct rte_ipv4_hdr *ip, const struct rte_udp_hdr *udp,
		uint32_t udp_len)
{
	uint32_t sum;

	sum = __rte_raw_cksum(&ip->src_addr, 2 * sizeof(ip->src_addr), 0);
	sum += rte_cpu_to_be_16(IPPROTO_UDP);
	sum += rte_cpu_to_be_16((uint16_t)udp_len);
	sum = __rte_raw_cksum(udp, udp_len, sum);
	return __rte_raw_cksum_reduce(sum) == 0xffff;
}

/* The IPv4 header's sum, folded: the usual 20 bytes fast, options too. */
static inline uint16_t
ip_hdr_sum(const struct rte_ipv4_hdr *ip, uint32_t ihl)
{
	if (unlikely(ihl != sizeof(*ip)))
		return rte_raw_cksum(ip, ihl);
	return pmr_eth_ip_hdr_sum20((const uint8_t *)ip);
}

enum pmr_eth_drop
pmr_eth_hdr_parse(const uint8_t *frame, uint32_t len,
		const struct pmr_eth_endpoint *local, uint32_t flags,
		struct pmr_eth_rx_info *info)
{
	const struct rte_ether_hdr *eth = (const struct rte_ether_hdr *)frame;
	const struct rte_ipv4_hdr *ip;
	const struct rte_udp_hdr *udp;
	uint32_t ihl, ip_len, udp_len;

	if (len < PMR_ETH_HDR_LEN)
		return PMR_ETH_DROP_SHORT;
	if (eth->ether_type != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4))
		return PMR_ETH_DROP_ETHERTYPE;
	if (!rte_is_same_ether_addr(&eth->dst_addr, &local->mac))
		return PMR_ETH_DROP_DST_MAC;

	ip = (const struct rte_ipv4_hdr *)(eth + 1);
	if ((ip->version_ihl >> 4) != 4)
		return PMR_ETH_DROP_IP_VERSION;
	ihl = (uint32_t)(ip->version_ihl & RTE_IPV4_HDR_IHL_MASK) *
		RTE_IPV4_IHL_MULTIPLIER;
	if (ihl < sizeof(*ip) ||
	    sizeof(*eth) + ihl + sizeof(*udp) > len)
		return PMR_ETH_DROP_IP_IHL;
	ip_len = rte_be_to_cpu_16(ip->total_length);
	if (ip_len < ihl + sizeof(*udp) || sizeof(*eth) + ip_len > len)
		return PMR_ETH_DROP_IP_LEN;
	if ((rte_be_to_cpu_16(ip->fragment_offset) &
	     (RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK)) != 0)
		return PMR_ETH_DROP_IP_FRAG;
	if ((flags & PMR_ETH_PARSE_IP_CKSUM_GOOD) == 0 &&
	    ip_hdr_sum(ip, ihl) != 0xffff)
		return PMR_ETH_DROP_IP_CKSUM;
	if (ip->next_proto_id != IPPROTO_UDP)
		return PMR_ETH_DROP_IP_PROTO;
	if (ip->dst_addr != local->ip)
		return PMR_ETH_DROP_DST_IP;

	udp = (const struct rte_udp_hdr *)((const uint8_t *)ip + ihl);
	if (udp->dst_port != local->port)
		return PMR_ETH_DROP_DST_PORT;
	udp_len = rte_be_to_cpu_16(udp->dgram_len);
	if (udp_len < sizeof(*udp) || udp_len > ip_len - ihl)
		return PMR_ETH_DROP_UDP_LEN;
	if (udp->dgram_cksum != 0 &&
	    (flags & PMR_ETH_PARSE_L4_CKSUM_GOOD) == 0 &&
	    !udp_cksum_ok(ip, udp, udp_len))
		return PMR_ETH_DROP_UDP_CKSUM;

	rte_ether_addr_copy(&eth->src_addr, &info->src.mac);
	info->src.ip = ip->src_addr;
	info->src.port = udp->src_port;
	info->payload_off = sizeof(*eth) + ihl + sizeof(*udp);
	info->payload_len = udp_len - sizeof(*udp);
	return PMR_ETH_RX_OK;
}

/* Set bytes [off, off + n) of the match to v, all bits compared. */
static void
match_set(uint8_t *val, uint8_t *mask, size_t off, const void *v, size_t n)
{
	memcpy(val + off, v, n);
	memset(mask + off, 0xff, n);
}

void
pmr_eth_rx_match_init(struct pmr_eth_rx_match *m,
		const struct pmr_eth_endpoint *local)
{
	const size_t l2 = sizeof(struct rte_ether_hdr);
	const size_t l3 = sizeof(struct rte_ipv4_hdr);
	uint8_t val[sizeof(m->val)] = { 0 }, mask[sizeof(m->mask)] = { 0 };
	rte_be16_t type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	rte_be16_t frag = rte_cpu_to_be_16(RTE_IPV4_HDR_MF_FLAG |
			RTE_IPV4_HDR_OFFSET_MASK);
	uint8_t vhl = RTE_IPV4_VHL_DEF, proto = IPPROTO_UDP;

	RTE_BUILD_BUG_ON(sizeof(val) > PMR_ETH_HDR_LEN);
	match_set(val, mask, 0, &local->mac, sizeof(local->mac));
	match_set(val, mask, 12, &type, sizeof(type));
	match_set(val, mask, l2, &vhl, 1);
	/* MF and the fragment offset must be 0; DF may be anything. */
	memcpy(mask + l2 + 6, &frag, sizeof(frag));
	match_set(val, mask, l2 + 9, &proto, 1);
	match_set(val, mask, l2 + 16, &local->ip, sizeof(local->ip));
	match_set(val, mask, l2 + l3 + 2, &local->port, sizeof(local->port));
	memcpy(m->val, val, sizeof(val));
	memcpy(m->mask, mask, sizeof(mask));
}

void
pmr_eth_addr_encode(const struct pmr_eth_endpoint *ep,
		struct pmr_transport_addr *addr)
{
	memset(addr, 0, sizeof(*addr));
	addr->len = PMR_ETH_ADDR_LEN;
	memcpy(&addr->bytes[0], ep->mac.addr_bytes, RTE_ETHER_ADDR_LEN);
	memcpy(&addr->bytes[6], &ep->ip, sizeof(ep->ip));
	memcpy(&addr->bytes[10], &ep->port, sizeof(ep->port));
}

int
pmr_eth_addr_decode(const struct pmr_transport_addr *addr,
		struct pmr_eth_endpoint *ep)
{
	struct pmr_eth_endpoint e;

	if (addr->len != PMR_ETH_ADDR_LEN)
		return -EINVAL;
	memcpy(e.mac.addr_bytes, &addr->bytes[0], RTE_ETHER_ADDR_LEN);
	memcpy(&e.ip, &addr->bytes[6], sizeof(e.ip));
	memcpy(&e.port, &addr->bytes[10], sizeof(e.port));
	if (!rte_is_valid_assigned_ether_addr(&e.mac) || e.ip == 0 ||
	    e.port == 0)
		return -EINVAL;
	*ep = e;
	return 0;
}
