/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * RC QPs and one-sided operations (pmr_transport_rc.h): checks around the
 * driver's calls. A queue without PMR_TRANSPORT_CAP_RC refuses them all.
 */

#include <errno.h>

#include <rte_errno.h>

#include "pmr_transport_driver.h"
#include "pmr_transport_rc.h"

static inline bool
has_rc(const struct pmr_transport_queue *q)
{
	return (q->caps.flags & PMR_TRANSPORT_CAP_RC) != 0;
}

struct mem_reg_access {
	struct pmr_transport_queue *q;
	uint32_t flags;
};

static int
mem_register_access_chunk(const struct pmr_msgbuf_chunk *chunk, void *arg)
{
	struct mem_reg_access *r = arg;

	return r->q->driver->mem_register_access(r->q, chunk, r->flags);
}

int
pmr_transport_mem_register_access(struct pmr_transport_queue *q,
		struct rte_mempool *mp, uint32_t flags)
{
	struct mem_reg_access r = { .q = q, .flags = flags };
	int ret;

	if (q == NULL || !pmr_msgbuf_pool_check(mp) ||
	    (flags & ~(PMR_TRANSPORT_ACCESS_REMOTE_READ |
		       PMR_TRANSPORT_ACCESS_REMOTE_WRITE)) != 0)
		return -EINVAL;
	if (!has_rc(q))
		return -ENOTSUP;
	ret = pmr_msgbuf_pool_chunk_walk(mp, mem_register_access_chunk, &r);
	return ret < 0 ? ret : 0;
}

struct pmr_transport_rc *
pmr_transport_rc_create(struct pmr_transport_queue *q,
		struct pmr_transport_rc_attr *attr)
{
	if (q == NULL || attr == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	if (!has_rc(q)) {
		rte_errno = ENOTSUP;
		return NULL;
	}
	return q->driver->rc_create(q, attr);
}

int
pmr_transport_rc_connect(struct pmr_transport_queue *q,
		struct pmr_transport_rc *rc,
		const struct pmr_transport_rc_attr *remote)
{
	if (q == NULL || rc == NULL || remote == NULL)
		return -EINVAL;
	if (!has_rc(q))
		return -ENOTSUP;
	return q->driver->rc_connect(q, rc, remote);
}

int
pmr_transport_rc_destroy(struct pmr_transport_queue *q,
		struct pmr_transport_rc *rc)
{
	if (q == NULL || rc == NULL || !has_rc(q))
		return -EINVAL;
	return q->driver->rc_destroy(q, rc);
}

int
pmr_transport_rc_state(struct pmr_transport_queue *q,
		struct pmr_transport_rc *rc)
{
	if (q == NULL || rc == NULL || !has_rc(q))
		return -EINVAL;
	return q->driver->rc_state(q, rc);
}

uint16_t
pmr_transport_rc_post(struct pmr_transport_queue *q,
		struct pmr_transport_rc *rc,
		const struct pmr_transport_rc_op *ops, uint16_t n)
{
	return q->driver->rc_post(q, rc, ops, n);
}

uint16_t
pmr_transport_rc_poll(struct pmr_transport_queue *q,
		struct pmr_transport_rc_cpl *cpl, uint16_t n)
{
	return q->driver->rc_poll(q, cpl, n);
}

int
pmr_transport_rc_region_conf(struct pmr_transport_queue *q, size_t len,
		uint32_t flags)
{
	if (q == NULL || (flags & ~PMR_TRANSPORT_ACCESS_REMOTE_READ) != 0)
		return -EINVAL;
	if (!has_rc(q) || q->driver->rc_region_conf == NULL)
		return -ENOTSUP;
	return q->driver->rc_region_conf(q, len, flags);
}

int
pmr_transport_rc_region(struct pmr_transport_queue *q,
		const struct pmr_transport_rc *rc,
		struct pmr_transport_rc_region *reg)
{
	if (q == NULL || rc == NULL || reg == NULL || !has_rc(q))
		return -EINVAL;
	if (q->driver->rc_region == NULL)
		return -ENOENT;
	return q->driver->rc_region(q, rc, reg);
}

int
pmr_transport_rc_fail(struct pmr_transport_queue *q,
		struct pmr_transport_rc *rc)
{
	if (q == NULL || rc == NULL)
		return -EINVAL;
	if (!has_rc(q) || q->driver->rc_fail == NULL)
		return -ENOTSUP;
	return q->driver->rc_fail(q, rc);
}

static inline bool
has_mw(const struct pmr_transport_queue *q)
{
	return (q->caps.flags & PMR_TRANSPORT_CAP_MW) != 0 &&
		q->driver->mw_alloc != NULL;
}

struct pmr_transport_mw *
pmr_transport_mw_alloc(struct pmr_transport_queue *q)
{
	if (q == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	if (!has_mw(q)) {
		rte_errno = ENOTSUP;
		return NULL;
	}
	return q->driver->mw_alloc(q);
}

void
pmr_transport_mw_free(struct pmr_transport_queue *q,
		struct pmr_transport_mw *mw)
{
	if (q != NULL && mw != NULL && has_mw(q))
		q->driver->mw_free(q, mw);
}

uint32_t
pmr_transport_mw_rkey(struct pmr_transport_queue *q,
		const struct pmr_transport_mw *mw)
{
	return q->driver->mw_rkey(q, mw);
}

const char *
pmr_transport_rc_status_str(unsigned int status)
{
	static const char *const names[] = {
		[PMR_RC_OK] = "ok",
		[PMR_RC_REMOTE_ACCESS] = "remote_access",
		[PMR_RC_REMOTE_OP] = "remote_op",
		[PMR_RC_FLUSHED] = "flushed",
		[PMR_RC_RETRY_EXCEEDED] = "retry_exceeded",
		[PMR_RC_LOCAL_PROT] = "local_prot",
		[PMR_RC_ERROR] = "error",
	};

	if (status >= RTE_DIM(names))
		return "unknown";
	return names[status];
}
