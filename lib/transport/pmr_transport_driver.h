/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

#ifndef PMR_TRANSPORT_DRIVER_H
#define PMR_TRANSPORT_DRIVER_H

/**
 * @file
 * The driver side of the transport interface.
 *
 * pmrpc's own drivers are listed in a table that meson generates from the
 * drivers it builds (pmr_drivers.c, drivers/meson.build), not registered
 * from constructors: the registry refers to the table and the table to
 * each driver, so a static link of an application keeps them without
 * --whole-archive. The library names no driver. An application may add a
 * driver of its own with pmr_transport_register().
 *
 * A driver's queue structure starts with struct pmr_transport_queue, whose
 * burst pointers and caps the driver fills in queue_create.
 */

#include "pmr_transport.h"
#include "pmr_transport_rc.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * A device async event, driver-neutral (pmr_transport_driver.event_read),
 * or an event of a queue's own QP (pmr_transport_driver.queue_event_read).
 * The values are those of the ring message PMR_SM_DEVICE_EVENT and of
 * enum pmr_worker_event_type (pmr_rpc.h).
 */
enum pmr_transport_event_type {
	PMR_TRANSPORT_EV_PORT_DOWN = 1,	/**< port left ACTIVE */
	PMR_TRANSPORT_EV_PORT_UP,	/**< port became ACTIVE */
	PMR_TRANSPORT_EV_GID_CHANGE,	/**< a port's GID table changed */
	PMR_TRANSPORT_EV_QP_FATAL,	/**< a QP went to ERR */
	PMR_TRANSPORT_EV_QP_ACCESS_ERR,	/**< a remote access error */
	PMR_TRANSPORT_EV_CQ_ERR,	/**< a CQ overrun or error */
	PMR_TRANSPORT_EV_DEVICE_FATAL,	/**< the device is dead */
	PMR_TRANSPORT_EV_OTHER,		/**< anything else (counted) */
	/** queue_event_read only: the queue's QP, failed, works again */
	PMR_TRANSPORT_EV_QP_RECOVERED,
	/** queue_event_read only: the queue's QP, failed, cannot be
	 * recovered: the queue stays dead (it drops what it is given) */
	PMR_TRANSPORT_EV_QP_RECOVERY_FAILED,
};

/** One device async event, read and acknowledged. */
struct pmr_transport_event {
	uint32_t type;		/**< enum pmr_transport_event_type */
	uint32_t port;		/**< port events: the port; else 0 */
	/**
	 * QP and CQ events: the queue owning the object (its UD QP or
	 * CQs, or an RC QP of it), or NULL if the object is none of the
	 * driver's queues. Compared only: the queue may be gone.
	 */
	struct pmr_transport_queue *q;
	/** QP events on an RC QP of q: that QP (compared only); else NULL. */
	struct pmr_transport_rc *rc;
	uint32_t qpn;			/**< QP events: the QP's number */
};

/** A transport driver: its name, capabilities and control path. */
struct pmr_transport_driver {
	const char *name;		/**< Short, unique ("eth"). */
	/**
	 * Family on the wire (shorter than PMR_TRANSPORT_NAME_MAX): the
	 * session handshake compares families, not names, so that drivers
	 * of one wire talk to each other (verbs and mlx5 are both "ib").
	 * NULL: the name.
	 */
	const char *family;
	struct pmr_transport_caps caps;	/**< Upper bounds for its queues. */

	/** Create a queue; on error return NULL and set rte_errno. */
	struct pmr_transport_queue *(*queue_create)(
			const struct pmr_transport_driver *drv,
			const char *devargs, int socket_id);
	void (*queue_destroy)(struct pmr_transport_queue *q);
	int (*queue_addr)(struct pmr_transport_queue *q,
			struct pmr_transport_addr *addr);
	struct pmr_transport_peer *(*peer_create)(
			struct pmr_transport_queue *q,
			const struct pmr_transport_addr *addr);
	void (*peer_destroy)(struct pmr_transport_queue *q,
			struct pmr_transport_peer *peer);
	/**
	 * Register one chunk of a msgbuf pool's memory; called only for
	 * queues whose caps have PMR_TRANSPORT_CAP_MEM_REG, and required
	 * (not NULL) when the driver's caps have it.
	 */
	int (*mem_register)(struct pmr_transport_queue *q,
			const struct pmr_msgbuf_chunk *chunk);
	/**
	 * Release one chunk's registration; -ENOENT if it has none. Called
	 * and required as mem_register.
	 */
	int (*mem_unregister)(struct pmr_transport_queue *q,
			const struct pmr_msgbuf_chunk *chunk);
	/**
	 * The keys of [addr, addr + len), inside one registered chunk, or
	 * -ENOENT. Called and required as mem_register.
	 */
	int (*mem_key)(struct pmr_transport_queue *q, const void *addr,
			size_t len, struct pmr_transport_mkey *key);
	/**
	 * Optional (NULL: nothing to flush). 1 while sent packets are
	 * still held, else 0 or a negative errno (pmr_transport_tx_flush()).
	 */
	int (*tx_flush)(struct pmr_transport_queue *q);
	int (*stats_get)(struct pmr_transport_queue *q,
			struct pmr_transport_stats *stats);
	void (*stats_reset)(struct pmr_transport_queue *q);
	/** Optional (NULL: no extended statistics). */
	int (*xstats_get)(struct pmr_transport_queue *q,
			struct pmr_transport_xstat *xstats, unsigned int n);

	/*
	 * RC QPs and one-sided operations (pmr_transport_rc.h): required
	 * (not NULL) when the driver's caps have PMR_TRANSPORT_CAP_RC,
	 * called only for queues whose caps have it. Same contracts as the
	 * pmr_transport_rc_*() wrappers.
	 */
	/** Register one chunk with PMR_TRANSPORT_ACCESS_* remote rights. */
	int (*mem_register_access)(struct pmr_transport_queue *q,
			const struct pmr_msgbuf_chunk *chunk, uint32_t flags);
	struct pmr_transport_rc *(*rc_create)(struct pmr_transport_queue *q,
			struct pmr_transport_rc_attr *attr);
	int (*rc_connect)(struct pmr_transport_queue *q,
			struct pmr_transport_rc *rc,
			const struct pmr_transport_rc_attr *remote);
	int (*rc_destroy)(struct pmr_transport_queue *q,
			struct pmr_transport_rc *rc);
	int (*rc_state)(struct pmr_transport_queue *q,
			struct pmr_transport_rc *rc);
	uint16_t (*rc_post)(struct pmr_transport_queue *q,
			struct pmr_transport_rc *rc,
			const struct pmr_transport_rc_op *ops, uint16_t n);
	uint16_t (*rc_poll)(struct pmr_transport_queue *q,
			struct pmr_transport_rc_cpl *cpl, uint16_t n);
	/** Required with PMR_TRANSPORT_CAP_RC. */
	int (*rc_fail)(struct pmr_transport_queue *q,
			struct pmr_transport_rc *rc);
	/*
	 * Memory windows: required when a queue's caps may have
	 * PMR_TRANSPORT_CAP_MW, called only for queues whose caps have it.
	 */
	struct pmr_transport_mw *(*mw_alloc)(struct pmr_transport_queue *q);
	void (*mw_free)(struct pmr_transport_queue *q,
			struct pmr_transport_mw *mw);
	uint32_t (*mw_rkey)(struct pmr_transport_queue *q,
			const struct pmr_transport_mw *mw);

	/*
	 * Device async events (optional, both or neither; NULL: the driver
	 * has none). Called by the nexus thread only, for attached queues.
	 */
	/**
	 * The non-blocking file descriptor that polls readable while q's
	 * device has events; queues of one device return the same one.
	 * A negative errno if q has none.
	 */
	int (*event_fd)(struct pmr_transport_queue *q);
	/**
	 * Read up to n pending events of q's device (all its queues'),
	 * acknowledging each before reading the next; never blocks.
	 * @return the number read (0: none pending), or a negative errno.
	 */
	int (*event_read)(struct pmr_transport_queue *q,
			struct pmr_transport_event *ev, unsigned int n);

	/**
	 * Optional (NULL: the queue reports nothing of its own QP). Events
	 * of the queue's own (datagram) QP that its driver found, up to n,
	 * oldest first (pmr_transport_queue_event_read()).
	 */
	int (*queue_event_read)(struct pmr_transport_queue *q,
			struct pmr_transport_event *ev, unsigned int n);
	/*
	 * RC QPs' regions (pmr_transport_rc_region_conf(),
	 * pmr_transport_rc_region()): optional (NULL: none), both or
	 * neither; called only for queues with PMR_TRANSPORT_CAP_RC.
	 */
	int (*rc_region_conf)(struct pmr_transport_queue *q, size_t len,
			uint32_t flags);
	int (*rc_region)(struct pmr_transport_queue *q,
			const struct pmr_transport_rc *rc,
			struct pmr_transport_rc_region *reg);
};

/**
 * Read what happened to a queue's own QP, the one its data path uses
 * (the verbs driver's UD QP), as its driver found it: the QP went to the
 * error state (PMR_TRANSPORT_EV_QP_FATAL: packets to and from the queue
 * are lost meanwhile, as on a lossy wire) and the driver recovered it
 * (PMR_TRANSPORT_EV_QP_RECOVERED) or could not
 * (PMR_TRANSPORT_EV_QP_RECOVERY_FAILED: the queue stays dead and drops
 * what it is given). Each failure is reported once, whether the driver
 * found it in a completion or through the device's async event, which
 * event_read also hands to the nexus (the engine then tells the
 * application through this call only). Each event has its type, q and
 * the QP's number. Also moves a recovery on, which the queue's bursts
 * do too: the engine calls it from its rare work (every few polls).
 *
 * Thread: the queue's lcore.
 *
 * @return the number of events stored in ev (0: none, or a driver
 *   without queue_event_read), -EINVAL (q NULL, or ev NULL with n over
 *   0), or the driver's negative errno.
 */
int pmr_transport_queue_event_read(struct pmr_transport_queue *q,
		struct pmr_transport_event *ev, unsigned int n);

/**
 * Add a driver to the registry.
 *
 * @return 0, -EINVAL for an incomplete driver (a name missing or too long,
 *   a family empty or too long, a required callback NULL,
 *   PMR_TRANSPORT_CAP_MEM_REG without mem_register, PMR_TRANSPORT_CAP_RC
 *   without mem_register_access and the rc_* callbacks), -EEXIST if the
 *   name is taken, -ENOSPC if the registry is full.
 */
int pmr_transport_register(const struct pmr_transport_driver *drv);

/**
 * The default driver: the registry's first, which is the first driver
 * meson built (drivers/transport/meson.build orders them: eth), or, in a
 * build without drivers, the first one registered.
 *
 * Thread: any.
 *
 * @return The driver, or NULL with rte_errno ENOENT if there is none.
 */
const struct pmr_transport_driver *pmr_transport_default(void);

/**
 * pmrpc's own drivers, in build order and NULL-terminated, and their
 * count (generated: pmr_drivers.c).
 */
extern const struct pmr_transport_driver *const pmr_transport_builtin[];
extern const unsigned int pmr_transport_nb_builtin;

#ifdef __cplusplus
}
#endif

#endif /* PMR_TRANSPORT_DRIVER_H */
