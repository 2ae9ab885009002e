/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

#ifndef VERBS_DRV_E2E_H
#define VERBS_DRV_E2E_H

/*
 * The engine end to end on the verbs driver over the software HCA model
 * (test_verbs_drv.c, test_verbs_ud_err.c): a nexus, a server worker 0
 * and a client worker 1 on the model, a session between them, polled by
 * the test; and the model's fabric configured per test.
 */

#include <stdint.h>

#include <rte_mempool.h>

#include "pmr_nexus.h"
#include "pmr_rpc.h"

/* The request type the server echoes, its first byte inverted. */
#define VD_E2E_REQ 7

/* What a continuation saw (vd_e2e_on_reply()'s tag). */
struct vd_e2e_reply {
	int done;
	int status;
	uint32_t len;
	uint8_t first;
};

/* A nexus, its server and client workers, and the client's session. */
struct vd_e2e {
	struct pmr_nexus *nx;
	struct pmr_worker *srv;
	struct pmr_worker *cli;
	int s;
	uint64_t deadline;	/* of the whole test (PMR_TEST_WAIT_NS) */
};

/* Nothing is left on the model: every verbs object destroyed. */
void vd_objects_none(void);

/*
 * Make the model's fabric the devices of spec (PMR_HCA_CONFIG syntax;
 * NULL: the default hca0). Only with nothing left on the model.
 */
void vd_fabric(const char *spec);

/*
 * Bring up e: workers made with conf (worker ids set here), the client's
 * on cli_devargs if not NULL, and a connected session.
 */
void vd_e2e_up(struct vd_e2e *e, struct pmr_worker_conf *conf,
		const char *cli_devargs);

/* The continuation of vd_e2e_call() and of the tests' own requests. */
void vd_e2e_on_reply(struct pmr_worker *w, const struct pmr_resp *resp,
		void *tag);

/* One echo request of len bytes from mp (NULL: the client's pool),
 * answered within the deadline and checked. */
void vd_e2e_call(struct vd_e2e *e, struct rte_mempool *mp, uint32_t len);

/* Poll both until neither driver holds a msgbuf (the engine's own quiet
 * flush, no flush from here); the idle polls it took. */
unsigned int vd_e2e_quiesce(struct vd_e2e *e);

/* Destroy both workers and the nexus; nothing left on the model. */
void vd_e2e_down(struct vd_e2e *e);

/*
 * Until the deadline, poll both workers until every pool of both is full
 * again (the server hears of a closed session through its nexus, the
 * drivers let go of what they sent).
 */
void vd_e2e_pools_full(struct vd_e2e *e);

#endif /* VERBS_DRV_E2E_H */
