/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/* Nexus URIs: "host:port", host an IPv4 address or a name (IPv4 only). */

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "nexus_private.h"

/*
 * Split uri into host and port. The port is decimal digits only, at most
 * 65535; the host is not empty.
 */
int
nexus_uri_split(const char *uri, char *host, size_t host_size,
		uint16_t *port)
{
	const char *colon, *p;
	size_t hlen, ulen;
	unsigned long v = 0;

	if (uri == NULL)
		return -EINVAL;
	ulen = strnlen(uri, PMR_URI_MAX);
	if (ulen == PMR_URI_MAX)
		return -EINVAL;
	colon = strrchr(uri, ':');
	if (colon == NULL || colon == uri || colon[1] == '\0')
		return -EINVAL;
	for (p = colon + 1; *p != '\0'; p++) {
		if (*p < '0' || *p > '9')
			return -EINVAL;
		v = v * 10 + (unsigned long)(*p - '0');
		if (v > UINT16_MAX)
			return -EINVAL;
	}
	hlen = (size_t)(colon - uri);
	if (hlen >= host_size)
		return -EINVAL;
	memcpy(host, uri, hlen);
	host[hlen] = '\0';
	*port = (uint16_t)v;
	return 0;
}

/*
 * Resolve uri to an IPv4 socket address. A name goes through
 * getaddrinfo(), which may block (the caller is the control thread or
 * pmr_nexus_create()).
 *
 * Return 0, -EINVAL for a malformed URI (or port 0 unless port_zero_ok),
 * -EHOSTUNREACH if the host does not resolve to an IPv4 address.
 */
int
nexus_uri_resolve(const char *uri, struct sockaddr_in *sa, bool port_zero_ok)
{
	struct addrinfo hints, *res = NULL;
	char host[PMR_URI_MAX];
	uint16_t port;
	int ret;

	ret = nexus_uri_split(uri, host, sizeof(host), &port);
	if (ret != 0)
		return ret;
	if (port == 0 && !port_zero_ok)
		return -EINVAL;
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_port = htons(port);
	if (inet_pton(AF_INET, host, &sa->sin_addr) == 1)
		return 0;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_INET;
	hints.ai_socktype = SOCK_DGRAM;
	ret = getaddrinfo(host, NULL, &hints, &res);
	if (ret != 0 || res == NULL) {
		NX_LOG(DEBUG, "cannot resolve %s: %s", host,
			ret != 0 ? gai_strerror(ret) : "no address");
		if (res != NULL)
			freeaddrinfo(res);
		return -EHOSTUNREACH;
	}
	sa->sin_addr = ((const struct sockaddr_in *)res->ai_addr)->sin_addr;
	freeaddrinfo(res);
	return 0;
}
