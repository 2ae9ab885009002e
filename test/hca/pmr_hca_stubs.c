/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * The software HCA model's answer to every libibverbs export it does not
 * model (issue 14 part 2). Without these, a program calling one would run
 * rdma-core's own code on the model's objects (cmd_fd -1, no provider):
 * undefined behaviour at best. Each fails cleanly in the convention of its
 * real signature: NULL with errno EOPNOTSUPP for constructors, EOPNOTSUPP
 * returned for the int-returning verbs that return an errno, -1 with errno
 * for those that return -1. The pure helpers (names, rates) work. The
 * test hca_exports (check_exports.sh) fails when libibverbs exports a
 * function this library does not define.
 *
 * Not modelled here, so failing: completion channels and CQ events (issue
 * 16 models them), SRQ, XRC, flow steering, multicast, ECE, import, dmabuf
 * and re-registration of MRs, the extended CQ/QP APIs, and memory windows
 * (issue 17). rdma-core's private provider interface (IBVERBS_PRIVATE_*,
 * used only by provider libraries, which never run under the model) is
 * answered the same way with no arguments declared: the callers' extra
 * arguments are harmless in the x86-64 and AArch64 calling conventions.
 */

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "hca_int.h"

/* --- the public API: not modelled ------------------------------------ */

HCA_EXPORT struct ibv_comp_channel *
ibv_create_comp_channel(struct ibv_context *context)
{
	(void)context;
	errno = EOPNOTSUPP;
	return NULL;
}

HCA_EXPORT int
ibv_destroy_comp_channel(struct ibv_comp_channel *channel)
{
	(void)channel;
	return EOPNOTSUPP;
}

HCA_EXPORT int
ibv_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq,
	void **cq_context)
{
	(void)channel;
	(void)cq;
	(void)cq_context;
	errno = EOPNOTSUPP;
	return -1;
}

HCA_EXPORT void
ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
	/* No event was ever handed out. */
	(void)cq;
	(void)nevents;
}

HCA_EXPORT int
ibv_resize_cq(struct ibv_cq *cq, int cqe)
{
	(void)cq;
	(void)cqe;
	return EOPNOTSUPP;
}

HCA_EXPORT struct ibv_srq *
ibv_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *attr)
{
	(void)pd;
	(void)attr;
	errno = EOPNOTSUPP;
	return NULL;
}

HCA_EXPORT int
ibv_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr, int mask)
{
	(void)srq;
	(void)attr;
	(void)mask;
	return EOPNOTSUPP;
}

HCA_EXPORT int
ibv_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr)
{
	(void)srq;
	(void)attr;
	return EOPNOTSUPP;
}

HCA_EXPORT int
ibv_destroy_srq(struct ibv_srq *srq)
{
	(void)srq;
	return EOPNOTSUPP;
}

HCA_EXPORT int
ibv_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
	(void)qp;
	(void)gid;
	(void)lid;
	return EOPNOTSUPP;
}

HCA_EXPORT int
ibv_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
	(void)qp;
	(void)gid;
	(void)lid;
	return EOPNOTSUPP;
}

HCA_EXPORT int
ibv_init_ah_from_wc(struct ibv_context *context, uint8_t port_num,
	struct ibv_wc *wc, struct ibv_grh *grh, struct ibv_ah_attr *ah_attr)
{
	(void)context;
	(void)port_num;
	(void)wc;
	(void)grh;
	(void)ah_attr;
	errno = EOPNOTSUPP;
	return -1;
}

HCA_EXPORT struct ibv_ah *
ibv_create_ah_from_wc(struct ibv_pd *pd, struct ibv_wc *wc,
	struct ibv_grh *grh, uint8_t port_num)
{
	(void)pd;
	(void)wc;
	(void)grh;
	(void)port_num;
	errno = EOPNOTSUPP;
	return NULL;
}

HCA_EXPORT int
ibv_resolve_eth_l2_from_gid(struct ibv_context *context,
	struct ibv_ah_attr *attr, uint8_t eth_mac[ETHERNET_LL_SIZE],
	uint16_t *vid)
{
	(void)context;
	(void)attr;
	(void)eth_mac;
	(void)vid;
	errno = EOPNOTSUPP;
	return -1;
}

HCA_EXPORT int
ibv_rereg_mr(struct ibv_mr *mr, int flags, struct ibv_pd *pd, void *addr,
	size_t length, int access)
{
	(void)mr;
	(void)flags;
	(void)pd;
	(void)addr;
	(void)length;
	(void)access;
	/* "Old MR is valid, invalid input": the MR stays as it was. */
	errno = EOPNOTSUPP;
	return IBV_REREG_MR_ERR_INPUT;
}

HCA_EXPORT struct ibv_mr *
ibv_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length,
	uint64_t iova, int fd, int access)
{
	(void)pd;
	(void)offset;
	(void)length;
	(void)iova;
	(void)fd;
	(void)access;
	errno = EOPNOTSUPP;
	return NULL;
}

HCA_EXPORT struct ibv_context *
ibv_import_device(int cmd_fd)
{
	(void)cmd_fd;
	errno = EOPNOTSUPP;
	return NULL;
}

HCA_EXPORT struct ibv_pd *
ibv_import_pd(struct ibv_context *context, uint32_t pd_handle)
{
	(void)context;
	(void)pd_handle;
	errno = EOPNOTSUPP;
	return NULL;
}

HCA_EXPORT struct ibv_mr *
ibv_import_mr(struct ibv_pd *pd, uint32_t mr_handle)
{
	(void)pd;
	(void)mr_handle;
	errno = EOPNOTSUPP;
	return NULL;
}

HCA_EXPORT struct ibv_dm *
ibv_import_dm(struct ibv_context *context, uint32_t dm_handle)
{
	(void)context;
	(void)dm_handle;
	errno = EOPNOTSUPP;
	return NULL;
}

HCA_EXPORT void
ibv_unimport_pd(struct ibv_pd *pd)
{
	(void)pd;
}

HCA_EXPORT void
ibv_unimport_mr(struct ibv_mr *mr)
{
	(void)mr;
}

HCA_EXPORT void
ibv_unimport_dm(struct ibv_dm *dm)
{
	(void)dm;
}

HCA_EXPORT struct ibv_qp_ex *
ibv_qp_to_qp_ex(struct ibv_qp *qp)
{
	/* Only a QP from create_qp_ex has one, and that is not modelled. */
	(void)qp;
	errno = EOPNOTSUPP;
	return NULL;
}

HCA_EXPORT int
ibv_query_qp_data_in_order(struct ibv_qp *qp, enum ibv_wr_opcode op,
	uint32_t flags)
{
	/* 0: no in-order guarantee claimed (as rdma-core without the op). */
	(void)qp;
	(void)op;
	(void)flags;
	return 0;
}

HCA_EXPORT int
ibv_set_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	(void)qp;
	(void)ece;
	return EOPNOTSUPP;
}

HCA_EXPORT int
ibv_query_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	(void)qp;
	(void)ece;
	return EOPNOTSUPP;
}

/* --- fork, sysfs: nothing to do or nothing there --------------------- */

HCA_EXPORT int
ibv_fork_init(void)
{
	/* The model pins nothing: fork is safe. */
	return 0;
}

HCA_EXPORT enum ibv_fork_status
ibv_is_fork_initialized(void)
{
	return IBV_FORK_UNNEEDED;
}

int ibv_dofork_range(void *base, size_t size);
int ibv_dontfork_range(void *base, size_t size);
const char *ibv_get_sysfs_path(void);
int ibv_read_sysfs_file(const char *dir, const char *file, char *buf,
	size_t size);
int ibv_read_ibdev_sysfs_file(char *buf, size_t size, void *sysfs_dev,
	const char *fnfmt, ...);
void ibv_register_driver(const char *name, void *init);

HCA_EXPORT int
ibv_dofork_range(void *base, size_t size)
{
	(void)base;
	(void)size;
	return 0;
}

HCA_EXPORT int
ibv_dontfork_range(void *base, size_t size)
{
	(void)base;
	(void)size;
	return 0;
}

HCA_EXPORT const char *
ibv_get_sysfs_path(void)
{
	/* The model's devices have no sysfs entries (dev_path says so). */
	return "/nonexistent/pmr_hca";
}

HCA_EXPORT int
ibv_read_sysfs_file(const char *dir, const char *file, char *buf,
	size_t size)
{
	(void)dir;
	(void)file;
	(void)buf;
	(void)size;
	errno = ENOENT;
	return -1;
}

HCA_EXPORT int
ibv_read_ibdev_sysfs_file(char *buf, size_t size, void *sysfs_dev,
	const char *fnfmt, ...)
{
	(void)buf;
	(void)size;
	(void)sysfs_dev;
	(void)fnfmt;
	errno = ENOENT;
	return -1;
}

HCA_EXPORT void
ibv_register_driver(const char *name, void *init)
{
	/* A provider registering itself: the model is the only device. */
	(void)name;
	(void)init;
}

/* --- names and rates (pure functions, modelled) ---------------------- */

HCA_EXPORT const char *
ibv_node_type_str(enum ibv_node_type t)
{
	static const char *const n[] = { "InfiniBand channel adapter",
		"InfiniBand switch", "InfiniBand router", "iWARP NIC",
		"usNIC", "usNIC UDP", "unspecified" };

	if (t >= IBV_NODE_CA && t <= IBV_NODE_UNSPECIFIED)
		return n[t - IBV_NODE_CA];
	return "unknown";
}

HCA_EXPORT const char *
ibv_port_state_str(enum ibv_port_state s)
{
	static const char *const n[] = { "PORT_NOP", "PORT_DOWN",
		"PORT_INIT", "PORT_ARMED", "PORT_ACTIVE",
		"PORT_ACTIVE_DEFER" };

	if ((unsigned int)s < sizeof(n) / sizeof(n[0]))
		return n[s];
	return "unknown";
}

HCA_EXPORT const char *
ibv_event_type_str(enum ibv_event_type e)
{
	static const char *const n[] = { "CQ error", "local work queue "
		"catastrophic error", "invalid request local work queue error",
		"local access violation work queue error",
		"communication established", "send queue drained",
		"path migrated", "path migration request error",
		"local catastrophic error", "port active", "port error",
		"LID change", "P_Key change", "SM change", "SRQ catastrophic "
		"error", "SRQ limit reached", "last WQE reached",
		"client reregistration", "GID table change",
		"WQ catastrophic error" };

	if ((unsigned int)e < sizeof(n) / sizeof(n[0]))
		return n[e];
	return "unknown";
}

HCA_EXPORT const char *
ibv_wc_status_str(enum ibv_wc_status s)
{
	static const char *const n[] = { "success", "local length error",
		"local QP operation error", "local EE context operation error",
		"local protection error", "Work Request Flushed Error",
		"memory management operation error", "bad response error",
		"local access error", "remote invalid request error",
		"remote access error", "remote operation error",
		"transport retry counter exceeded", "RNR retry counter "
		"exceeded", "local RDD violation error", "remote invalid RD "
		"request", "aborted error", "invalid EE context number",
		"invalid EE context state", "fatal error", "response timeout "
		"error", "general error", "TM error", "TM rendezvous "
		"incomplete" };

	if ((unsigned int)s < sizeof(n) / sizeof(n[0]))
		return n[s];
	return "unknown";
}

/* enum ibv_rate against Gb/s times 10 (2.5 Gb/s is 25), by value. */
static const struct {
	enum ibv_rate rate;
	int gbps10;
} rates[] = {
	{ IBV_RATE_2_5_GBPS, 25 }, { IBV_RATE_5_GBPS, 50 },
	{ IBV_RATE_10_GBPS, 100 }, { IBV_RATE_14_GBPS, 140 },
	{ IBV_RATE_20_GBPS, 200 }, { IBV_RATE_25_GBPS, 250 },
	{ IBV_RATE_28_GBPS, 280 }, { IBV_RATE_30_GBPS, 300 },
	{ IBV_RATE_40_GBPS, 400 }, { IBV_RATE_50_GBPS, 500 },
	{ IBV_RATE_56_GBPS, 560 }, { IBV_RATE_60_GBPS, 600 },
	{ IBV_RATE_80_GBPS, 800 }, { IBV_RATE_100_GBPS, 1000 },
	{ IBV_RATE_112_GBPS, 1120 }, { IBV_RATE_120_GBPS, 1200 },
	{ IBV_RATE_168_GBPS, 1680 }, { IBV_RATE_200_GBPS, 2000 },
	{ IBV_RATE_300_GBPS, 3000 }, { IBV_RATE_400_GBPS, 4000 },
	{ IBV_RATE_600_GBPS, 6000 }, { IBV_RATE_800_GBPS, 8000 },
	{ IBV_RATE_1200_GBPS, 12000 },
};

#define NRATES (sizeof(rates) / sizeof(rates[0]))

HCA_EXPORT int
ibv_rate_to_mbps(enum ibv_rate rate)
{
	size_t i;

	for (i = 0; i < NRATES; i++)
		if (rates[i].rate == rate)
			return rates[i].gbps10 * 100;
	return -1;
}

HCA_EXPORT enum ibv_rate
mbps_to_ibv_rate(int mbps)
{
	size_t i;

	for (i = 0; i < NRATES; i++)
		if (rates[i].gbps10 * 100 == mbps)
			return rates[i].rate;
	return IBV_RATE_MAX;
}

HCA_EXPORT int
ibv_rate_to_mult(enum ibv_rate rate)
{
	int m = ibv_rate_to_mbps(rate);

	/* Multiples of 2.5 Gb/s; the others (14, 56, ...) have none. */
	if (m < 0 || m % 2500 != 0)
		return -1;
	return m / 2500;
}

HCA_EXPORT enum ibv_rate
mult_to_ibv_rate(int mult)
{
	return mult > 0 ? mbps_to_ibv_rate(mult * 2500) : IBV_RATE_MAX;
}

/* --- verbs_context and context ops: EOPNOTSUPP ----------------------- */

static int
op_int(void)
{
	return EOPNOTSUPP;
}

static void *
op_ptr(void)
{
	errno = EOPNOTSUPP;
	return NULL;
}

/* Each op gets the stub of its return kind, cast to its own type: the
 * stubs take no arguments, which the callers' arguments do not disturb
 * (x86-64 and AArch64 calling conventions). */
#define OPI(f) vctx->f = (__typeof__(vctx->f))(void (*)(void))op_int
#define OPP(f) vctx->f = (__typeof__(vctx->f))(void (*)(void))op_ptr

void
hca_stub_vctx(struct verbs_context *vctx)
{
	struct ibv_context_ops *o = &vctx->context.ops;

	OPI(query_port);
	OPI(advise_mr);
	OPP(alloc_null_mr);
	OPI(read_counters);
	OPI(attach_counters_point_flow);
	OPP(create_counters);
	OPI(destroy_counters);
	OPP(reg_dm_mr);
	OPP(alloc_dm);
	OPI(free_dm);
	OPI(modify_flow_action_esp);
	OPI(destroy_flow_action);
	OPP(create_flow_action_esp);
	OPI(modify_qp_rate_limit);
	OPP(alloc_parent_domain);
	OPI(dealloc_td);
	OPP(alloc_td);
	OPI(modify_cq);
	OPI(post_srq_ops);
	OPI(destroy_rwq_ind_table);
	OPP(create_rwq_ind_table);
	OPI(destroy_wq);
	OPI(modify_wq);
	OPP(create_wq);
	OPI(query_rt_values);
	OPP(create_cq_ex);
	OPI(query_device_ex);
	OPI(ibv_destroy_flow);
	OPP(ibv_create_flow);
	OPP(open_qp);
	OPP(create_qp_ex);
	OPI(get_srq_num);
	OPP(create_srq_ex);
	OPP(open_xrcd);
	OPI(close_xrcd);
	o->alloc_mw = (__typeof__(o->alloc_mw))(void (*)(void))op_ptr;
	o->bind_mw = (__typeof__(o->bind_mw))(void (*)(void))op_int;
	o->dealloc_mw = (__typeof__(o->dealloc_mw))(void (*)(void))op_int;
	o->post_srq_recv = (__typeof__(o->post_srq_recv))(void (*)(void))
		op_int;
}

/* --- rdma-core's private provider interface -------------------------- */

#define STUB_INT(n) \
	int n(void); \
	HCA_EXPORT int n(void) { return EOPNOTSUPP; }
#define STUB_PTR(n) \
	void *n(void); \
	HCA_EXPORT void *n(void) { errno = EOPNOTSUPP; return NULL; }
#define STUB_VOID(n) \
	void n(void); \
	HCA_EXPORT void n(void) { }

STUB_INT(ibv_cmd_advise_mr)
STUB_INT(ibv_cmd_alloc_dm)
STUB_INT(ibv_cmd_alloc_mw)
STUB_INT(ibv_cmd_alloc_pd)
STUB_INT(ibv_cmd_attach_mcast)
STUB_INT(ibv_cmd_close_xrcd)
STUB_INT(ibv_cmd_create_ah)
STUB_INT(ibv_cmd_create_counters)
STUB_INT(ibv_cmd_create_cq)
STUB_INT(ibv_cmd_create_cq_ex)
STUB_INT(ibv_cmd_create_flow)
STUB_INT(ibv_cmd_create_flow_action_esp)
STUB_INT(ibv_cmd_create_qp)
STUB_INT(ibv_cmd_create_qp_ex)
STUB_INT(ibv_cmd_create_qp_ex2)
STUB_INT(ibv_cmd_create_rwq_ind_table)
STUB_INT(ibv_cmd_create_srq)
STUB_INT(ibv_cmd_create_srq_ex)
STUB_INT(ibv_cmd_create_wq)
STUB_INT(ibv_cmd_dealloc_mw)
STUB_INT(ibv_cmd_dealloc_pd)
STUB_INT(ibv_cmd_dereg_mr)
STUB_INT(ibv_cmd_destroy_ah)
STUB_INT(ibv_cmd_destroy_counters)
STUB_INT(ibv_cmd_destroy_cq)
STUB_INT(ibv_cmd_destroy_flow)
STUB_INT(ibv_cmd_destroy_flow_action)
STUB_INT(ibv_cmd_destroy_qp)
STUB_INT(ibv_cmd_destroy_rwq_ind_table)
STUB_INT(ibv_cmd_destroy_srq)
STUB_INT(ibv_cmd_destroy_wq)
STUB_INT(ibv_cmd_detach_mcast)
STUB_INT(ibv_cmd_free_dm)
STUB_INT(ibv_cmd_get_context)
STUB_INT(ibv_cmd_modify_cq)
STUB_INT(ibv_cmd_modify_flow_action_esp)
STUB_INT(ibv_cmd_modify_qp)
STUB_INT(ibv_cmd_modify_qp_ex)
STUB_INT(ibv_cmd_modify_srq)
STUB_INT(ibv_cmd_modify_wq)
STUB_INT(ibv_cmd_open_qp)
STUB_INT(ibv_cmd_open_xrcd)
STUB_INT(ibv_cmd_poll_cq)
STUB_INT(ibv_cmd_post_recv)
STUB_INT(ibv_cmd_post_send)
STUB_INT(ibv_cmd_post_srq_recv)
STUB_INT(ibv_cmd_query_context)
STUB_INT(ibv_cmd_query_device_any)
STUB_INT(ibv_cmd_query_mr)
STUB_INT(ibv_cmd_query_port)
STUB_INT(ibv_cmd_query_qp)
STUB_INT(ibv_cmd_query_srq)
STUB_INT(ibv_cmd_read_counters)
STUB_INT(ibv_cmd_reg_dm_mr)
STUB_INT(ibv_cmd_reg_dmabuf_mr)
STUB_INT(ibv_cmd_reg_mr)
STUB_INT(ibv_cmd_req_notify_cq)
STUB_INT(ibv_cmd_rereg_mr)
STUB_INT(ibv_cmd_resize_cq)
STUB_INT(execute_ioctl)
STUB_INT(__ioctl_final_num_attrs)
STUB_PTR(_verbs_init_and_alloc_context)
STUB_PTR(verbs_open_device)
STUB_VOID(__verbs_log)
STUB_VOID(verbs_init_cq)
STUB_VOID(verbs_register_driver_34)
STUB_VOID(verbs_set_ops)
STUB_VOID(verbs_uninit_context)
STUB_VOID(ibv_copy_ah_attr_from_kern)
STUB_VOID(ibv_copy_path_rec_from_kern)
STUB_VOID(ibv_copy_path_rec_to_kern)
STUB_VOID(ibv_copy_qp_attr_from_kern)
