/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * Device async events on real Soft-RoCE (rxe0 on dummy0 in the VM of
 * devtools/vm/; issue 16): `ip link set dummy0 down` and `up` reach the
 * application's event_cb as a port down then up; `rdma link delete rxe0`
 * with the worker up raises no event on rxe (it cannot disassociate a
 * context: the delete waits for the close) but would be device fatal on
 * hardware, and either way the worker and the nexus are destroyed without
 * a hang (every event acknowledged), the delete then completes and the
 * process holds the file descriptors it held before. Destructive: it
 * deletes rxe0, so it runs alone in its own VM boot.
 */

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rte_errno.h>

#include "pmr_nexus.h"
#include "pmr_rpc.h"
#include "pmr_test.h"
#include "pmr_test_rpc.h"

#define EV_MAX 64

struct seen {
	unsigned int n;
	struct pmr_worker_event ev[EV_MAX];
};

static const char *dev = "rxe0";
static const char *netdev = "dummy0";

static void
on_event(struct pmr_worker *w, const struct pmr_worker_event *ev, void *arg)
{
	struct seen *s = arg;

	(void)w;
	printf("event %d port %u\n", (int)ev->type, ev->port);
	if (s->n < EV_MAX)
		s->ev[s->n] = *ev;
	s->n++;
}

static unsigned int
nb_fds(void)
{
	struct dirent *d;
	unsigned int n = 0;
	DIR *dir;

	dir = opendir("/proc/self/fd");
	assert_non_null(dir);
	while ((d = readdir(dir)) != NULL)
		if (d->d_name[0] != '.')
			n++;
	closedir(dir);
	return n;
}

/* Poll w until an event of type t is seen after index from; its index. */
static unsigned int
wait_type(struct pmr_worker *w, struct seen *s, unsigned int from,
		enum pmr_worker_event_type t)
{
	uint64_t deadline = pmr_test_now_ns() + 4 * PMR_TEST_WAIT_NS;
	unsigned int i;

	while (pmr_test_now_ns() < deadline) {
		pmr_worker_poll(w);
		for (i = from; i < s->n && i < EV_MAX; i++)
			if (s->ev[i].type == t)
				return i;
	}
	fail_msg("no event %d after %u (%u seen)", (int)t, from, s->n);
	return 0;
}

static void
run(const char *cmd)
{
	printf("# %s\n", cmd);
	fflush(stdout);
	assert_int_equal(system(cmd), 0);
}

static void
test_link_events(void **state)
{
	struct pmr_worker_conf conf;
	struct pmr_nexus_stats st;
	struct pmr_worker_stats ws;
	struct pmr_nexus *nx;
	struct pmr_worker *w;
	struct seen seen;
	unsigned int fds0, i, from;
	char cmd[128], devargs[64], path[128];
	bool fatal = false, waited;
	uint64_t deadline;
	pid_t fdel, wp;
	int st_del = 0;

	(void)state;
	fds0 = nb_fds();
	memset(&seen, 0, sizeof(seen));
	nx = pmr_nexus_create("127.0.0.1:0", NULL);
	assert_non_null(nx);
	snprintf(devargs, sizeof(devargs), "dev=%s", dev);
	memset(&conf, 0, sizeof(conf));
	conf.driver = "verbs";
	conf.devargs = devargs;
	conf.nb_msgbufs = 256;
	conf.nb_mid_msgbufs = 4;
	conf.nb_large_msgbufs = 1;
	conf.max_msg_size = 1 << 20;
	conf.event_cb = on_event;
	conf.event_arg = &seen;
	w = pmr_worker_create(nx, &conf);
	if (w == NULL)
		fail_msg("worker on %s: %s", dev, rte_strerror(rte_errno));

	snprintf(cmd, sizeof(cmd), "ip link set %s down", netdev);
	run(cmd);
	i = wait_type(w, &seen, 0, PMR_WORKER_EV_PORT_DOWN);
	assert_int_equal(seen.ev[i].port, 1);
	snprintf(cmd, sizeof(cmd), "ip link set %s up", netdev);
	run(cmd);
	i = wait_type(w, &seen, i + 1, PMR_WORKER_EV_PORT_UP);
	assert_int_equal(seen.ev[i].port, 1);
	/*
	 * The device deleted with our context open. rxe cannot disassociate
	 * a context: the kernel raises no DEVICE_FATAL and the delete waits
	 * until the last context is closed (verbs_conformance's
	 * test_event_delete); a hardware provider (mlx5) raises it and goes
	 * on. So: the delete in a child, a DEVICE_FATAL awaited a while and
	 * checked if it comes, then the worker destroyed (no hang), after
	 * which the delete must complete and the device be gone.
	 */
	fdel = fork();
	assert_true(fdel >= 0);
	if (fdel == 0) {
		execlp("rdma", "rdma", "link", "delete", dev, (char *)NULL);
		_exit(127);
	}
	from = seen.n;
	deadline = pmr_test_now_ns() + 3000000000ull;
	while (pmr_test_now_ns() < deadline && !fatal) {
		pmr_worker_poll(w);
		for (i = from; i < seen.n && i < EV_MAX; i++)
			if (seen.ev[i].type == PMR_WORKER_EV_DEVICE_FATAL)
				fatal = true;
	}
	waited = waitpid(fdel, &st_del, WNOHANG) == 0;
	printf("rdma link delete with the worker up: DEVICE_FATAL %s, "
		"delete %s\n", fatal ? "seen" : "not seen (rxe: none)",
		waited ? "waiting for the close" : "done");

	assert_int_equal(pmr_nexus_stats_get(nx, &st), 0);
	assert_int_equal(pmr_worker_stats_get(w, &ws), 0);
	printf("nexus dev_events %" PRIu64 " port %" PRIu64 " gid %" PRIu64
		" fatal %" PRIu64 " orphan %" PRIu64 "; worker %" PRIu64 "\n",
		st.dev_events, st.dev_events_port, st.dev_events_gid,
		st.dev_events_fatal, st.dev_events_orphan, ws.dev_events);
	assert_true(st.dev_events_port >= 2);
	assert_int_equal(st.dev_events_fatal, fatal ? 1 : 0);
	assert_true(ws.dev_events >= 2);
	assert_int_equal(ws.dev_events, seen.n);
	/* rxe: no event and the delete waits; else the event. */
	assert_true(fatal || waited);

	pmr_worker_destroy(w);
	assert_int_equal(pmr_nexus_destroy(nx), 0);
	/* The device's context (and its async fd) closed: nothing held. */
	assert_int_equal(nb_fds(), fds0);
	/* The delete goes through once our context is closed. */
	deadline = pmr_test_now_ns() + 4 * PMR_TEST_WAIT_NS;
	while ((wp = waitpid(fdel, &st_del, WNOHANG)) == 0 &&
	       pmr_test_now_ns() < deadline)
		usleep(20000);
	if (wp != fdel) {
		kill(fdel, SIGKILL);
		waitpid(fdel, &st_del, 0);
		fail_msg("rdma link delete %s still waiting after the worker "
			"was destroyed", dev);
	}
	assert_true(WIFEXITED(st_del) && WEXITSTATUS(st_del) == 0);
	snprintf(path, sizeof(path), "/sys/class/infiniband/%s", dev);
	assert_int_equal(access(path, F_OK), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_link_events),
	};
	char path[128];
	FILE *f;

	if (getenv("PMR_VERBS_DEV") != NULL)
		dev = getenv("PMR_VERBS_DEV");
	if (getenv("PMR_VERBS_NETDEV") != NULL)
		netdev = getenv("PMR_VERBS_NETDEV");
	snprintf(path, sizeof(path), "/sys/class/infiniband/%s", dev);
	f = fopen(path, "r");
	if (f == NULL) {
		fprintf(stderr, "no %s: skipped\n", path);
		return 77;
	}
	fclose(f);
	setvbuf(stdout, NULL, _IOLBF, 0);
	return cmocka_run_group_tests_name("verbs_events_real", tests,
		pmr_test_eal_setup, pmr_test_eal_teardown);
}
