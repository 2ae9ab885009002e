/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * The software HCA model's test-side interface (issue 14, part 1).
 *
 * libpmr_hca.so defines libibverbs' entry points (unversioned, so that it
 * wins when preloaded or linked ahead of libibverbs) and models one RoCE v2
 * device at the UD level. This header is what a test adds on top of
 * verbs.h: the device's own counters, injected faults and the step mode.
 * None of it is a libibverbs API.
 */

#ifndef PMR_HCA_H
#define PMR_HCA_H

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
 * Each call replaces the pending counts. Thread: any thread.
 */
void pmr_hca_fault(uint32_t drop, uint32_t dup, uint32_t fail);

/**
 * Restart the model's random numbers (the GRH's undefined bytes, the low
 * byte of keys) and the IPv4 identification from seed (0: a fixed
 * default). PMR_HCA_SEED sets the first seed. Thread: any thread.
 */
void pmr_hca_seed(uint64_t seed);

/**
 * Step mode: with on != 0, polls no longer execute send WQEs; only
 * pmr_hca_step() does, one WQE at a time, QPs in creation order, oldest
 * first. Deterministic: with a fixed PMR_HCA_SEED the same calls produce
 * the same bytes. Thread: any thread.
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

#ifdef __cplusplus
}
#endif

#endif /* PMR_HCA_H */
