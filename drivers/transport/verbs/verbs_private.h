/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

#ifndef PMR_VERBS_PRIVATE_H
#define PMR_VERBS_PRIVATE_H

#include <stdbool.h>
#include <stdint.h>
#include <pthread.h>
#include <sys/queue.h>

#include <infiniband/verbs.h>

#include <rte_log.h>
#include <rte_spinlock.h>

#include "pmr_transport_driver.h"
#include "pmr_transport_rc.h"
#include "verbs_gid.h"

extern int pmr_verbs_logtype;
extern const struct pmr_transport_driver pmr_verbs_driver;

#define VERBS_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, pmr_verbs_logtype, "pmr.verbs: " fmt "\n", \
		##__VA_ARGS__)

#define VERBS_GRH_LEN 40
/* Gathered header bytes a TX descriptor's registered slot holds. */
#define VERBS_HDR_SLOT 128
/* Receive WRs posted at once by rx_burst's refill. */
#define VERBS_RX_REFILL 32
/* Registered memory chunks per queue (msgbuf pools' chunks). */
#define VERBS_MR_MAX 64
/* The self flush's wr_id: not a packet's sequence number (bit 63). */
#define VERBS_FLUSH_WRID (1ull << 63)

/* RC QPs per queue: they share one CQ of VERBS_RC_MAX * rc_sq entries. */
#define VERBS_RC_MAX 16
#define VERBS_RC_SQ_DEFAULT 256
#define VERBS_RC_SQ_MAX 4096
#define VERBS_RC_RD_DEFAULT 16
/*
 * An RC QP's local ACK timeout (4.096 us << n: 67 ms) and its transport
 * retries (rc_timeout, rc_retry devargs). 6 retries, not 7: rxe takes 7
 * as "retry for ever" (the IB spec's infinite is for rnr_retry only), so
 * that a peer gone would never complete the ops; the nexus's liveness and
 * the engine's stuck-READ watch fail a QP whose peer is gone anyway, so
 * 7 is an allowed choice.
 */
#define VERBS_RC_TIMEOUT_DEFAULT 14
#define VERBS_RC_RETRY_DEFAULT 6
/* Memory windows allocated at queue set-up (verbs_mw.c). */
#define VERBS_MW_PREALLOC 8
/* rxe's vendor id (rdma-core's RXE_VENDOR_ID): windows not exact, and
 * a BIND waits for the READs before it on its QP (verbs_rc.c). */
#define VERBS_RXE_VENDOR_ID 0xffffff

/* Why a received packet was dropped (xstats rx_drop_<name>). */
enum verbs_drop {
	VERBS_DROP_STATUS,	/* completion with an error status */
	VERBS_DROP_SHORT,	/* shorter than the GRH */
	VERBS_DROP_SELF_FLUSH,	/* our own flush send */
	VERBS_DROP_GRH,		/* GRH of an unexpected IP version */
	VERBS_DROP_LONG,	/* over the queue's MTU (caps.mtu) */
	VERBS_DROP_MAX,
};

/* Where a queue's UD QP is (verbs_recover.c). */
enum verbs_ud_state {
	VERBS_UD_OK,		/* RTS: the data path runs */
	VERBS_UD_DRAIN,		/* found in ERR: the device gives work back */
	VERBS_UD_DEAD,		/* could not be recovered: drops everything */
};

/* Events of the UD QP not yet read (queue_event_read), a ring. */
#define VERBS_UD_EVQ 8

/* A device opened once per process, its PD shared by the queues on it. */
struct verbs_dev {
	struct verbs_dev *next;
	char name[IBV_SYSFS_NAME_MAX];
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	unsigned int refs;		/* queues on it */
	bool async_nb;			/* async_fd made non-blocking */
};

/*
 * An address handle shared by the peers of a queue with the same remote
 * GID. Control path only (the queue's ah_lock); the data path reads the
 * ibv_ah pointer a peer holds, which stays valid while the peer lives
 * and, after it, until the sends using it have completed (dead_seq).
 */
struct verbs_ah {
	struct verbs_ah *next;
	uint8_t gid[16];
	struct ibv_ah *ah;
	unsigned int refs;		/* peers using it; 0: dying */
	uint64_t dead_seq;		/* dying: destroy once completed */
};

/* A remote queue: immutable after peer_create. */
struct verbs_peer {
	struct pmr_transport_peer pub;
	struct ibv_ah *ah;
	uint32_t qpn;
	uint32_t qkey;
	struct verbs_ah *vah;		/* control path */
};

/* A registered chunk: [start, end) and its lkey. */
struct verbs_mr {
	uintptr_t start;
	uintptr_t end;
	uint32_t lkey;
	uint32_t access;		/* IBV_ACCESS_* it was made with */
	struct ibv_mr *mr;
};

/*
 * Where a type-2 memory window is (verbs_mw.c). Only FREE windows are
 * bound and only FREE ones go back to the cache: any other state at
 * mw_free means the device may still hold a binding we cannot trust, so
 * the window is deallocated.
 */
enum verbs_mw_state {
	VERBS_MW_FREE,		/* not bound: new, or invalidated OK */
	VERBS_MW_BINDING,	/* BIND accepted, not completed */
	VERBS_MW_BOUND,		/* BIND completed OK, on rc */
	VERBS_MW_INVALIDATING,	/* LOCAL_INV accepted, not completed */
	VERBS_MW_BROKEN,	/* its BIND or INVALIDATE failed or flushed */
};

/* A type-2 window of a queue: the lcore's only (no lock). */
struct verbs_mw {
	struct ibv_mw *mw;
	uint32_t rkey;			/* the binding's (BOUND) */
	uint32_t new_rkey;		/* the BIND's, while BINDING */
	uint8_t state;			/* enum verbs_mw_state */
	/* Bound or binding on: the slot and its QPN (a slot is reused by
	 * the next QP made in it; compared only). */
	const struct verbs_rc *rc;
	uint32_t rc_qpn;
	const struct ibv_mr *mr;	/* bound or binding in (not FREE) */
	TAILQ_ENTRY(verbs_mw) all;	/* every window of the queue */
	struct verbs_mw *next_free;	/* in the cache */
};
TAILQ_HEAD(verbs_mw_list, verbs_mw);

/* A one-sided operation held by an RC QP until its completion. */
struct verbs_rc_op {
	uint64_t cookie;
	uint8_t *local;
	uint64_t remote;
	uint32_t lkey;
	uint32_t rkey;
	uint32_t len;
	uint32_t posted;		/* bytes already in WRs */
	uint8_t type;
	struct verbs_mw *mw;		/* BIND, INVALIDATE */
	struct ibv_mr *mr;		/* BIND: its registration */
};

/* What a posted WR of an RC QP is, for the completion that covers it. */
struct verbs_rc_wr {
	uint32_t op;			/* index in ops[], unmasked */
	bool read;
	bool last;			/* the op's last WR (signalled) */
};

/*
 * An RC QP: a slot of its queue's rc[] table. The control path fills it
 * and sets qp last (create), clears qp (destroy); the data path reads a
 * slot only for the QPs handed to it and the completions of its CQ, which
 * carry the slot index and are checked against the slot's QPN.
 */
struct verbs_rc {
	struct ibv_qp *qp;		/* NULL: a free slot */
	uint32_t qpn;
	uint32_t idx;			/* in rc[] */
	struct verbs_queue *vq;
	/* Data path. */
	uint32_t sq_mask;		/* rc_sq - 1 */
	uint64_t wr_seq;		/* WRs posted */
	uint64_t wr_done;		/* WRs known complete */
	struct verbs_rc_wr *wrs;	/* rc_sq */
	struct verbs_rc_op *ops;	/* rc_sq */
	uint32_t op_head;		/* oldest not completed */
	uint32_t op_post;		/* first with bytes not yet in WRs */
	uint32_t op_tail;		/* next free */
	uint32_t rd_max;		/* READ WRs at once (max_rd_atomic) */
	uint32_t rd_out;		/* READ WRs outstanding */
	uint32_t max_msg;		/* bytes per WR */
	bool err;			/* known in ERR: fail what is left */
	bool err_listed;		/* counted in rc_err_pending */
	uint8_t err_status;		/* status of the op that failed it */
	/* Control path. */
	uint32_t psn;
	uint32_t own_rd;		/* max_rd_atomic it may use */
	uint32_t grant_rd;		/* max_dest_rd_atomic it grants */
	/* Its region (rc_region_conf), made with it, freed after it; set
	 * before the QP is handed over, then read-only. */
	uint8_t *reg_addr;		/* NULL: none */
	size_t reg_len;
	struct ibv_mr *reg_mr;
};

/* What a posted send holds until a signalled completion covers it. */
struct verbs_tx_desc {
	struct pmr_msgbuf *mb;		/* zero-copy reference, or NULL */
};

struct verbs_stats {
	uint64_t tx_pkts;
	uint64_t tx_bytes;
	uint64_t tx_zerocopy;
	uint64_t tx_full;	/* refused: SQ full */
	uint64_t tx_invalid;	/* refused: over the MTU, header too big */
	uint64_t tx_unregistered; /* refused: unregistered, no bounce area */
	uint64_t tx_bounced;	/* copied: data outside registered memory */
	uint64_t tx_post_err;	/* refused by ibv_post_send */
	uint64_t tx_cqe_err;	/* send completions with an error status */
	uint64_t posts;		/* ibv_post_send calls */
	uint64_t wqe_signaled;
	uint64_t wqe_inline;
	uint64_t flushes;	/* self flush sends posted */
	uint64_t rx_pkts;
	uint64_t rx_bytes;
	uint64_t rx_refills;	/* ibv_post_recv calls */
	uint64_t rx_drop[VERBS_DROP_MAX];
	uint64_t rc_ops;	/* one-sided ops accepted */
	uint64_t rc_wrs;	/* their WRs posted */
	uint64_t rc_posts;	/* ibv_post_send calls on RC QPs */
	uint64_t rc_split;	/* ops of more than one WR */
	uint64_t rc_rd_wait;	/* pushes stopped by the read credits */
	uint64_t rc_bind_wait;	/* pushes stopped: a BIND behind READs */
	uint64_t rc_rd_max_seen; /* most READ WRs outstanding on one QP */
	uint64_t rc_cpl_err;	/* ops completed with an error */
	uint64_t rc_post_err;	/* ibv_post_send failures on RC QPs */
	uint64_t rc_cqe_stale;	/* CQEs of a destroyed QP */
	uint64_t rc_fails;	/* rc_fail calls that moved a QP to ERR */
	uint64_t mw_binds;	/* BINDs accepted */
	uint64_t mw_invalidates; /* INVALIDATEs accepted */
	uint64_t mw_bind_err;	/* BINDs completed with an error */
	uint64_t mw_inv_err;	/* INVALIDATEs completed with an error */
	uint64_t mw_refused;	/* BIND/INVALIDATE refused at post */
	/* The UD QP in ERR (verbs_recover.c). */
	uint64_t rx_flushed;	/* receives completed WR_FLUSH_ERR */
	uint64_t rx_cqe_stale;	/* receive CQEs of an earlier incarnation */
	uint64_t tx_cqe_stale;	/* send CQEs of an earlier incarnation */
	uint64_t tx_drop_qp_err; /* accepted and dropped: QP in recovery */
	uint64_t qp_err;	/* failures found (PMR_TRANSPORT_EV_QP_FATAL) */
	uint64_t qp_recovered;	/* ..._QP_RECOVERED */
	uint64_t qp_recovery_failed; /* ..._QP_RECOVERY_FAILED */
	uint64_t qp_reclaimed;	/* WRs the device never gave back (RESET) */
	uint64_t qp_events_lost; /* events not told: the ring was full */
};

struct verbs_queue {
	struct pmr_transport_queue pub;	/* first: the burst pointers */

	/* Data path. */
	struct ibv_qp *qp;
	struct ibv_cq *scq;
	struct ibv_cq *rcq;
	uint32_t qpn;
	uint32_t sq_size;		/* power of two */
	uint32_t sq_mask;
	uint32_t sig_every;
	uint32_t max_inline;
	uint64_t tx_seq;		/* next send's sequence number */
	uint64_t tx_done;		/* sends below it are complete */
	uint64_t last_sig;		/* sequence of the last signalled */
	/* Outstanding sends that hold a msgbuf reference (zero-copy): what
	 * a flush must complete; inline and bounce sends hold nothing. */
	uint32_t tx_held;
	bool flush_out;			/* a self flush is outstanding */
	bool local_v4;			/* our GID is IPv4-mapped */
	struct verbs_tx_desc *txd;	/* sq_size */
	uint8_t *hdr_slots;		/* sq_size * VERBS_HDR_SLOT */
	uint32_t hdr_lkey;
	/* sq_size * MTU, made on the first send from unregistered memory
	 * (verbs_bounce_setup()); NULL before, or if that failed. */
	uint8_t *bounce;
	uint32_t bounce_lkey;
	bool bounce_failed;
	unsigned int nb_mrs;		/* published with release */
	unsigned int mr_hint;
	struct verbs_mr mrs[VERBS_MR_MAX];
	struct ibv_ah *self_ah;

	uint8_t *rx_bufs;		/* rq_size * rx_buf_len */
	/* GRH + the port's max_mtu: what a peer may send us, whatever our
	 * active MTU (rxe places it: a shorter receive fails the QP). */
	uint32_t rx_buf_len;
	uint32_t rx_len_max;		/* GRH + caps.mtu: longer is dropped */
	uint32_t rx_lkey;
	uint32_t rq_size;
	uint32_t *rx_free;		/* buffers to post */
	uint32_t nb_rx_free;
	uint32_t rx_posted;
	/*
	 * The UD QP's incarnation (verbs_recover.c): a receive's wr_id is
	 * its buffer's index with rx_gen in the high 32 bits, and a send's
	 * number below tx_gen_seq belongs to an earlier incarnation, so a
	 * late completion of one is told apart and dropped.
	 */
	uint8_t ud_state;		/* enum verbs_ud_state */
	uint32_t rx_gen;
	uint8_t *rx_on_rq;		/* rq_size: 1 while it is posted */
	uint64_t tx_gen_seq;
	uint64_t ud_deadline;		/* DRAIN: reset then at the latest */
	uint32_t ud_async_seen;		/* of ud_async, looked at */
	uint32_t ud_ev_head;		/* ud_ev: events to tell */
	uint32_t ud_ev_tail;
	uint8_t ud_ev[VERBS_UD_EVQ];	/* enum pmr_transport_event_type */

	struct verbs_stats stats;

	/* The nexus thread (event_read): QP events on the UD QP (atomic). */
	uint32_t ud_async;

	/* Control path. */
	struct ibv_mr *bounce_mr;
	struct verbs_dev *dev;
	uint8_t port;
	int gid_index;
	uint8_t gid[16];
	uint32_t qkey;
	struct ibv_mr *hdr_mr;
	struct ibv_mr *rx_mr;
	rte_spinlock_t ah_lock;		/* ahs, zombies, nb_ahs, nb_peers */
	struct verbs_ah *ahs;		/* live */
	struct verbs_ah *zombies;	/* no peer left, sends maybe pending */
	unsigned int nb_ahs;		/* AHs alive (ibv_ah), self excluded */
	unsigned int nb_peers;
	uint64_t ah_destroy_busy;	/* ibv_destroy_ah EBUSY: a bug */

	/* RC (verbs_rc.c). rc_cq: made by the first rc_create. */
	struct ibv_cq *rc_cq;
	uint32_t rc_sq;			/* WRs (and ops) per RC QP */
	uint32_t rc_rd;			/* read credits asked (devargs) */
	uint8_t rc_timeout;		/* local ACK timeout (devargs) */
	uint8_t rc_retry;		/* transport retries (devargs) */
	uint32_t rc_max_msg;		/* bytes per WR */
	enum ibv_mtu path_mtu;		/* the port's active MTU */
	uint32_t rc_nb;			/* live RC QPs */
	uint32_t rc_max_qps;		/* VERBS_RC_MAX, or fewer (CQEs) */
	uint32_t rc_ops_out;		/* ops accepted, not completed */
	uint32_t rc_err_pending;	/* QPs in err with ops left */
	size_t rc_region_len;		/* each RC QP's region, 0: none */
	int rc_region_access;		/* its IBV_ACCESS_* */
	pthread_mutex_t rc_lock;	/* control path: rc[] slots, rc_cq */
	struct verbs_rc rc[VERBS_RC_MAX];

	/* Memory windows (verbs_mw.c): the lcore's, and queue destroy's. */
	bool mw_on;			/* PMR_TRANSPORT_CAP_MW */
	bool bind_after_reads;		/* rxe: BINDs wait for READs */
	struct verbs_mw_list mws;	/* every window alive */
	struct verbs_mw *mw_cache;	/* FREE windows to hand out */
	uint32_t mw_live;		/* windows alive (ibv_mw) */
	uint32_t mw_cached;		/* in mw_cache */
	/* Not reset by stats_reset: they count device objects. */
	uint64_t mw_allocated;		/* ibv_alloc_mw successes */
	uint64_t mw_deallocated;	/* ibv_dealloc_mw successes */
	uint64_t mw_grown;		/* of them, by mw_alloc (no cache) */
	uint64_t mw_alloc_err;		/* ibv_alloc_mw failures */
};

static inline struct verbs_queue *
verbs_queue(struct pmr_transport_queue *q)
{
	return container_of(q, struct verbs_queue, pub);
}

/* RC (verbs_rc.c). */
struct pmr_transport_rc *verbs_rc_create(struct pmr_transport_queue *q,
		struct pmr_transport_rc_attr *attr);
int verbs_rc_connect(struct pmr_transport_queue *q,
		struct pmr_transport_rc *rc,
		const struct pmr_transport_rc_attr *remote);
int verbs_rc_destroy(struct pmr_transport_queue *q,
		struct pmr_transport_rc *rc);
int verbs_rc_state(struct pmr_transport_queue *q,
		struct pmr_transport_rc *rc);
uint16_t verbs_rc_post(struct pmr_transport_queue *q,
		struct pmr_transport_rc *rc,
		const struct pmr_transport_rc_op *ops, uint16_t n);
uint16_t verbs_rc_poll(struct pmr_transport_queue *q,
		struct pmr_transport_rc_cpl *cpl, uint16_t n);
/* Move an RC QP to ERR, its ops flushed by rc_poll (rc_fail). */
int verbs_rc_fail_qp(struct pmr_transport_queue *q,
		struct pmr_transport_rc *rc);
/* Destroy what RC objects are left, and the CQ (queue destroy). */
void verbs_rc_fini(struct verbs_queue *vq);
/* RC QPs' regions (verbs_region.c): rc_region_conf, rc_region. */
int verbs_rc_region_conf(struct pmr_transport_queue *q, size_t len,
		uint32_t flags);
int verbs_rc_region(struct pmr_transport_queue *q,
		const struct pmr_transport_rc *rc,
		struct pmr_transport_rc_region *reg);
/* A QP's region, made or on its way out. */
struct verbs_region {
	uint8_t *addr;
	size_t len;
	struct ibv_mr *mr;
};
/* Make the region of an RC QP (rc_create): 0 or a positive errno. */
int verbs_region_make(struct verbs_queue *vq, struct verbs_region *reg);
/* Free it, its QP destroyed (a window still bound in it: leaked). */
void verbs_region_free(struct verbs_queue *vq, struct verbs_region *reg);

/* Memory windows (verbs_mw.c). */
/* At queue create: 1 if the device has type-2B windows and n of them
 * could be allocated into the cache, else 0 (logged). */
int verbs_mw_setup(struct verbs_queue *vq, const struct ibv_device_attr *da,
		unsigned int n);
/* Deallocate every window left (queue destroy, after the RC QPs). */
void verbs_mw_fini(struct verbs_queue *vq);
struct pmr_transport_mw *verbs_mw_alloc(struct pmr_transport_queue *q);
void verbs_mw_free(struct pmr_transport_queue *q,
		struct pmr_transport_mw *mw);
uint32_t verbs_mw_rkey(struct pmr_transport_queue *q,
		const struct pmr_transport_mw *mw);
/* An op of rc on mw accepted: check and move it (0), or refuse (-1). */
int verbs_mw_post(struct verbs_queue *vq, const struct verbs_rc *rc,
		struct verbs_mw *mw, uint8_t type, const struct ibv_mr *mr);
/* A window not FREE lies in mr (its registration cannot go yet). */
bool verbs_mw_in(const struct verbs_queue *vq, const struct ibv_mr *mr);
/* The op on mw completed with status (rc_poll's emit). */
void verbs_mw_done(struct verbs_queue *vq, struct verbs_mw *mw,
		uint8_t type, uint8_t status);
/* The registration with MW_BIND holding [addr, addr + len), or NULL. */
struct ibv_mr *verbs_mr_bindable(struct verbs_queue *vq, const void *addr,
		size_t len);

/* Device async events (verbs_events.c). */
/* Make the device's async fd non-blocking (at open; logs a failure). */
void verbs_events_dev_init(struct verbs_dev *d);
int verbs_event_fd(struct pmr_transport_queue *q);
int verbs_event_read(struct pmr_transport_queue *q,
		struct pmr_transport_event *ev, unsigned int n);

/* Recovery of the UD QP from the error state (verbs_recover.c). */
/* The UD QP is in ERR (what found it, a detail): start recovering it;
 * nothing if it is recovering or dead already. */
void verbs_ud_failed(struct verbs_queue *vq, const char *what,
		const char *detail);
/* The UD QP may be in ERR (a post failed, the device's event): ask the
 * device, and start recovering it if it is. */
void verbs_ud_check(struct verbs_queue *vq, const char *what);
/* A receive or send completed with an error status. */
void verbs_ud_rx_err(struct verbs_queue *vq, enum ibv_wc_status st);
void verbs_ud_tx_err(struct verbs_queue *vq, enum ibv_wc_status st);
/* Move a recovery on (the queue's lcore). */
void verbs_ud_step(struct verbs_queue *vq);
/* The driver's queue_event_read. */
int verbs_queue_event_read(struct pmr_transport_queue *q,
		struct pmr_transport_event *ev, unsigned int n);
/* The UD QP from RESET to RTS, same QKey (verbs_queue.c): 0 or -errno. */
int verbs_qp_to_rts(struct verbs_queue *vq);

/* Data path (verbs_rxtx.c). */
uint16_t verbs_tx_burst(struct pmr_transport_queue *q,
		const struct pmr_tx_pkt *pkts, uint16_t n);
uint16_t verbs_rx_burst(struct pmr_transport_queue *q,
		struct pmr_rx_pkt *pkts, uint16_t n);
void verbs_rx_release(struct pmr_transport_queue *q,
		struct pmr_rx_pkt *pkts, uint16_t n);
/* Reap send completions; post a self flush if sends are pending and no
 * signalled WQE covers them. */
int verbs_tx_flush(struct verbs_queue *vq, bool all);
/* Reap send completions only. */
void verbs_tx_reap(struct verbs_queue *vq);
/* Post up to the free receive buffers (control path at create). */
int verbs_rx_refill(struct verbs_queue *vq, uint32_t min);
/* verbs_mem.c: the driver's mem_* callbacks. */
int verbs_mem_register_access(struct pmr_transport_queue *q,
		const struct pmr_msgbuf_chunk *chunk, uint32_t flags);
int verbs_mem_register(struct pmr_transport_queue *q,
		const struct pmr_msgbuf_chunk *chunk);
int verbs_mem_unregister(struct pmr_transport_queue *q,
		const struct pmr_msgbuf_chunk *chunk);
int verbs_mem_key(struct pmr_transport_queue *q, const void *addr,
		size_t len, struct pmr_transport_mkey *key);
/* verbs_peer.c: peers, and their AHs shared per remote GID. */
struct pmr_transport_peer *verbs_peer_create(struct pmr_transport_queue *q,
		const struct pmr_transport_addr *addr);
void verbs_peer_destroy(struct pmr_transport_queue *q,
		struct pmr_transport_peer *p);
/* An AH to gid on vq's port (the queue's own: its self sends). */
struct ibv_ah *verbs_ah_make(struct verbs_queue *vq, const uint8_t gid[16]);
/* Destroy the dead AHs whose last send completed (takes ah_lock). */
void verbs_ah_reap(struct verbs_queue *vq);
/* The same, unless the control path holds ah_lock (the data path). */
void verbs_ah_reap_try(struct verbs_queue *vq);
/* Destroy every dead AH (queue teardown, its sends done). */
void verbs_ah_reap_all(struct verbs_queue *vq);
/* verbs_stats.c: the driver's statistics callbacks. */
int verbs_stats_get(struct pmr_transport_queue *q,
		struct pmr_transport_stats *s);
void verbs_stats_reset(struct pmr_transport_queue *q);
int verbs_xstats_get(struct pmr_transport_queue *q,
		struct pmr_transport_xstat *xs, unsigned int n);
/* Make the bounce area (slow path, once): 0, or -errno (then never again). */
int verbs_bounce_setup(struct verbs_queue *vq);
/* Sends posted and not yet known complete: what the driver holds. */
static inline uint64_t
verbs_tx_pending(const struct verbs_queue *vq)
{
	return __atomic_load_n(&vq->tx_seq, __ATOMIC_ACQUIRE) -
		__atomic_load_n(&vq->tx_done, __ATOMIC_ACQUIRE);
}

#endif /* PMR_VERBS_PRIVATE_H */
