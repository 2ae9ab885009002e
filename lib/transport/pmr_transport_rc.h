/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

#ifndef PMR_TRANSPORT_RC_H
#define PMR_TRANSPORT_RC_H

/**
 * @file
 * Reliable connected queue pairs and one-sided operations (internal: the
 * nexus and the worker use it; not installed, not in pmrpc.map).
 *
 * A queue whose caps have PMR_TRANSPORT_CAP_RC makes RC QPs on its
 * device. Thread rule (doc/architecture.md, "Threading"): rc_create,
 * rc_connect, rc_destroy, rc_region_conf and mem_register_access run on
 * the control path (the nexus thread, or worker create; rc_create on the
 * nexus's RC maker thread, beside the nexus thread's calls on the same
 * queue); rc_post and
 * rc_poll run on the queue's lcore, for a QP only once it has been handed
 * over to it, and rc_destroy only once the data path no longer uses that
 * QP (the worker unlinked and drained it).
 * rc_state may run on any thread.
 *
 * One-sided operations complete in the order they were posted on a QP,
 * each with exactly one completion (its cookie and a status); the queue's
 * RC QPs share one completion queue, so rc_poll returns completions of
 * every QP of the queue.
 */

#include <stddef.h>
#include <stdint.h>

#include "pmr_transport.h"

#ifdef __cplusplus
extern "C" {
#endif

/** An RC QP of a queue (opaque: the driver's). */
struct pmr_transport_rc;

/** A type-2 memory window of a queue (opaque: the driver's). */
struct pmr_transport_mw;

/** What one end of an RC connection tells the other. */
struct pmr_transport_rc_attr {
	uint32_t qpn;		/**< QP number (24 bits). */
	uint32_t psn;		/**< Starting PSN (24 bits, random). */
	uint8_t gid[16];	/**< The queue's GID. */
	uint32_t mtu;		/**< Path MTU offered, bytes (256..4096). */
	/** Incoming READs it will serve at once (max_dest_rd_atomic). */
	uint8_t rd_credits;
	/** Outgoing READs it can have outstanding (its max_rd_atomic). */
	uint8_t max_rd_atomic;
	/** Largest message (one WR) of the port. */
	uint32_t max_msg_size;
};

/** QP states as rc_state reports them. */
enum pmr_transport_rc_state {
	PMR_RC_STATE_RESET,
	PMR_RC_STATE_INIT,
	PMR_RC_STATE_RTR,
	PMR_RC_STATE_RTS,
	PMR_RC_STATE_ERR,
	PMR_RC_STATE_OTHER,	/**< SQD, SQE or unknown */
};

/** One-sided operation types. */
enum pmr_transport_rc_op_type {
	PMR_RC_OP_READ,		/**< remote -> local */
	PMR_RC_OP_WRITE,	/**< local -> remote */
	/**
	 * Bind mw to [local, local + len) with remote READ access (queues
	 * with PMR_TRANSPORT_CAP_MW): the bytes must lie in one chunk
	 * registered with the queue (pmr_transport_mem_register(), which
	 * allows binding on such a queue) or in this QP's own region
	 * registered without remote rights; lkey, remote and rkey are not
	 * read. Once it completed PMR_RC_OK, pmr_transport_mw_rkey() is the
	 * key a READ of those bytes through this QP's peer uses, and
	 * nothing else: not through another QP, and, with
	 * PMR_TRANSPORT_CAP_MW_EXACT, not other bytes (without it: the
	 * rest of the registration too). Bind only a window that is not
	 * bound (new from mw_alloc, or invalidated).
	 */
	PMR_RC_OP_BIND,
	/**
	 * Invalidate mw, bound on this QP (LOCAL_INV): once it completed
	 * PMR_RC_OK, no READ through its key succeeds any more. Completed
	 * with any other status (the QP in ERR), the window is still bound
	 * on a QP that serves no READ: free it with pmr_transport_mw_free(),
	 * which then deallocates it.
	 */
	PMR_RC_OP_INVALIDATE,
};

/** A one-sided operation. */
struct pmr_transport_rc_op {
	uint8_t type;		/**< enum pmr_transport_rc_op_type */
	void *local;		/**< Local buffer, in registered memory. */
	uint32_t lkey;		/**< Its lkey (pmr_transport_mem_key()). */
	uint64_t remote;	/**< Remote address. */
	uint32_t rkey;		/**< Remote key of that memory. */
	uint32_t len;		/**< Bytes, 1 or more. */
	uint64_t cookie;	/**< Returned in its completion. */
	/** The window of a BIND or INVALIDATE (else not read). */
	struct pmr_transport_mw *mw;
};

/** Completion status of a one-sided operation. */
enum pmr_transport_rc_status {
	PMR_RC_OK,
	/** The remote refused the access (bad rkey, bounds, rights). */
	PMR_RC_REMOTE_ACCESS,
	/** The remote failed the operation (remote operation error). */
	PMR_RC_REMOTE_OP,
	/** Not executed: the QP went to ERR (an earlier error, destroy). */
	PMR_RC_FLUSHED,
	/** Transport or RNR retries exhausted: peer gone or unreachable. */
	PMR_RC_RETRY_EXCEEDED,
	/** The local buffer or lkey was refused (protection, length). */
	PMR_RC_LOCAL_PROT,
	/** Any other error (the driver logs the device's status). */
	PMR_RC_ERROR,
};

/** The completion of one operation. */
struct pmr_transport_rc_cpl {
	struct pmr_transport_rc *rc;	/**< The QP it was posted on. */
	uint64_t cookie;		/**< The op's cookie. */
	uint8_t status;			/**< enum pmr_transport_rc_status */
};

/** @name Access flags of pmr_transport_mem_register_access() @{ */
#define PMR_TRANSPORT_ACCESS_REMOTE_READ	RTE_BIT32(0)
#define PMR_TRANSPORT_ACCESS_REMOTE_WRITE	RTE_BIT32(1)
/** @} */

/**
 * Register a msgbuf pool for remote access as well as local (tests);
 * pmr_transport_mem_key() then returns the registration's rkey.
 * A chunk already registered with other access is refused (-EEXIST):
 * the worker's own pools stay local-only. Undo with
 * pmr_transport_mem_unregister(). Thread: control path.
 *
 * @return 0, -EINVAL, -ENOTSUP (no RC), -EEXIST, or the driver's -errno.
 */
int pmr_transport_mem_register_access(struct pmr_transport_queue *q,
		struct rte_mempool *mp, uint32_t flags);

/**
 * Memory made and registered with an RC QP for its peer alone (a QP's
 * region): where offered messages are copied when windows do not bound a
 * READ to their bytes (doc/rendezvous.md, "Exposure").
 */
struct pmr_transport_rc_region {
	uint8_t *addr;		/**< First byte (page-aligned). */
	size_t len;		/**< Bytes. */
	uint32_t lkey;		/**< Its lkey: BIND a window in it. */
	/** Its rkey: remote rights as configured (none: bind windows). */
	uint32_t rkey;
};

/**
 * Give each RC QP that q creates from now on a region of len bytes (0:
 * none), made and registered by rc_create with the QP (before it is
 * handed to anyone) and deregistered and freed by rc_destroy after the
 * QP, so that no access through the QP can reach it once it is gone.
 * flags: PMR_TRANSPORT_ACCESS_REMOTE_READ (its rkey reads it remotely),
 * or 0 (local access and, on a queue with PMR_TRANSPORT_CAP_MW, the right
 * to bind windows in it). Thread: control path, before q has any RC QP.
 *
 * @return 0, -EINVAL (bad flags, len over the driver's limit), -ENOTSUP
 *   (no RC, or no regions in this driver), -EBUSY (q has RC QPs).
 */
int pmr_transport_rc_region_conf(struct pmr_transport_queue *q, size_t len,
		uint32_t flags);

/**
 * The region of rc (pmr_transport_rc_region_conf()). Thread: any; it
 * does not change while rc lives.
 *
 * @return 0 with reg filled, -ENOENT (rc has none), -EINVAL.
 */
int pmr_transport_rc_region(struct pmr_transport_queue *q,
		const struct pmr_transport_rc *rc,
		struct pmr_transport_rc_region *reg);

/**
 * Move rc to ERR: its outstanding operations complete PMR_RC_FLUSHED (by
 * rc_poll) and its peer can no longer access anything through it (offer
 * reclaim on a queue without windows). The peer sees its own operations
 * fail. Thread: the queue's lcore (a system call).
 *
 * @return 0 or -errno (-EINVAL, -ENOTSUP: no RC).
 */
int pmr_transport_rc_fail(struct pmr_transport_queue *q,
		struct pmr_transport_rc *rc);

/**
 * A type-2 memory window of q's device, not bound, from the queue's cache
 * of windows (the driver allocates more from the device when it is empty,
 * a system call: counted in its xstats). Thread: the queue's lcore.
 *
 * @return The window, or NULL with rte_errno (ENOTSUP: no
 *   PMR_TRANSPORT_CAP_MW; ENOMEM: the device gave none).
 */
struct pmr_transport_mw *pmr_transport_mw_alloc(
		struct pmr_transport_queue *q);

/**
 * Give a window back. One that is not bound (never bound, or its
 * INVALIDATE completed PMR_RC_OK) goes back to the queue's cache; one
 * still bound, or whose BIND or INVALIDATE failed (its QP in ERR), is
 * deallocated, never bound again. No operation on it may be outstanding.
 * Thread: the queue's lcore.
 */
void pmr_transport_mw_free(struct pmr_transport_queue *q,
		struct pmr_transport_mw *mw);

/**
 * The remote key of mw's binding: valid once a BIND of it completed
 * PMR_RC_OK, until it is invalidated. Thread: the queue's lcore.
 */
uint32_t pmr_transport_mw_rkey(struct pmr_transport_queue *q,
		const struct pmr_transport_mw *mw);

/**
 * Create an RC QP on q, in INIT, and fill attr with what the remote end
 * needs. Thread: control path.
 *
 * @return The QP, or NULL with rte_errno (ENOTSUP: no RC; ENOSPC: the
 *   queue has its maximum of RC QPs).
 */
struct pmr_transport_rc *pmr_transport_rc_create(
		struct pmr_transport_queue *q,
		struct pmr_transport_rc_attr *attr);

/**
 * Connect rc to the remote end's attributes: INIT -> RTR -> RTS, path MTU
 * the smaller of both, max_rd_atomic min(own, remote's rd_credits).
 * Thread: control path.
 *
 * @return 0 or -errno (-EINVAL: bad attributes or state).
 */
int pmr_transport_rc_connect(struct pmr_transport_queue *q,
		struct pmr_transport_rc *rc,
		const struct pmr_transport_rc_attr *remote);

/**
 * Destroy rc. Its outstanding operations are dropped without completions
 * (the caller knows them: it is destroying their QP). Thread: control
 * path, once the data path no longer uses rc.
 *
 * @return The number of operations dropped, or -EINVAL.
 */
int pmr_transport_rc_destroy(struct pmr_transport_queue *q,
		struct pmr_transport_rc *rc);

/**
 * The QP's state, queried from the device (ibv_query_qp). Thread: any.
 *
 * @return enum pmr_transport_rc_state, or -errno.
 */
int pmr_transport_rc_state(struct pmr_transport_queue *q,
		struct pmr_transport_rc *rc);

/**
 * Post up to n operations on rc, in order. Operations beyond the QP's
 * read credits or send queue wait in the driver and are posted as
 * completions return them (by rc_poll); a full operation table refuses,
 * and so does a BIND or INVALIDATE the driver cannot do (a window not in
 * the state it needs, memory no registration with bind rights holds). A
 * QP known to be in ERR refuses all. Thread: the queue's lcore.
 *
 * @return Operations accepted (each gets exactly one completion).
 */
uint16_t pmr_transport_rc_post(struct pmr_transport_queue *q,
		struct pmr_transport_rc *rc,
		const struct pmr_transport_rc_op *ops, uint16_t n);

/**
 * Up to n completions of operations of q's RC QPs. Thread: the queue's
 * lcore.
 *
 * @return Completions written to cpl.
 */
uint16_t pmr_transport_rc_poll(struct pmr_transport_queue *q,
		struct pmr_transport_rc_cpl *cpl, uint16_t n);

/** The name of a status ("ok", "remote_access", ...). Thread: any. */
const char *pmr_transport_rc_status_str(unsigned int status);

#ifdef __cplusplus
}
#endif

#endif /* PMR_TRANSPORT_RC_H */
