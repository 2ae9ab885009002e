/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_ring.h>

#include "pmr_test.h"

#define MAX_ARGS 64
#define HUGE_MB_NEEDED 512

static char arg_store[1024];
static char prefix_arg[64];
static char *eal_argv[MAX_ARGS];
static int eal_argc;
/* Our runtime directory, removed at teardown; empty if not ours. */
static char own_runtime_dir[PATH_MAX];

static void
add_arg(const char *a)
{
	if (eal_argc < MAX_ARGS - 1)
		eal_argv[eal_argc++] = (char *)(uintptr_t)a;
}

/* Free hugepages in MiB, 0 if none or no hugetlbfs is mounted. */
static unsigned long
free_huge_mb(void)
{
	unsigned long free_pages = 0, page_kb = 0;
	char line[256];
	int mounted = 0;
	FILE *f;

	f = fopen("/proc/mounts", "r");
	if (f == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strstr(line, " hugetlbfs ") != NULL)
			mounted = 1;
	fclose(f);
	if (!mounted)
		return 0;
	f = fopen("/proc/meminfo", "r");
	if (f == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL) {
		sscanf(line, "HugePages_Free: %lu", &free_pages);
		sscanf(line, "Hugepagesize: %lu kB", &page_kb);
	}
	fclose(f);
	return free_pages * page_kb / 1024;
}

static void
build_args(void)
{
	const char *env = getenv("PMR_TEST_EAL_ARGS");
	const char *no_huge = getenv("PMR_TEST_NO_HUGE");
	const char *lcores = getenv("PMR_TEST_LCORES");
	char *tok, *save = NULL;

	add_arg("pmr_test");
	if (env != NULL && env[0] != '\0') {
		snprintf(arg_store, sizeof(arg_store), "%s", env);
		for (tok = strtok_r(arg_store, " ", &save); tok != NULL;
		     tok = strtok_r(NULL, " ", &save))
			add_arg(tok);
		return;
	}
	add_arg("-l");
	add_arg(lcores != NULL && lcores[0] != '\0' ? lcores : "0-1");
	add_arg("--no-pci");
	add_arg("--log-level=lib.eal:warning");
	/*
	 * A runtime directory of our own. With the default prefix every test
	 * process shares /var/run/dpdk/rte: each one starting connects to the
	 * others' telemetry sockets (DPDK checks whether a socket is in use
	 * by connecting to it), which makes them start threads while they
	 * are still mapping their memory. ASan once crashed on that in CI.
	 */
	snprintf(prefix_arg, sizeof(prefix_arg), "--file-prefix=pmrt%ld",
		(long)getpid());
	add_arg(prefix_arg);
	if ((no_huge == NULL || strcmp(no_huge, "1") != 0) &&
	    free_huge_mb() >= HUGE_MB_NEEDED) {
		add_arg("--in-memory");
	} else {
		add_arg("--no-huge");
		add_arg("-m");
		add_arg("512");
		add_arg("--no-shconf");
	}
}

int
pmr_test_eal_setup(void **state)
{
	int i, ret;

	(void)state;
	build_args();
	fprintf(stderr, "# EAL:");
	for (i = 1; i < eal_argc; i++)
		fprintf(stderr, " %s", eal_argv[i]);
	fprintf(stderr, "\n");
	ret = rte_eal_init(eal_argc, eal_argv);
	if (ret < 0) {
		fprintf(stderr, "rte_eal_init: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	if (prefix_arg[0] != '\0')
		snprintf(own_runtime_dir, sizeof(own_runtime_dir), "%s",
			rte_eal_get_runtime_dir());
	return 0;
}

/* EAL leaves its runtime directory behind; remove ours and its files. */
static void
remove_runtime_dir(void)
{
	char path[PATH_MAX + 256];
	struct dirent *e;
	DIR *d;

	if (own_runtime_dir[0] == '\0')
		return;
	d = opendir(own_runtime_dir);
	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", own_runtime_dir,
			e->d_name);
		unlink(path);
	}
	closedir(d);
	rmdir(own_runtime_dir);
	own_runtime_dir[0] = '\0';
}

int
pmr_test_eal_teardown(void **state)
{
	int ret;

	(void)state;
	ret = rte_eal_cleanup();
	remove_runtime_dir();
	return ret == 0 ? 0 : -1;
}

int
pmr_test_ring_pair(const char *name, uint16_t *port_a, uint16_t *port_b)
{
	char rname[RTE_RING_NAMESIZE], pname[RTE_ETH_NAME_MAX_LEN];
	struct rte_ring *ab, *ba;
	int a, b;

	snprintf(rname, sizeof(rname), "%s_ab", name);
	ab = rte_ring_create(rname, 1024, SOCKET_ID_ANY,
			RING_F_SP_ENQ | RING_F_SC_DEQ);
	snprintf(rname, sizeof(rname), "%s_ba", name);
	ba = rte_ring_create(rname, 1024, SOCKET_ID_ANY,
			RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (ab == NULL || ba == NULL)
		goto fail;
	/* a receives what b sends (ring ba) and sends into ring ab. */
	snprintf(pname, sizeof(pname), "%s_a", name);
	a = rte_eth_from_rings(pname, &ba, 1, &ab, 1, SOCKET_ID_ANY);
	if (a < 0)
		goto fail;
	snprintf(pname, sizeof(pname), "%s_b", name);
	b = rte_eth_from_rings(pname, &ab, 1, &ba, 1, SOCKET_ID_ANY);
	if (b < 0) {
		rte_eth_dev_close((uint16_t)a);
		goto fail;
	}
	*port_a = (uint16_t)a;
	*port_b = (uint16_t)b;
	return 0;
fail:
	rte_ring_free(ab);
	rte_ring_free(ba);
	return -ENOMEM;
}

void
pmr_test_ring_pair_free(const char *name, uint16_t port_a, uint16_t port_b)
{
	char rname[RTE_RING_NAMESIZE];

	/* Already closed if an eth queue owned them: then these are no-ops. */
	if (rte_eth_dev_is_valid_port(port_a)) {
		rte_eth_dev_stop(port_a);
		rte_eth_dev_close(port_a);
	}
	if (rte_eth_dev_is_valid_port(port_b)) {
		rte_eth_dev_stop(port_b);
		rte_eth_dev_close(port_b);
	}
	snprintf(rname, sizeof(rname), "%s_ab", name);
	rte_ring_free(rte_ring_lookup(rname));
	snprintf(rname, sizeof(rname), "%s_ba", name);
	rte_ring_free(rte_ring_lookup(rname));
}

unsigned int
pmr_test_worker_lcore(void)
{
	return rte_get_next_lcore(-1, 1, 0);
}
