/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * Linked against libpmrpc.a, without --whole-archive: the built-in drivers
 * must still be there (the generated table, drivers/meson.build, keeps
 * them), eth the default, and an eth queue must come up on a ring pair
 * (proving the driver's code, not just its name, made it into the link).
 */

#include "pmr_test.h"

#include <rte_errno.h>

#include "pmr_transport.h"
#include "pmr_transport_driver.h"

static void
test_static_finds_eth(void **state)
{
	const struct pmr_transport_driver *drv;
	struct pmr_transport_queue *q;
	struct pmr_transport_caps caps;
	uint16_t a, b;
	char args[64];

	(void)state;
	drv = pmr_transport_find("eth");
	assert_non_null(drv);
	assert_int_equal(pmr_transport_nb_builtin, pmr_transport_count());
	assert_ptr_equal(pmr_transport_default(), drv);
	assert_ptr_equal(pmr_transport_get(0), drv);
	assert_int_equal(pmr_transport_caps_get(drv, &caps), 0);
	assert_true(caps.headroom >= 42);

	assert_int_equal(pmr_test_ring_pair("st", &a, &b), 0);
	snprintf(args, sizeof(args), "port=%u,ip=10.9.0.1", a);
	q = pmr_transport_queue_create(drv, args, SOCKET_ID_ANY);
	assert_non_null(q);
	pmr_transport_queue_caps(q, &caps);
	/* The ring port's MTU (ethdev's default, 1500), not the driver's
	 * PMR_ETH_MTU_DEFAULT, which applies to ports that report none. */
	assert_int_equal(caps.mtu, 1500 - 28);
	pmr_transport_queue_destroy(q);
	pmr_test_ring_pair_free("st", a, b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_static_finds_eth),
	};

	return cmocka_run_group_tests_name("static_link", tests,
			pmr_test_eal_setup, pmr_test_eal_teardown);
}
