/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

#include <errno.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_spinlock.h>

#include "pmr_transport_driver.h"

#define REGISTRY_MAX 16

/*
 * pmrpc's own drivers. An explicit table rather than constructors, so that
 * an application linked statically against libpmrpc.a still has them.
 */
static const struct pmr_transport_driver *const builtin_drivers[] = {
	&pmr_eth_driver,
};

static const struct pmr_transport_driver *extra_drivers[REGISTRY_MAX];
static unsigned int nb_extra;
static rte_spinlock_t registry_lock = RTE_SPINLOCK_INITIALIZER;

unsigned int
pmr_transport_count(void)
{
	return RTE_DIM(builtin_drivers) +
		__atomic_load_n(&nb_extra, __ATOMIC_ACQUIRE);
}

const struct pmr_transport_driver *
pmr_transport_get(unsigned int idx)
{
	if (idx < RTE_DIM(builtin_drivers))
		return builtin_drivers[idx];
	idx -= RTE_DIM(builtin_drivers);
	if (idx < __atomic_load_n(&nb_extra, __ATOMIC_ACQUIRE))
		return extra_drivers[idx];
	return NULL;
}

const struct pmr_transport_driver *
pmr_transport_find(const char *name)
{
	const struct pmr_transport_driver *drv;
	unsigned int i;

	if (name != NULL) {
		for (i = 0; (drv = pmr_transport_get(i)) != NULL; i++)
			if (strcmp(drv->name, name) == 0)
				return drv;
	}
	rte_errno = ENOENT;
	return NULL;
}

int
pmr_transport_register(const struct pmr_transport_driver *drv)
{
	int ret = 0;

	if (drv == NULL || drv->name == NULL || drv->name[0] == '\0' ||
	    strlen(drv->name) >= PMR_TRANSPORT_NAME_MAX ||
	    drv->queue_create == NULL || drv->queue_destroy == NULL ||
	    drv->queue_addr == NULL || drv->peer_create == NULL ||
	    drv->peer_destroy == NULL || drv->stats_get == NULL ||
	    drv->stats_reset == NULL ||
	    ((drv->caps.flags & PMR_TRANSPORT_CAP_MEM_REG) != 0 &&
	     drv->mem_register == NULL))
		return -EINVAL;

	rte_spinlock_lock(&registry_lock);
	if (pmr_transport_find(drv->name) != NULL)
		ret = -EEXIST;
	else if (nb_extra == REGISTRY_MAX)
		ret = -ENOSPC;
	else {
		extra_drivers[nb_extra] = drv;
		__atomic_store_n(&nb_extra, nb_extra + 1, __ATOMIC_RELEASE);
	}
	rte_spinlock_unlock(&registry_lock);
	return ret;
}

const char *
pmr_transport_name(const struct pmr_transport_driver *drv)
{
	return drv != NULL ? drv->name : NULL;
}

int
pmr_transport_caps_get(const struct pmr_transport_driver *drv,
		struct pmr_transport_caps *caps)
{
	if (drv == NULL || caps == NULL)
		return -EINVAL;
	*caps = drv->caps;
	return 0;
}
