/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * -i: a prompt on DPDK's cmdline library, like testpmd's. The main lcore
 * runs the prompt (asleep in read() between commands); "start" runs the
 * workload on the client lcores until "stop", which prints its table.
 * Settings change between runs, not during one.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmdline.h>
#include <cmdline_parse.h>
#include <cmdline_parse_num.h>
#include <cmdline_parse_string.h>
#include <cmdline_socket.h>
#include <rte_cycles.h>

#include "rpcperf.h"

struct interactive {
	struct rpcperf_config *cfg;
	const struct rpcperf_workload *wl;
	struct rpcperf_run run;
	bool running;
	uint64_t t_start;	/* TSC at start, or at the last clear */
	uint64_t done_start;	/* round trips then */
	struct rpcperf_result last;	/* of the last stopped run */
	bool have_last;
	uint64_t verify_errors;	/* --verify: of every run, for the exit */
};

static struct interactive ia;

static void
run_start(struct cmdline *cl)
{
	int ret;

	if (ia.running) {
		cmdline_printf(cl, "%s is running: stop it first\n",
			ia.wl->name);
		return;
	}
	ret = rpcperf_run_up(&ia.run, ia.cfg, ia.wl, true);
	if (ret != 0) {
		cmdline_printf(cl, "%s: cannot start: %s\n", ia.wl->name,
			strerror(-ret));
		rpcperf_run_down(&ia.run);
		return;
	}
	ia.t_start = rte_rdtsc();
	ia.done_start = 0;
	rpcperf_run_start(&ia.run);
	ia.running = true;
	cmdline_printf(cl, "%s started: %u-byte payload, %u outstanding per "
		"client lcore, %u lcores; \"stop\" to end\n", ia.wl->name,
		ia.cfg->size, ia.run.spec.concurrency, ia.run.nb_clients);
}

static void
run_stop(struct cmdline *cl)
{
	int ret;

	if (!ia.running) {
		cmdline_printf(cl, "nothing is running\n");
		return;
	}
	__atomic_store_n(&ia.run.stop, true, __ATOMIC_RELAXED);
	ret = rpcperf_run_wait(&ia.run);
	ia.running = false;
	rpcperf_result_free(&ia.last);
	memset(&ia.last, 0, sizeof(ia.last));
	snprintf(ia.last.workload, sizeof(ia.last.workload), "%s",
		ia.wl->name);
	ia.last.one_at_a_time = ia.wl->one_at_a_time;
	ia.last.size = ia.cfg->size;
	if (ret == 0)
		ret = rpcperf_run_results(&ia.run, &ia.last, NULL);
	rpcperf_run_down(&ia.run);
	if (ret != 0) {
		cmdline_printf(cl, "%s failed: %s\n", ia.wl->name,
			strerror(-ret));
		ia.have_last = false;
		return;
	}
	ia.have_last = true;
	cmdline_printf(cl, "%s stopped (percentiles of the latest %" PRIu64
		" samples per lcore at most)\n", ia.wl->name, ia.cfg->iters);
	rpcperf_print_header(ia.cfg->verify);
	rpcperf_print_result(&ia.last, ia.cfg->verify);
	fflush(stdout);
	ia.verify_errors += ia.last.verify_errors;
	if (ia.last.verify_errors != 0)
		cmdline_printf(cl, "%s: --verify: %" PRIu64 " RPCs failed "
			"their check (exit status 1)\n", ia.wl->name,
			ia.last.verify_errors);
}

static void
show_stats(struct cmdline *cl)
{
	uint64_t now = rte_rdtsc(), done;
	double secs;
	unsigned int k;

	if (!ia.running) {
		if (!ia.have_last) {
			cmdline_printf(cl, "no results: \"start\" a run, then "
				"\"stop\" it\n");
			return;
		}
		rpcperf_print_header(ia.cfg->verify);
		rpcperf_print_result(&ia.last, ia.cfg->verify);
		fflush(stdout);
		return;
	}
	done = rpcperf_run_done(&ia.run);
	secs = (double)(now - ia.t_start) / (double)rte_get_tsc_hz();
	cmdline_printf(cl, "%s running: %" PRIu64 " round trips in %.1f s, "
		"%.3f Mrps\n", ia.wl->name, done - ia.done_start, secs,
		secs > 0 ? (double)(done - ia.done_start) / secs / 1e6 : 0);
	for (k = 0; k < ia.run.nb_clients; k++) {
		struct rpcperf_client *c = &ia.run.clients[k];
		struct pmr_worker_stats st;

		pmr_worker_stats_get(c->worker, &st);
		cmdline_printf(cl, "  lcore %u: %" PRIu64 " round trips, %"
			PRIu64 " retransmissions, %" PRIu64 " drops%s\n",
			c->lcore, __atomic_load_n(&c->done, __ATOMIC_RELAXED),
			st.retransmissions - c->st0.retransmissions,
			rpcperf_client_drops(&ia.run, k),
			rte_eal_get_lcore_state(c->lcore) == RUNNING ||
			c->lcore == rte_get_main_lcore() ? "" :
			" (finished: an error, see above)");
	}
}

static void
clear_stats(struct cmdline *cl)
{
	if (ia.running) {
		/* The clients start their samples over at their next look. */
		unsigned int k;

		__atomic_fetch_add(&ia.run.clear, 1, __ATOMIC_RELEASE);
		ia.t_start = rte_rdtsc();
		ia.done_start = rpcperf_run_done(&ia.run);
		/* Retransmissions and drops count from here too. */
		for (k = 0; k < ia.run.nb_clients; k++)
			rpcperf_client_counts_reset(&ia.run, k);
	} else {
		rpcperf_result_free(&ia.last);
		ia.have_last = false;
	}
	cmdline_printf(cl, "statistics cleared\n");
}

/* "start", "stop", "quit", "help". */
struct cmd_word {
	cmdline_fixed_string_t word;
};

static void
cmd_word_parsed(void *parsed, struct cmdline *cl, void *data)
{
	struct cmd_word *r = parsed;

	(void)data;
	if (strcmp(r->word, "start") == 0) {
		run_start(cl);
	} else if (strcmp(r->word, "stop") == 0) {
		run_stop(cl);
	} else if (strcmp(r->word, "quit") == 0) {
		if (ia.running)
			run_stop(cl);
		cmdline_quit(cl);
	} else {
		cmdline_printf(cl,
			"start                   run the workload until stop\n"
			"stop                    stop it and print its table\n"
			"show stats              counts of the run, or the last "
			"table\n"
			"clear stats             start the counts over\n"
			"set size N              payload bytes\n"
			"set concurrency N       RPCs outstanding per client "
			"lcore\n"
			"set workload NAME       latency, rate, bandwidth, "
			"mixed, sessions\n"
			"quit                    stop, and leave\n");
	}
}

static cmdline_parse_token_string_t cmd_word_tok =
	TOKEN_STRING_INITIALIZER(struct cmd_word, word,
		"start#stop#quit#help");

static cmdline_parse_inst_t cmd_word = {
	.f = cmd_word_parsed,
	.help_str = "start | stop | quit | help",
	.tokens = { (void *)&cmd_word_tok, NULL },
};

/* "show stats", "clear stats". */
struct cmd_stats {
	cmdline_fixed_string_t verb;
	cmdline_fixed_string_t what;
};

static void
cmd_stats_parsed(void *parsed, struct cmdline *cl, void *data)
{
	struct cmd_stats *r = parsed;

	(void)data;
	if (strcmp(r->verb, "show") == 0)
		show_stats(cl);
	else
		clear_stats(cl);
}

static cmdline_parse_token_string_t cmd_stats_verb =
	TOKEN_STRING_INITIALIZER(struct cmd_stats, verb, "show#clear");
static cmdline_parse_token_string_t cmd_stats_what =
	TOKEN_STRING_INITIALIZER(struct cmd_stats, what, "stats");

static cmdline_parse_inst_t cmd_stats = {
	.f = cmd_stats_parsed,
	.help_str = "show stats | clear stats",
	.tokens = { (void *)&cmd_stats_verb, (void *)&cmd_stats_what, NULL },
};

/* "set size N", "set concurrency N". */
struct cmd_set_num {
	cmdline_fixed_string_t set;
	cmdline_fixed_string_t what;
	uint32_t value;
};

static bool
settable(struct cmdline *cl)
{
	if (ia.running)
		cmdline_printf(cl, "%s is running: stop it first\n",
			ia.wl->name);
	return !ia.running;
}

static void
cmd_set_num_parsed(void *parsed, struct cmdline *cl, void *data)
{
	struct cmd_set_num *r = parsed;

	(void)data;
	if (!settable(cl))
		return;
	if (strcmp(r->what, "size") == 0) {
		if (r->value > 64u << 20) {
			cmdline_printf(cl, "size: at most %u bytes\n",
				64u << 20);
			return;
		}
		ia.cfg->size = r->value;
	} else {
		if (r->value < 1 || r->value > 4096) {
			cmdline_printf(cl, "concurrency: 1 to 4096\n");
			return;
		}
		ia.cfg->concurrency = r->value;
	}
	cmdline_printf(cl, "%s %u\n", r->what, r->value);
}

static cmdline_parse_token_string_t cmd_set_num_set =
	TOKEN_STRING_INITIALIZER(struct cmd_set_num, set, "set");
static cmdline_parse_token_string_t cmd_set_num_what =
	TOKEN_STRING_INITIALIZER(struct cmd_set_num, what, "size#concurrency");
static cmdline_parse_token_num_t cmd_set_num_value =
	TOKEN_NUM_INITIALIZER(struct cmd_set_num, value, RTE_UINT32);

static cmdline_parse_inst_t cmd_set_num = {
	.f = cmd_set_num_parsed,
	.help_str = "set size|concurrency N",
	.tokens = { (void *)&cmd_set_num_set, (void *)&cmd_set_num_what,
		(void *)&cmd_set_num_value, NULL },
};

/* "set workload NAME". */
struct cmd_set_wl {
	cmdline_fixed_string_t set;
	cmdline_fixed_string_t what;
	cmdline_fixed_string_t name;
};

static void
cmd_set_wl_parsed(void *parsed, struct cmdline *cl, void *data)
{
	struct cmd_set_wl *r = parsed;
	const struct rpcperf_workload *wl = rpcperf_workload_find(r->name);

	(void)data;
	if (!settable(cl))
		return;
	if (wl == NULL) {
		cmdline_printf(cl, "no workload '%s' (\"help\")\n", r->name);
		return;
	}
	if (wl->run != NULL) {
		cmdline_printf(cl, "%s is a baseline: run it without -i\n",
			wl->name);
		return;
	}
	ia.wl = wl;
	cmdline_printf(cl, "workload %s\n", wl->name);
}

static cmdline_parse_token_string_t cmd_set_wl_set =
	TOKEN_STRING_INITIALIZER(struct cmd_set_wl, set, "set");
static cmdline_parse_token_string_t cmd_set_wl_what =
	TOKEN_STRING_INITIALIZER(struct cmd_set_wl, what, "workload");
static cmdline_parse_token_string_t cmd_set_wl_name =
	TOKEN_STRING_INITIALIZER(struct cmd_set_wl, name, NULL);

static cmdline_parse_inst_t cmd_set_wl = {
	.f = cmd_set_wl_parsed,
	.help_str = "set workload NAME",
	.tokens = { (void *)&cmd_set_wl_set, (void *)&cmd_set_wl_what,
		(void *)&cmd_set_wl_name, NULL },
};

static cmdline_parse_ctx_t ctx[] = {
	(cmdline_parse_inst_t *)&cmd_word,
	(cmdline_parse_inst_t *)&cmd_stats,
	(cmdline_parse_inst_t *)&cmd_set_num,
	(cmdline_parse_inst_t *)&cmd_set_wl,
	NULL,
};

int
rpcperf_interactive(struct rpcperf_config *cfg)
{
	struct cmdline *cl;

	memset(&ia, 0, sizeof(ia));
	ia.cfg = cfg;
	ia.wl = rpcperf_workload_find(cfg->workloads[0]);
	cl = cmdline_stdin_new(ctx, "rpcperf> ");
	if (cl == NULL) {
		fprintf(stderr, "rpcperf: -i: cannot set up the prompt\n");
		return 2;
	}
	cmdline_interact(cl);
	/* End of input without "quit": stop what runs all the same. */
	if (ia.running)
		run_stop(cl);
	cmdline_stdin_exit(cl);
	rpcperf_result_free(&ia.last);
	printf("\n");
	return ia.verify_errors != 0 ? 1 : 0;
}
