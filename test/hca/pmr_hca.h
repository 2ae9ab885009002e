/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * The software HCA model's test-side interface (issue 14).
 *
 * libpmr_hca.so defines every function libibverbs exports (unversioned, so
 * that it wins when preloaded or linked ahead of libibverbs) and models
 * one fabric of configurable devices (RoCE v2/v1 or InfiniBand ports) at
 * the UD and RC level (issue 16: RC, async events; issue 17: type 2B
 * memory windows); what it does not model
 * fails with EOPNOTSUPP. This header
 * is what a test adds on top of verbs.h: the configuration, port state,
 * the devices' own counters and live objects, injected faults and the
 * step mode. None of it is a libibverbs API. doc/testing.md describes the
 * model.
 */

#ifndef PMR_HCA_H
#define PMR_HCA_H

#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Counters of the device, as the device sees them (not the driver). */
struct pmr_hca_counters {
	uint64_t post_send_calls;	/**< ibv_post_send() calls */
	uint64_t post_recv_calls;	/**< ibv_post_recv() calls */
	uint64_t wqe_signaled;		/**< send WQEs accepted, signalled */
	uint64_t wqe_unsignaled;	/**< send WQEs accepted, unsignalled */
	uint64_t wqe_inline;		/**< send WQEs accepted, inline */
	uint64_t sq_high_water;		/**< most SQ slots held at once */
	uint64_t sq_full;		/**< posts refused: SQ full (ENOMEM) */
	uint64_t tx_packets;		/**< send WQEs executed */
	uint64_t rx_packets;		/**< packets placed in a receive */
	uint64_t drop_injected;		/**< packets dropped on request */
	uint64_t dup_injected;		/**< packets duplicated on request */
	uint64_t fail_injected;		/**< sends failed on request */
	uint64_t drop_no_qp;		/**< no QP by that number or state */
	uint64_t drop_qkey;		/**< QKey mismatch */
	uint64_t drop_no_recv;		/**< receive queue empty */
	uint64_t drop_too_long;		/**< larger than the path MTU */
	uint64_t cq_overrun;		/**< completions lost: CQ full */
	/* Added by issue 14 part 2 (the fabric); at the end, so that code
	 * built against part 1 keeps its offsets. */
	uint64_t drop_no_port;		/**< no port has that GID or LID */
	uint64_t drop_link_layer;	/**< RoCE to IB, or RoCE v1 to v2 */
	uint64_t drop_port_down;	/**< sender's port not ACTIVE */
	uint64_t drop_dest_down;	/**< receiver's port not ACTIVE */
	/* Added by issue 16 (RC, async events); at the end again. On a
	 * QP: the requester's for operations, the responder's for
	 * rd_credits_high_water and access_err. */
	uint64_t rc_sends;		/**< RC SENDs delivered */
	uint64_t rc_writes;		/**< RDMA WRITEs executed */
	uint64_t rc_reads;		/**< RDMA READs executed */
	uint64_t bytes_written;		/**< bytes RDMA WRITE placed */
	uint64_t bytes_read;		/**< bytes RDMA READ brought */
	uint64_t rd_credits_high_water;	/**< most READs a responder
					 * answered at once */
	uint64_t rd_credit_err;		/**< READs over the credits */
	uint64_t rnr_retries;		/**< RNR NAKs retried */
	uint64_t rnr_retry_exc;		/**< RNR_RETRY_EXC_ERRs */
	uint64_t retry_exc;		/**< RETRY_EXC_ERRs: no peer */
	uint64_t access_err;		/**< remote access violations */
	uint64_t events;		/**< async events queued */
	uint64_t events_lost;		/**< events lost: queue full */
	/* Added by issue 17 (type 2B memory windows); at the end again.
	 * On a QP: the executing QP's for binds and LOCAL_INV, the
	 * responder's (the window's QP) for the rest. */
	uint64_t mw_binds;		/**< windows bound (BIND_MW) */
	uint64_t mw_bind_err;		/**< BIND_MWs refused: MW_BIND_ERR */
	uint64_t mw_invalidates;	/**< windows invalidated: LOCAL_INV,
					 * SEND_WITH_INV */
	uint64_t mw_reads;		/**< RDMA READs served through a
					 * window */
	uint64_t mw_writes;		/**< RDMA WRITEs placed through a
					 * window */
	uint64_t mw_access_err;		/**< remote accesses through a
					 * window's R_Key refused (also
					 * counted in access_err) */
	/* Added by issue 26 (READ retries); at the end again. The
	 * requester's. */
	uint64_t rd_retried;		/**< READs retried on request
					 * (pmr_hca_fault_read_retry()) */
	uint64_t retry_stalls;		/**< requesters stopped by a
					 * retry (the rxe personality) */
};

/**
 * Read the device-wide counters (qp NULL) or one QP's.
 * Thread: any thread.
 * @return 0, or EINVAL if qp is not a model QP.
 */
int pmr_hca_counters_get(struct ibv_qp *qp, struct pmr_hca_counters *c);

/** Zero every counter (device-wide and per QP). Thread: any thread. */
void pmr_hca_counters_reset(void);

/**
 * Faults applied to the next packets sent by any QP, in this order: the
 * next `drop` packets vanish (the sender sees SUCCESS, as on a wire); the
 * next `dup` packets are delivered twice; the next `fail` sends complete
 * with IBV_WC_GENERAL_ERR, are not delivered and move their QP to ERR.
 * Drops and duplicates apply to UD only (RC retransmission is not
 * modelled); failures to RC WQEs too. Each call replaces the pending
 * counts. Thread: any thread.
 */
void pmr_hca_fault(uint32_t drop, uint32_t dup, uint32_t fail);

/**
 * The next n RDMA READs executed by any RC QP lose a response packet and
 * are retried by their requester, as a lossy wire makes it. Strict, the
 * retry is invisible: the READ completes with its bytes. With the rxe
 * personality, the model does what Linux 6.1's rxe does: its requester
 * has run the local operations posted after the READ already, ahead of
 * the READ's responses, and its retry executes every WR after the READ
 * again (req_retry()); a BIND_MW executed twice finds its type 2B
 * window bound and is refused, and the requester stops in error with the
 * READ neither done nor failed. So a BIND_MW that executes while a
 * retried READ of its QP is in flight stops that QP: nothing more
 * completes on it (counted in retry_stalls) until it is moved to ERR,
 * which flushes the READs and every WQE after them. Each call replaces
 * the pending count; pmr_hca_reset() clears it. Thread: any thread.
 */
void pmr_hca_fault_read_retry(uint32_t n);

/**
 * Restart the model's random numbers (the GRH's undefined bytes, the low
 * byte of keys) and the IPv4 identification from seed (0: a fixed
 * default). PMR_HCA_SEED sets the first seed. Thread: any thread.
 */
void pmr_hca_seed(uint64_t seed);

/**
 * Step mode: with on != 0, polls no longer execute send WQEs; only
 * pmr_hca_step() does, one WQE at a time, oldest first, QPs in the order
 * in which they got work pending. Deterministic: with a fixed
 * PMR_HCA_SEED the same calls produce the same bytes. Thread: any thread.
 */
void pmr_hca_step_mode(int on);

/**
 * Execute up to max pending send WQEs (step mode or not).
 * Thread: any thread.
 * @return how many were executed.
 */
unsigned int pmr_hca_step(unsigned int max);

/**
 * Send WQEs posted and not yet executed, over all QPs. Thread: any.
 */
unsigned int pmr_hca_pending(void);

/* --- configuration (issue 14 part 2) --------------------------------- */

#define PMR_HCA_MAX_DEVICES 4	/**< devices on the fabric, at most */
#define PMR_HCA_MAX_PORTS 2	/**< ports per device, at most */
#define PMR_HCA_GID_TABLE 16	/**< GID table entries per port */

/** A GID table entry's type; 0 is an empty slot. */
enum pmr_hca_gid_type {
	PMR_HCA_GID_EMPTY = 0,	/**< empty: queries give ENODATA */
	PMR_HCA_GID_IB,		/**< InfiniBand (IB ports only) */
	PMR_HCA_GID_ROCE_V1,	/**< RoCE v1 (Ethernet ports only) */
	PMR_HCA_GID_ROCE_V2,	/**< RoCE v2 (Ethernet ports only) */
};

/** One GID table entry. */
struct pmr_hca_gid_config {
	enum pmr_hca_gid_type type;	/**< PMR_HCA_GID_EMPTY: unused */
	union ibv_gid gid;		/**< the address */
};

/** One port. */
struct pmr_hca_port_config {
	uint8_t link_layer;	/**< IBV_LINK_LAYER_ETHERNET, _INFINIBAND */
	enum ibv_port_state state;	/**< DOWN, INIT, ARMED or ACTIVE */
	enum ibv_mtu active_mtu;	/**< the path MTU of its QPs */
	enum ibv_mtu max_mtu;		/**< >= active_mtu */
	uint16_t lid;		/**< InfiniBand: 1..0xbfff; Ethernet: 0 */
	struct pmr_hca_gid_config gid[PMR_HCA_GID_TABLE]; /**< GID table */
};

/** One device. */
struct pmr_hca_dev_config {
	char name[64];		/**< ibv_get_device_name(), unique */
	uint8_t nports;		/**< 1 or PMR_HCA_MAX_PORTS */
	/** Type 2B memory windows (issue 17): advertised
	 * (device_cap_flags, max_mw) and ibv_alloc_mw(IBV_MW_TYPE_2)
	 * served. Off by default: ibv_alloc_mw then fails with
	 * EOPNOTSUPP, as on a device without windows. */
	uint8_t mw;
	struct pmr_hca_port_config port[PMR_HCA_MAX_PORTS]; /**< ports 1.. */
	/** The rxe personality (issue 25): the device identifies itself
	 * as rxe does (vendor id 0xffffff; otherwise 0) and behaves as
	 * rxe where rxe is laxer than the specification and a peer can
	 * reach what it should not (doc/testing.md, "The rxe
	 * personality"). Off by default: the model is strict. */
	uint8_t rxe;
};

/**
 * Fill d with the default device: "hca0", one ACTIVE RoCE port, active
 * MTU 1024, max 4096, GID 0 fe80::1 and GID 1 ::ffff:192.0.2.1 (both
 * RoCE v2), no windows. Thread: any thread.
 */
void pmr_hca_config_default(struct pmr_hca_dev_config *d);

/**
 * Parse a PMR_HCA_CONFIG spec (syntax: doc/testing.md) into devs, strictly:
 * an unknown key, a bad value or an inconsistent device is an error.
 * Thread: any thread.
 * @return the number of devices, or -1 with a message in err (errlen
 *   bytes, may be 0).
 */
int pmr_hca_config_parse(const char *spec, struct pmr_hca_dev_config *devs,
	unsigned int max, char *err, size_t errlen);

/**
 * Make devs (n of them) the fabric's devices, in place of the
 * environment's (PMR_HCA_CONFIG, else PMR_HCA_DEVICE/PMR_HCA_MTU, else
 * the default). Only before the first ibv_get_device_list() or after
 * pmr_hca_reset(). Thread: any thread.
 * @return 0; EBUSY if the devices were already listed; EINVAL if the
 *   configuration is inconsistent (see pmr_hca_config_parse()).
 */
int pmr_hca_configure(const struct pmr_hca_dev_config *devs, unsigned int n);

/**
 * Forget the configuration (the next ibv_get_device_list() reads the
 * environment again, unless pmr_hca_configure() comes first), zero every
 * counter and clear faults and step mode. Device pointers from earlier
 * lists must not be used any more. Thread: any thread.
 * @return 0, or EBUSY while a context or any object is alive.
 */
int pmr_hca_reset(void);

/**
 * Change a port's state at run time (the link going down, coming up).
 * Sends from a port that is not ACTIVE complete successfully and are
 * dropped (drop_port_down), packets to it are dropped (drop_dest_down);
 * an RC QP's sends end RETRY_EXC_ERR. Becoming ACTIVE raises
 * IBV_EVENT_PORT_ACTIVE, leaving ACTIVE IBV_EVENT_PORT_ERR, on every
 * context of the device.
 * Thread: any thread.
 * @return 0; ENODEV: no such device; EINVAL: bad port or state.
 */
int pmr_hca_port_set_state(const char *dev, uint8_t port,
	enum ibv_port_state state);

/**
 * Set (or, with type PMR_HCA_GID_EMPTY, clear) GID table entry idx of a
 * port at run time, as an address added to or deleted from a netdev
 * does; raises IBV_EVENT_GID_CHANGE on every context of the device.
 * Thread: any thread.
 * @return 0; ENODEV: no such device; EINVAL: bad port or index, a type
 *   the link layer does not have, or a GID another port has.
 */
int pmr_hca_gid_set(const char *dev, uint8_t port, unsigned int idx,
	const struct pmr_hca_gid_config *gid);

/**
 * A catastrophic device error: IBV_EVENT_DEVICE_FATAL on every context
 * of dev, every QP of dev moved to ERR (outstanding work flushed), and
 * from then on ibv_create_qp() fails and ibv_modify_qp() to a state other
 * than RESET or ERR returns EIO, until pmr_hca_reset().
 * Thread: any thread.
 * @return 0, or ENODEV.
 */
int pmr_hca_device_fatal(const char *dev);

/**
 * Raise any async event, as the device would: ev->event_type with its
 * element (element.qp for QP events, element.cq for IBV_EVENT_CQ_ERR,
 * element.port_num for port events; nothing for DEVICE_FATAL). QP and
 * CQ events go to the object's context; the others to every context of
 * device dev. Nothing else happens (no state changes): see
 * pmr_hca_qp_force_err() and pmr_hca_device_fatal() for those.
 * Thread: any thread.
 * @return 0; EINVAL: an unknown type, or a QP or CQ that is not the
 *   model's; ENODEV: no such device (for device events).
 */
int pmr_hca_event_raise(const char *dev, const struct ibv_async_event *ev);

/**
 * A QP going to ERR on its own (a local catastrophic error): its
 * outstanding work completes WR_FLUSH_ERR and IBV_EVENT_QP_FATAL is
 * raised on it. Its RC peer notices at its next packet (RETRY_EXC_ERR).
 * Thread: any thread.
 * @return 0, or EINVAL if qp is not a model QP.
 */
int pmr_hca_qp_force_err(struct ibv_qp *qp);

/**
 * The attributes of the QP numbered qpn (any device), as ibv_query_qp()
 * gives them: for a test that has a driver's QP number, not its ibv_qp.
 * Thread: any thread; the QP must not be destroyed meanwhile.
 * @return 0, or ENOENT if no QP has that number.
 */
int pmr_hca_qp_attr(uint32_t qpn, struct ibv_qp_attr *attr);

/** Objects alive on a device (to assert sharing and leaks). */
struct pmr_hca_objects {
	uint32_t contexts;	/**< open contexts */
	uint32_t pds;		/**< protection domains */
	uint32_t mrs;		/**< memory regions */
	uint32_t cqs;		/**< completion queues */
	uint32_t qps;		/**< queue pairs */
	uint32_t ahs;		/**< address handles */
	uint32_t mws;		/**< memory windows (issue 17) */
};

/**
 * Count the objects alive on device dev (NULL: on every device).
 * Thread: any thread.
 * @return 0, or ENODEV.
 */
int pmr_hca_objects_get(const char *dev, struct pmr_hca_objects *o);

/**
 * Read one device's counters: what its QPs sent, dropped and received.
 * pmr_hca_counters_get(NULL, ...) is the sum over the fabric.
 * Thread: any thread.
 * @return 0, or ENODEV.
 */
int pmr_hca_dev_counters_get(const char *dev, struct pmr_hca_counters *c);

#ifdef __cplusplus
}
#endif

#endif /* PMR_HCA_H */
