/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/* rpcperf's own arguments: those after EAL's "--". */

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_lcore.h>

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

static const char default_workloads[] = "ring,latency,rate";
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
		"Round-trip benchmark of pmrpc. Runs each workload in turn with a\n"
		"server on one lcore and the client on the main lcore, and prints\n"
		"latency percentiles in microseconds and the round-trip rate.\n"
		"\n"
		"EAL options (before \"--\"): -l 0-1 for the client and server\n"
		"lcores, --no-pci, and --in-memory with hugepages or\n"
		"--no-huge -m 512 without; DPDK's EAL guide has the rest.\n"
		"\n"
		"Options:\n"
		"  -w, --workload=LIST    workloads to run, comma separated\n"
		"                         (default: ring,latency,rate)\n"
		"  -s, --size=BYTES       payload bytes (default: 32, at most 64 MiB)\n"
		"  -n, --iters=N          measured round trips (default: 1000000)\n"
		"      --warmup=N         unmeasured round trips first (default: 10000)\n"
		"  -c, --concurrency=N    rate: RPCs kept outstanding (default: 32)\n"
		"      --sessions=N       sessions the RPCs use (default: 4, max %d)\n"
		"      --credits=N        session credits: packets in flight per\n"
		"                         session (default: 8)\n"
		"      --rto-us=US        retransmission timeout (default: 5000)\n"
		"      --faults=SPEC      inject faults on both workers, e.g.\n"
		"                         drop_tx=0.005,drop_rx=0.005 (doc/faults.md)\n"
		"      --eth-args=KVARGS  extra eth driver devargs, e.g.\n"
		"                         tx_copy_max=0 (see doc/drivers.md)\n"
		"      --server-lcore=ID  lcore of the server side (default: the\n"
		"                         first worker lcore)\n"
		"      --json             print the results as one JSON document\n"
		"                         instead of the table (doc/rpcperf.md)\n"
		"      --histogram=FILE   write each workload's latency CDF to FILE\n"
		"                         (CSV: workload,percentile,latency_us),\n"
		"                         and its rate every 100 ms to FILE.rate.csv\n"
		"                         (FILE's .csv suffix dropped first)\n"
		"  -q, --quiet            no banner and no progress lines on stderr,\n"
		"                         only errors and warnings\n"
		"  -h, --help             this text\n"
		"\n"
		"Exit status: 0 when every workload ran, 1 when one failed, 2 on a\n"
		"bad option or setup.\n"
		"\n"
		"Workloads:\n", prog, RPCPERF_MAX_SESSIONS);
	for (i = 0; i < RTE_DIM(workloads); i++)
		printf("  %-14s %s\n", workloads[i]->name, workloads[i]->help);
	printf("\nExample: %s -l 0-1 --no-pci --no-huge -m 512 -- -s 64\n",
		prog);
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
	OPT_WARMUP = 256, OPT_ETH_ARGS, OPT_SERVER_LCORE, OPT_SESSIONS,
	OPT_FAULTS, OPT_CREDITS, OPT_RTO, OPT_JSON, OPT_HISTOGRAM,
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
	{ "eth-args", required_argument, NULL, OPT_ETH_ARGS },
	{ "server-lcore", required_argument, NULL, OPT_SERVER_LCORE },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "histogram", required_argument, NULL, OPT_HISTOGRAM },
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
 * Parse rpcperf's options into cfg.
 * Returns 0 to run, 1 when --help was printed, -EINVAL on a bad option.
 */
int
rpcperf_parse_args(int argc, char **argv, struct rpcperf_config *cfg)
{
	uint64_t v = 0;
	int opt, ret;

	memset(cfg, 0, sizeof(*cfg));
	cfg->size = 32;
	cfg->iters = 1000000;
	cfg->warmup = 10000;
	cfg->eth_args = "";
	cfg->concurrency = 32;
	cfg->sessions = 4;
	cfg->server_lcore = RTE_MAX_LCORE;
	ret = parse_workloads(default_workloads, cfg);
	if (ret != 0)
		return ret;

	optind = 0;	/* 0: glibc and musl start afresh, for the tests */
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":w:s:n:c:qh", longopts,
			NULL)) != -1) {
		ret = 0;
		switch (opt) {
		case 'w':
			ret = parse_workloads(optarg, cfg);
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
		case OPT_FAULTS:
			cfg->faults = optarg;
			break;
		case OPT_ETH_ARGS:
			cfg->eth_args = optarg;
			break;
		case OPT_SERVER_LCORE:
			ret = parse_u64("server-lcore", optarg, 0,
					RTE_MAX_LCORE - 1, &v);
			cfg->server_lcore = (unsigned int)v;
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
	return 0;
}
