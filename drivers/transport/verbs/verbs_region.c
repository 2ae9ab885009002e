/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * RC QPs' regions (pmr_transport_rc_region_conf(), doc/drivers.md,
 * "RC QPs and one-sided operations"): a QP's own memory for its peer
 * alone, mmap'd outside DPDK's heap (tests run with --no-huge) and
 * registered with the queue's PD by rc_create before the QP, outside the
 * queue's rc_lock (verbs_rc.c),
 * deregistered and unmapped by rc_destroy once the QP is gone, so that
 * nothing reaches it through the QP after; remote-readable by its rkey,
 * or local with the right to bind windows in it. Control path.
 */

#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_cycles.h>

#include "verbs_private.h"

/* Largest region per RC QP. */
#define VERBS_RC_REGION_MAX ((size_t)1 << 30)

/*
 * A region for an RC QP about to be made (vq->rc_region_len bytes):
 * mapped, then registered (which pins it on a real device: the time it
 * takes is logged). 0 or a positive errno, logged.
 */
int
verbs_region_make(struct verbs_queue *vq, struct verbs_region *reg)
{
	uint64_t t0 = rte_get_timer_cycles();
	void *a;
	int ret;

	a = mmap(NULL, vq->rc_region_len, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a == MAP_FAILED) {
		ret = errno;
		VERBS_LOG(ERR, "%s: rc qp: no region of %zu bytes: %s",
			vq->dev->name, vq->rc_region_len, strerror(ret));
		return ret;
	}
	reg->mr = ibv_reg_mr(vq->dev->pd, a, vq->rc_region_len,
			vq->rc_region_access);
	if (reg->mr == NULL) {
		ret = errno != 0 ? errno : ENOMEM;
		VERBS_LOG(ERR, "%s: rc qp: ibv_reg_mr of its region (%zu "
			"bytes): %s", vq->dev->name, vq->rc_region_len,
			strerror(ret));
		munmap(a, vq->rc_region_len);
		return ret;
	}
	reg->addr = a;
	reg->len = vq->rc_region_len;
	VERBS_LOG(INFO, "%s: rc qp region of %zu bytes (%s) in %" PRIu64
		" us", vq->dev->name, reg->len,
		(vq->rc_region_access & IBV_ACCESS_REMOTE_READ) != 0 ?
		"remote read" : "windows", (rte_get_timer_cycles() - t0) *
		1000000 / rte_get_timer_hz());
	return 0;
}

/* Its QP destroyed: nothing reaches the region through it any more. */
void
verbs_region_free(struct verbs_queue *vq, struct verbs_region *reg)
{
	int ret;

	if (reg->mr == NULL)
		return;
	ret = ibv_dereg_mr(reg->mr);
	if (ret != 0) {
		/* A window still bound in it: kept mapped, never reused. */
		VERBS_LOG(ERR, "%s: ibv_dereg_mr of an RC QP's region (%zu "
			"bytes): %s: leaked", vq->dev->name, reg->len,
			strerror(ret));
		return;
	}
	munmap(reg->addr, reg->len);
	reg->mr = NULL;
}

int
verbs_rc_region_conf(struct pmr_transport_queue *q, size_t len,
		uint32_t flags)
{
	struct verbs_queue *vq = verbs_queue(q);
	long page = sysconf(_SC_PAGESIZE);
	int ret = 0;

	if (len > VERBS_RC_REGION_MAX || page <= 0)
		return -EINVAL;
	pthread_mutex_lock(&vq->rc_lock);
	if (vq->rc_nb != 0) {
		ret = -EBUSY;
	} else {
		vq->rc_region_len = RTE_ALIGN_CEIL(len, (size_t)page);
		vq->rc_region_access = IBV_ACCESS_LOCAL_WRITE |
			((flags & PMR_TRANSPORT_ACCESS_REMOTE_READ) != 0 ?
			 IBV_ACCESS_REMOTE_READ :
			 vq->mw_on ? IBV_ACCESS_MW_BIND : 0);
	}
	pthread_mutex_unlock(&vq->rc_lock);
	return ret;
}

int
verbs_rc_region(struct pmr_transport_queue *q,
		const struct pmr_transport_rc *rcp,
		struct pmr_transport_rc_region *reg)
{
	const struct verbs_rc *rc = (const struct verbs_rc *)rcp;

	RTE_SET_USED(q);
	if (rc->reg_mr == NULL)
		return -ENOENT;
	reg->addr = rc->reg_addr;
	reg->len = rc->reg_len;
	reg->lkey = rc->reg_mr->lkey;
	reg->rkey = rc->reg_mr->rkey;
	return 0;
}
