/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/* rpcperf's own arguments: those after EAL's "--". */

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_lcore.h>

#include "pmr_transport.h"
#include "rpcperf.h"

static const struct rpcperf_workload *const workloads[] = {
	&rpcperf_wl_ring,
	&rpcperf_wl_latency,
	&rpcperf_wl_rate,
	&rpcperf_wl_memcpy,
	&rpcperf_wl_bandwidth,
	&rpcperf_wl_mixed,
	&rpcperf_wl_sessions,
	&rpcperf_wl_drv_latency,
};

/*
 * The ring baseline is in-process eth only: --connect and other drivers
 * run the other two.
 */
static const char default_workloads[] = "ring,latency,rate";
static const char default_workloads_client[] = "latency,rate";
/* The -w list, cut into the names cfg->workloads[] points to. */
static char workload_list[256];

const struct rpcperf_workload *
rpcperf_workload_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(workloads); i++)
		if (strcmp(workloads[i]->name, name) == 0)
			return workloads[i];
	return NULL;
}

void
rpcperf_usage(const char *prog)
{
	unsigned int i;

	printf("Usage: %s [EAL options] -- [options]\n"
		"\n"
		"Round-trip benchmark of pmrpc. Runs each workload in turn and\n"
		"prints latency percentiles in microseconds, the round-trip rate\n"
		"and bandwidth, a row per client lcore and their total.\n"
		"\n"
		"EAL options (before \"--\"): -l 0-1 for the lcores, --no-pci, and\n"
		"--in-memory with hugepages or --no-huge -m 512 without; DPDK's\n"
		"EAL guide has the rest.\n"
		"\n"
		"Placement: in-process by default, the server on the server lcores\n"
		"and the client on the client lcores (eth: over ring-pair ports;\n"
		"verbs: a queue each on one device); or one side per process or\n"
		"host, on the queues given by --devargs:\n"
		"  --server  [--nexus=IP:PORT] --devargs=D [--devargs=D]...\n"
		"  --connect=IP:PORT [--nexus=IP:0] --devargs=D [--devargs=D]...\n"
		"\n"
		"Options:\n"
		"  -w, --workload=LIST    workloads to run, comma separated\n"
		"                         (default: ring,latency,rate;\n"
		"                         --connect: latency,rate; -i: rate)\n"
		"  -s, --size=BYTES       payload bytes (default: 32, at most 64 MiB)\n"
		"  -n, --iters=N          measured round trips per client lcore\n"
		"                         (default: 1000000; -i: samples kept)\n"
		"      --warmup=N         unmeasured round trips first (default: 10000)\n"
		"  -c, --concurrency=N    rate: RPCs kept outstanding per client\n"
		"                         lcore (default: 32)\n"
		"      --sessions=N       sessions per client lcore the RPCs use\n"
		"                         (default: 4, max %d)\n"
		"      --credits=N        session credits: packets in flight per\n"
		"                         session (default: 8)\n"
		"      --rto-us=US        retransmission timeout (default: 5000)\n"
		"      --req-timeout-ms=MS a request not answered in MS fails\n"
		"                         (default: the engine's, 2000)\n"
		"      --timeout-per-mib-ms=MS|off added to a large message's\n"
		"                         deadlines per MiB (default: the\n"
		"                         engine's, 500; off: none)\n"
		"      --peer-timeout-ms=MS a remote nexus silent this long is\n"
		"                         dead, its sessions reset (default:\n"
		"                         the engine's, 500)\n"
		"      --rdv-threshold=N|off messages over N bytes (and one\n"
		"                         packet) go by RDMA READ where the\n"
		"                         queue can; 1: every multi-packet one,\n"
		"                         off: none (default: the engine's,\n"
		"                         16 KiB) (doc/rendezvous.md)\n"
		"      --faults=SPEC      inject faults on every worker, e.g.\n"
		"                         drop_tx=0.005,drop_rx=0.005 (doc/faults.md)\n"
		"      --driver=NAME      the workers' transport driver: eth\n"
		"                         (default) or verbs, if built\n"
		"      --driver-args=KVARGS in-process: devargs every worker's\n"
		"                         queue gets: eth, extra ones for the ring\n"
		"                         pairs (tx_copy_max=0); verbs, the device\n"
		"                         (dev=rxe0,sig_every=32; default: the\n"
		"                         first device) (doc/drivers.md)\n"
		"      --eth-args=KVARGS  --driver-args, for eth only\n"
		"      --server-lcores=L  lcores polling the server workers (list:\n"
		"                         1,3-4; default: in-process the first lcore\n"
		"                         after the main one, --server every lcore,\n"
		"                         as many as there are --devargs)\n"
		"      --client-lcores=L  lcores running the clients, one worker\n"
		"                         each (default: the main lcore; -i the\n"
		"                         first lcore free after the server's)\n"
		"      --server           serve only: echo and sink handlers on a\n"
		"                         worker per --devargs, until SIGINT or\n"
		"                         SIGTERM (or --duration); a line of counts\n"
		"                         each second, a table per worker at exit\n"
		"      --connect=IP:PORT  be the client of a --server at that nexus\n"
		"                         address; one --devargs per client lcore\n"
		"      --nexus=IP:PORT    this process's nexus (session management,\n"
		"                         UDP; default --server 127.0.0.1:%d,\n"
		"                         --connect 127.0.0.1:0)\n"
		"      --devargs=KVARGS   devargs of one worker's queue, e.g.\n"
		"                         port=0,ip=10.0.0.1 (eth), dev=rxe0\n"
		"                         (verbs) (doc/drivers.md); repeat for\n"
		"                         more workers (max %d)\n"
		"      --remote-workers=N --connect: client lcore k talks to the\n"
		"                         server's worker k %% N (default: 1)\n"
		"      --remote-worker=L  --connect: the server's worker each\n"
		"                         client lcore's sessions go to, in\n"
		"                         --client-lcores order: one id for all,\n"
		"                         or one per client lcore (e.g. 1,0)\n"
		"      --duration=SECS    --server: stop after SECS (default: 0,\n"
		"                         until a signal)\n"
		"  -i, --interactive      a prompt, like testpmd's: start, stop,\n"
		"                         show stats, clear stats, set size N,\n"
		"                         set concurrency N, set workload NAME,\n"
		"                         help, quit (doc/rpcperf.md)\n"
		"      --json             print the results as one JSON document\n"
		"                         instead of the table (doc/rpcperf.md)\n"
		"      --histogram=FILE   write each workload's latency CDF to FILE\n"
		"                         (CSV: workload,percentile,latency_us),\n"
		"                         and its rate every 100 ms to FILE.rate.csv\n"
		"                         (FILE's .csv suffix dropped first)\n"
		"      --verify           fill each request with a pattern of its\n"
		"                         client lcore and number, check every\n"
		"                         byte of each echo (and the server each\n"
		"                         request); a mismatch is counted and\n"
		"                         fails the run (exit 1). Costs a compare\n"
		"                         per byte: figures not comparable\n"
		"  -q, --quiet            no banner and no progress lines on stderr,\n"
		"                         only errors and warnings\n"
		"  -h, --help             this text\n"
		"\n"
		"Exit status: 0 when every workload ran, 1 when one failed, 2 on a\n"
		"bad option or setup.\n"
		"\n"
		"Workloads:\n", prog, RPCPERF_MAX_SESSIONS, RPCPERF_NEXUS_PORT,
		RPCPERF_MAX_LCORES);
	for (i = 0; i < RTE_DIM(workloads); i++)
		printf("  %-14s %s\n", workloads[i]->name, workloads[i]->help);
	printf("\nExamples:\n"
		"  %s -l 0-1 --no-pci --no-huge -m 512 -- -s 64\n"
		"  %s -l 0-3 --no-pci --in-memory -- -w rate "
		"--server-lcores=1 --client-lcores=0,2-3\n", prog, prog);
}

static int
parse_u64(const char *opt, const char *value, uint64_t min, uint64_t max,
		uint64_t *out)
{
	const char *digits = value;
	unsigned long long v;
	bool hex = false;
	char *end;

	/* Decimal, or hex after 0x; "010" is ten. No sign, no blanks. */
	if (value[0] == '0' && (value[1] == 'x' || value[1] == 'X')) {
		digits = value + 2;
		hex = true;
	}
	errno = 0;
	v = strtoull(digits, &end, hex ? 16 : 10);
	if (!(hex ? isxdigit((unsigned char)digits[0]) :
			isdigit((unsigned char)digits[0])) ||
	    *end != '\0' || errno != 0 || v < min || v > max) {
		fprintf(stderr, "rpcperf: --%s=%s: expected a number from %"
			PRIu64 " to %" PRIu64 "\n", opt, value, min, max);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

/* "off" (off, then) or a number from 1 to max, into *out. */
static int
parse_u32_or_off(const char *opt, const char *value, uint32_t max,
		uint32_t off, uint32_t *out)
{
	uint64_t v;
	int ret;

	if (strcmp(value, "off") == 0) {
		*out = off;
		return 0;
	}
	ret = parse_u64(opt, value, 1, max, &v);
	if (ret == 0)
		*out = (uint32_t)v;
	return ret;
}

static int
parse_workloads(const char *list, struct rpcperf_config *cfg)
{
	char *save = NULL, *tok;

	if (strlen(list) >= sizeof(workload_list)) {
		fprintf(stderr, "rpcperf: --workload: list too long\n");
		return -EINVAL;
	}
	strcpy(workload_list, list);
	cfg->nb_workloads = 0;
	for (tok = strtok_r(workload_list, ",", &save); tok != NULL;
	     tok = strtok_r(NULL, ",", &save)) {
		if (rpcperf_workload_find(tok) == NULL) {
			fprintf(stderr, "rpcperf: unknown workload '%s' "
				"(see --help)\n", tok);
			return -EINVAL;
		}
		if (cfg->nb_workloads == RPCPERF_MAX_WORKLOADS) {
			fprintf(stderr, "rpcperf: too many workloads\n");
			return -EINVAL;
		}
		cfg->workloads[cfg->nb_workloads++] = tok;
	}
	if (cfg->nb_workloads == 0) {
		fprintf(stderr, "rpcperf: --workload: empty list\n");
		return -EINVAL;
	}
	return 0;
}

enum {
	OPT_WARMUP = 256, OPT_ETH_ARGS, OPT_SERVER_LCORES, OPT_SESSIONS,
	OPT_FAULTS, OPT_CREDITS, OPT_RTO, OPT_JSON, OPT_HISTOGRAM,
	OPT_SERVER, OPT_CONNECT, OPT_NEXUS, OPT_DEVARGS, OPT_REMOTE_WORKERS,
	OPT_REMOTE_WORKER,
	OPT_CLIENT_LCORES, OPT_DURATION, OPT_DRIVER, OPT_DRIVER_ARGS,
	OPT_RDV_THRESHOLD, OPT_VERIFY, OPT_REQ_TIMEOUT, OPT_PER_MIB,
	OPT_PEER_TIMEOUT,
};

static const struct option longopts[] = {
	{ "workload", required_argument, NULL, 'w' },
	{ "size", required_argument, NULL, 's' },
	{ "iters", required_argument, NULL, 'n' },
	{ "warmup", required_argument, NULL, OPT_WARMUP },
	{ "concurrency", required_argument, NULL, 'c' },
	{ "sessions", required_argument, NULL, OPT_SESSIONS },
	{ "faults", required_argument, NULL, OPT_FAULTS },
	{ "credits", required_argument, NULL, OPT_CREDITS },
	{ "rto-us", required_argument, NULL, OPT_RTO },
	{ "req-timeout-ms", required_argument, NULL, OPT_REQ_TIMEOUT },
	{ "timeout-per-mib-ms", required_argument, NULL, OPT_PER_MIB },
	{ "peer-timeout-ms", required_argument, NULL, OPT_PEER_TIMEOUT },
	{ "rdv-threshold", required_argument, NULL, OPT_RDV_THRESHOLD },
	{ "driver", required_argument, NULL, OPT_DRIVER },
	{ "driver-args", required_argument, NULL, OPT_DRIVER_ARGS },
	{ "eth-args", required_argument, NULL, OPT_ETH_ARGS },
	{ "server", no_argument, NULL, OPT_SERVER },
	{ "connect", required_argument, NULL, OPT_CONNECT },
	{ "nexus", required_argument, NULL, OPT_NEXUS },
	{ "devargs", required_argument, NULL, OPT_DEVARGS },
	{ "remote-workers", required_argument, NULL, OPT_REMOTE_WORKERS },
	{ "remote-worker", required_argument, NULL, OPT_REMOTE_WORKER },
	{ "server-lcores", required_argument, NULL, OPT_SERVER_LCORES },
	{ "client-lcores", required_argument, NULL, OPT_CLIENT_LCORES },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "interactive", no_argument, NULL, 'i' },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "histogram", required_argument, NULL, OPT_HISTOGRAM },
	{ "verify", no_argument, NULL, OPT_VERIFY },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

const char *
rpcperf_option_name(unsigned int i)
{
	return i < RTE_DIM(longopts) ? longopts[i].name : NULL;
}

/*
 * Say what was wrong with arg, which getopt_long() refused: a value given
 * to an option that takes none ("--quiet=1"), or an unknown option.
 */
static void
bad_option(const char *arg)
{
	const char *eq = strchr(arg, '=');
	size_t len = eq != NULL ? (size_t)(eq - arg) - 2 : 0;
	unsigned int i;

	for (i = 0; eq != NULL && strncmp(arg, "--", 2) == 0 &&
			longopts[i].name != NULL; i++)
		if (longopts[i].has_arg == no_argument &&
		    strlen(longopts[i].name) == len &&
		    strncmp(longopts[i].name, arg + 2, len) == 0) {
			fprintf(stderr, "rpcperf: option --%s takes no value\n",
				longopts[i].name);
			return;
		}
	/* A short option, perhaps in a cluster ("-qx"): the letter. */
	if (optopt > 0 && optopt < OPT_WARMUP)
		fprintf(stderr, "rpcperf: unknown option -%c (see --help)\n",
			optopt);
	else
		fprintf(stderr, "rpcperf: unknown option %s (see --help)\n",
			arg);
}

/*
 * HOST:PORT with a dotted IPv4 host; PORT 0 (any) only where this process
 * listens (--nexus).
 */
/* --remote-worker=ID[,ID]...: server worker ids, 0 to 1023 each. */
static int
parse_remote_worker(const char *list, struct rpcperf_config *cfg)
{
	const char *p = list;
	unsigned long v;
	char *end;

	cfg->nb_remote_worker = 0;
	for (;;) {
		errno = 0;
		if (*p < '0' || *p > '9' ||
		    (v = strtoul(p, &end, 10), errno != 0) || v > 1023 ||
		    (*end != ',' && *end != '\0') ||
		    cfg->nb_remote_worker == RPCPERF_MAX_LCORES) {
			fprintf(stderr, "rpcperf: --remote-worker=%s: expected "
				"worker ids from 0 to 1023, comma separated, "
				"at most %d\n", list, RPCPERF_MAX_LCORES);
			return -EINVAL;
		}
		cfg->remote_worker[cfg->nb_remote_worker++] = (unsigned int)v;
		if (*end == '\0')
			return 0;
		p = end + 1;
	}
}

static int
parse_uri(const char *opt, const char *value, bool any_port)
{
	const char *colon = strrchr(value, ':');
	char host[INET_ADDRSTRLEN];
	struct in_addr in;
	uint64_t port;
	char *end;

	if (colon == NULL || (size_t)(colon - value) >= sizeof(host))
		goto bad;
	memcpy(host, value, (size_t)(colon - value));
	host[colon - value] = '\0';
	if (inet_pton(AF_INET, host, &in) != 1 ||
	    !isdigit((unsigned char)colon[1]))
		goto bad;
	errno = 0;
	port = strtoull(colon + 1, &end, 10);
	if (*end != '\0' || errno != 0 || port > 65535 ||
	    (port == 0 && !any_port))
		goto bad;
	return 0;
bad:
	fprintf(stderr, "rpcperf: --%s=%s: expected IPV4:PORT (port 1 to "
		"65535%s)\n", opt, value, any_port ? ", or 0 for any" : "");
	return -EINVAL;
}

/*
 * --driver=NAME: one of the drivers the library was built with, named in
 * the error when it is not.
 */
static int
check_driver(const char *name)
{
	unsigned int i, n = pmr_transport_count();

	if (pmr_transport_find(name) != NULL)
		return 0;
	fprintf(stderr, "rpcperf: --driver=%s: no such driver; this build "
		"has:", name);
	for (i = 0; i < n; i++)
		fprintf(stderr, "%s %s", i != 0 ? "," : "",
			pmr_transport_name(pmr_transport_get(i)));
	fprintf(stderr, "%s\n", strcmp(name, "verbs") == 0 ? " (verbs is "
		"built only where meson finds libibverbs)" : "");
	return -EINVAL;
}

/* Options that only go with some placements, and what each needs. */
static int
check_placement(struct rpcperf_config *cfg, bool workloads_given,
		bool driver_args_given, bool eth_args_given)
{
	bool eth = strcmp(cfg->driver, "eth") == 0;
	unsigned int i;

	if (eth_args_given && !eth) {
		fprintf(stderr, "rpcperf: --eth-args is for --driver=eth: "
			"use --driver-args\n");
		return -EINVAL;
	}

	if (cfg->mode == RPCPERF_SERVER && cfg->connect != NULL) {
		fprintf(stderr, "rpcperf: --server and --connect: one or the "
			"other\n");
		return -EINVAL;
	}
	if (cfg->connect != NULL)
		cfg->mode = RPCPERF_CLIENT;
	if (cfg->mode == RPCPERF_INPROC) {
		if (cfg->nb_devargs != 0 || cfg->nexus != NULL) {
			fprintf(stderr, "rpcperf: --devargs and --nexus go with "
				"--server or --connect; in-process workers "
				"take --driver-args\n");
			return -EINVAL;
		}
	} else {
		if (cfg->nb_devargs == 0) {
			fprintf(stderr, "rpcperf: --%s needs --devargs: the "
				"%s of each worker, e.g. --devargs=%s\n",
				cfg->mode == RPCPERF_SERVER ? "server" :
				"connect", eth ? "eth port" : "queue",
				eth ? "port=0,ip=10.0.0.1" : "dev=rxe0");
			return -EINVAL;
		}
		if (driver_args_given) {
			fprintf(stderr, "rpcperf: --%s is for in-process "
				"runs: put driver options in --devargs\n",
				eth_args_given ? "eth-args" : "driver-args");
			return -EINVAL;
		}
	}
	if (cfg->remote_workers != 0 && cfg->mode != RPCPERF_CLIENT) {
		fprintf(stderr, "rpcperf: --remote-workers goes with "
			"--connect\n");
		return -EINVAL;
	}
	if (cfg->nb_remote_worker != 0 && cfg->mode != RPCPERF_CLIENT) {
		fprintf(stderr, "rpcperf: --remote-worker goes with "
			"--connect\n");
		return -EINVAL;
	}
	for (i = 0; i < cfg->nb_remote_worker; i++)
		if (cfg->remote_workers != 0 &&
		    cfg->remote_worker[i] >= cfg->remote_workers) {
			fprintf(stderr, "rpcperf: --remote-worker: worker %u "
				"is not one of --remote-workers=%u\n",
				cfg->remote_worker[i], cfg->remote_workers);
			return -EINVAL;
		}
	if (cfg->remote_workers == 0)
		cfg->remote_workers = 1;
	if (cfg->duration != 0 && cfg->mode != RPCPERF_SERVER) {
		fprintf(stderr, "rpcperf: --duration goes with --server\n");
		return -EINVAL;
	}
	if (cfg->mode == RPCPERF_SERVER) {
		if (workloads_given || cfg->interactive || cfg->json ||
		    cfg->histogram != NULL || cfg->nb_client_lcores != 0) {
			fprintf(stderr, "rpcperf: --server only serves: "
				"-w, -i, --json, --histogram and "
				"--client-lcores go with the client\n");
			return -EINVAL;
		}
		if (cfg->verify) {
			fprintf(stderr, "rpcperf: --verify goes with the "
				"client: a server checks every request a "
				"--verify client sends\n");
			return -EINVAL;
		}
		return 0;
	}
	if (cfg->mode == RPCPERF_CLIENT && cfg->nb_server_lcores != 0) {
		fprintf(stderr, "rpcperf: --server-lcores: the server runs "
			"elsewhere with --connect\n");
		return -EINVAL;
	}
	if ((cfg->mode == RPCPERF_CLIENT || !eth) && !cfg->interactive &&
	    !workloads_given &&
	    parse_workloads(default_workloads_client, cfg) != 0)
		return -EINVAL;
	/* Interactive: "set workload" picks the rest. */
	if (cfg->interactive && !workloads_given &&
	    parse_workloads("rate", cfg) != 0)
		return -EINVAL;
	if (cfg->interactive && (cfg->json || cfg->histogram != NULL)) {
		fprintf(stderr, "rpcperf: -i prints tables: no --json or "
			"--histogram\n");
		return -EINVAL;
	}
	for (i = 0; i < cfg->nb_workloads; i++) {
		const struct rpcperf_workload *wl =
			rpcperf_workload_find(cfg->workloads[i]);

		if (cfg->mode == RPCPERF_CLIENT && wl->run != NULL &&
		    wl != &rpcperf_wl_memcpy) {
			fprintf(stderr, "rpcperf: %s is an in-process "
				"baseline: not with --connect\n", wl->name);
			return -EINVAL;
		}
		if (wl->eth_only && !eth) {
			fprintf(stderr, "rpcperf: %s is a baseline of the eth "
				"ring-pair setup: not with --driver=%s (run "
				"latency, rate...; on rxe, "
				"devtools/bench-rxe.sh gives perftest's "
				"baseline)\n", wl->name,
				cfg->driver);
			return -EINVAL;
		}
		if (cfg->interactive && wl->run != NULL) {
			fprintf(stderr, "rpcperf: %s is a baseline: run it "
				"without -i\n", wl->name);
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * Parse rpcperf's options into cfg.
 * Returns 0 to run, 1 when --help was printed, -EINVAL on a bad option.
 */
int
rpcperf_parse_args(int argc, char **argv, struct rpcperf_config *cfg)
{
	bool workloads_given = false, eth_args_given = false;
	bool driver_args_given = false;
	uint64_t v = 0;
	int opt, ret;

	memset(cfg, 0, sizeof(*cfg));
	cfg->size = 32;
	cfg->iters = 1000000;
	cfg->warmup = 10000;
	cfg->driver = "eth";
	cfg->driver_args = "";
	cfg->concurrency = 32;
	cfg->sessions = 4;
	ret = parse_workloads(default_workloads, cfg);
	if (ret != 0)
		return ret;

	optind = 0;	/* 0: glibc and musl start afresh, for the tests */
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":w:s:n:c:iqh", longopts,
			NULL)) != -1) {
		ret = 0;
		switch (opt) {
		case 'w':
			ret = parse_workloads(optarg, cfg);
			workloads_given = true;
			break;
		case 's':
			ret = parse_u64("size", optarg, 0, 64u << 20, &v);
			cfg->size = (uint32_t)v;
			break;
		case 'n':
			ret = parse_u64("iters", optarg, 1, UINT32_MAX, &v);
			cfg->iters = v;
			break;
		case OPT_WARMUP:
			ret = parse_u64("warmup", optarg, 0, UINT32_MAX, &v);
			cfg->warmup = v;
			break;
		case 'c':
			ret = parse_u64("concurrency", optarg, 1, 4096, &v);
			cfg->concurrency = (uint32_t)v;
			break;
		case OPT_SESSIONS:
			ret = parse_u64("sessions", optarg, 1,
					RPCPERF_MAX_SESSIONS, &v);
			cfg->sessions = (uint32_t)v;
			break;
		case OPT_CREDITS:
			ret = parse_u64("credits", optarg, 1, 1024, &v);
			cfg->credits = (uint16_t)v;
			break;
		case OPT_RTO:
			ret = parse_u64("rto-us", optarg, 1, 10000000, &v);
			cfg->rto_us = (uint32_t)v;
			break;
		case OPT_REQ_TIMEOUT:
			ret = parse_u64("req-timeout-ms", optarg, 1, 3600000,
					&v);
			cfg->req_timeout_ms = (uint32_t)v;
			break;
		case OPT_PER_MIB:
			ret = parse_u32_or_off("timeout-per-mib-ms", optarg,
					PMR_TIMEOUT_PER_MIB_MAX,
					PMR_TIMEOUT_PER_MIB_NONE,
					&cfg->timeout_per_mib_ms);
			break;
		case OPT_PEER_TIMEOUT:
			ret = parse_u64("peer-timeout-ms", optarg, 1, 3600000,
					&v);
			cfg->peer_timeout_ms = (uint32_t)v;
			break;
		case OPT_RDV_THRESHOLD:
			/* PMR_RDV_OFF is "off", not a number. */
			ret = parse_u32_or_off("rdv-threshold", optarg,
					PMR_RDV_OFF - 1, PMR_RDV_OFF,
					&cfg->rdv_threshold);
			break;
		case OPT_FAULTS:
			cfg->faults = optarg;
			break;
		case OPT_DRIVER:
			ret = check_driver(optarg);
			cfg->driver = optarg;
			break;
		case OPT_ETH_ARGS:
		case OPT_DRIVER_ARGS:
			if (driver_args_given &&
			    eth_args_given != (opt == OPT_ETH_ARGS)) {
				fprintf(stderr, "rpcperf: --driver-args and "
					"--eth-args: one or the other\n");
				return -EINVAL;
			}
			cfg->driver_args = optarg;
			driver_args_given = true;
			eth_args_given = opt == OPT_ETH_ARGS;
			break;
		case OPT_SERVER:
			cfg->mode = RPCPERF_SERVER;
			break;
		case OPT_CONNECT:
			ret = parse_uri("connect", optarg, false);
			cfg->connect = optarg;
			break;
		case OPT_NEXUS:
			ret = parse_uri("nexus", optarg, true);
			cfg->nexus = optarg;
			break;
		case OPT_DEVARGS:
			if (cfg->nb_devargs == RPCPERF_MAX_LCORES) {
				fprintf(stderr, "rpcperf: --devargs: at most "
					"%d\n", RPCPERF_MAX_LCORES);
				return -EINVAL;
			}
			if (optarg[0] == '\0') {
				fprintf(stderr, "rpcperf: --devargs: empty\n");
				return -EINVAL;
			}
			cfg->devargs[cfg->nb_devargs++] = optarg;
			break;
		case OPT_REMOTE_WORKERS:
			ret = parse_u64("remote-workers", optarg, 1, 1024, &v);
			cfg->remote_workers = (uint16_t)v;
			break;
		case OPT_REMOTE_WORKER:
			ret = parse_remote_worker(optarg, cfg);
			break;
		case OPT_SERVER_LCORES:
			ret = rpcperf_lcores_parse("server-lcores", optarg,
					cfg->server_lcores,
					&cfg->nb_server_lcores);
			break;
		case OPT_CLIENT_LCORES:
			ret = rpcperf_lcores_parse("client-lcores", optarg,
					cfg->client_lcores,
					&cfg->nb_client_lcores);
			break;
		case OPT_DURATION:
			ret = parse_u64("duration", optarg, 0, 86400 * 365, &v);
			cfg->duration = (uint32_t)v;
			break;
		case 'i':
			cfg->interactive = true;
			break;
		case OPT_JSON:
			cfg->json = true;
			break;
		case OPT_HISTOGRAM:
			if (optarg[0] == '\0') {
				fprintf(stderr, "rpcperf: --histogram: needs a "
					"file name\n");
				return -EINVAL;
			}
			cfg->histogram = optarg;
			break;
		case OPT_VERIFY:
			cfg->verify = true;
			break;
		case 'q':
			cfg->quiet = true;
			break;
		case 'h':
			rpcperf_usage(argv[0]);
			return 1;
		case ':':
			fprintf(stderr, "rpcperf: option %s needs a value\n",
				argv[optind - 1]);
			return -EINVAL;
		default:
			bad_option(argv[optind - 1]);
			return -EINVAL;
		}
		if (ret != 0)
			return ret;
	}
	if (optind < argc) {
		fprintf(stderr, "rpcperf: unexpected argument '%s'\n",
			argv[optind]);
		return -EINVAL;
	}
	return check_placement(cfg, workloads_given, driver_args_given,
			eth_args_given);
}
