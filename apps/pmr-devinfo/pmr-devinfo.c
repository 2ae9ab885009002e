/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * pmr-devinfo: what a user needs to pick the verbs driver's devargs
 * (doc/drivers.md, "The verbs driver"): each RDMA device, its ports
 * (state, link layer, MTU) and their GID tables with types, as
 * `ibv_devinfo -v` and rdma-core's `show_gids` show them, and the GID
 * the driver would choose with no gid_index= (the same function).
 *
 * Usage: pmr-devinfo [device]. Exit status 0, or 1 when there is no
 * device (or not the one named), 2 for a bad usage.
 * Plain libibverbs: no EAL, no pmrpc.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "verbs_gid.h"

static const char *
gid_type_str(unsigned int t)
{
	switch (t) {
	case IBV_GID_TYPE_IB: return "IB";
	case IBV_GID_TYPE_ROCE_V1: return "RoCE v1";
	case IBV_GID_TYPE_ROCE_V2: return "RoCE v2";
	default: return "?";
	}
}

static const char *
link_layer_str(uint8_t ll)
{
	switch (ll) {
	case IBV_LINK_LAYER_INFINIBAND: return "InfiniBand";
	case IBV_LINK_LAYER_ETHERNET: return "Ethernet";
	default: return "unspecified";
	}
}

static const char *
port_state_str(enum ibv_port_state st)
{
	switch (st) {
	case IBV_PORT_DOWN: return "DOWN";
	case IBV_PORT_INIT: return "INIT";
	case IBV_PORT_ARMED: return "ARMED";
	case IBV_PORT_ACTIVE: return "ACTIVE";
	case IBV_PORT_ACTIVE_DEFER: return "ACTIVE_DEFER";
	default: return "NOP";
	}
}

static int
mtu_bytes(enum ibv_mtu m)
{
	return m >= IBV_MTU_256 && m <= IBV_MTU_4096 ? 128 << m : 0;
}

static void
show_port(struct ibv_context *ctx, const char *dev, uint8_t port)
{
	struct ibv_port_attr pa;
	struct pmr_verbs_gid_ent *tbl;
	const char *why = NULL;
	int i, ret, pick;

	ret = ibv_query_port(ctx, port, &pa);
	if (ret != 0) {
		printf("  port %u: cannot query: %s\n", port, strerror(ret));
		return;
	}
	printf("  port %u: %s, link layer %s, active MTU %d (max %d), "
		"GID table %d\n", port, port_state_str(pa.state),
		link_layer_str(pa.link_layer), mtu_bytes(pa.active_mtu),
		mtu_bytes(pa.max_mtu), pa.gid_tbl_len);
	if (pa.gid_tbl_len <= 0)
		return;
	tbl = calloc((size_t)pa.gid_tbl_len, sizeof(*tbl));
	if (tbl == NULL)
		return;
	for (i = 0; i < pa.gid_tbl_len; i++) {
		struct ibv_gid_entry e;
		char str[INET6_ADDRSTRLEN];

		if (ibv_query_gid_ex(ctx, port, (uint32_t)i, &e, 0) != 0)
			continue;	/* empty slot */
		tbl[i].valid = true;
		tbl[i].type = (uint8_t)e.gid_type;
		memcpy(tbl[i].raw, e.gid.raw, 16);
		inet_ntop(AF_INET6, e.gid.raw, str, sizeof(str));
		printf("    GID %3d  %-40s %-8s%s%s\n", i, str,
			gid_type_str(e.gid_type),
			pmr_verbs_gid_is_v4(e.gid.raw) ? "  IPv4-mapped" : "",
			pmr_verbs_gid_is_link_local(e.gid.raw) ?
			"  link-local" : "");
	}
	if (pa.link_layer != IBV_LINK_LAYER_ETHERNET) {
		printf("    the verbs driver refuses this port: link layer "
			"%s (RoCE only for now)\n",
			link_layer_str(pa.link_layer));
	} else if (pa.state != IBV_PORT_ACTIVE) {
		printf("    the verbs driver refuses this port: not ACTIVE\n");
	} else {
		pick = pmr_verbs_gid_choose(tbl,
				(unsigned int)pa.gid_tbl_len,
				PMR_VERBS_GID_AUTO, &why);
		if (pick < 0)
			printf("    no automatic GID: %s; name one with "
				"gid_index=\n", why);
		else
			printf("    verbs devargs: dev=%s,port=%u (automatic "
				"GID %d: %s)\n", dev, port, pick, why);
	}
	free(tbl);
}

int
main(int argc, char **argv)
{
	struct ibv_device **list;
	int i, nb = 0, shown = 0;

	if (argc > 2 || (argc == 2 && argv[1][0] == '-')) {
		fprintf(stderr, "usage: %s [device]\n", argv[0]);
		return 2;
	}
	list = ibv_get_device_list(&nb);
	if (list == NULL || nb == 0) {
		fprintf(stderr, "pmr-devinfo: no RDMA device found%s%s\n",
			list == NULL ? ": " : "",
			list == NULL ? strerror(errno) : "");
		if (list != NULL)
			ibv_free_device_list(list);
		return 1;
	}
	for (i = 0; i < nb; i++) {
		const char *name = ibv_get_device_name(list[i]);
		struct ibv_context *ctx;
		struct ibv_device_attr da;
		uint8_t p;

		if (argc == 2 && strcmp(name, argv[1]) != 0)
			continue;
		shown++;
		ctx = ibv_open_device(list[i]);
		if (ctx == NULL) {
			printf("%s: cannot open: %s\n", name, strerror(errno));
			continue;
		}
		if (ibv_query_device(ctx, &da) != 0) {
			printf("%s: cannot query\n", name);
			ibv_close_device(ctx);
			continue;
		}
		printf("%s: %u port%s, max_qp_wr %d, max_sge %d, max_cqe "
			"%d\n", name, da.phys_port_cnt,
			da.phys_port_cnt == 1 ? "" : "s", da.max_qp_wr,
			da.max_sge, da.max_cqe);
		for (p = 1; p <= da.phys_port_cnt; p++)
			show_port(ctx, name, p);
		ibv_close_device(ctx);
	}
	ibv_free_device_list(list);
	if (shown == 0) {
		fprintf(stderr, "pmr-devinfo: no RDMA device '%s'\n", argv[1]);
		return 1;
	}
	return 0;
}
