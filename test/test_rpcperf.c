/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * Unit tests of rpcperf's pure parts, linked with its objects (no EAL):
 * argument parsing, every bad value refused with a message; the
 * percentile math on known distributions; the JSON and CSV writers;
 * --verify's payload pattern and its table column.
 * test/rpcperf/check_rpcperf.py runs the program itself.
 */

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <rte_common.h>
#include <rte_config.h>

#include "pmr_transport.h"
#include "rpcperf.h"

#define MSG_MAX 4096
#define ARGS_MAX 32

/* What a call printed to one stream, while fd was redirected. */
struct capture {
	int fd;
	FILE *stream;
	int saved;
	FILE *tmp;
};

static void
capture_start(struct capture *c, FILE *stream)
{
	c->stream = stream;
	c->fd = fileno(stream);
	fflush(stream);
	c->tmp = tmpfile();
	assert_non_null(c->tmp);
	c->saved = dup(c->fd);
	assert_true(c->saved >= 0);
	assert_true(dup2(fileno(c->tmp), c->fd) >= 0);
}

static void
capture_end(struct capture *c, char *out, size_t len)
{
	size_t n;

	fflush(c->stream);
	assert_true(dup2(c->saved, c->fd) >= 0);
	close(c->saved);
	rewind(c->tmp);
	n = fread(out, 1, len - 1, c->tmp);
	out[n] = '\0';
	fclose(c->tmp);
}

/*
 * rpcperf_parse_args() on "rpcperf" and the NULL-terminated arguments;
 * what it printed to stderr goes to msg.
 */
static int
parse(struct rpcperf_config *cfg, char *msg, const char *arg, ...)
{
	char *argv[ARGS_MAX + 2];
	struct capture c;
	va_list ap;
	int argc = 0, ret;

	argv[argc++] = (char *)(uintptr_t)"rpcperf";
	va_start(ap, arg);
	for (; arg != NULL; arg = va_arg(ap, const char *)) {
		assert_true(argc <= ARGS_MAX);
		argv[argc++] = (char *)(uintptr_t)arg;
	}
	va_end(ap);
	argv[argc] = NULL;
	capture_start(&c, stderr);
	ret = rpcperf_parse_args(argc, argv, cfg);
	capture_end(&c, msg, MSG_MAX);
	return ret;
}

static void
test_args_defaults(void **state)
{
	struct rpcperf_config cfg;
	char msg[MSG_MAX];

	(void)state;
	assert_int_equal(parse(&cfg, msg, NULL), 0);
	assert_string_equal(msg, "");
	assert_int_equal(cfg.nb_workloads, 3);
	assert_string_equal(cfg.workloads[0], "ring");
	assert_string_equal(cfg.workloads[1], "latency");
	assert_string_equal(cfg.workloads[2], "rate");
	assert_int_equal(cfg.size, 32);
	assert_int_equal(cfg.iters, 1000000);
	assert_int_equal(cfg.warmup, 10000);
	assert_int_equal(cfg.concurrency, 32);
	assert_int_equal(cfg.sessions, 4);
	assert_int_equal(cfg.credits, 0);
	assert_int_equal(cfg.rto_us, 0);
	assert_int_equal(cfg.req_timeout_ms, 0);
	assert_int_equal(cfg.timeout_per_mib_ms, 0);
	assert_int_equal(cfg.peer_timeout_ms, 0);
	assert_null(cfg.faults);
	assert_string_equal(cfg.driver, "eth");
	assert_string_equal(cfg.driver_args, "");
	assert_int_equal(cfg.mode, RPCPERF_INPROC);
	assert_null(cfg.nexus);
	assert_null(cfg.connect);
	assert_int_equal(cfg.nb_devargs, 0);
	assert_int_equal(cfg.remote_workers, 1);
	assert_int_equal(cfg.duration, 0);
	/* Lcores: chosen after EAL (rpcperf_lcores_resolve()). */
	assert_int_equal(cfg.nb_server_lcores, 0);
	assert_int_equal(cfg.nb_client_lcores, 0);
	assert_false(cfg.interactive);
	assert_false(cfg.quiet);
	assert_false(cfg.json);
	assert_null(cfg.histogram);
	assert_false(cfg.verify);

	/* A -w list earlier must not change the next parse's default. */
	assert_int_equal(parse(&cfg, msg, "-w", "memcpy,ring", NULL), 0);
	assert_int_equal(parse(&cfg, msg, NULL), 0);
	assert_int_equal(cfg.nb_workloads, 3);
	assert_string_equal(cfg.workloads[2], "rate");
}

static void
test_args_every_option(void **state)
{
	struct rpcperf_config cfg;
	char msg[MSG_MAX];

	(void)state;
	assert_int_equal(parse(&cfg, msg, "-w", "memcpy,ring", "-s", "0x40",
		"--iters=7", "--warmup", "0", "-c", "4096", "--sessions=3",
		"--credits=1024", "--rto-us=10000000", "--faults=drop_tx=0.1",
		"--req-timeout-ms=3600000", "--timeout-per-mib-ms=60000",
		"--peer-timeout-ms=8000",
		"--eth-args=tx_copy_max=0", "--server-lcores=1,5-6",
		"--client-lcores=0,3", "--json",
		"--histogram=h.csv", "-q", "--verify", NULL), 0);
	assert_string_equal(msg, "");
	assert_int_equal(cfg.nb_workloads, 2);
	assert_string_equal(cfg.workloads[0], "memcpy");
	assert_string_equal(cfg.workloads[1], "ring");
	assert_int_equal(cfg.size, 64);
	assert_int_equal(cfg.iters, 7);
	assert_int_equal(cfg.warmup, 0);
	assert_int_equal(cfg.concurrency, 4096);
	assert_int_equal(cfg.sessions, 3);
	assert_int_equal(cfg.credits, 1024);
	assert_int_equal(cfg.rto_us, 10000000);
	assert_int_equal(cfg.req_timeout_ms, 3600000);
	assert_int_equal(cfg.timeout_per_mib_ms, PMR_TIMEOUT_PER_MIB_MAX);
	assert_int_equal(cfg.peer_timeout_ms, 8000);
	assert_string_equal(cfg.faults, "drop_tx=0.1");
	assert_string_equal(cfg.driver_args, "tx_copy_max=0");
	assert_int_equal(cfg.nb_server_lcores, 3);
	assert_int_equal(cfg.server_lcores[0], 1);
	assert_int_equal(cfg.server_lcores[1], 5);
	assert_int_equal(cfg.server_lcores[2], 6);
	assert_int_equal(cfg.nb_client_lcores, 2);
	assert_int_equal(cfg.client_lcores[0], 0);
	assert_int_equal(cfg.client_lcores[1], 3);
	assert_true(cfg.json);
	assert_string_equal(cfg.histogram, "h.csv");
	assert_true(cfg.quiet);
	assert_true(cfg.verify);

	/* The limits themselves are good values. */
	assert_int_equal(parse(&cfg, msg, "--size=67108864", "-n",
		"4294967295", "--warmup=4294967295", "-c", "1",
		"--sessions=1", "--credits=1", "--rto-us=1", "-s", "0",
		"--server-lcores=0", "--req-timeout-ms=1",
		"--timeout-per-mib-ms=off", "--peer-timeout-ms=1", NULL), 0);
	assert_int_equal(cfg.size, 0);
	assert_int_equal(cfg.req_timeout_ms, 1);
	assert_int_equal(cfg.timeout_per_mib_ms, PMR_TIMEOUT_PER_MIB_NONE);
	assert_int_equal(cfg.peer_timeout_ms, 1);
	assert_int_equal(cfg.iters, UINT32_MAX);
	assert_int_equal(cfg.warmup, UINT32_MAX);

	/* The server side: what it listens on and its ports. */
	assert_int_equal(parse(&cfg, msg, "--server", "--nexus=10.0.0.1:9",
		"--devargs=port=0,ip=10.0.0.1", "--devargs=port=1",
		"--duration=5", "--server-lcores=0-1", NULL), 0);
	assert_string_equal(msg, "");
	assert_int_equal(cfg.mode, RPCPERF_SERVER);
	assert_string_equal(cfg.nexus, "10.0.0.1:9");
	assert_int_equal(cfg.nb_devargs, 2);
	assert_string_equal(cfg.devargs[1], "port=1");
	assert_int_equal(cfg.duration, 5);

	/* The client side. */
	assert_int_equal(parse(&cfg, msg, "--connect=127.0.0.1:31850",
		"--nexus=127.0.0.1:0", "--devargs=port=0", "--devargs=port=1",
		"--remote-workers=2", "--client-lcores=0,1", "-w",
		"latency,memcpy", NULL), 0);
	assert_string_equal(msg, "");
	assert_int_equal(cfg.mode, RPCPERF_CLIENT);
	assert_string_equal(cfg.connect, "127.0.0.1:31850");
	assert_int_equal(cfg.remote_workers, 2);

	/* --verify: a client's, with --connect too. */
	assert_int_equal(parse(&cfg, msg, "--connect=127.0.0.1:31850",
		"--devargs=port=0", "--verify", NULL), 0);
	assert_true(cfg.verify);

	/* --connect without -w: latency and rate, no in-process ring. */
	assert_int_equal(parse(&cfg, msg, "--connect=127.0.0.1:31850",
		"--devargs=port=0", NULL), 0);
	assert_string_equal(msg, "");
	assert_int_equal(cfg.nb_workloads, 2);
	assert_string_equal(cfg.workloads[0], "latency");
	assert_string_equal(cfg.workloads[1], "rate");

	/* --remote-worker: parsed as listed, duplicates allowed. */
	assert_int_equal(parse(&cfg, msg, "--connect=127.0.0.1:31850",
		"--devargs=port=0", "--remote-worker=3,1,1", NULL), 0);
	assert_string_equal(msg, "");
	assert_int_equal(cfg.nb_remote_worker, 3);
	assert_int_equal(cfg.remote_worker[0], 3);
	assert_int_equal(cfg.remote_worker[2], 1);

	/* Interactive: rate unless -w says otherwise. */
	assert_int_equal(parse(&cfg, msg, "-i", NULL), 0);
	assert_true(cfg.interactive);
	assert_int_equal(cfg.nb_workloads, 1);
	assert_string_equal(cfg.workloads[0], "rate");
	assert_int_equal(parse(&cfg, msg, "--interactive", "-w", "latency",
		NULL), 0);
	assert_string_equal(cfg.workloads[0], "latency");

	/* Decimal even with a leading 0; hex with 0x. */
	assert_int_equal(parse(&cfg, msg, "-s", "010", "-n", "0X1f", NULL), 0);
	assert_int_equal(cfg.size, 10);
	assert_int_equal(cfg.iters, 31);
}

/* A bad argument: -EINVAL and msg in what was printed. */
#define BAD(want, ...) do { \
	struct rpcperf_config cfg_; \
	char msg_[MSG_MAX]; \
	int ret_ = parse(&cfg_, msg_, __VA_ARGS__, NULL); \
	if (ret_ != -EINVAL || strstr(msg_, want) == NULL) \
		fail_msg("%s: returned %d, printed \"%s\", wanted \"%s\"", \
			#__VA_ARGS__, ret_, msg_, want); \
} while (0)

static void
test_args_bad_numbers(void **state)
{
	char v[64], want[128];

	(void)state;
	BAD("--size=abc: expected a number from 0 to 67108864", "-s", "abc");
	BAD("--size=67108865: expected a number from 0 to 67108864",
		"--size=67108865");
	BAD("--size=-1: expected a number", "--size=-1");
	BAD("--size=: expected a number", "--size=");
	BAD("--size=1k: expected a number", "--size", "1k");
	BAD("--size= 1: expected a number", "--size= 1");
	BAD("--size=+1: expected a number", "--size=+1");
	BAD("--size=0x: expected a number", "--size=0x");
	BAD("--size=0x-1: expected a number", "--size=0x-1");
	BAD("--size=0xg: expected a number", "--size=0xg");
	BAD("--size=1.5: expected a number", "--size=1.5");
	BAD("--iters=0: expected a number from 1 to 4294967295", "-n", "0");
	BAD("--iters=4294967296: expected a number", "--iters=4294967296");
	BAD("--iters=99999999999999999999: expected a number",
		"--iters=99999999999999999999");
	BAD("--warmup=-5: expected a number from 0 to 4294967295",
		"--warmup=-5");
	BAD("--warmup=4294967296: expected a number", "--warmup=4294967296");
	BAD("--concurrency=0: expected a number from 1 to 4096", "-c", "0");
	BAD("--concurrency=4097: expected a number", "--concurrency=4097");
	BAD("--sessions=0: expected a number from 1 to", "--sessions=0");
	snprintf(v, sizeof(v), "--sessions=%d", RPCPERF_MAX_SESSIONS + 1);
	snprintf(want, sizeof(want), "%s: expected a number from 1 to %d",
		v, RPCPERF_MAX_SESSIONS);
	BAD(want, v);
	BAD("--credits=0: expected a number from 1 to 1024", "--credits=0");
	BAD("--credits=1025: expected a number", "--credits=1025");
	BAD("--rto-us=0: expected a number from 1 to 10000000", "--rto-us=0");
	BAD("--rto-us=10000001: expected a number", "--rto-us=10000001");
	BAD("--req-timeout-ms=0: expected a number from 1 to 3600000",
		"--req-timeout-ms=0");
	BAD("--timeout-per-mib-ms=0: expected a number from 1 to 60000",
		"--timeout-per-mib-ms=0");
	BAD("--timeout-per-mib-ms=60001: expected a number",
		"--timeout-per-mib-ms=60001");
	BAD("--timeout-per-mib-ms=none: expected a number",
		"--timeout-per-mib-ms=none");
	BAD("--peer-timeout-ms=3600001: expected a number",
		"--peer-timeout-ms=3600001");
	snprintf(v, sizeof(v), "--server-lcores=%d", RTE_MAX_LCORE);
	snprintf(want, sizeof(want), "%s: expected lcore ids below %d", v,
		RTE_MAX_LCORE);
	BAD(want, v);
	BAD("--server-lcores=one: expected lcore ids", "--server-lcores=one");
	BAD("--client-lcores=: expected lcore ids", "--client-lcores=");
	BAD("--client-lcores=1,: expected lcore ids", "--client-lcores=1,");
	BAD("--client-lcores=3-2: expected lcore ids", "--client-lcores=3-2");
	BAD("--client-lcores=-1: expected lcore ids", "--client-lcores=-1");
	BAD("--client-lcores=1;2: expected lcore ids", "--client-lcores=1;2");
	BAD("--client-lcores=1,0-2: lcore 1 twice", "--client-lcores=1,0-2");
	BAD("--server-lcores=0-16: at most 16 lcores", "--server-lcores=0-16");
	BAD("--remote-workers=0: expected a number from 1 to 1024",
		"--connect=127.0.0.1:1", "--devargs=port=0",
		"--remote-workers=0");
	BAD("--duration=-1: expected a number", "--server", "--duration=-1");
}

static void
test_args_bad_other(void **state)
{
	char list[300];

	(void)state;
	BAD("unknown workload 'nosuch' (see --help)", "-w", "ring,nosuch");
	BAD("--workload: empty list", "-w", ",");
	BAD("--workload: empty list", "--workload=");
	BAD("too many workloads",
		"-w", "ring,ring,ring,ring,ring,ring,ring,ring,ring");
	memset(list, 'a', sizeof(list) - 1);
	list[sizeof(list) - 1] = '\0';
	BAD("--workload: list too long", "-w", list);
	BAD("--histogram: needs a file name", "--histogram=");
	BAD("option --size needs a value", "--size");
	BAD("option -s needs a value", "-s");
	BAD("option --histogram needs a value", "--histogram");
	BAD("unknown option --bogus (see --help)", "--bogus");
	BAD("unknown option -x (see --help)", "-x");
	BAD("unknown option -x (see --help)", "-qx");
	BAD("option --json takes no value", "--json=1");
	BAD("option --quiet takes no value", "--quiet=yes");
	BAD("option --verify takes no value", "--verify=1");
	BAD("unexpected argument 'extra'", "-q", "extra");
}

static void
test_args_bad_placement(void **state)
{
	(void)state;
	BAD("--connect=localhost:1: expected IPV4:PORT (port 1 to 65535)",
		"--connect=localhost:1");
	BAD("--connect=127.0.0.1: expected IPV4:PORT", "--connect=127.0.0.1");
	BAD("--connect=127.0.0.1:0: expected IPV4:PORT",
		"--connect=127.0.0.1:0");
	BAD("--connect=127.0.0.1:65536: expected IPV4:PORT",
		"--connect=127.0.0.1:65536");
	BAD("--connect=127.0.0.1:x: expected IPV4:PORT",
		"--connect=127.0.0.1:x");
	BAD("--nexus=1.2.3:4: expected IPV4:PORT (port 1 to 65535, or 0 for "
		"any)", "--nexus=1.2.3:4");
	BAD("--server and --connect: one or the other", "--server",
		"--connect=127.0.0.1:1", "--devargs=port=0");
	BAD("--server needs --devargs", "--server");
	BAD("--connect needs --devargs", "--connect=127.0.0.1:1");
	BAD("--devargs and --nexus go with --server or --connect",
		"--devargs=port=0");
	BAD("--devargs and --nexus go with --server or --connect",
		"--nexus=127.0.0.1:0");
	BAD("--eth-args is for in-process runs", "--server",
		"--devargs=port=0", "--eth-args=mtu=1500");
	BAD("--devargs: empty", "--server", "--devargs=");
	BAD("--devargs: at most 16", "--server", "--devargs=0",
		"--devargs=1", "--devargs=2", "--devargs=3", "--devargs=4",
		"--devargs=5", "--devargs=6", "--devargs=7", "--devargs=8",
		"--devargs=9", "--devargs=10", "--devargs=11", "--devargs=12",
		"--devargs=13", "--devargs=14", "--devargs=15",
		"--devargs=16");
	BAD("--remote-workers goes with --connect", "--remote-workers=2");
	BAD("--duration goes with --server", "--duration=2");
	BAD("--server only serves", "--server", "--devargs=port=0", "-w",
		"rate");
	BAD("--server only serves", "--server", "--devargs=port=0", "-i");
	BAD("--server only serves", "--server", "--devargs=port=0",
		"--client-lcores=1");
	BAD("--verify goes with the client: a server checks every request",
		"--server", "--devargs=port=0", "--verify");
	BAD("--server-lcores: the server runs elsewhere",
		"--connect=127.0.0.1:1", "--devargs=port=0",
		"--server-lcores=1");
	BAD("ring is an in-process baseline: not with --connect",
		"--connect=127.0.0.1:1", "--devargs=port=0", "-w", "ring");
	BAD("--remote-worker goes with --connect", "--remote-worker=0");
	BAD("--remote-worker=a: expected worker ids from 0 to 1023",
		"--connect=127.0.0.1:1", "--devargs=port=0",
		"--remote-worker=a");
	BAD("--remote-worker=0,,1: expected worker ids",
		"--connect=127.0.0.1:1", "--devargs=port=0",
		"--remote-worker=0,,1");
	BAD("--remote-worker: worker 3 is not one of --remote-workers=2",
		"--connect=127.0.0.1:1", "--devargs=port=0",
		"--remote-workers=2", "--remote-worker=0,3");
	BAD("drv-latency is an in-process baseline",
		"--connect=127.0.0.1:1", "--devargs=port=0", "-w",
		"latency,drv-latency");
	BAD("-i prints tables: no --json or --histogram", "-i", "--json");
	BAD("memcpy is a baseline: run it without -i", "-i", "-w", "memcpy");
}

/*
 * --driver (issue 15): a driver the build has or a clear error; the eth
 * ring-pair baselines refused on another driver, which runs latency and
 * rate by default; --driver-args where --eth-args was.
 */
static void
test_args_driver(void **state)
{
	struct rpcperf_config cfg;
	char msg[MSG_MAX];

	(void)state;
	BAD("--driver=nosuch: no such driver; this build has: eth",
		"--driver=nosuch");
	BAD("option --driver needs a value", "--driver");
	assert_int_equal(parse(&cfg, msg, "--driver=eth",
		"--driver-args=tx_copy_max=0", NULL), 0);
	assert_string_equal(cfg.driver, "eth");
	assert_string_equal(cfg.driver_args, "tx_copy_max=0");
	assert_int_equal(cfg.nb_workloads, 3);
	BAD("--driver-args and --eth-args: one or the other",
		"--eth-args=rxd=64", "--driver-args=rxd=64");
	BAD("--driver-args is for in-process runs", "--server",
		"--devargs=port=0", "--driver-args=mtu=1500");
	if (pmr_transport_find("verbs") == NULL) {
		BAD("--driver=verbs: no such driver; this build has: eth "
			"(verbs is built only where meson finds libibverbs)",
			"--driver=verbs");
		return;
	}
	assert_int_equal(parse(&cfg, msg, "--driver=verbs",
		"--driver-args=dev=hca0", NULL), 0);
	assert_string_equal(msg, "");
	assert_string_equal(cfg.driver, "verbs");
	assert_string_equal(cfg.driver_args, "dev=hca0");
	/* No ring baseline: latency and rate. */
	assert_int_equal(cfg.nb_workloads, 2);
	assert_string_equal(cfg.workloads[0], "latency");
	assert_string_equal(cfg.workloads[1], "rate");
	assert_int_equal(parse(&cfg, msg, "--driver=verbs", "-w",
		"memcpy,latency,bandwidth,mixed,sessions", NULL), 0);
	assert_int_equal(cfg.nb_workloads, 5);
	BAD("ring is a baseline of the eth ring-pair setup: not with "
		"--driver=verbs", "--driver=verbs", "-w", "latency,ring");
	/* The driver ping-pong runs on any driver. */
	assert_int_equal(parse(&cfg, msg, "--driver=verbs", "-w",
		"drv-latency", NULL), 0);
	BAD("--eth-args is for --driver=eth: use --driver-args",
		"--driver=verbs", "--eth-args=dev=hca0");
	BAD("--server needs --devargs: the queue of each worker, e.g. "
		"--devargs=dev=rxe0", "--driver=verbs", "--server");
	assert_int_equal(parse(&cfg, msg, "--driver=verbs", "--server",
		"--devargs=dev=rxe0", "--devargs=dev=rxe0", NULL), 0);
	assert_int_equal(cfg.nb_devargs, 2);
}

static void
test_args_help_lists_every_option(void **state)
{
	struct rpcperf_config cfg;
	char msg[MSG_MAX], out[8192], opt[64];
	struct capture c;
	const char *name;
	unsigned int i;
	int ret;

	(void)state;
	capture_start(&c, stdout);
	ret = parse(&cfg, msg, "--help", NULL);
	capture_end(&c, out, sizeof(out));
	assert_int_equal(ret, 1);
	assert_string_equal(msg, "");
	for (i = 0; (name = rpcperf_option_name(i)) != NULL; i++) {
		snprintf(opt, sizeof(opt), "--%s", name);
		if (strstr(out, opt) == NULL)
			fail_msg("--help does not mention %s", opt);
	}
	assert_true(i >= 15);
	/* Every workload too. */
	assert_non_null(strstr(out, "\n  ring "));
	assert_non_null(strstr(out, "\n  drv-latency "));
	assert_non_null(strstr(out, "Exit status"));

	capture_start(&c, stdout);
	ret = parse(&cfg, msg, "-q", "-h", NULL);
	capture_end(&c, out, sizeof(out));
	assert_int_equal(ret, 1);
	assert_non_null(strstr(out, "Usage: rpcperf"));
}

/* hz of 1 MHz: a cycle is a microsecond. */
#define HZ_1US 1000000

static void
summarize(uint64_t *v, uint64_t n, uint64_t elapsed,
		struct rpcperf_result *r)
{
	struct rpcperf_samples s = {
		.cycles = v, .n = n, .cap = n, .count = n, .elapsed = elapsed,
	};

	memset(r, 0, sizeof(*r));
	r->size = 100;
	rpcperf_summarize(&s, HZ_1US, r);
}

static void
test_percentile_uniform(void **state)
{
	uint64_t v[100];
	struct rpcperf_result r;
	unsigned int i;

	(void)state;
	/* 1..100, shuffled: summarize sorts. */
	for (i = 0; i < 100; i++)
		v[i] = (i * 37) % 100 + 1;
	summarize(v, 100, 100 * HZ_1US, &r);
	for (i = 0; i < 100; i++)
		assert_int_equal(v[i], i + 1);
	assert_int_equal(r.iters, 100);
	assert_true(r.min == 1);
	assert_true(r.p50 == 50);
	assert_true(r.p90 == 90);
	assert_true(r.p99 == 99);
	assert_true(r.p999 == 100);
	assert_true(r.max == 100);
	assert_true(r.mean == 50.5);
	/* 100 round trips in 100 s: 1 per second. */
	assert_true(r.mrps > 0.999999e-6 && r.mrps < 1.000001e-6);
	/* 100 bytes a second. */
	assert_true(r.gbps > 799.999e-9 && r.gbps < 800.001e-9);

	/* Nearest rank, at and between the ranks. */
	assert_true(rpcperf_percentile(v, 100, 0) == 1);
	assert_true(rpcperf_percentile(v, 100, 0.5) == 1);
	assert_true(rpcperf_percentile(v, 100, 1) == 1);
	assert_true(rpcperf_percentile(v, 100, 1.01) == 2);
	assert_true(rpcperf_percentile(v, 100, 25) == 25);
	assert_true(rpcperf_percentile(v, 100, 100) == 100);
	assert_true(rpcperf_percentile(v, 100, 150) == 100);
	assert_true(rpcperf_percentile(v, 0, 50) == 0);
	assert_true(rpcperf_percentile(v, 100, -1) == 1);
	assert_true(rpcperf_percentile(v, 100, NAN) == 1);
}

/* Decimal percentiles land on their exact rank, not one over. */
static void
test_percentile_exact_ranks(void **state)
{
	static uint64_t v[1000000];
	struct rpcperf_result r;
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(v); i++)
		v[i] = i + 1;
	summarize(v, 1000, 1, &r);
	assert_true(r.p50 == 500);
	assert_true(r.p90 == 900);
	assert_true(r.p99 == 990);
	assert_true(r.p999 == 999);	/* not the max */
	assert_true(r.max == 1000);
	assert_true(rpcperf_percentile(v, 2000, 99.9) == 1998);
	assert_true(rpcperf_percentile(v, 10000, 99.95) == 9995);
	assert_true(rpcperf_percentile(v, 10000, 99.9 + 5 / 100.0) == 9995);
	assert_true(rpcperf_percentile(v, 1000000, 99.9) == 999000);
	assert_true(rpcperf_percentile(v, 1000000, 99.999) == 999990);
	assert_true(rpcperf_percentile(v, 1000000, 0.1 * 3) == 3000);
	/* Between ranks: the next one up. */
	assert_true(rpcperf_percentile(v, 1000, 99.95) == 1000);
	assert_true(rpcperf_percentile(v, 7, 50) == 4);
	assert_true(rpcperf_percentile(v, 3, 100.0 / 3) == 1);
}

static void
test_percentile_all_equal(void **state)
{
	uint64_t v[1000];
	struct rpcperf_result r;
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(v); i++)
		v[i] = 7;
	summarize(v, RTE_DIM(v), 0, &r);
	assert_int_equal(r.iters, 1000);
	assert_true(r.min == 7 && r.p50 == 7 && r.p90 == 7 && r.p99 == 7 &&
		r.p999 == 7 && r.max == 7 && r.mean == 7);
	/* No elapsed time measured: no rate rather than a division by 0. */
	assert_true(r.mrps == 0);
	assert_true(r.gbps == 0);
}

static void
test_percentile_two_point(void **state)
{
	uint64_t v[100];
	struct rpcperf_result r;
	unsigned int i;

	(void)state;
	/* Half 10, half 1000, interleaved. */
	for (i = 0; i < 100; i++)
		v[i] = i % 2 == 0 ? 1000 : 10;
	summarize(v, 100, HZ_1US, &r);
	assert_true(r.min == 10);
	assert_true(r.p50 == 10);	/* rank 50: the last of the 10s */
	assert_true(r.p90 == 1000);
	assert_true(r.p99 == 1000);
	assert_true(r.p999 == 1000);
	assert_true(r.max == 1000);
	assert_true(r.mean == 505);
	assert_true(rpcperf_percentile(v, 100, 50.01) == 1000);
}

static void
test_percentile_single_and_none(void **state)
{
	uint64_t v[1] = { 42 };
	struct rpcperf_result r;

	(void)state;
	summarize(v, 1, 2 * HZ_1US, &r);
	assert_int_equal(r.iters, 1);
	assert_true(r.min == 42 && r.p50 == 42 && r.p90 == 42 &&
		r.p99 == 42 && r.p999 == 42 && r.max == 42 && r.mean == 42);
	assert_true(r.mrps == 0.5e-6);

	/* No samples: iters 0, nothing else touched. */
	summarize(v, 0, HZ_1US, &r);
	assert_int_equal(r.iters, 0);
	assert_true(r.p50 == 0 && r.max == 0 && r.mrps == 0);

	/* Cycles to microseconds: 2 GHz, 3000 cycles is 1.5 us. */
	{
		uint64_t c[1] = { 3000 };
		struct rpcperf_samples s = {
			.cycles = c, .n = 1, .cap = 1, .count = 1,
		};

		memset(&r, 0, sizeof(r));
		rpcperf_summarize(&s, 2000000000, &r);
		assert_true(r.p50 == 1.5 && r.mean == 1.5);
	}
}

/* Write with f, an open_memstream, and return what it holds. */
static char *
memstream_text(FILE *f, char **buf)
{
	assert_int_equal(fclose(f), 0);
	return *buf;
}

static void
result_init(struct rpcperf_result *r, const char *wl, bool one, double p50,
		double p99)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->workload, sizeof(r->workload), "%s", wl);
	r->one_at_a_time = one;
	r->size = 32;
	r->iters = 10;
	r->p50 = p50;
	r->p99 = p99;
}

static void
test_json_writer(void **state)
{
	struct rpcperf_config cfg;
	struct rpcperf_result r[4], rows[2];
	char msg[MSG_MAX], *buf = NULL, *text;
	size_t len;
	FILE *f;

	(void)state;
	assert_int_equal(parse(&cfg, msg, "-w", "ring,latency,rate,memcpy",
		"--faults=a\"b\\c\x01", "--json", NULL), 0);
	cfg.server_lcores[0] = 1;
	cfg.nb_server_lcores = 1;
	cfg.client_lcores[0] = 0;
	cfg.client_lcores[1] = 2;
	cfg.nb_client_lcores = 2;
	result_init(&rows[0], "rate", false, 41, 81);
	rows[0].lcore = 0;
	result_init(&rows[1], "rate", false, 39, 79);
	rows[1].lcore = 2;
	result_init(&r[0], "ring", true, 1, 2);
	result_init(&r[1], "latency", true, 3, 8);
	result_init(&r[2], "rate", false, 40, 80);
	result_init(&r[3], "memcpy", false, 0.5, 1);
	r[3].mean = NAN;	/* null: JSON has no NaN */
	/* rate: two client lcores, their rows, verified. */
	r[2].lcores = rows;
	r[2].nb_lcores = 2;
	r[1].rpc = true;
	r[2].rpc = true;
	r[2].verified = true;
	r[2].done = 110;
	r[2].timeouts = 1;
	r[2].sessions_reset = 4;
	r[2].verify_errors = 3;
	r[2].nexus.peers_dead = 1;
	r[2].nexus.sessions_reset = 4;
	r[2].nexus.alive_by_data = 7;
	/* Every RPC workload's path, rate's too. */
	r[2].path.reads = 9;
	r[2].path.read_errors = 2;
	rows[0].rpc = rows[1].rpc = true;
	rows[0].verified = rows[1].verified = true;
	rows[0].done = rows[1].done = 55;
	rows[0].sessions_reset = rows[1].sessions_reset = 2;
	rows[0].verify_errors = 0;
	rows[1].verify_errors = 3;

	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(rpcperf_print_json(f, &cfg, r, 4), 0);
	text = memstream_text(f, &buf);
	assert_non_null(strstr(text, "\"version\": 2,"));
	assert_non_null(strstr(text, "\"tool\": \"rpcperf\","));
	assert_non_null(strstr(text, "\"workloads\": [\"ring\", \"latency\", "
		"\"rate\", \"memcpy\"]"));
	assert_non_null(strstr(text, "\"faults\": \"a\\\"b\\\\c\\u0001\""));
	assert_non_null(strstr(text, "\"histogram\": null"));
	assert_non_null(strstr(text, "\"json\": true"));
	assert_non_null(strstr(text, "\"server_lcores\": [1],"));
	assert_non_null(strstr(text, "\"client_lcores\": [0, 2],"));
	assert_non_null(strstr(text, "\"mode\": \"in-process\","));
	assert_non_null(strstr(text, "\"devargs\": [],"));
	assert_non_null(strstr(text, "\"verify\": false,"));
	/* Per-lcore rows under their total, none for the others. */
	assert_non_null(strstr(text, "\"retransmissions\": 0, \"drops\": 0, "
		"\"done\": 110, \"timeouts\": 1, \"sessions_reset\": 4, "
		"\"verify_errors\": 3, \"path\": {\"reads\": 9, "
		"\"read_bytes\": 0, \"read_errors\": 2, \"descs_sent\": 0, "
		"\"fallbacks\": 0, \"copied_bytes\": 0}, "
		"\"nexus\": {\"peers_dead\": 1, "
		"\"sessions_reset\": 4, \"alive_by_data\": 7}, "
		"\"lcores\": [\n"
		"      {\"lcore\": 0, \"bytes\": 32, \"iters\": 10, "
		"\"min_us\": 0, \"p50_us\": 41, "));
	assert_non_null(strstr(text, "{\"lcore\": 2, \"bytes\": 32, "
		"\"iters\": 10, \"min_us\": 0, \"p50_us\": 39, "));
	assert_non_null(strstr(text, "\"drops\": 0, \"done\": 55, "
		"\"timeouts\": 0, \"sessions_reset\": 2, "
		"\"verify_errors\": 3}\n"));
	/* Baselines: no RPC counters, null. */
	assert_non_null(strstr(text, "\"retransmissions\": 0, \"drops\": 0, "
		"\"done\": null, \"timeouts\": null, \"sessions_reset\": null, "
		"\"verify_errors\": null, \"nexus\": null, \"lcores\": []}"));
	/* An RPC workload run without --verify: its errors null. */
	assert_non_null(strstr(text, "{\"workload\": \"latency\", "));
	assert_non_null(strstr(text, "\"done\": 0, \"timeouts\": 0, "
		"\"sessions_reset\": 0, \"verify_errors\": null, "
		"\"path\": {\"reads\": 0, "));
	assert_non_null(strstr(text, "{\"workload\": \"ring\", \"bytes\": 32, "
		"\"iters\": 10, \"min_us\": 0, \"p50_us\": 1, "));
	assert_non_null(strstr(text, "\"mean_us\": null"));
	/* Ratios: the one-at-a-time workloads but ring, to ring. */
	assert_non_null(strstr(text, "{\"workload\": \"latency\", "
		"\"baseline\": \"ring\", \"p50\": 3, \"p99\": 4}"));
	assert_null(strstr(text, "\"baseline\": \"ring\", \"p50\": 40"));
	assert_null(strstr(text, "{\"workload\": \"ring\", \"baseline\""));
	free(buf);

	/* No ring run (or it failed): no ratios. */
	r[0].iters = 0;
	buf = NULL;
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(rpcperf_print_json(f, &cfg, r, 4), 0);
	text = memstream_text(f, &buf);
	assert_non_null(strstr(text, "\"ratios\": []\n}\n"));
	assert_null(rpcperf_baseline(r, 4));
	free(buf);
}

/* Lines of text, and the line starting with prefix (0 if none). */
static unsigned int
count_lines(const char *text, const char *prefix, const char **line)
{
	unsigned int n = 0;
	const char *p;

	*line = NULL;
	for (p = text; *p != '\0'; p = strchr(p, '\n') + 1) {
		n++;
		if (*line == NULL && strncmp(p, prefix, strlen(prefix)) == 0)
			*line = p;
		if (strchr(p, '\n') == NULL)
			break;
	}
	return n;
}

static void
test_cdf_writer(void **state)
{
	static uint64_t v[100000];
	char *buf = NULL, *text;
	const char *line;
	size_t len;
	unsigned int i;
	FILE *f;

	(void)state;
	for (i = 0; i < 100; i++)
		v[i] = i + 1;
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(rpcperf_cdf_write(f, "u", v, 100, HZ_1US), 0);
	assert_int_equal(rpcperf_cdf_write(f, "none", v, 0, HZ_1US), 0);
	text = memstream_text(f, &buf);
	assert_int_equal(count_lines(text, "u,0,", &line),
		RPCPERF_CDF_POINTS + 1);
	assert_true(strncmp(line, "u,0,1\n", 6) == 0);
	count_lines(text, "u,0.1,", &line);
	assert_true(line != NULL && strncmp(line, "u,0.1,1\n", 8) == 0);
	count_lines(text, "u,50,", &line);
	assert_true(line != NULL && strncmp(line, "u,50,50\n", 8) == 0);
	count_lines(text, "u,99.9,", &line);
	assert_true(line != NULL && strncmp(line, "u,99.9,100\n", 11) == 0);
	count_lines(text, "u,100,", &line);
	assert_true(line != NULL && strcmp(line, "u,100,100\n") == 0);
	free(buf);

	/* Tail points from 10^4 and 10^5 samples. */
	for (i = 0; i < RTE_DIM(v); i++)
		v[i] = i + 1;
	buf = NULL;
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(rpcperf_cdf_write(f, "t", v, 10000, HZ_1US), 0);
	text = memstream_text(f, &buf);
	assert_int_equal(count_lines(text, "t,99.95,", &line),
		RPCPERF_CDF_POINTS + 1 + 9);
	assert_true(line != NULL && strncmp(line, "t,99.95,9995\n", 13) == 0);
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(rpcperf_cdf_write(f, "t", v, RTE_DIM(v), HZ_1US), 0);
	text = memstream_text(f, &buf);
	assert_int_equal(count_lines(text, "t,99.999,", &line),
		RPCPERF_CDF_POINTS + 1 + 18);
	assert_true(line != NULL &&
		strncmp(line, "t,99.999,99999\n", 15) == 0);
	free(buf);
}

/* Two client lcores' rows: the total merges samples and sums rates. */
static void
test_merge_rows(void **state)
{
	struct rpcperf_samples rows[2];
	struct rpcperf_result total;
	char *buf = NULL, *text;
	const char *line;
	size_t len;
	uint64_t i;
	FILE *f;

	(void)state;
	/* Lcore a: 1..100 in 100 s; lcore b: 101..200 in 50 s. */
	assert_int_equal(rpcperf_samples_init(&rows[0], 100), 0);
	assert_int_equal(rpcperf_samples_init(&rows[1], 100), 0);
	for (i = 0; i < 100; i++) {
		rpcperf_sample_add(&rows[0], 100 - i);
		rpcperf_sample_add(&rows[1], 101 + i);
	}
	rows[0].elapsed = 100 * HZ_1US;
	rows[1].elapsed = 50 * HZ_1US;
	rows[0].retransmissions = 3;
	rows[1].retransmissions = 4;
	rows[0].sessions = 1;
	rows[1].sessions = 2;
	memset(&total, 0, sizeof(total));
	snprintf(total.workload, sizeof(total.workload), "rate");
	total.size = 100;
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(rpcperf_merge(rows, 2, HZ_1US, &total, f), 0);
	text = memstream_text(f, &buf);

	assert_int_equal(total.nb_lcores, 2);
	assert_int_equal(total.lcores[0].iters, 100);
	assert_true(total.lcores[0].p50 == 50 && total.lcores[0].max == 100);
	assert_true(total.lcores[1].p50 == 150 && total.lcores[1].min == 101);
	assert_true(total.lcores[0].mrps == 1e-6);
	assert_true(total.lcores[1].mrps == 2e-6);
	assert_string_equal(total.lcores[1].workload, "rate");
	assert_int_equal(total.lcore, -1);
	/* The total: 200 samples 1..200; rates summed, counts added. */
	assert_int_equal(total.iters, 200);
	assert_true(total.min == 1 && total.max == 200);
	assert_true(total.p50 == 100 && total.p99 == 198);
	assert_true(total.mrps == 3e-6);
	assert_int_equal(total.retransmissions, 7);
	assert_int_equal(total.sessions, 3);
	/* The CDF is the merged one. */
	count_lines(text, "rate,50,", &line);
	assert_true(line != NULL && strncmp(line, "rate,50,100\n", 12) == 0);
	free(buf);
	rpcperf_result_free(&total);
	assert_null(total.lcores);
	rpcperf_samples_free(&rows[0]);
	rpcperf_samples_free(&rows[1]);
}

/* Past cap, the latest samples are kept (interactive runs). */
static void
test_samples_wrap(void **state)
{
	struct rpcperf_samples s;
	struct rpcperf_result r;
	uint64_t i;

	(void)state;
	assert_int_equal(rpcperf_samples_init(&s, 4), 0);
	for (i = 1; i <= 10; i++)
		rpcperf_sample_add(&s, i);
	assert_int_equal(s.n, 4);
	assert_int_equal(s.count, 10);
	s.elapsed = 10 * HZ_1US;
	memset(&r, 0, sizeof(r));
	rpcperf_summarize(&s, HZ_1US, &r);
	/* 7..10 kept; the rate counts all ten. */
	assert_true(r.min == 7 && r.max == 10);
	assert_int_equal(r.iters, 10);
	assert_true(r.mrps == 1e-6);
	rpcperf_samples_reset(&s);
	assert_int_equal(s.n, 0);
	assert_int_equal(s.count, 0);
	rpcperf_sample_add(&s, 5);
	assert_int_equal(s.cycles[0], 5);
	rpcperf_samples_free(&s);
}

static void
test_lcores_parse(void **state)
{
	unsigned int ids[RPCPERF_MAX_LCORES], n;

	(void)state;
	assert_int_equal(rpcperf_lcores_parse("x", "7", ids, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(ids[0], 7);
	assert_int_equal(rpcperf_lcores_parse("x", "3,0-2,9", ids, &n), 0);
	assert_int_equal(n, 5);
	assert_int_equal(ids[0], 3);
	assert_int_equal(ids[1], 0);
	assert_int_equal(ids[3], 2);
	assert_int_equal(ids[4], 9);
	assert_int_equal(rpcperf_lcores_parse("x", "0-15", ids, &n), 0);
	assert_int_equal(n, RPCPERF_MAX_LCORES);
}

static void
test_rate_path(void **state)
{
	char buf[32], big[64];

	(void)state;
	assert_int_equal(rpcperf_rate_path("h.csv", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "h.rate.csv");
	assert_int_equal(rpcperf_rate_path("out/h", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "out/h.rate.csv");
	assert_int_equal(rpcperf_rate_path(".csv", buf, sizeof(buf)), 0);
	assert_string_equal(buf, ".csv.rate.csv");
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(rpcperf_rate_path(big, buf, sizeof(buf)),
		-ENAMETOOLONG);
}

/* The first offset where the pattern check fails, UINT32_MAX: none. */
static uint32_t
check_at(const uint8_t *p, uint32_t len, uint64_t seed)
{
	uint32_t at = UINT32_MAX;

	if (rpcperf_pattern_check(p, len, seed, &at))
		return UINT32_MAX;
	assert_true(at < len);
	return at;
}

static uint32_t
check_self_at(const uint8_t *p, uint32_t len, uint64_t want_seed)
{
	uint32_t at = UINT32_MAX;
	uint64_t seed;

	if (rpcperf_pattern_check_self(p, len, &seed, &at)) {
		if (len >= 8)
			assert_true(seed == want_seed);
		return UINT32_MAX;
	}
	assert_true(at < len);
	return at;
}

/*
 * --verify's pattern: whole at every length; every single changed byte
 * found where it is, by the client's check (its seed) and by a server's
 * (the seed in the message) past the seed itself; other requests' bytes
 * and moved blocks found too.
 */
static void
test_verify_pattern(void **state)
{
	static const uint32_t lens[] = { 0, 1, 7, 8, 9, 15, 16, 17, 100,
		1000, 4096, 65536 + 3 };
	static uint8_t buf[65536 + 16], other[65536 + 16];
	uint64_t seed = rpcperf_verify_seed(3, 12345);
	unsigned int i;
	uint32_t len, off, step;

	(void)state;
	assert_true(seed == ((UINT64_C(3) << 48) | 12345));
	/* The sequence number wraps at 48 bits, the lcore stays. */
	assert_true(rpcperf_verify_seed(1, (UINT64_C(1) << 48) + 2) ==
		((UINT64_C(1) << 48) | 2));
	for (i = 0; i < RTE_DIM(lens); i++) {
		len = lens[i];
		memset(buf, 0xee, sizeof(buf));
		rpcperf_pattern_fill(buf, len, seed);
		/* Not a byte past len. */
		assert_int_equal(buf[len], 0xee);
		assert_int_equal(check_at(buf, len, seed), UINT32_MAX);
		assert_int_equal(check_self_at(buf, len, seed), UINT32_MAX);
		for (off = 0; off < len; off++)
			if (buf[off] != rpcperf_pattern_byte(seed, off))
				fail_msg("len %u: byte %u is not "
					"rpcperf_pattern_byte()'s", len, off);
		/* Each byte changed alone (every one up to 100 bytes). */
		step = len <= 100 ? 1 : len / 97;
		for (off = 0; off < len; off += step) {
			buf[off] ^= 0x01;
			assert_int_equal(check_at(buf, len, seed), off);
			/* A server has the seed from the message: a changed
			 * seed shows in the next word, when there is one. */
			if (off >= 8)
				assert_int_equal(check_self_at(buf, len, seed),
					off);
			else if (len >= 16)
				assert_int_equal(check_self_at(buf, len, seed),
					8);
			buf[off] ^= 0x01;
		}
		/* The last byte, the tail's. */
		if (len != 0) {
			buf[len - 1] ^= 0x80;
			assert_int_equal(check_at(buf, len, seed), len - 1);
			buf[len - 1] ^= 0x80;
		}
	}
	/* Another request's bytes (the next one, of this lcore or the
	 * same number of another): wrong from the first byte. */
	len = 4096;
	rpcperf_pattern_fill(buf, len, seed);
	rpcperf_pattern_fill(other, len, rpcperf_verify_seed(3, 12346));
	assert_int_equal(check_at(other, len, seed), 0);
	rpcperf_pattern_fill(other, len, rpcperf_verify_seed(4, 12345));
	assert_int_equal(check_at(other, len, seed), 6);
	/* ...but for its seed, its own words: a server cannot tell. */
	assert_int_equal(check_self_at(other, len,
		rpcperf_verify_seed(4, 12345)), UINT32_MAX);
	/* A block of another request's in the middle. */
	memcpy(buf + 1024, other + 1024, 512);
	assert_int_equal(check_at(buf, len, seed), 1024);
	assert_int_equal(check_self_at(buf, len, seed), 1024);
	/* A block moved within the message: words repeat nowhere. */
	rpcperf_pattern_fill(buf, len, seed);
	memmove(buf + 2048, buf + 2040, 64);
	assert_int_equal(check_at(buf, len, seed), 2048);
	/* Zeros where the payload should be (a lost copy). */
	rpcperf_pattern_fill(buf, len, seed);
	memset(buf + 3000, 0, 100);
	assert_true(check_at(buf, len, seed) <= 3000 + 7);
}

/* The table's verify column: the count, "-" for a baseline. */
static void
test_verify_table(void **state)
{
	struct rpcperf_result r[2];
	char out[4096];
	struct capture c;

	(void)state;
	result_init(&r[0], "memcpy", false, 1, 2);
	result_init(&r[1], "rate", false, 40, 80);
	r[1].rpc = true;
	r[1].verified = true;
	r[1].verify_errors = 7;
	capture_start(&c, stdout);
	rpcperf_print_header(true);
	rpcperf_print_result(&r[0], true);
	rpcperf_print_result(&r[1], true);
	rpcperf_print_header(false);
	rpcperf_print_result(&r[1], false);
	capture_end(&c, out, sizeof(out));
	assert_non_null(strstr(out, "retrans   drops  verify_err\n"));
	assert_non_null(strstr(out, "0       0            -\nrate "));
	assert_non_null(strstr(out, "0       0            7\n"));
	/* Without --verify, the table as it always was. */
	assert_non_null(strstr(out, "retrans   drops\nrate "));
	assert_non_null(strstr(out, "0       0\n"));
}

/*
 * The path lines after the table: bandwidth's and mixed's always, other
 * RPC workloads' when they went by READ, a failed one's too.
 */
static void
test_print_paths(void **state)
{
	struct rpcperf_result r[4];
	char out[4096];
	struct capture c;

	(void)state;
	result_init(&r[0], "bandwidth", false, 1, 2);
	r[0].rpc = r[0].has_path = true;
	result_init(&r[1], "latency", false, 1, 2);
	r[1].rpc = true;
	result_init(&r[2], "rate", false, 1, 2);
	r[2].rpc = true;
	r[2].iters = 0;		/* failed, with a READ error */
	r[2].path.reads = 3;
	r[2].path.read_errors = 1;
	result_init(&r[3], "memcpy", false, 1, 2);
	capture_start(&c, stdout);
	rpcperf_print_paths(r, 4);
	capture_end(&c, out, sizeof(out));
	assert_string_equal(out, "bandwidth path: reads 0, read_bytes 0, "
		"read_errors 0, descs_sent 0, fallbacks 0, copied_bytes 0\n"
		"rate path: reads 3, read_bytes 0, read_errors 1, "
		"descs_sent 0, fallbacks 0, copied_bytes 0\n");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_args_defaults),
		cmocka_unit_test(test_args_every_option),
		cmocka_unit_test(test_args_bad_numbers),
		cmocka_unit_test(test_args_bad_other),
		cmocka_unit_test(test_args_bad_placement),
		cmocka_unit_test(test_args_driver),
		cmocka_unit_test(test_args_help_lists_every_option),
		cmocka_unit_test(test_percentile_uniform),
		cmocka_unit_test(test_percentile_all_equal),
		cmocka_unit_test(test_percentile_exact_ranks),
		cmocka_unit_test(test_percentile_two_point),
		cmocka_unit_test(test_percentile_single_and_none),
		cmocka_unit_test(test_json_writer),
		cmocka_unit_test(test_cdf_writer),
		cmocka_unit_test(test_rate_path),
		cmocka_unit_test(test_merge_rows),
		cmocka_unit_test(test_samples_wrap),
		cmocka_unit_test(test_lcores_parse),
		cmocka_unit_test(test_verify_pattern),
		cmocka_unit_test(test_verify_table),
		cmocka_unit_test(test_print_paths),
	};

	return cmocka_run_group_tests_name("rpcperf", tests, NULL, NULL);
}
