/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * The software HCA model's configuration (issue 14 part 2): the default
 * device, the PMR_HCA_CONFIG spec and the checks any configuration passes,
 * from the spec or from pmr_hca_configure().
 *
 * Spec: tokens separated by spaces, commas or semicolons, each key=value.
 *   dev=NAME          starts a device (mw=0 by default)
 *   mw=0|1            advertise type 2B memory windows
 *   rxe=0|1           behave as rxe (Soft-RoCE) where rxe is laxer than
 *                     the specification (pmr_hca_dev_config.rxe)
 *   port=1|2          starts the device's next port (a device without a
 *                     port= token gets port 1 with the defaults)
 *   link=eth|roce|ib  the port's link layer (default eth)
 *   state=down|init|armed|active          (default active)
 *   mtu=256..4096     active MTU (default 1024)
 *   max_mtu=256..4096 (default 4096)
 *   lid=N             InfiniBand only (default: the port's ordinal)
 *   gidI=TYPE/ADDR    entry I (0..15), TYPE ib|v1|v2, ADDR an IPv6
 *                     address or an IPv4 one (stored IPv4-mapped)
 *   gids=none         an empty GID table
 * A port with no gidI= token and no gids=none gets defaults from its
 * ordinal n over the whole fabric (1, 2, ...): Ethernet fe80::n and
 * ::ffff:192.0.2.n (RoCE v2), InfiniBand fe80::n (IB) and LID n. So the
 * first port is exactly the default device's.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hca_int.h"

static void
errf(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* The default GIDs of the port with ordinal n. */
static void
port_defaults_gids(struct pmr_hca_port_config *p, unsigned int n)
{
	memset(p->gid, 0, sizeof(p->gid));
	p->gid[0].gid.raw[0] = 0xfe;
	p->gid[0].gid.raw[1] = 0x80;
	p->gid[0].gid.raw[15] = (uint8_t)n;
	if (p->link_layer == IBV_LINK_LAYER_INFINIBAND) {
		p->gid[0].type = PMR_HCA_GID_IB;
		return;
	}
	p->gid[0].type = PMR_HCA_GID_ROCE_V2;
	p->gid[1].type = PMR_HCA_GID_ROCE_V2;
	p->gid[1].gid.raw[10] = 0xff;
	p->gid[1].gid.raw[11] = 0xff;
	p->gid[1].gid.raw[12] = 192;
	p->gid[1].gid.raw[13] = 0;
	p->gid[1].gid.raw[14] = 2;
	p->gid[1].gid.raw[15] = (uint8_t)n;
}

static void
port_defaults(struct pmr_hca_port_config *p)
{
	memset(p, 0, sizeof(*p));
	p->link_layer = IBV_LINK_LAYER_ETHERNET;
	p->state = IBV_PORT_ACTIVE;
	p->active_mtu = IBV_MTU_1024;
	p->max_mtu = IBV_MTU_4096;
}

HCA_EXPORT void
pmr_hca_config_default(struct pmr_hca_dev_config *d)
{
	memset(d, 0, sizeof(*d));
	snprintf(d->name, sizeof(d->name), "hca0");
	d->nports = 1;
	port_defaults(&d->port[0]);
	port_defaults_gids(&d->port[0], 1);
}

static int
parse_mtu(const char *v, enum ibv_mtu *m)
{
	static const char *const names[] = { "256", "512", "1024", "2048",
		"4096" };
	int i;

	for (i = 0; i < 5; i++)
		if (strcmp(v, names[i]) == 0) {
			*m = (enum ibv_mtu)(IBV_MTU_256 + i);
			return 0;
		}
	return -1;
}

static int
parse_uint(const char *v, unsigned long max, unsigned long *out)
{
	char *end;

	if (v[0] < '0' || v[0] > '9')
		return -1;
	errno = 0;
	*out = strtoul(v, &end, 0);
	if (errno != 0 || *end != '\0' || *out > max)
		return -1;
	return 0;
}

static int
parse_gid(const char *v, struct pmr_hca_gid_config *g)
{
	const char *slash = strchr(v, '/');
	struct in_addr a4;
	size_t tl;

	if (slash == NULL)
		return -1;
	tl = (size_t)(slash - v);
	if (tl == 2 && strncmp(v, "ib", 2) == 0)
		g->type = PMR_HCA_GID_IB;
	else if (tl == 2 && strncmp(v, "v1", 2) == 0)
		g->type = PMR_HCA_GID_ROCE_V1;
	else if (tl == 2 && strncmp(v, "v2", 2) == 0)
		g->type = PMR_HCA_GID_ROCE_V2;
	else
		return -1;
	memset(&g->gid, 0, sizeof(g->gid));
	if (inet_pton(AF_INET6, slash + 1, g->gid.raw) == 1)
		return 0;
	if (inet_pton(AF_INET, slash + 1, &a4) == 1) {
		g->gid.raw[10] = 0xff;
		g->gid.raw[11] = 0xff;
		memcpy(g->gid.raw + 12, &a4, 4);
		return 0;
	}
	return -1;
}

/* Per port of the spec: whether it had gid tokens, gids=none, lid=. */
struct port_marks {
	int gids, none, lid;
};

/* Close a port: give it its default GIDs and LID if none were given. */
static void
port_close(struct pmr_hca_port_config *p, const struct port_marks *m,
	unsigned int ordinal)
{
	if (!m->gids && !m->none)
		port_defaults_gids(p, ordinal);
	if (!m->lid && p->link_layer == IBV_LINK_LAYER_INFINIBAND)
		p->lid = (uint16_t)ordinal;
}

HCA_EXPORT int
pmr_hca_config_parse(const char *spec, struct pmr_hca_dev_config *devs,
	unsigned int max, char *err, size_t errlen)
{
	struct port_marks marks[PMR_HCA_MAX_DEVICES][PMR_HCA_MAX_PORTS];
	struct pmr_hca_dev_config *d = NULL;
	struct pmr_hca_port_config *p = NULL;
	char *copy, *tok, *save = NULL;
	unsigned int n = 0, ordinal = 0, i, j;
	int rc = -1;

	if (spec == NULL || max == 0) {
		errf(err, errlen, "no spec or no room");
		return -1;
	}
	copy = strdup(spec);
	if (copy == NULL) {
		errf(err, errlen, "out of memory");
		return -1;
	}
	memset(marks, 0, sizeof(marks));
	for (tok = strtok_r(copy, " \t\n,;", &save); tok != NULL;
			tok = strtok_r(NULL, " \t\n,;", &save)) {
		char *v = strchr(tok, '=');
		unsigned long u;

		if (v == NULL) {
			errf(err, errlen, "'%s': not key=value", tok);
			goto out;
		}
		*v++ = '\0';
		if (strcmp(tok, "dev") == 0) {
			if (n == max || n == PMR_HCA_MAX_DEVICES) {
				errf(err, errlen, "more than %u devices",
					max < PMR_HCA_MAX_DEVICES ? max :
					PMR_HCA_MAX_DEVICES);
				goto out;
			}
			if (v[0] == '\0' || strlen(v) >= sizeof(d->name)) {
				errf(err, errlen, "dev=%s: bad name", v);
				goto out;
			}
			d = &devs[n++];
			memset(d, 0, sizeof(*d));
			snprintf(d->name, sizeof(d->name), "%s", v);
			p = NULL;
			continue;
		}
		if (d == NULL) {
			errf(err, errlen, "%s=%s before the first dev=", tok,
				v);
			goto out;
		}
		if (strcmp(tok, "mw") == 0) {
			if (strcmp(v, "0") != 0 && strcmp(v, "1") != 0) {
				errf(err, errlen, "mw=%s: 0 or 1", v);
				goto out;
			}
			d->mw = v[0] == '1';
			continue;
		}
		if (strcmp(tok, "rxe") == 0) {
			if (strcmp(v, "0") != 0 && strcmp(v, "1") != 0) {
				errf(err, errlen, "rxe=%s: 0 or 1", v);
				goto out;
			}
			d->rxe = v[0] == '1';
			continue;
		}
		if (strcmp(tok, "port") == 0) {
			if (parse_uint(v, PMR_HCA_MAX_PORTS, &u) != 0 ||
					u != (unsigned long)d->nports + 1) {
				errf(err, errlen, "%s: port=%s: ports are "
					"1..%d, in order", d->name, v,
					PMR_HCA_MAX_PORTS);
				goto out;
			}
			p = &d->port[d->nports++];
			port_defaults(p);
			continue;
		}
		if (p == NULL) {
			/* A port key without port=: port 1. */
			if (d->nports != 0) {
				errf(err, errlen, "%s: %s=%s: which port?",
					d->name, tok, v);
				goto out;
			}
			p = &d->port[d->nports++];
			port_defaults(p);
		}
		if (strcmp(tok, "link") == 0) {
			if (strcmp(v, "eth") == 0 || strcmp(v, "roce") == 0)
				p->link_layer = IBV_LINK_LAYER_ETHERNET;
			else if (strcmp(v, "ib") == 0)
				p->link_layer = IBV_LINK_LAYER_INFINIBAND;
			else {
				errf(err, errlen, "link=%s: eth, roce or ib",
					v);
				goto out;
			}
		} else if (strcmp(tok, "state") == 0) {
			if (strcmp(v, "down") == 0)
				p->state = IBV_PORT_DOWN;
			else if (strcmp(v, "init") == 0)
				p->state = IBV_PORT_INIT;
			else if (strcmp(v, "armed") == 0)
				p->state = IBV_PORT_ARMED;
			else if (strcmp(v, "active") == 0)
				p->state = IBV_PORT_ACTIVE;
			else {
				errf(err, errlen, "state=%s: down, init, "
					"armed or active", v);
				goto out;
			}
		} else if (strcmp(tok, "mtu") == 0 ||
				strcmp(tok, "max_mtu") == 0) {
			if (parse_mtu(v, strcmp(tok, "mtu") == 0 ?
					&p->active_mtu : &p->max_mtu) != 0) {
				errf(err, errlen, "%s=%s: 256, 512, 1024, "
					"2048 or 4096", tok, v);
				goto out;
			}
		} else if (strcmp(tok, "lid") == 0) {
			if (parse_uint(v, 0xffff, &u) != 0) {
				errf(err, errlen, "lid=%s: a number", v);
				goto out;
			}
			p->lid = (uint16_t)u;
			marks[n - 1][d->nports - 1].lid = 1;
		} else if (strcmp(tok, "gids") == 0) {
			if (strcmp(v, "none") != 0) {
				errf(err, errlen, "gids=%s: only none", v);
				goto out;
			}
			marks[n - 1][d->nports - 1].none = 1;
		} else if (strncmp(tok, "gid", 3) == 0) {
			if (parse_uint(tok + 3, PMR_HCA_GID_TABLE - 1, &u) !=
					0 || parse_gid(v, &p->gid[u]) != 0) {
				errf(err, errlen, "%s=%s: gidI=TYPE/ADDR, I "
					"0..%d, TYPE ib, v1 or v2", tok, v,
					PMR_HCA_GID_TABLE - 1);
				goto out;
			}
			marks[n - 1][d->nports - 1].gids = 1;
		} else {
			errf(err, errlen, "unknown key '%s'", tok);
			goto out;
		}
	}
	if (n == 0) {
		errf(err, errlen, "no dev=");
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (devs[i].nports == 0) {
			devs[i].nports = 1;
			port_defaults(&devs[i].port[0]);
		}
		for (j = 0; j < devs[i].nports; j++)
			port_close(&devs[i].port[j], &marks[i][j], ++ordinal);
	}
	if (hca_config_check(devs, n, err, errlen) != 0)
		goto out;
	rc = (int)n;
out:
	free(copy);
	return rc;
}

static const char *
gid_str(const union ibv_gid *g, char *buf, size_t len)
{
	if (inet_ntop(AF_INET6, g->raw, buf, (socklen_t)len) == NULL)
		snprintf(buf, len, "?");
	return buf;
}

/* Whether GID k of port j of device i is an earlier entry's: a GID is
 * on one port only (there with two types at most: v1 and v2). */
static int
gid_taken(const struct pmr_hca_dev_config *devs, unsigned int i,
	unsigned int j, unsigned int k, char *err, size_t errlen)
{
	const struct pmr_hca_gid_config *me = &devs[i].port[j].gid[k];
	unsigned int i2, j2, k2;
	char b[64];

	for (i2 = 0; i2 <= i; i2++)
		for (j2 = 0; j2 < devs[i2].nports; j2++)
			for (k2 = 0; k2 < PMR_HCA_GID_TABLE; k2++) {
				const struct pmr_hca_gid_config *g =
					&devs[i2].port[j2].gid[k2];

				if (i2 == i && j2 == j && k2 == k)
					return 0;
				if (g->type == PMR_HCA_GID_EMPTY ||
						memcmp(&g->gid, &me->gid,
						sizeof(g->gid)) != 0)
					continue;
				if (i2 == i && j2 == j && g->type != me->type)
					continue;
				errf(err, errlen, "%s port %u gid%u: %s also "
					"on %s port %u", devs[i].name, j + 1, k,
					gid_str(&g->gid, b, sizeof(b)),
					devs[i2].name, j2 + 1);
				return 1;
			}
	return 0;
}

/* Whether port j of device i has a LID an earlier IB port has. */
static int
lid_taken(const struct pmr_hca_dev_config *devs, unsigned int i,
	unsigned int j, char *err, size_t errlen)
{
	uint16_t lid = devs[i].port[j].lid;
	unsigned int i2, j2;

	for (i2 = 0; i2 <= i; i2++)
		for (j2 = 0; j2 < devs[i2].nports; j2++) {
			const struct pmr_hca_port_config *p =
				&devs[i2].port[j2];

			if (i2 == i && j2 == j)
				return 0;
			if (p->link_layer != IBV_LINK_LAYER_INFINIBAND ||
					p->lid != lid)
				continue;
			errf(err, errlen, "%s port %u: LID %u also on %s "
				"port %u", devs[i].name, j + 1, lid,
				devs[i2].name, j2 + 1);
			return 1;
		}
	return 0;
}

int
hca_config_check(const struct pmr_hca_dev_config *devs, unsigned int n,
	char *err, size_t errlen)
{
	unsigned int i, j, k, i2;

	if (devs == NULL || n == 0 || n > PMR_HCA_MAX_DEVICES) {
		errf(err, errlen, "1 to %d devices", PMR_HCA_MAX_DEVICES);
		return -1;
	}
	for (i = 0; i < n; i++) {
		const struct pmr_hca_dev_config *d = &devs[i];

		if (d->name[0] == '\0' || memchr(d->name, '\0',
				sizeof(d->name)) == NULL) {
			errf(err, errlen, "device %u: no name", i);
			return -1;
		}
		for (i2 = 0; i2 < i; i2++)
			if (strcmp(devs[i2].name, d->name) == 0) {
				errf(err, errlen, "%s: two devices of that "
					"name", d->name);
				return -1;
			}
		if (d->nports < 1 || d->nports > PMR_HCA_MAX_PORTS) {
			errf(err, errlen, "%s: 1 or %d ports", d->name,
				PMR_HCA_MAX_PORTS);
			return -1;
		}
		for (j = 0; j < d->nports; j++) {
			const struct pmr_hca_port_config *p = &d->port[j];
			int ib = p->link_layer == IBV_LINK_LAYER_INFINIBAND;

			if (!ib && p->link_layer != IBV_LINK_LAYER_ETHERNET) {
				errf(err, errlen, "%s port %u: link layer "
					"Ethernet or InfiniBand", d->name,
					j + 1);
				return -1;
			}
			if (p->state != IBV_PORT_DOWN &&
					p->state != IBV_PORT_INIT &&
					p->state != IBV_PORT_ARMED &&
					p->state != IBV_PORT_ACTIVE) {
				errf(err, errlen, "%s port %u: state DOWN, "
					"INIT, ARMED or ACTIVE", d->name,
					j + 1);
				return -1;
			}
			if (p->active_mtu < IBV_MTU_256 ||
					p->max_mtu > IBV_MTU_4096 ||
					p->active_mtu > p->max_mtu) {
				errf(err, errlen, "%s port %u: MTUs 256 <= "
					"active <= max <= 4096", d->name,
					j + 1);
				return -1;
			}
			if (ib ? p->lid == 0 || p->lid > 0xbfff :
					p->lid != 0) {
				errf(err, errlen, "%s port %u: %s", d->name,
					j + 1, ib ? "InfiniBand needs a "
					"unicast LID (1..0xbfff)" :
					"Ethernet has no LID");
				return -1;
			}
			for (k = 0; k < PMR_HCA_GID_TABLE; k++) {
				enum pmr_hca_gid_type t = p->gid[k].type;

				if (t == PMR_HCA_GID_EMPTY)
					continue;
				if (t != PMR_HCA_GID_IB &&
						t != PMR_HCA_GID_ROCE_V1 &&
						t != PMR_HCA_GID_ROCE_V2) {
					errf(err, errlen, "%s port %u gid%u: "
						"bad type", d->name, j + 1, k);
					return -1;
				}
				if ((t == PMR_HCA_GID_IB) != ib) {
					errf(err, errlen, "%s port %u gid%u: "
						"%s GID on an %s port",
						d->name, j + 1, k, ib ?
						"RoCE" : "IB", ib ?
						"InfiniBand" : "Ethernet");
					return -1;
				}
				if (gid_taken(devs, i, j, k, err, errlen))
					return -1;
			}
			if (ib && lid_taken(devs, i, j, err, errlen))
				return -1;
		}
	}
	return 0;
}

int
hca_config_env(struct pmr_hca_dev_config *devs, unsigned int max,
	char *err, size_t errlen)
{
	const char *spec = getenv("PMR_HCA_CONFIG");
	const char *name = getenv("PMR_HCA_DEVICE");
	const char *mtu = getenv("PMR_HCA_MTU");

	if (spec != NULL) {
		if (name != NULL || mtu != NULL) {
			errf(err, errlen, "PMR_HCA_CONFIG with PMR_HCA_DEVICE "
				"or PMR_HCA_MTU: say it in PMR_HCA_CONFIG");
			return -1;
		}
		char why[192];
		int n = pmr_hca_config_parse(spec, devs, max, why,
			sizeof(why));

		if (n < 0)
			errf(err, errlen, "PMR_HCA_CONFIG='%s': %s", spec, why);
		return n;
	}
	pmr_hca_config_default(&devs[0]);
	if (name != NULL) {
		if (name[0] == '\0' || strlen(name) >= sizeof(devs[0].name)) {
			errf(err, errlen, "PMR_HCA_DEVICE='%s': bad name",
				name);
			return -1;
		}
		snprintf(devs[0].name, sizeof(devs[0].name), "%s", name);
	}
	if (mtu != NULL && parse_mtu(mtu, &devs[0].port[0].active_mtu) !=
			0) {
		errf(err, errlen, "PMR_HCA_MTU=%s: 256, 512, 1024, 2048 or "
			"4096", mtu);
		return -1;
	}
	return 1;
}
