/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * The engine suite's "verbs_hca" set-up: every worker on the verbs driver
 * over the software HCA model's default device hca0 (test/hca/), which
 * all queues of the process reach: the model is one fabric, so a pair
 * needs nothing made for it. Built only into the executables linked with
 * the model ahead of libibverbs (test/meson.build).
 */

#include <errno.h>
#include <stdio.h>

#include "pmr_hca.h"
#include "pmr_test_rpc.h"

/*
 * Nothing to make, but check that the model is the device: were libpmrpc's
 * ibv_* calls to reach rdma-core instead (the model not ahead of it on the
 * link line), there would be no hca0. This call also keeps the model in
 * the executable's DT_NEEDED under --as-needed.
 */
static int
verbs_link_up(struct pmr_test_env *env, unsigned int i)
{
	struct pmr_hca_objects o;

	(void)env;
	(void)i;
	return pmr_hca_objects_get("hca0", &o) == 0 ? 0 : -ENODEV;
}

static void
verbs_link_down(struct pmr_test_env *env, unsigned int i)
{
	(void)env;
	(void)i;
}

static int
verbs_devargs(const struct pmr_test_env *env, unsigned int i,
		unsigned int end, char *buf, size_t size)
{
	int n = snprintf(buf, size, "dev=hca0");

	(void)env;
	(void)i;
	(void)end;
	return n < 0 || (size_t)n >= size ? -ENOSPC : 0;
}

const struct pmr_test_setup pmr_test_setup_verbs_hca = {
	.name = "verbs_hca",
	.driver = "verbs",
	.link_up = verbs_link_up,
	.link_down = verbs_link_down,
	.devargs = verbs_devargs,
};
