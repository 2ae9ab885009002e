/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

#ifndef PMR_VERBS_GID_H
#define PMR_VERBS_GID_H

/*
 * Pure helpers of the verbs driver, free of libibverbs and EAL so that
 * unit tests link them alone: the GID choice over a port's GID table,
 * the queue address encoding and the source key of a received packet.
 */

#include <stdbool.h>
#include <stdint.h>

/* GID types, as enum ibv_gid_type_sysfs (IB, RoCE v1, RoCE v2). */
#define PMR_VERBS_GID_IB	0
#define PMR_VERBS_GID_ROCE_V1	1
#define PMR_VERBS_GID_ROCE_V2	2

/* One slot of a port's GID table, as the driver read it. */
struct pmr_verbs_gid_ent {
	bool valid;		/* false: empty slot (ENODATA) */
	uint8_t type;		/* PMR_VERBS_GID_* */
	uint8_t raw[16];
};

/* No gid_index= given: let pmr_verbs_gid_choose() pick. */
#define PMR_VERBS_GID_AUTO (-1)

/*
 * Pick the GID of a queue from the n slots of tbl. With want >= 0, that
 * slot (link-local allowed: the user named it); else the first RoCE v2
 * IPv4-mapped GID, then the first global IPv6 one (RoCE v2, then v1),
 * never a link-local, zero or IB one.
 *
 * @return the index, or -EINVAL (want past the table), -ENODATA (want
 *   names an empty slot), -EADDRNOTAVAIL (no usable GID: e.g. link-local
 *   only). why (not NULL) then says which in a short phrase.
 */
int pmr_verbs_gid_choose(const struct pmr_verbs_gid_ent *tbl, unsigned int n,
		int want, const char **why);

/* ::ffff:a.b.c.d */
bool pmr_verbs_gid_is_v4(const uint8_t raw[16]);
/* fe80::/10 */
bool pmr_verbs_gid_is_link_local(const uint8_t raw[16]);

/*
 * A queue address: 1 byte version, 3 reserved, QPN (4, big endian), QKey
 * (4, big endian), GID (16).
 */
#define PMR_VERBS_ADDR_LEN 28
#define PMR_VERBS_ADDR_VERSION 1

void pmr_verbs_addr_encode(uint8_t out[PMR_VERBS_ADDR_LEN],
		const uint8_t gid[16], uint32_t qpn, uint32_t qkey);
/* @return 0, or -EINVAL (bad version, QPN over 24 bits). */
int pmr_verbs_addr_decode(const uint8_t *in, unsigned int len,
		uint8_t gid[16], uint32_t *qpn, uint32_t *qkey);

/*
 * The source key of a queue (pmr_transport_peer.src, pmr_rx_pkt.src)
 * from its GID and QPN. IPv4-mapped GIDs: bit 63 clear, the IPv4 address
 * in bits 24..55 and the QPN in bits 0..23: exact. Other GIDs: bit 63
 * set, a 39-bit hash of the 128 bits and the QPN: two queues on distinct
 * IPv6 GIDs may collide (the engine's session token tells them apart).
 */
uint64_t pmr_verbs_src_key(const uint8_t gid[16], uint32_t qpn);

/*
 * The sender's GID from the 40-byte GRH area of a UD receive: for RoCE
 * v2 over IPv4 (local GID IPv4-mapped) the source address of the IPv4
 * header in bytes 20..39, mapped; else the IPv6/GRH source in bytes 8..23.
 *
 * @return 0, or -1 if the header is not of the expected version.
 */
int pmr_verbs_grh_src(const uint8_t grh[40], bool local_v4, uint8_t gid[16]);

#endif /* PMR_VERBS_GID_H */
