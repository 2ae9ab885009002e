/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * What the software HCA model's source files share and do not export.
 */

#ifndef HCA_INT_H
#define HCA_INT_H

#include <stddef.h>

#include "pmr_hca.h"

#define HCA_EXPORT __attribute__((visibility("default")))

/*
 * Check a whole fabric's configuration: names, port counts, link layers,
 * states, MTUs, LIDs, GID types per link layer, no GID or LID on two
 * ports. Returns 0, or -1 with a message in err.
 */
int hca_config_check(const struct pmr_hca_dev_config *devs, unsigned int n,
	char *err, size_t errlen);

/*
 * The environment's configuration: PMR_HCA_CONFIG, else the default
 * device renamed by PMR_HCA_DEVICE and with PMR_HCA_MTU as its active
 * MTU. Returns the number of devices, or -1 with a message in err.
 */
int hca_config_env(struct pmr_hca_dev_config *devs, unsigned int max,
	char *err, size_t errlen);

/*
 * Point every op of vctx (and of its context's ops that the model does
 * not implement) at a stub failing with EOPNOTSUPP, so that verbs.h's
 * inline helpers get a clean error, never a NULL call.
 */
struct verbs_context;
void hca_stub_vctx(struct verbs_context *vctx);

#endif /* HCA_INT_H */
