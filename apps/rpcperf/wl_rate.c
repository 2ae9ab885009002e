/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * rate: --concurrency echo RPCs kept outstanding over --sessions sessions
 * by each client lcore; each continuation sends the next request at once,
 * so requests and responses travel in bursts. Reports RPCs per second and
 * the latency of each RPC under that load. The loop here is every RPC
 * workload's: the others differ in what their spec asks for.
 */

#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_errno.h>

#include "rpcperf.h"

struct rate_slot {
	struct rate_state *st;
	struct pmr_msgbuf *req;
	uint64_t t0;
	uint64_t seq;		/* --verify: the request's number */
	int session;
};

struct rate_state {
	const struct rpcperf_config *cfg;
	const struct rpcperf_rate_spec *spec;
	struct rpcperf_client *c;
	struct rpcperf_samples *s;
	uint64_t sent;
	uint64_t done;
	uint64_t total;
	int err;
	bool verify;
	unsigned int told;	/* --verify: mismatches told on stderr */
};

/* --verify: the first few mismatches of each lcore are told. */
#define RATE_VERIFY_TOLD_MAX 5

static void rate_cont(struct pmr_worker *w, const struct pmr_resp *resp,
		void *tag);

static void
rate_send(struct rate_state *st, struct rate_slot *sl)
{
	struct rpcperf_client *c = st->c;
	uint32_t len = st->spec->size(st->cfg, st->sent);
	int ret;

	pmr_msgbuf_resize(sl->req, len);
	/* Before t0: the latency leaves the pattern out. */
	if (st->verify) {
		sl->seq = st->sent;
		rpcperf_pattern_fill(sl->req->data, len,
			rpcperf_verify_seed(c->lcore, sl->seq));
		/* Tests only (rpcperf_corrupt): a byte of the request. */
		if (rpcperf_test_corrupt != NULL)
			rpcperf_test_corrupt(RPCPERF_CORRUPT_REQ,
				sl->req->data, len);
	}
	/* Many sessions: each request goes to the next one in turn. */
	if (c->nb_sessions > st->spec->concurrency)
		sl->session = c->sessions[st->sent % c->nb_sessions];
	sl->t0 = rte_rdtsc();
	ret = pmr_request(c->worker, sl->session, st->spec->req_type,
			sl->req, rate_cont, sl);
	if (ret != 0)
		st->err = ret;
	else
		st->sent++;
}

/*
 * --verify: an echo against the pattern its request was sent with; a
 * sink's answer, empty unless the server found the request differing.
 */
static void
rate_verify(struct rate_state *st, const struct rate_slot *sl,
		const struct pmr_resp *resp)
{
	uint64_t seed = rpcperf_verify_seed(st->c->lcore, sl->seq);
	const uint8_t *p = resp->data;
	bool echo = rpcperf_req_echoes(st->spec->req_type);
	uint32_t at = 0, v;

	if (echo ? rpcperf_pattern_check(p, resp->len, seed, &at) :
			resp->len == 0)
		return;
	st->s->verify_errors++;
	if (st->told++ >= RATE_VERIFY_TOLD_MAX)
		return;
	if (echo) {
		fprintf(stderr, "rpcperf: %s: lcore %u: --verify: the echo of "
			"request %" PRIu64 " (%u bytes) differs from its "
			"pattern at byte %u: 0x%02x, not 0x%02x\n",
			st->s->workload, st->c->lcore, sl->seq, resp->len, at,
			p[at], rpcperf_pattern_byte(seed, at));
		return;
	}
	v = 0;
	if (resp->len >= sizeof(v))
		memcpy(&v, p, sizeof(v));
	fprintf(stderr, "rpcperf: %s: lcore %u: --verify: request %" PRIu64
		" (%u bytes) reached the server differing from its pattern "
		"at byte %u\n", st->s->workload, st->c->lcore, sl->seq,
		resp->req->len, rte_le_to_cpu_32(v));
}

static void
rate_cont(struct pmr_worker *w, const struct pmr_resp *resp, void *tag)
{
	struct rate_slot *sl = tag;
	struct rate_state *st = sl->st;

	(void)w;
	if (resp->status != PMR_OK ||
	    (rpcperf_req_echoes(st->spec->req_type) &&
	     resp->len != resp->req->len)) {
		if (st->err == 0)
			fprintf(stderr, "rpcperf: %s: lcore %u: %s, %u of %u "
				"bytes\n", st->s->workload, st->c->lcore,
				pmr_status_str(resp->status), resp->len,
				resp->req->len);
		st->err = -EIO;
	}
	st->done++;
	__atomic_store_n(&st->c->done, st->done, __ATOMIC_RELAXED);
	if (st->done == st->cfg->warmup)
		st->c->start = rte_rdtsc();
	else if (st->done > st->cfg->warmup) {
		rpcperf_sample_add(st->s, rte_rdtsc() - sl->t0);
		st->s->bytes += resp->req->len;
	}
	/* After the sample: the latency leaves the check out. */
	if (st->verify && resp->status == PMR_OK)
		rate_verify(st, sl, resp);
	if (st->sent < st->total && st->err == 0)
		rate_send(st, sl);
}

uint32_t
rpcperf_size_fixed(const struct rpcperf_config *cfg, uint64_t i)
{
	(void)i;
	return cfg->size;
}

/* Interactive "stop" (or a signal's) and "clear stats", between polls. */
static void
rate_control(struct rate_state *st, uint32_t *clear)
{
	struct rpcperf_run *run = st->c->run;
	uint32_t now = __atomic_load_n(&run->clear, __ATOMIC_ACQUIRE);

	if (__atomic_load_n(&run->stop, __ATOMIC_RELAXED) ||
	    rpcperf_stop_asked())
		st->total = st->sent;
	if (now != *clear) {
		*clear = now;
		rpcperf_samples_reset(st->s);
		st->c->start = rte_rdtsc();
	}
}

/*
 * One client lcore: keep spec.concurrency requests outstanding over its
 * sessions until run->total have completed (or "stop"); each
 * continuation sends the next request at once.
 */
int
rpcperf_client_loop(void *arg)
{
	struct rpcperf_client *c = arg;
	struct rpcperf_run *run = c->run;
	const struct rpcperf_config *cfg = run->cfg;
	struct rate_state st = {
		.cfg = cfg, .spec = &run->spec, .c = c, .s = &c->s,
		.total = run->total, .verify = cfg->verify,
	};
	uint32_t i, conc = run->spec.concurrency;
	uint32_t clear = __atomic_load_n(&run->clear, __ATOMIC_ACQUIRE);
	struct rate_slot *slots;
	unsigned int polls = 0;
	int ret = 0;

	slots = calloc(conc, sizeof(*slots));
	if (slots == NULL)
		return -ENOMEM;
	for (i = 0; i < conc; i++) {
		slots[i].st = &st;
		slots[i].session = c->sessions[i % c->nb_sessions];
		slots[i].req = pmr_worker_msgbuf_alloc(c->worker,
				run->spec.max_size);
		if (slots[i].req == NULL) {
			ret = -ENOBUFS;
			goto out;
		}
		memset(slots[i].req->data, 0x5a, slots[i].req->len);
	}
	c->start = rte_rdtsc();
	for (i = 0; i < conc && st.sent < st.total && st.err == 0; i++)
		rate_send(&st, &slots[i]);
	while (st.done < st.sent) {
		if (pmr_worker_poll(c->worker) == 0 && cfg->yield)
			sched_yield();
		if (unlikely((++polls & 63) == 0)) {
			rate_control(&st, &clear);
			/* One line for all the lcores, from the first. */
			if (c->idx == 0)
				rpcperf_progress(cfg, c->s.workload,
					rpcperf_run_done(run), run->total ==
					UINT64_MAX ? 0 : run->total *
					run->nb_clients);
		}
	}
	c->s.elapsed = rte_rdtsc() - c->start;
	ret = st.err;
out:
	for (i = 0; i < conc; i++)
		pmr_msgbuf_free(slots[i].req);
	free(slots);
	if (ret != 0)
		fprintf(stderr, "rpcperf: %s: lcore %u: %s\n", c->s.workload,
			c->lcore, strerror(-ret));
	return ret;
}

static void
rate_spec(const struct rpcperf_config *cfg, struct rpcperf_rate_spec *spec)
{
	*spec = (struct rpcperf_rate_spec){
		.req_type = RPCPERF_REQ_ECHO,
		.sessions = cfg->sessions,
		.concurrency = cfg->concurrency,
		.size = rpcperf_size_fixed,
		.max_size = cfg->size,
	};
}

const struct rpcperf_workload rpcperf_wl_rate = {
	.name = "rate",
	.help = "--concurrency echo RPCs outstanding: RPCs per second",
	.one_at_a_time = false,
	.spec = rate_spec,
};
