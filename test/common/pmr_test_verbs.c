/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * The engine suite's verbs set-ups: every worker on the verbs driver.
 * "verbs": on the device PMR_TEST_VERBS_DEV names (unset: the driver's
 * default, the first device), e.g. rxe0 in the VM; built into the
 * ordinary test executables whenever the verbs driver is. "verbs_hca":
 * on the software HCA model's hca0 (test/hca/), built only into the
 * executables linked with the model ahead of libibverbs. Either way the
 * device is one fabric (the model) or loops back (rxe), so a pair needs
 * nothing made for it.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef PMR_TEST_SETUP_VERBS_HCA
#include "pmr_hca.h"
#endif
#include "pmr_test_rpc.h"

static int
verbs_link_up(struct pmr_test_env *env, unsigned int i)
{
	(void)env;
	(void)i;
	return 0;
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
	const char *dev = getenv("PMR_TEST_VERBS_DEV");
	int n = dev != NULL && dev[0] != '\0' ?
		snprintf(buf, size, "dev=%s", dev) : snprintf(buf, size, "%s", "");

	(void)env;
	(void)i;
	(void)end;
	return n < 0 || (size_t)n >= size ? -ENOSPC : 0;
}

#ifdef PMR_TEST_SETUP_VERBS
const struct pmr_test_setup pmr_test_setup_verbs = {
	.name = "verbs",
	.driver = "verbs",
	.link_up = verbs_link_up,
	.link_down = verbs_link_down,
	.devargs = verbs_devargs,
};
#endif

#ifdef PMR_TEST_SETUP_VERBS_HCA
/*
 * Nothing to make, but check that the model is the device: were libpmrpc's
 * ibv_* calls to reach rdma-core instead (the model not ahead of it on the
 * link line), there would be no hca0. This call also keeps the model in
 * the executable's DT_NEEDED under --as-needed.
 */
static int
verbs_hca_link_up(struct pmr_test_env *env, unsigned int i)
{
	struct pmr_hca_objects o;

	(void)env;
	(void)i;
	return pmr_hca_objects_get("hca0", &o) == 0 ? 0 : -ENODEV;
}

static int
verbs_hca_devargs(const struct pmr_test_env *env, unsigned int i,
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
	.link_up = verbs_hca_link_up,
	.link_down = verbs_link_down,
	.devargs = verbs_hca_devargs,
};
#endif
