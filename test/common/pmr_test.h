/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

#ifndef PMR_TEST_H
#define PMR_TEST_H

/**
 * @file
 * Shared cmocka fixtures. EAL initialises once per process, so each test
 * executable brings it up in its group setup (pmr_test_eal_setup) and tears
 * it down in the group teardown.
 *
 * EAL arguments: PMR_TEST_EAL_ARGS (space separated) if set; otherwise
 * "-l 0-1 --no-pci --file-prefix=pmrt<pid>" (a runtime directory of the
 * process's own, removed at teardown, so that concurrent test processes
 * never see each other's telemetry or multi-process sockets) plus
 * "--in-memory" when enough free hugepages exist,
 * or "--no-huge -m 512 --no-shconf" when not, or when PMR_TEST_NO_HUGE=1
 * (valgrind needs that). PMR_TEST_LCORES, if set, replaces "0-1" (the
 * lcore list of -l).
 */

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <rte_launch.h>

/** cmocka group setup: initialise EAL once. */
int pmr_test_eal_setup(void **state);

/** cmocka group teardown: rte_eal_cleanup(). */
int pmr_test_eal_teardown(void **state);

/**
 * Create an in-process ring pair: two ethdev ports wired back to back
 * (what a sends, b receives, and the other way round), not yet configured.
 *
 * @param name unique prefix for the ports and rings.
 * @return 0 or -errno.
 */
int pmr_test_ring_pair(const char *name, uint16_t *port_a, uint16_t *port_b);

/** Close both ports of a ring pair and free its rings. */
void pmr_test_ring_pair_free(const char *name, uint16_t port_a,
		uint16_t port_b);

/**
 * @return the first worker lcore (not the main one), or RTE_MAX_LCORE if
 *   EAL has only the main lcore.
 */
unsigned int pmr_test_worker_lcore(void);

#endif /* PMR_TEST_H */
