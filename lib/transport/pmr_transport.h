/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

#ifndef PMR_TRANSPORT_H
#define PMR_TRANSPORT_H

/**
 * @file
 * Transport drivers: the registry, queues, and the burst data path.
 *
 * A driver ("eth", later "verbs" and "mlx5") moves datagrams of at most
 * caps.mtu bytes between queues. A worker owns one queue. The control path
 * (queue and peer creation, statistics) may be slow; the data path
 * (pmr_transport_tx_burst(), pmr_transport_rx_burst(),
 * pmr_transport_rx_release()) is one indirect call per burst, never blocks,
 * and is used from the queue's lcore only.
 *
 * Ownership (doc/drivers.md, "Buffer ownership"): a packet handed to tx_burst is read by the
 * driver either before the call returns (copy) or later (zero-copy, then
 * pmr_msgbuf_tx_pending() of its msgbuf stays non-zero until the driver is
 * done with it, on whatever lcore that happens). A received packet belongs
 * to the caller until it is given back with pmr_transport_rx_release().
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>

#include "pmr_config.h"
#include "pmr_msgbuf.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Largest driver name, with its NUL. */
#define PMR_TRANSPORT_NAME_MAX 16

/** @name Capability flags (pmr_transport_caps.flags)
 * @{
 */
/** Sends from msgbuf memory without copying it. */
#define PMR_TRANSPORT_CAP_TX_ZEROCOPY	RTE_BIT64(0)
/** Hands received packets to the caller without copying them. */
#define PMR_TRANSPORT_CAP_RX_ZEROCOPY	RTE_BIT64(1)
/** Offers reliable connected queues (RC). */
#define PMR_TRANSPORT_CAP_RC		RTE_BIT64(2)
/** Can pull a peer's registered buffer with RDMA READ. */
#define PMR_TRANSPORT_CAP_RDMA_READ	RTE_BIT64(3)
/** Needs msgbuf pools registered (pmr_transport_mem_register()). */
#define PMR_TRANSPORT_CAP_MEM_REG	RTE_BIT64(4)
/**
 * Type-2 memory windows on RC QPs (pmr_transport_rc.h: mw_alloc, BIND and
 * INVALIDATE operations): a buffer is exposed to one QP's peer, for
 * exactly its bytes, for as long as it is bound. Implies
 * PMR_TRANSPORT_CAP_RC.
 */
#define PMR_TRANSPORT_CAP_MW		RTE_BIT64(5)
/**
 * With PMR_TRANSPORT_CAP_MW: the device bounds a remote access through a
 * window to exactly the window's bytes. Without it (rxe: it checks the
 * range of the registration the window is bound in), a window's key
 * reaches the whole registration while the window is bound, so only
 * memory of one peer's may be exposed through it (doc/security.md).
 */
#define PMR_TRANSPORT_CAP_MW_EXACT	RTE_BIT64(6)
/** @} */

/** What a driver, or one of its queues, can do. */
struct pmr_transport_caps {
	uint64_t flags;		/**< PMR_TRANSPORT_CAP_* */
	uint32_t mtu;		/**< Largest packet payload in bytes. */
	uint16_t headroom;	/**< Bytes the driver writes before data. */
	uint16_t addr_len;	/**< Bytes of a queue address. */
	/**
	 * Packets the queue can hold received but not yet taken by
	 * rx_burst: the budget credits are admitted against.
	 */
	uint32_t rx_depth;
	/** RC queue pairs the queue can have at once (0 without RC). */
	uint32_t rc_max;
};

/** A queue's address as exchanged by the session handshake. */
struct pmr_transport_addr {
	uint8_t len;		/**< Valid bytes of bytes[]. */
	uint8_t bytes[PMR_TRANSPORT_ADDR_MAX]; /**< The driver's encoding. */
};

/** The memory keys of registered memory (pmr_transport_mem_key()). */
struct pmr_transport_mkey {
	uint32_t lkey;	/**< Local key: the queue's sends and receives. */
	/**
	 * Remote key of the same registration. pmr_transport_mem_register()
	 * registers for local access only, so no peer can use it yet.
	 */
	uint32_t rkey;
};

/** A remote queue, resolved once on the control path for the data path. */
struct pmr_transport_peer {
	/**
	 * Identity of the peer's queue as rx bursts report it in
	 * pmr_rx_pkt.src: compare to check a packet's source.
	 */
	uint64_t src;
};

/**
 * One packet to send: hdr (if hdr_len is not 0) followed by data.
 *
 * Without hdr, the packet is sent from mb in place, and at least
 * caps.headroom writable bytes must lie in mb before data, where the driver
 * puts its own header. With hdr, the driver gathers hdr and data (the eth
 * driver copies such packets; RDMA drivers use two scatter entries); mb
 * may then be NULL if len is 0. hdr need only stay valid during the call.
 */
struct pmr_tx_pkt {
	const struct pmr_transport_peer *peer;	/**< Destination. */
	struct pmr_msgbuf *mb;	/**< The msgbuf holding data. */
	uint8_t *data;		/**< First payload byte, inside mb. */
	uint32_t len;		/**< Bytes of data. */
	/** Bytes to send in front of data; read only if hdr_len is not 0. */
	const void *hdr;
	uint16_t hdr_len;	/**< hdr_len + len is at most caps.mtu. */
};

/** One received packet, owned by the caller until released. */
struct pmr_rx_pkt {
	uint8_t *data;		/**< First payload byte. */
	uint32_t len;		/**< Payload bytes. */
	uint64_t src;		/**< Source queue, as pmr_transport_peer.src. */
	void *handle;		/**< The driver's, for rx_release. */
};

/** Basic statistics of a queue. */
struct pmr_transport_stats {
	uint64_t tx_pkts;	/**< Packets accepted by tx_burst. */
	uint64_t tx_bytes;	/**< Payload bytes of those. */
	uint64_t tx_zerocopy;	/**< Of those, sent without a copy. */
	uint64_t tx_full;	/**< Packets refused: queue or pool full. */
	uint64_t rx_pkts;	/**< Packets delivered by rx_burst. */
	uint64_t rx_bytes;	/**< Payload bytes of those. */
	uint64_t rx_dropped;	/**< Packets dropped (see xstats for why). */
};

/** A named counter of a queue (drops by reason and driver specifics). */
struct pmr_transport_xstat {
	char name[48];		/**< Its name, NUL-terminated. */
	uint64_t value;		/**< Its value. */
};

struct pmr_transport_queue;
struct pmr_transport_driver;

/** A driver's send burst, behind pmr_transport_tx_burst(). */
typedef uint16_t (*pmr_tx_burst_t)(struct pmr_transport_queue *q,
		const struct pmr_tx_pkt *pkts, uint16_t n);
/** A driver's receive burst, behind pmr_transport_rx_burst(). */
typedef uint16_t (*pmr_rx_burst_t)(struct pmr_transport_queue *q,
		struct pmr_rx_pkt *pkts, uint16_t n);
/** A driver's release of received packets, behind
 * pmr_transport_rx_release(). */
typedef void (*pmr_rx_release_t)(struct pmr_transport_queue *q,
		struct pmr_rx_pkt *pkts, uint16_t n);

/**
 * Head of every driver queue. Applications treat it as read-only; it is
 * public only so the burst calls can be inline.
 */
struct pmr_transport_queue {
	pmr_tx_burst_t tx_burst;	/**< The driver's send burst. */
	pmr_rx_burst_t rx_burst;	/**< The driver's receive burst. */
	pmr_rx_release_t rx_release;	/**< The driver's release. */
	const struct pmr_transport_driver *driver; /**< The queue's driver. */
	struct pmr_transport_caps caps;	/**< What the queue can do. */
};

/**
 * Find a driver by name.
 *
 * Thread: any.
 *
 * @return the driver, or NULL with rte_errno = ENOENT (no such driver,
 *   or name NULL).
 */
const struct pmr_transport_driver *pmr_transport_find(const char *name);

/**
 * @return the number of registered drivers.
 *
 * Thread: any.
 */
unsigned int pmr_transport_count(void);

/**
 * @return the idx-th registered driver, or NULL past the end (not an
 *   error: rte_errno is left alone).
 *
 * Thread: any.
 */
const struct pmr_transport_driver *pmr_transport_get(unsigned int idx);

/**
 * @return the driver's name, NULL if drv is NULL.
 *
 * Thread: any.
 */
const char *pmr_transport_name(const struct pmr_transport_driver *drv);

/**
 * What a driver can do in general (its queues may report less, such as a
 * smaller MTU: see pmr_transport_queue_caps()).
 *
 * Thread: any.
 *
 * @return 0 or -EINVAL (drv or caps NULL).
 */
int pmr_transport_caps_get(const struct pmr_transport_driver *drv,
		struct pmr_transport_caps *caps);

/**
 * Create a queue.
 *
 * @param drv
 *   The driver.
 * @param devargs
 *   Driver arguments in DPDK kvargs style ("key=value,key=value"); see the
 *   driver's documentation in doc/drivers.md. NULL means none.
 * @param socket_id
 *   NUMA socket for the queue's memory, or SOCKET_ID_ANY.
 * @return
 *   The queue, or NULL with rte_errno set (EINVAL for a NULL driver or
 *   bad devargs, ENODEV for a missing device, EBUSY for a device in use,
 *   ENOMEM).
 *
 * Thread: the main lcore or a control thread, at set-up (as the
 * driver's device set-up, e.g. rte_eth_dev_configure(), requires).
 */
struct pmr_transport_queue *pmr_transport_queue_create(
		const struct pmr_transport_driver *drv, const char *devargs,
		int socket_id);

/**
 * Destroy a queue. The caller must have released every received packet
 * and destroyed its peers; in-flight zero-copy TX references are dropped
 * (the driver waits for, or reclaims, its packets first). A NULL q is
 * ignored.
 *
 * Thread: the main lcore or a control thread, once no lcore uses the
 * queue.
 */
void pmr_transport_queue_destroy(struct pmr_transport_queue *q);

/**
 * Copy the queue's capabilities (q and caps must be valid).
 *
 * Thread: any.
 */
static inline void
pmr_transport_queue_caps(const struct pmr_transport_queue *q,
		struct pmr_transport_caps *caps)
{
	*caps = q->caps;
}

/**
 * Get the queue's own address, to give to peers.
 *
 * Thread: any (control path).
 *
 * @return 0, -EINVAL (q or addr NULL), or the driver's negative errno.
 */
int pmr_transport_queue_addr(struct pmr_transport_queue *q,
		struct pmr_transport_addr *addr);

/**
 * Resolve a remote queue's address (control path).
 *
 * @return the peer, or NULL with rte_errno set (EINVAL for a NULL
 *   argument, an address of another length than caps.addr_len or one the
 *   driver cannot parse, ENOMEM).
 *
 * Thread: any, on the control path (the nexus's thread; the main lcore
 * at set-up), also while the queue's lcore runs the data path.
 */
struct pmr_transport_peer *pmr_transport_peer_create(
		struct pmr_transport_queue *q,
		const struct pmr_transport_addr *addr);

/**
 * Destroy a peer; no packet to it may be pending in a tx burst. NULL q or
 * peer is ignored.
 *
 * Thread: any, on the control path (the nexus's thread; the main lcore
 * at set-up), also while the queue's lcore runs the data path.
 */
void pmr_transport_peer_destroy(struct pmr_transport_queue *q,
		struct pmr_transport_peer *peer);

/**
 * Register a msgbuf pool's memory with the queue's device, one call per
 * memory chunk. A no-op for a queue without PMR_TRANSPORT_CAP_MEM_REG in
 * its caps (the worker calls it for each of its pools regardless).
 *
 * Registering a pool again is a no-op (registration is not counted).
 *
 * Thread: the main lcore or a control thread, at set-up; or any thread
 * while the queue's lcore runs its data path (a chunk is published to it
 * whole).
 *
 * @return 0, -EINVAL (q NULL, mp not a msgbuf pool), or the driver's
 *   negative errno (-ENOSPC: the queue's table of chunks is full).
 */
int pmr_transport_mem_register(struct pmr_transport_queue *q,
		struct rte_mempool *mp);

/**
 * Undo pmr_transport_mem_register() for a pool: its chunks' registrations
 * are released. No msgbuf of mp may be in a send the driver still holds
 * (pmr_msgbuf_tx_pending()); a msgbuf of mp sent later is sent as from
 * any unregistered memory (the verbs driver copies it). A no-op for a
 * queue without PMR_TRANSPORT_CAP_MEM_REG.
 *
 * Thread: the queue's lcore, or any one thread while its data path is
 * idle (the data path reads the table of chunks).
 *
 * @return 0, -EINVAL (q NULL, mp not a msgbuf pool), -ENOENT (mp was not
 *   registered with q), or the driver's negative errno.
 */
int pmr_transport_mem_unregister(struct pmr_transport_queue *q,
		struct rte_mempool *mp);

/**
 * The memory keys of registered memory: [addr, addr + len) must lie in one
 * chunk registered with q (pmr_transport_mem_register()).
 *
 * Thread: any (control path), as pmr_transport_mem_register().
 *
 * @return 0 with *key filled, -EINVAL (q, addr or key NULL), -ENOTSUP (the
 *   queue's driver registers no memory: no PMR_TRANSPORT_CAP_MEM_REG),
 *   -ENOENT (not registered with q).
 */
int pmr_transport_mem_key(struct pmr_transport_queue *q, const void *addr,
		size_t len, struct pmr_transport_mkey *key);

/**
 * Push out queued packets and reclaim completed ones, so that zero-copy
 * references are dropped as soon as the device allows. Call it when the
 * queue goes quiet, and again while it returns 1: a driver that signals
 * one send in N (verbs) needs a completion it asked for here before it
 * can let go of the last sends.
 *
 * Thread: the queue's lcore (or any one thread once its data path
 * stopped).
 *
 * @return 0 when the driver holds no msgbuf of a sent packet any more
 *   (or cannot tell: eth), 1 while it still holds some, or anything else
 *   only their completions free (their completions are to come: call
 *   again later), -EINVAL (q NULL), or the driver's negative errno.
 */
int pmr_transport_tx_flush(struct pmr_transport_queue *q);

/**
 * Read a queue's statistics.
 *
 * Thread: any; each counter is read whole, together they may be a little
 * out of step.
 *
 * @return 0, -EINVAL (q or stats NULL), or the driver's negative errno.
 */
int pmr_transport_stats_get(struct pmr_transport_queue *q,
		struct pmr_transport_stats *stats);

/**
 * Clear a queue's statistics and extended statistics.
 *
 * Thread: the queue's lcore, or any thread while its data path is idle
 * (the driver's counters are not atomic: an increment racing the reset
 * may survive it).
 *
 * @return 0, or -EINVAL (q NULL).
 */
int pmr_transport_stats_reset(struct pmr_transport_queue *q);

/**
 * Read a queue's named counters.
 *
 * Thread: any, as pmr_transport_stats_get().
 *
 * @return the number of counters the queue has (fill at most n of them),
 *   -EINVAL (q NULL, or xstats NULL with n over 0), or the driver's
 *   negative errno.
 */
int pmr_transport_xstats_get(struct pmr_transport_queue *q,
		struct pmr_transport_xstat *xstats, unsigned int n);

/**
 * Send a burst of packets.
 *
 * Data path: q and pkts are not checked.
 *
 * Thread: the queue's lcore.
 *
 * @return the number of packets accepted, in order; the rest were not
 *   touched and remain the caller's.
 */
static inline uint16_t
pmr_transport_tx_burst(struct pmr_transport_queue *q,
		const struct pmr_tx_pkt *pkts, uint16_t n)
{
	return q->tx_burst(q, pkts, n);
}

/**
 * Receive a burst of packets: valid, addressed to this queue, and owned by
 * the caller until pmr_transport_rx_release(). Data path: q and pkts are
 * not checked.
 *
 * Thread: the queue's lcore.
 *
 * @return the number of packets stored in pkts.
 */
static inline uint16_t
pmr_transport_rx_burst(struct pmr_transport_queue *q,
		struct pmr_rx_pkt *pkts, uint16_t n)
{
	return q->rx_burst(q, pkts, n);
}

/**
 * Give received packets back to the driver. Data path: nothing is
 * checked.
 *
 * Thread: the queue's lcore.
 */
static inline void
pmr_transport_rx_release(struct pmr_transport_queue *q,
		struct pmr_rx_pkt *pkts, uint16_t n)
{
	q->rx_release(q, pkts, n);
}

#ifdef __cplusplus
}
#endif

#endif /* PMR_TRANSPORT_H */
