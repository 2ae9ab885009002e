/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * The nexus's secrets, on the nexus thread or under the nexus lock.
 *
 * Handshake cookies: a CONNECT_REQ is taken only with a cookie, a
 * SipHash-2-4 MAC of its source IP, port and handshake id under a secret
 * replaced every NEXUS_COOKIE_ROTATE_MS (a random one each time; the one
 * before stays good for another period). Nothing is stored per request:
 * the server answers a request without a good cookie with a COOKIE and
 * forgets it.
 *
 * Heartbeat keys: the secret this nexus issues to a remote nexus (in its
 * CONNECT_REQ or ACCEPT) is derived from a random master key of this
 * incarnation and the remote's IP and port, so that it is the same for
 * every handshake with that remote and needs no storage until a session
 * is up. A remote restarted on the same address does not know it, and a
 * restart of this nexus changes it.
 */

#include <string.h>

#include "nexus_private.h"
#include "nexus_siphash.h"

static void
addr_bytes(uint8_t *p, const struct sockaddr_in *sa)
{
	memcpy(p, &sa->sin_addr.s_addr, 4);
	memcpy(p + 4, &sa->sin_port, 2);
}

void
nexus_keys_init(struct pmr_nexus *nx, uint64_t now)
{
	nexus_random(nx->hb_master, sizeof(nx->hb_master));
	nexus_random(nx->cookie_key, sizeof(nx->cookie_key));
	nx->cookie_rotate_ms = now + NEXUS_COOKIE_ROTATE_MS;
}

void
nexus_keys_timers(struct pmr_nexus *nx, uint64_t now)
{
	if (now < nx->cookie_rotate_ms)
		return;
	memcpy(nx->cookie_key[1], nx->cookie_key[0],
			sizeof(nx->cookie_key[0]));
	nexus_random(nx->cookie_key[0], sizeof(nx->cookie_key[0]));
	nx->cookie_rotate_ms = now + NEXUS_COOKIE_ROTATE_MS;
}

static uint64_t
cookie_mac(const uint8_t *key, const struct sockaddr_in *src,
		uint64_t hs_id)
{
	uint8_t in[14];
	uint64_t mac;

	addr_bytes(in, src);
	memcpy(in + 6, &hs_id, sizeof(hs_id));
	mac = nexus_siphash24(key, in, sizeof(in));
	return mac != 0 ? mac : 1;	/* zero means "no cookie" */
}

uint64_t
nexus_cookie_make(const struct pmr_nexus *nx, const struct sockaddr_in *src,
		uint64_t hs_id)
{
	return cookie_mac(nx->cookie_key[0], src, hs_id);
}

bool
nexus_cookie_valid(const struct pmr_nexus *nx, const struct sockaddr_in *src,
		uint64_t hs_id, uint64_t cookie)
{
	if (cookie == 0)
		return false;
	return cookie == cookie_mac(nx->cookie_key[0], src, hs_id) ||
		cookie == cookie_mac(nx->cookie_key[1], src, hs_id);
}

void
nexus_secret_issue(const struct pmr_nexus *nx,
		const struct sockaddr_in *remote,
		uint8_t secret[NEXUS_WIRE_SECRET_LEN])
{
	uint8_t in[7];
	uint64_t half;
	unsigned int i;

	addr_bytes(in, remote);
	for (i = 0; i < 2; i++) {
		in[6] = (uint8_t)i;
		half = nexus_siphash24(nx->hb_master, in, sizeof(in));
		memcpy(secret + 8 * i, &half, sizeof(half));
	}
}
