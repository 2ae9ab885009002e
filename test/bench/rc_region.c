/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * What an RC QP's region (pmr_transport_rc_region_conf(), issue 25)
 * adds to RC set-up, on the verbs driver: a program, not a test
 * (devtools/bench-rxe.sh runs it on rxe0 in the VM; doc/benchmarks.md).
 *
 *   bench_rc_region [EAL args] -- [-n ITERS] [-s BYTES] [DEVARGS]
 *
 * Two queues on the device DEVARGS names (default dev=rxe0); ITERS times
 * a pair of RC QPs between them is created, connected both ways and
 * destroyed, which is the control-path part of a pair's set-up and
 * teardown (the nexus adds its round trip over the network). Three ways:
 * without regions, with a remote-readable region of BYTES (default 8
 * MiB, a default worker's) at each end, and with a region for windows
 * (when the queues have them). Prints a markdown table: the median and
 * mean microseconds per pair, what the regions add per QP end (half the
 * pair's difference: each end makes its own), and the ratio to no
 * region. Under TCG absolute figures mean little: compare the ratio.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>

#include "pmr_transport.h"
#include "pmr_transport_rc.h"

#define ITERS_MAX 10000

struct way {
	const char *name;
	bool region;
	uint32_t flags;
	double median_us;
	double mean_us;
};

static double samples[ITERS_MAX];

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* One pair created, connected and destroyed: its time in us, or < 0. */
static double
one_pair(struct pmr_transport_queue *qa, struct pmr_transport_queue *qb)
{
	struct pmr_transport_rc_attr aa, ab;
	struct pmr_transport_rc *a, *b;
	uint64_t t0 = rte_get_timer_cycles();
	int ok;

	a = pmr_transport_rc_create(qa, &aa);
	b = pmr_transport_rc_create(qb, &ab);
	ok = a != NULL && b != NULL &&
		pmr_transport_rc_connect(qa, a, &ab) == 0 &&
		pmr_transport_rc_connect(qb, b, &aa) == 0;
	if (a != NULL)
		pmr_transport_rc_destroy(qa, a);
	if (b != NULL)
		pmr_transport_rc_destroy(qb, b);
	if (!ok)
		return -1;
	return (double)(rte_get_timer_cycles() - t0) * 1e6 /
		(double)rte_get_timer_hz();
}

static int
run(struct way *w, const char *devargs, size_t bytes, unsigned int iters)
{
	const struct pmr_transport_driver *drv = pmr_transport_find("verbs");
	struct pmr_transport_queue *q[2] = { NULL, NULL };
	double sum = 0;
	unsigned int i;
	int ret = 0;

	for (i = 0; i < 2; i++) {
		q[i] = drv == NULL ? NULL :
			pmr_transport_queue_create(drv, devargs,
				SOCKET_ID_ANY);
		if (q[i] == NULL) {
			fprintf(stderr, "queue '%s': %s\n", devargs,
				rte_strerror(rte_errno));
			ret = -1;
			goto out;
		}
		if (w->region && pmr_transport_rc_region_conf(q[i], bytes,
				w->flags) != 0) {
			fprintf(stderr, "%s: no regions\n", w->name);
			ret = -1;
			goto out;
		}
	}
	/* One first, untimed: the CQ is made by the first QP. */
	if (one_pair(q[0], q[1]) < 0) {
		fprintf(stderr, "%s: RC set-up failed\n", w->name);
		ret = -1;
		goto out;
	}
	for (i = 0; i < iters; i++) {
		samples[i] = one_pair(q[0], q[1]);
		if (samples[i] < 0) {
			fprintf(stderr, "%s: RC set-up failed\n", w->name);
			ret = -1;
			goto out;
		}
		sum += samples[i];
	}
	qsort(samples, iters, sizeof(samples[0]), cmp_double);
	w->median_us = samples[iters / 2];
	w->mean_us = sum / iters;
out:
	for (i = 0; i < 2; i++)
		if (q[i] != NULL)
			pmr_transport_queue_destroy(q[i]);
	return ret;
}

static bool
has_mw(const char *devargs)
{
	const struct pmr_transport_driver *drv = pmr_transport_find("verbs");
	struct pmr_transport_queue *q;
	struct pmr_transport_caps caps;

	q = pmr_transport_queue_create(drv, devargs, SOCKET_ID_ANY);
	if (q == NULL)
		return false;
	pmr_transport_queue_caps(q, &caps);
	pmr_transport_queue_destroy(q);
	return (caps.flags & PMR_TRANSPORT_CAP_MW) != 0;
}

int
main(int argc, char **argv)
{
	struct way ways[] = {
		{ .name = "no region" },
		{ .name = "region, remote read (no windows)", .region = true,
		  .flags = PMR_TRANSPORT_ACCESS_REMOTE_READ },
		{ .name = "region, windows bind in it", .region = true },
	};
	const char *devargs = "dev=rxe0";
	unsigned int iters = 200, i, nways = RTE_DIM(ways);
	size_t bytes = 8u << 20;
	int n, opt;

	n = rte_eal_init(argc, argv);
	if (n < 0) {
		fprintf(stderr, "rte_eal_init: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	argc -= n;
	argv += n;
	optind = 1;
	while ((opt = getopt(argc, argv, "n:s:")) != -1) {
		switch (opt) {
		case 'n':
			iters = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 's':
			bytes = (size_t)strtoull(optarg, NULL, 0);
			break;
		default:
			fprintf(stderr, "usage: bench_rc_region [EAL] -- [-n "
				"ITERS] [-s BYTES] [DEVARGS]\n");
			return 2;
		}
	}
	if (optind < argc)
		devargs = argv[optind];
	if (iters == 0 || iters > ITERS_MAX) {
		fprintf(stderr, "-n: 1 to %u\n", ITERS_MAX);
		return 2;
	}
	if (!has_mw(devargs))
		nways--;
	for (i = 0; i < nways; i++)
		if (run(&ways[i], devargs, bytes, iters) != 0)
			return 1;
	printf("RC pair set-up and teardown on %s (two QPs created, "
		"connected, destroyed), %u times, regions of %zu bytes at "
		"each end\n\n", devargs, iters, bytes);
	printf("| way | median us | mean us | added per QP end us | "
		"/ no region |\n|---|---:|---:|---:|---:|\n");
	for (i = 0; i < nways; i++)
		printf("| %s | %.1f | %.1f | %.1f | %.2f |\n", ways[i].name,
			ways[i].median_us, ways[i].mean_us,
			(ways[i].median_us - ways[0].median_us) / 2,
			ways[i].median_us / ways[0].median_us);
	rte_eal_cleanup();
	return 0;
}
