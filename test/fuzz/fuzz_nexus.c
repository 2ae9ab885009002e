/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * Fuzz target: the UDP messages between nexuses. Input: one datagram, as
 * nexus_udp_rx() hands it to nexus_wire_decode(). Checked:
 * - decode returns 0 or a known negated enum nexus_wire_error, and
 *   nexus_wire_strerror() has a name for it;
 * - round trip: an accepted message encodes back to the same bytes (the
 *   format has no padding or ignored bytes: decode validates every one),
 *   not into a buffer a byte too small, and decodes again to the same
 *   message;
 * - the queue address a CONNECT_REQ or ACCEPT carries, when the eth
 *   driver's pmr_eth_addr_decode() takes it, encodes back to the same
 *   address (the nexus hands it to the driver to create the peer);
 * - the rules of each type: non-zero boot ids, credits, heartbeat
 *   counters and cookies, a HEARTBEAT without a handshake id, a REFUSE
 *   with a refusal reason, a COOKIE no larger than the smallest
 *   CONNECT_REQ.
 * The datagram is copied to a buffer of its exact length, so ASan sees any
 * read past it. test/fuzz/make_corpus.py writes the seeds.
 */

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "eth_hdr.h"
#include "nexus_wire.h"
#include "pmr_fuzz.h"

static void
check_addr(const struct pmr_transport_addr *addr)
{
	struct pmr_transport_addr again;
	struct pmr_eth_endpoint ep;

	FUZZ_CHECK(addr->len <= PMR_TRANSPORT_ADDR_MAX);
	if (pmr_eth_addr_decode(addr, &ep) != 0)
		return;
	FUZZ_CHECK(rte_is_valid_assigned_ether_addr(&ep.mac));
	FUZZ_CHECK(ep.ip != 0 && ep.port != 0);
	pmr_eth_addr_encode(&ep, &again);
	FUZZ_CHECK(memcmp(&again, addr, sizeof(again)) == 0);
}

static void
check_round_trip(const uint8_t *msg, size_t len,
		const struct nexus_wire_msg *m)
{
	uint8_t buf[NEXUS_WIRE_MAX_LEN];
	struct nexus_wire_msg again;
	int n;

	FUZZ_CHECK(len <= NEXUS_WIRE_MAX_LEN);
	n = nexus_wire_encode(m, buf, sizeof(buf));
	FUZZ_CHECK(n > 0);
	FUZZ_CHECK((size_t)n == len);
	FUZZ_CHECK(memcmp(buf, msg, len) == 0);
	FUZZ_CHECK(nexus_wire_encode(m, buf, len - 1) == -ENOSPC);

	/* Both decoded: padding and unused bytes are zero in each. */
	memset(&again, 0xa5, sizeof(again));
	FUZZ_CHECK(nexus_wire_decode(msg, len, &again) == 0);
	FUZZ_CHECK(memcmp(&again, m, sizeof(again)) == 0);
}

/* What an accepted message must hold, beyond its round trip. */
static void
check_msg(const uint8_t *msg, size_t len, const struct nexus_wire_msg *m)
{
	check_round_trip(msg, len, m);
	switch (m->type) {
	case NEXUS_WIRE_CONNECT_REQ:
		FUZZ_CHECK(memchr(m->req.driver, '\0',
				sizeof(m->req.driver)) != NULL);
		FUZZ_CHECK(m->req.boot_id != 0);
		FUZZ_CHECK(m->req.credits != 0);
		FUZZ_CHECK(m->req.pkt_size >= NEXUS_WIRE_PKT_SIZE_MIN &&
			   m->req.pkt_size <= NEXUS_WIRE_PKT_SIZE_MAX);
		check_addr(&m->req.addr);
		break;
	case NEXUS_WIRE_ACCEPT:
		FUZZ_CHECK(m->accept.boot_id != 0);
		FUZZ_CHECK(m->accept.credits != 0);
		FUZZ_CHECK(m->accept.pkt_size >= NEXUS_WIRE_PKT_SIZE_MIN &&
			   m->accept.pkt_size <= NEXUS_WIRE_PKT_SIZE_MAX);
		check_addr(&m->accept.addr);
		break;
	case NEXUS_WIRE_COOKIE:
		FUZZ_CHECK(m->cookie.cookie != 0);
		FUZZ_CHECK(len < NEXUS_WIRE_CONNECT_REQ_LEN);
		break;
	case NEXUS_WIRE_REFUSE:
		FUZZ_CHECK(nexus_wire_refuse_status_valid(m->refuse.status));
		break;
	case NEXUS_WIRE_HEARTBEAT:
		FUZZ_CHECK(m->hs_id == 0);
		FUZZ_CHECK(m->hb.boot_id != 0 && m->hb.peer_boot_id != 0);
		FUZZ_CHECK(m->hb.counter != 0);
		break;
	case NEXUS_WIRE_RC_REQ:
	case NEXUS_WIRE_RC_ACK:
		FUZZ_CHECK(m->hs_id == 0 && len == NEXUS_WIRE_RC_LEN);
		FUZZ_CHECK(m->rc.generation != 0);
		FUZZ_CHECK(m->rc.boot_id != 0 && m->rc.peer_boot_id != 0);
		FUZZ_CHECK(nexus_wire_rc_status_valid(m->rc.status));
		FUZZ_CHECK(m->type == NEXUS_WIRE_RC_ACK || m->rc.status == 0);
		FUZZ_CHECK(m->rc.status != 0 ||
			   (m->rc.attr.qpn <= 0xffffff &&
			    m->rc.attr.rd_credits != 0 &&
			    m->rc.attr.mtu >= 256 && m->rc.attr.mtu <= 4096));
		break;
	default:
		/* A type this target has no checks for: the round trip. */
		break;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nexus_wire_msg m;
	uint8_t *msg;
	int ret;

	msg = malloc(size != 0 ? size : 1);
	FUZZ_CHECK(msg != NULL);
	if (size != 0)
		memcpy(msg, data, size);

	ret = nexus_wire_decode(msg, size, &m);
	FUZZ_CHECK(ret <= 0 && ret > -NEXUS_WIRE_E_MAX);
	FUZZ_CHECK(strcmp(nexus_wire_strerror(ret), "unknown") != 0);
	if (ret == 0)
		check_msg(msg, size, &m);
	free(msg);
	return 0;
}
