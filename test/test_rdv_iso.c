/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * Issue 25, defect 5: no key a peer receives may reach memory that holds
 * another peer's data (doc/security.md, "What a peer can read").
 *
 * The victim (client worker cli[0]) and the attacker (cli[1]), each with
 * an ordinary session to server worker 0. The victim's messages carry a
 * marker: MARK_LIVE in the messages in flight while the attacker probes
 * (a large request the server's handler holds, a large response the
 * server offers and the victim has not read yet), MARK_DONE in an
 * exchange finished before. The attacker asks for a large response of its
 * own, takes its descriptor (address, key, size) off its receive burst
 * so that the offer stays up, and posts RDMA READs with that key on its
 * sessions' RC QPs (rpc_rc_post()): outward from the offered bytes, block
 * after block, as far as the device lets it. The first READ the device
 * refuses fails the QP and ends that direction; the next pass takes a
 * fresh session and a fresh offer. Up and down through the QP of the
 * offer, then up and down from one offer through the attacker's QP with
 * another worker of the server's process (server worker 1). No marker
 * may be found; the victim's exchanges then complete untouched.
 *
 * Run on the verbs driver over the model (PMR_TEST_SETUP=verbs_hca):
 * with windows (the strict device: the control), with windows and the
 * rxe personality, without windows; and on rxe0 in the VM
 * (PMR_TEST_SETUP=verbs). PMR_TEST_ISO_DEVARGS adds driver devargs;
 * PMR_TEST_ISO_MODE, if set, is how the workers must expose offers:
 * "in_place" (exact windows), "window_copy" (windows on a copy in the
 * pair's region), "key_copy" (the region's own key).
 */

#include "pmr_test_rpc.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "pmr_msgbuf.h"
#include "pmr_pkthdr.h"
#include "rpc_private.h"
#include "rpc_rc.h"

#define T_MARK 1	/* a response of marker: size, which in the request */
#define T_HOLD 2	/* held until the end, then answered inverted */
#define T_SIZE 3	/* a response of pattern(): size in the request */
#define T_ECHO 4	/* the request inverted */

#define KIB 1024u
#define MARK_LEN 16
#define DONE_LEN (1024 * KIB)	/* the finished exchange, both ways */
#define LIVE_LEN (512 * KIB)	/* the victim's messages in flight */
#define ATTACK_LEN (256 * KIB)	/* the attacker's own response */
#define PROBE_BLOCK (64 * KIB)
#define PROBE_SPAN (64u << 20)	/* each way from an offer, at most */
#define MAX_HELD 4

static const char mark_live[MARK_LEN + 1] = "MARK-LIVE:iso25!";
static const char mark_done[MARK_LEN + 1] = "MARK-DONE:iso25!";

static struct pmr_test_env env;
static struct pmr_req_ref held[MAX_HELD];
static unsigned int nb_held;

static uint8_t
pattern(uint32_t i)
{
	return (uint8_t)(i * 7 + (i >> 11) + 3);
}

static void
fill_mark(uint8_t *p, uint32_t len, const char *m)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)m[i % MARK_LEN];
}

static void
respond_inverted(struct pmr_req_ref req)
{
	const uint8_t *in = pmr_req_data(req);
	uint32_t i, len = pmr_req_len(req);
	struct pmr_msgbuf *resp;

	resp = len <= pmr_worker_pkt_size(pmr_req_worker(req)) ?
		pmr_req_resp_buf(req) :
		pmr_worker_msgbuf_alloc(pmr_req_worker(req), len);
	assert_non_null(resp);
	assert_int_equal(pmr_msgbuf_resize(resp, len), 0);
	for (i = 0; i < len; i++)
		resp->data[i] = (uint8_t)~in[i];
	assert_int_equal(pmr_respond(req, resp), 0);
}

/* The request: the response's size (bytes 0-3), which marker (byte 4). */
static void
mark_handler(struct pmr_req_ref req, void *arg)
{
	const uint8_t *q = pmr_req_data(req);
	struct pmr_msgbuf *resp;
	uint32_t size;

	(void)arg;
	assert_true(pmr_req_len(req) >= 8);
	memcpy(&size, q, sizeof(size));
	resp = pmr_worker_msgbuf_alloc(pmr_req_worker(req), size);
	assert_non_null(resp);
	fill_mark(resp->data, size, q[4] != 0 ? mark_done : mark_live);
	assert_int_equal(pmr_respond(req, resp), 0);
}

static void
hold_handler(struct pmr_req_ref req, void *arg)
{
	(void)arg;
	assert_true(nb_held < MAX_HELD);
	held[nb_held++] = req;
}

static void
size_handler(struct pmr_req_ref req, void *arg)
{
	struct pmr_msgbuf *resp;
	uint32_t size, i;

	(void)arg;
	memcpy(&size, pmr_req_data(req), sizeof(size));
	resp = pmr_worker_msgbuf_alloc(pmr_req_worker(req), size);
	assert_non_null(resp);
	for (i = 0; i < size; i++)
		resp->data[i] = pattern(i);
	assert_int_equal(pmr_respond(req, resp), 0);
}

static void
echo_handler(struct pmr_req_ref req, void *arg)
{
	(void)arg;
	respond_inverted(req);
}

static void
handlers(struct pmr_nexus *nx)
{
	nb_held = 0;
	assert_int_equal(pmr_nexus_register_handler(nx, T_MARK, mark_handler,
			NULL), 0);
	assert_int_equal(pmr_nexus_register_handler(nx, T_HOLD, hold_handler,
			NULL), 0);
	assert_int_equal(pmr_nexus_register_handler(nx, T_SIZE, size_handler,
			NULL), 0);
	assert_int_equal(pmr_nexus_register_handler(nx, T_ECHO, echo_handler,
			NULL), 0);
}

struct call {
	uint8_t type;
	uint32_t req_len;
	uint32_t size;		/* T_MARK, T_SIZE: the response's */
	const char *mark;	/* T_MARK: its marker; T_HOLD: the request's */
	int session;
	int runs;
	enum pmr_status status;
	int bad;
};

static bool
resp_ok(const struct call *c, const struct pmr_resp *resp)
{
	const uint8_t *d = resp->data, *q = resp->req->data;
	uint32_t i;

	if (c->type == T_MARK || c->type == T_SIZE) {
		if (resp->len != c->size)
			return false;
		for (i = 0; i < c->size; i++)
			if (d[i] != (c->type == T_SIZE ? pattern(i) :
					(uint8_t)c->mark[i % MARK_LEN]))
				return false;
		return true;
	}
	if (resp->len != resp->req->len)
		return false;
	for (i = 0; i < resp->len; i++)
		if ((uint8_t)(d[i] + q[i]) != 0xff)
			return false;
	return true;
}

static void
on_call(struct pmr_worker *w, const struct pmr_resp *resp, void *tag)
{
	struct call *c = tag;

	(void)w;
	c->runs++;
	c->status = resp->status;
	if (resp->status == PMR_OK && !resp_ok(c, resp))
		c->bad++;
	pmr_msgbuf_free(resp->req);
}

static void
call_start(struct pmr_worker *cli, struct call *c)
{
	struct pmr_msgbuf *req = pmr_worker_msgbuf_alloc(cli, c->req_len);
	uint32_t i;

	assert_non_null(req);
	if (c->type == T_MARK || c->type == T_HOLD) {
		fill_mark(req->data, c->req_len, c->mark);
	} else {
		for (i = 0; i < c->req_len; i++)
			req->data[i] = (uint8_t)(i * 13 + 1);
	}
	if (c->type == T_MARK || c->type == T_SIZE) {
		assert_true(c->req_len >= 8);
		memcpy(req->data, &c->size, sizeof(c->size));
		req->data[4] = c->mark == mark_done;
	}
	c->runs = 0;
	assert_int_equal(pmr_request(cli, c->session, c->type, req, on_call,
			c), 0);
}

static struct pmr_worker_stats
stats(struct pmr_worker *w)
{
	struct pmr_worker_stats st;

	assert_int_equal(pmr_worker_stats_get(w, &st), 0);
	return st;
}

static void
assert_pools_full(struct pmr_worker *w)
{
	struct rte_mempool *mp;
	unsigned int c;

	for (c = 0; (mp = pmr_worker_pool(w, c)) != NULL; c++)
		assert_int_equal(pmr_msgbuf_pool_in_use(mp), 0);
}

/*
 * The attacker's tap on its receive burst: while armed, a RESP_DESC to
 * the session it watches is taken out of the burst (and given back to
 * the driver), its descriptor kept. The server keeps offering that
 * response: the attacker never read it nor said it was done.
 */
static struct {
	pmr_rx_burst_t orig;
	bool armed;
	bool got;
	uint16_t session;
	uint32_t len;
	struct pmr_pkt_desc d;
} tap;

static uint16_t
tap_rx(struct pmr_transport_queue *q, struct pmr_rx_pkt *pkts, uint16_t n)
{
	uint16_t got = tap.orig(q, pkts, n), i, k = 0;
	struct pmr_pkthdr h;

	for (i = 0; i < got; i++) {
		if (tap.armed && pmr_pkthdr_decode(pkts[i].data, pkts[i].len,
				&h) == PMR_PKTHDR_OK &&
		    h.pkt_type == PMR_PKT_RESP_DESC &&
		    h.dest_session == tap.session) {
			if (!tap.got && pmr_pkt_desc_decode(pkts[i].data +
					PMR_PKTHDR_LEN, pkts[i].len -
					PMR_PKTHDR_LEN, &tap.d) == 0) {
				tap.len = h.msg_size;
				tap.got = true;
			}
			pmr_transport_rx_release(q, &pkts[i], 1);
			continue;
		}
		pkts[k++] = pkts[i];
	}
	return k;
}

/* What the attacker found. */
struct probe {
	struct pmr_worker *w;
	struct pmr_msgbuf *mb;	/* READs land here: PROBE_BLOCK bytes */
	uint32_t lkey;
	int sess[2];		/* to server worker 0 (the offers), 1 */
	struct pmr_test_sess_ev ev[2];
	uint64_t live;		/* MARK_LIVE seen */
	uint64_t done;		/* MARK_DONE seen */
	uint64_t bytes;		/* read outside the offered bytes */
	unsigned int reads;
	unsigned int refused;	/* READs the device refused */
};

static void
read_done(struct pmr_worker *w, int session, unsigned int status, void *arg)
{
	(void)w;
	(void)session;
	*(int *)arg = (int)status;
}

/* A READ through the QP of session sn: did the device serve it? */
static bool
probe_read(struct probe *p, int sn, uint64_t addr, uint32_t rkey,
		uint32_t len)
{
	struct pmr_transport_rc_op op = {
		.type = PMR_RC_OP_READ,
		.local = p->mb->data,
		.lkey = p->lkey,
		.remote = addr,
		.rkey = rkey,
		.len = len,
	};
	int st = -1;

	if (rpc_rc_post(p->w, sn, &op, read_done, &st) != 0)
		return false;
	PMR_TEST_POLL_UNTIL(&env, st >= 0);
	p->reads++;
	if (st != PMR_RC_OK)
		p->refused++;
	return st == PMR_RC_OK;
}

static uint64_t
count_mark(const uint8_t *b, uint32_t len, const char *m)
{
	uint64_t n = 0;
	uint32_t i;

	for (i = 0; i + MARK_LEN <= len; i++)
		if (b[i] == (uint8_t)m[0] && memcmp(b + i, m, MARK_LEN) == 0) {
			n++;
			i += MARK_LEN - 1;
		}
	return n;
}

/*
 * Read block after block up from start, or down from it, through sn's
 * QP with rkey, until the device refuses one (the QP then fails) or
 * PROBE_SPAN is read; count the markers. Whether sn's QP failed.
 */
static bool
probe_scan(struct probe *p, int sn, uint64_t start, bool up, uint32_t rkey)
{
	uint64_t a;
	uint32_t i;

	for (i = 0; i < PROBE_SPAN / PROBE_BLOCK; i++) {
		a = up ? start + (uint64_t)i * PROBE_BLOCK :
			start - (uint64_t)(i + 1) * PROBE_BLOCK;
		if (!probe_read(p, sn, a, rkey, PROBE_BLOCK))
			return true;
		p->bytes += PROBE_BLOCK;
		p->live += count_mark(p->mb->data, PROBE_BLOCK, mark_live);
		p->done += count_mark(p->mb->data, PROBE_BLOCK, mark_done);
	}
	return false;
}

/* The attacker's session i (to server worker i), with its QP at both
 * ends (a large echo read each way). */
static int
attacker_session(struct probe *p, unsigned int i)
{
	struct call c;

	if (p->sess[i] >= 0)
		return p->sess[i];
	p->sess[i] = pmr_test_connect(&env, p->w, (uint16_t)i, &p->ev[i]);
	assert_int_equal(p->ev[i].ev, PMR_SESSION_EV_CONNECTED);
	c = (struct call){ .type = T_ECHO, .req_len = 200 * KIB,
		.session = p->sess[i] };
	call_start(p->w, &c);
	PMR_TEST_POLL_UNTIL(&env, c.runs == 1);
	assert_int_equal(c.status, PMR_OK);
	assert_int_equal(c.bad, 0);
	return p->sess[i];
}

/* Session i's QP failed: both ends reset it; it goes. */
static void
attacker_session_lost(struct probe *p, unsigned int i)
{
	PMR_TEST_POLL_UNTIL(&env, p->ev[i].ev == PMR_SESSION_EV_RESET);
	assert_int_equal(pmr_session_destroy(p->w, p->sess[i]), 0);
	p->sess[i] = -1;
}

/*
 * Scan up or down from the offer tap holds through the attacker's QP
 * with server worker via (made again if a scan failed it).
 */
static void
probe_dir(struct probe *p, unsigned int via, bool up)
{
	uint64_t start, bytes = p->bytes, live = p->live, done = p->done;
	int sv = attacker_session(p, via);

	start = up ? RTE_ALIGN_CEIL(tap.d.addr + tap.len, PROBE_BLOCK) :
		RTE_ALIGN_FLOOR(tap.d.addr, PROBE_BLOCK);
	if (probe_scan(p, sv, start, up, tap.d.rkey))
		attacker_session_lost(p, via);
	print_message("probe: %s from an offer at 0x%" PRIx64 " through the "
		"QP with server worker %u: %" PRIu64 " bytes read, markers in "
		"flight %" PRIu64 ", finished %" PRIu64 "\n",
		up ? "up" : "down", (uint64_t)tap.d.addr, via,
		p->bytes - bytes, p->live - live, p->done - done);
}

/*
 * A pass: a fresh offer of the attacker's own response by server worker
 * 0, then scans from it through the offer's QP (via 0: one direction,
 * the first refusal fails that QP and the offer with it) or through the
 * attacker's QP with server worker 1 (both directions: the offer stays).
 */
static void
probe_pass(struct probe *p, unsigned int via, bool up, bool down)
{
	int sa = attacker_session(p, 0);
	struct call c = { .type = T_SIZE, .req_len = 8, .size = ATTACK_LEN,
		.session = sa };
	uint32_t i;

	if (via != 0)
		attacker_session(p, via);
	tap.session = (uint16_t)sa;
	tap.got = false;
	tap.armed = true;
	call_start(p->w, &c);
	PMR_TEST_POLL_UNTIL(&env, tap.got);
	assert_int_equal(tap.len, ATTACK_LEN);
	if (via == 0) {
		/* The key works: the offered bytes are the attacker's. */
		assert_true(probe_read(p, sa, tap.d.addr, tap.d.rkey,
				PROBE_BLOCK));
		for (i = 0; i < PROBE_BLOCK; i++)
			assert_int_equal(p->mb->data[i], pattern(i));
	}
	if (up)
		probe_dir(p, via, true);
	if (down)
		probe_dir(p, via, false);
	/* Let the offer go: read at last, or reset with its QP. */
	tap.armed = false;
	PMR_TEST_POLL_UNTIL(&env, c.runs == 1);
	assert_true(c.status == PMR_OK || c.status == PMR_E_SESSION_RESET);
	if (c.status == PMR_OK)
		assert_int_equal(c.bad, 0);
	if (c.status == PMR_E_SESSION_RESET && p->sess[0] >= 0)
		attacker_session_lost(p, 0);
}

static int
setup(void **state)
{
	const char *dargs = getenv("PMR_TEST_ISO_DEVARGS");
	/* Large buffers of 2 MiB, eight per worker; timeouts far beyond
	 * the probe (a few seconds on rxe0 under TCG). */
	struct pmr_worker_conf conf = { .nb_msgbufs = 1024,
		.max_msg_size = 2u << 20, .nb_large_msgbufs = 8,
		.rdv_threshold = 1, .req_timeout_ms = 120000,
		.srv_state_timeout_ms = 120000,
		.devargs = dargs != NULL && dargs[0] != '\0' ? dargs : NULL };

	(void)state;
	pmr_test_env_up(&env, 2, handlers, &conf, &conf);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	pmr_test_env_down(&env);
	return 0;
}

static void
test_rdv_iso_probe(void **state)
{
	struct pmr_worker *victim = env.cli[0], *srv = env.srv[0];
	struct probe p = { .w = env.cli[1], .sess = { -1, -1 } };
	struct pmr_transport_mkey key;
	struct pmr_test_sess_ev ve;
	struct call done, hold, live;
	const char *mode, *want;
	uint64_t tx, descs;
	unsigned int i;
	int vs;

	(void)state;
	if (victim->rdv == NULL)
		skip();	/* no READ on this queue: nothing to probe */
	mode = !srv->rdv_copy ? "in_place" : srv->rdv_mw ? "window_copy" :
		"key_copy";
	want = getenv("PMR_TEST_ISO_MODE");
	if (want != NULL && want[0] != '\0' && strcmp(want, mode) != 0)
		fail_msg("offers exposed %s, not %s", mode, want);
	tap.orig = p.w->q->rx_burst;
	p.w->q->rx_burst = tap_rx;
	p.mb = pmr_worker_msgbuf_alloc(p.w, PROBE_BLOCK);
	assert_non_null(p.mb);
	assert_int_equal(pmr_transport_mem_key(p.w->q, p.mb->data,
			PROBE_BLOCK, &key), 0);
	p.lkey = key.lkey;

	/* The victim: an exchange finished, both ways by READ. */
	vs = pmr_test_connect(&env, victim, 0, &ve);
	assert_int_equal(ve.ev, PMR_SESSION_EV_CONNECTED);
	done = (struct call){ .type = T_MARK, .req_len = DONE_LEN,
		.size = DONE_LEN, .mark = mark_done, .session = vs };
	call_start(victim, &done);
	PMR_TEST_POLL_UNTIL(&env, done.runs == 1);
	assert_int_equal(done.status, PMR_OK);
	assert_int_equal(done.bad, 0);
	/* In flight: a request the handler holds... */
	hold = (struct call){ .type = T_HOLD, .req_len = LIVE_LEN,
		.mark = mark_live, .session = vs };
	call_start(victim, &hold);
	PMR_TEST_POLL_UNTIL(&env, nb_held == 1);
	/* ... and a response offered that the victim does not read yet. */
	live = (struct call){ .type = T_MARK, .req_len = 8, .size = LIVE_LEN,
		.mark = mark_live, .session = vs };
	tx = stats(victim).tx_pkts;
	descs = stats(srv).rdv_descs_sent;
	call_start(victim, &live);
	for (i = 0; i < 1000 && stats(victim).tx_pkts == tx; i++)
		pmr_worker_poll(victim);
	assert_true(stats(victim).tx_pkts > tx);
	env.cli[0] = NULL;
	PMR_TEST_POLL_UNTIL(&env, stats(srv).rdv_descs_sent > descs);
	assert_int_equal(stats(victim).rdv_reads, 1);	/* done's only */

	/* The attacker. */
	probe_pass(&p, 0, true, false);
	probe_pass(&p, 0, false, true);
	probe_pass(&p, 1, true, true);
	print_message("probe (%s): %u READs, %u refused, %" PRIu64
		" bytes read outside its offers; markers of the victim's "
		"messages in flight %" PRIu64 ", finished %" PRIu64 "\n",
		mode, p.reads, p.refused, p.bytes, p.live, p.done);

	/* The victim's exchanges complete untouched. */
	respond_inverted(held[0]);
	env.cli[0] = victim;
	PMR_TEST_POLL_UNTIL(&env, hold.runs == 1 && live.runs == 1);
	assert_int_equal(hold.status, PMR_OK);
	assert_int_equal(hold.bad, 0);
	assert_int_equal(live.status, PMR_OK);
	assert_int_equal(live.bad, 0);
	p.w->q->rx_burst = tap.orig;
	pmr_msgbuf_free(p.mb);
	for (i = 0; i < 2; i++)
		if (p.sess[i] >= 0)
			assert_int_equal(pmr_session_destroy(p.w, p.sess[i]),
					0);
	assert_int_equal(pmr_session_destroy(victim, vs), 0);
	for (i = 0; i < 2; i++)
		PMR_TEST_POLL_UNTIL(&env, pmr_msgbuf_pool_in_use(
				pmr_worker_pool(env.srv[i], 1)) == 0 &&
				pmr_msgbuf_pool_in_use(
				pmr_worker_pool(env.srv[i], 2)) == 0);
	assert_pools_full(victim);
	assert_pools_full(p.w);

	/* The defect: the attacker's key reached the victim's bytes. */
	assert_int_equal(p.live, 0);
	assert_int_equal(p.done, 0);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_rdv_iso_probe, setup,
			teardown),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests_name("rdv_iso", tests,
			pmr_test_eal_setup, pmr_test_eal_teardown);
}
