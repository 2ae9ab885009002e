/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * The /pmrpc/... telemetry commands, read as dpdk-telemetry.py reads them:
 * over this process's telemetry socket (AF_UNIX, SOCK_SEQPACKET, one JSON
 * reply per command), while the RPC environment runs echo RPCs.
 */

#include "pmr_test_rpc.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_random.h>
#include <rte_udp.h>

#include "pmr_nexus.h"
#include "pmr_rpc.h"

#define T_ECHO 1

/* Telemetry's reply limit in DPDK 22.11 is 16 KiB. */
#define TEL_BUF_LEN (64 * 1024)
/* Processes sharing a runtime dir get dpdk_telemetry.v2, v2:1, v2:2... */
#define TEL_MAX_INSTANCES 64

static struct pmr_test_env env;
static int tel_fd = -1;
static char tel_buf[TEL_BUF_LEN];

static void
echo_handler(struct pmr_req_ref req, void *arg)
{
	struct pmr_msgbuf *resp = pmr_req_resp_buf(req);
	const uint8_t *in = pmr_req_data(req);
	uint32_t i, len = pmr_req_len(req);

	(void)arg;
	assert_non_null(resp);
	assert_int_equal(pmr_msgbuf_resize(resp, len), 0);
	for (i = 0; i < len; i++)
		resp->data[i] = (uint8_t)~in[i];
	assert_int_equal(pmr_respond(req, resp), 0);
}

static void
handlers(struct pmr_nexus *nx)
{
	assert_int_equal(pmr_nexus_register_handler(nx, T_ECHO, echo_handler,
			NULL), 0);
}

/* One socket path: connected, and the initial message names our pid? */
static int
tel_try(const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = 10 };
	const char *pid;
	ssize_t n;
	int fd;

	if (strlen(path) >= sizeof(sun.sun_path))
		return -1;
	strcpy(sun.sun_path, path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) != 0)
		goto fail;
	/* {"version":"DPDK 22.11.x","pid":N,"max_output_len":N} */
	n = recv(fd, tel_buf, sizeof(tel_buf) - 1, 0);
	if (n <= 0)
		goto fail;
	tel_buf[n] = '\0';
	pid = strstr(tel_buf, "\"pid\":");
	if (pid == NULL || strtol(pid + 6, NULL, 10) != (long)getpid())
		goto fail;
	return fd;
fail:
	close(fd);
	return -1;
}

/* Connect to this process's telemetry socket, as dpdk-telemetry.py does. */
static int
tel_connect(void)
{
	char path[sizeof(((struct sockaddr_un *)NULL)->sun_path)];
	unsigned int i;
	int fd;

	for (i = 0; i < TEL_MAX_INSTANCES; i++) {
		if (i == 0)
			snprintf(path, sizeof(path), "%s/dpdk_telemetry.v2",
				rte_eal_get_runtime_dir());
		else
			snprintf(path, sizeof(path), "%s/dpdk_telemetry.v2:%u",
				rte_eal_get_runtime_dir(), i);
		fd = tel_try(path);
		if (fd >= 0)
			return fd;
	}
	return -1;
}

/* Send a command; @return its reply, valid until the next query. */
static const char *
tel_query(const char *cmd)
{
	ssize_t n;

	assert_true(send(tel_fd, cmd, strlen(cmd), 0) ==
			(ssize_t)strlen(cmd));
	n = recv(tel_fd, tel_buf, sizeof(tel_buf) - 1, 0);
	if (n <= 0)
		fail_msg("%s: no reply (%s)", cmd, strerror(errno));
	tel_buf[n] = '\0';
	return tel_buf;
}

/* The value of "key":<unsigned> in a reply; fails the test if absent. */
static uint64_t
tel_u64(const char *json, const char *key)
{
	char pat[128];
	const char *p;
	char *end;
	uint64_t v;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(json, pat);
	if (p == NULL)
		fail_msg("no %s in %s", key, json);
	p += strlen(pat);
	v = strtoull(p, &end, 10);
	if (end == p)
		fail_msg("%s is not a number in %s", key, json);
	return v;
}

/* The ints of "key":[a,b,...]; @return how many (at most max). */
static unsigned int
tel_ints(const char *json, const char *key, long *out, unsigned int max)
{
	char pat[128];
	unsigned int n = 0;
	const char *p;
	char *end;

	snprintf(pat, sizeof(pat), "\"%s\":[", key);
	p = strstr(json, pat);
	if (p == NULL)
		fail_msg("no %s array in %s", key, json);
	p += strlen(pat);
	while (*p != ']') {
		assert_true(n < max);
		out[n++] = strtol(p, &end, 10);
		assert_true(end != p);
		p = end;
		if (*p == ',')
			p++;
		else
			assert_int_equal(*p, ']');
	}
	return n;
}

/* Keys of the dict a reply holds: "k": pairs at the second level. */
static unsigned int
tel_nb_keys(const char *json)
{
	unsigned int n = 0, depth = 0;
	bool in_str = false;
	const char *p;

	for (p = json; *p != '\0'; p++) {
		if (in_str) {
			if (*p == '"')
				in_str = false;
			continue;
		}
		if (*p == '"')
			in_str = true;
		else if (*p == '{' || *p == '[')
			depth++;
		else if (*p == '}' || *p == ']')
			depth--;
		else if (*p == ':' && depth == 2)
			n++;
	}
	return n;
}

static void
worker_query(uint16_t id)
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "/pmrpc/worker,%u", id);
	tel_query(cmd);
}

static bool
inverted(uint8_t b, uint8_t a)
{
	return (uint8_t)(a + b) == 0xff && (a & b) == 0;
}

struct cont_rec {
	unsigned int runs;
	unsigned int bad;
};

static void
on_resp(struct pmr_worker *w, const struct pmr_resp *resp, void *tag)
{
	struct cont_rec *c = tag;
	const uint8_t *d = resp->data;
	uint32_t i;

	(void)w;
	c->runs++;
	if (resp->status != PMR_OK || resp->len != resp->req->len)
		c->bad++;
	for (i = 0; resp->status == PMR_OK && i < resp->len; i++)
		c->bad += !inverted(d[i], resp->req->data[i]);
	pmr_msgbuf_free(resp->req);
}

/* Send n echo RPCs of assorted sizes on session s; poll if wait. */
static void
run_rpcs(int s, unsigned int n, struct cont_rec *c, bool wait)
{
	struct pmr_worker *cli = env.cli[0];
	unsigned int i, target = c->runs + n;

	for (i = 0; i < n; i++) {
		uint32_t len = (i * 97) % (pmr_worker_pkt_size(cli) + 1);
		struct pmr_msgbuf *req = pmr_worker_msgbuf_alloc(cli, len);

		assert_non_null(req);
		memset(req->data, (int)i, len);
		assert_int_equal(pmr_request(cli, s, T_ECHO, req, on_resp, c),
				0);
	}
	if (wait) {
		PMR_TEST_POLL_UNTIL(&env, c->runs == target);
		assert_int_equal(c->bad, 0);
	}
}

static int
group_setup(void **state)
{
	if (pmr_test_eal_setup(state) != 0)
		return -1;
	tel_fd = tel_connect();
	if (tel_fd < 0) {
		fprintf(stderr, "no telemetry socket of this process in %s "
			"(--no-telemetry?)\n", rte_eal_get_runtime_dir());
		return -1;
	}
	return 0;
}

static int
group_teardown(void **state)
{
	if (tel_fd >= 0)
		close(tel_fd);
	tel_fd = -1;
	return pmr_test_eal_teardown(state);
}

static int
setup(void **state)
{
	(void)state;
	pmr_test_env_up(&env, 1, handlers, NULL, NULL);
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
test_commands_listed(void **state)
{
	const char *r;

	(void)state;
	r = tel_query("/");
	assert_non_null(strstr(r, "\"/pmrpc/workers\""));
	assert_non_null(strstr(r, "\"/pmrpc/worker\""));
	assert_non_null(strstr(r, "\"/pmrpc/nexus\""));
	r = tel_query("/help,/pmrpc/worker");
	assert_non_null(strstr(r, "worker_id"));
}

static void
test_workers_listed(void **state)
{
	long ids[8];

	(void)state;
	/* Ascending ids: the server 0 and the client 10. */
	assert_int_equal(tel_ints(tel_query("/pmrpc/workers"),
			"/pmrpc/workers", ids, RTE_DIM(ids)), 2);
	assert_int_equal(ids[0], 0);
	assert_int_equal(ids[1], 10);
}

static void
test_worker_counters(void **state)
{
	struct pmr_worker *ws[2] = { env.srv[0], env.cli[0] };
	struct pmr_transport_stats ts;
	struct pmr_worker_stats st;
	int nb_x;
	unsigned int i, k, nb_drops = 0;
	struct cont_rec c = { 0 };
	struct pmr_test_sess_ev e;
	char key[64];
	const char *r;
	int s;

	(void)state;
	s = pmr_test_connect(&env, env.cli[0], 0, &e);
	assert_int_equal(e.ev, PMR_SESSION_EV_CONNECTED);
	run_rpcs(s, 50, &c, true);
	for (i = 0; i < RTE_DIM(st.drops); i++)
		nb_drops += pmr_worker_drop_name(i) != NULL;

	/* Nothing polls while the telemetry thread reads: exact values. */
	for (k = 0; k < RTE_DIM(ws); k++) {
		pmr_worker_stats_get(ws[k], &st);
		worker_query(pmr_worker_id(ws[k]));
		r = tel_buf;
		assert_non_null(strstr(r, "{\"/pmrpc/worker\":{"));
		assert_int_equal(tel_u64(r, "worker_id"), pmr_worker_id(ws[k]));
		snprintf(key, sizeof(key), "\"nexus\":\"%s\"",
			pmr_nexus_uri(env.nx));
		assert_non_null(strstr(r, key));
		assert_int_equal(tel_u64(r, "reqs_completed"),
				st.reqs_completed);
		assert_int_equal(tel_u64(r, "reqs_sent"), st.reqs_sent);
		assert_int_equal(tel_u64(r, "tx_pkts"), st.tx_pkts);
		assert_int_equal(tel_u64(r, "rx_pkts"), st.rx_pkts);
		assert_int_equal(tel_u64(r, "tx_bytes"), st.tx_bytes);
		assert_int_equal(tel_u64(r, "rx_bytes"), st.rx_bytes);
		assert_int_equal(tel_u64(r, "reqs_handled"), st.reqs_handled);
		assert_int_equal(tel_u64(r, "resps_sent"), st.resps_sent);
		assert_int_equal(tel_u64(r, "rx_drops"), st.rx_drops);
		assert_int_equal(tel_u64(r, "retransmissions"),
				st.retransmissions);
		assert_int_equal(tel_u64(r, "timeouts"), st.timeouts);
		assert_int_equal(tel_u64(r, "dup_answered"), st.dup_answered);
		for (i = 0; i < RTE_DIM(st.drops); i++) {
			if (pmr_worker_drop_name(i) == NULL)
				continue;
			snprintf(key, sizeof(key), "drop_%s",
				pmr_worker_drop_name(i));
			assert_int_equal(tel_u64(r, key), st.drops[i]);
		}
		/*
		 * Every counter of the struct: the scalars, the named drops,
		 * and worker_id, nexus, sessions_in_use/max,
		 * requests_in_use/max, rc_qps_ready/draining and
		 * rc_ops_outstanding (no RC here: all 0); then its driver's
		 * stats and named counters.
		 */
		assert_int_equal(tel_u64(r, "rc_qps_ready"), 0);
		assert_int_equal(tel_u64(r, "rc_qps_draining"), 0);
		assert_int_equal(tel_u64(r, "rc_ops_outstanding"), 0);
		nb_x = pmr_transport_xstats_get(pmr_worker_queue(ws[k]),
				NULL, 0);
		assert_true(nb_x > 0);
		assert_int_equal(tel_nb_keys(r), sizeof(st) / sizeof(uint64_t) -
				RTE_DIM(st.drops) + nb_drops + 9 +
				sizeof(struct pmr_transport_stats) /
				sizeof(uint64_t) + (unsigned int)nb_x);
		assert_int_equal(pmr_transport_stats_get(
				pmr_worker_queue(ws[k]), &ts), 0);
		assert_int_equal(tel_u64(r, "driver_rx_pkts"), ts.rx_pkts);
		assert_int_equal(tel_u64(r, "driver_tx_pkts"), ts.tx_pkts);
		assert_int_equal(tel_u64(r, "driver_rx_dropped"),
				ts.rx_dropped);
		assert_int_equal(tel_u64(r, "sessions_in_use"), 1);
		assert_int_equal(tel_u64(r, "sessions_max"), 256);
		assert_int_equal(tel_u64(r, "requests_in_use"), 0);
		assert_int_equal(tel_u64(r, "requests_max"), 4096);
	}
	pmr_worker_stats_get(env.cli[0], &st);
	assert_int_equal(st.reqs_completed, 50);

	/* Requests not yet sent are in use. */
	run_rpcs(s, 20, &c, false);
	worker_query(10);
	assert_int_equal(tel_u64(tel_buf, "requests_in_use"), 20);
	PMR_TEST_POLL_UNTIL(&env, c.runs == 70);
	worker_query(10);
	assert_int_equal(tel_u64(tel_buf, "requests_in_use"), 0);
	assert_int_equal(tel_u64(tel_buf, "reqs_completed"), 70);
	assert_int_equal(pmr_session_destroy(env.cli[0], s), 0);
	worker_query(10);
	assert_int_equal(tel_u64(tel_buf, "sessions_in_use"), 0);
}

static void
test_worker_unknown(void **state)
{
	static const char *const bad[] = {
		"/pmrpc/worker,999", "/pmrpc/worker", "/pmrpc/worker,",
		"/pmrpc/worker,abc", "/pmrpc/worker,10x", "/pmrpc/worker,-1",
		"/pmrpc/worker,70000", "/pmrpc/worker,99999999999999999999",
	};
	unsigned int i;

	(void)state;
	/* A failed callback: telemetry answers null, the socket stays. */
	for (i = 0; i < RTE_DIM(bad); i++)
		assert_string_equal(tel_query(bad[i]),
				"{\"/pmrpc/worker\":null}");
	assert_string_equal(tel_query("/pmrpc/nexus,999"),
			"{\"/pmrpc/nexus\":null}");
	worker_query(10);
	assert_int_equal(tel_u64(tel_buf, "worker_id"), 10);
}

static void
test_destroyed_worker_gone(void **state)
{
	long ids[8];

	(void)state;
	assert_int_equal(pmr_worker_destroy(env.cli[0]), 0);
	env.cli[0] = NULL;
	assert_int_equal(tel_ints(tel_query("/pmrpc/workers"),
			"/pmrpc/workers", ids, RTE_DIM(ids)), 1);
	assert_int_equal(ids[0], 0);
	assert_string_equal(tel_query("/pmrpc/worker,10"),
			"{\"/pmrpc/worker\":null}");
	assert_int_equal(tel_ints(tel_query("/pmrpc/nexus"), "workers", ids,
			RTE_DIM(ids)), 1);

	assert_int_equal(pmr_worker_destroy(env.srv[0]), 0);
	env.srv[0] = NULL;
	assert_string_equal(tel_query("/pmrpc/workers"),
			"{\"/pmrpc/workers\":[]}");
	/* No worker, no nexus to show. */
	assert_string_equal(tel_query("/pmrpc/nexus"),
			"{\"/pmrpc/nexus\":null}");
}

static void
test_nexus(void **state)
{
	struct pmr_nexus_stats st;
	struct cont_rec c = { 0 };
	struct pmr_test_sess_ev e;
	char uri[PMR_URI_MAX + 16];
	const char *r;
	long ids[8];
	int s, bad;

	(void)state;
	s = pmr_test_connect(&env, env.cli[0], 0, &e);
	bad = pmr_test_connect(&env, env.cli[0], 7, &e);
	assert_int_equal(e.ev, PMR_SESSION_EV_CONNECT_FAILED);
	run_rpcs(s, 5, &c, true);
	assert_int_equal(pmr_nexus_stats_get(env.nx, &st), 0);
	snprintf(uri, sizeof(uri), "\"uri\":\"%s\"", pmr_nexus_uri(env.nx));

	r = tel_query("/pmrpc/nexus");
	assert_non_null(strstr(r, "{\"/pmrpc/nexus\":{"));
	assert_non_null(strstr(r, uri));
	assert_int_equal(tel_u64(r, "sessions_accepted"),
			st.sessions_accepted);
	assert_int_equal(tel_u64(r, "sessions_connected"),
			st.sessions_connected);
	assert_int_equal(tel_u64(r, "sessions_refused"), st.sessions_refused);
	assert_int_equal(tel_u64(r, "sessions_failed"), st.sessions_failed);
	assert_int_equal(tel_u64(r, "rx_msgs"), st.rx_msgs);
	assert_int_equal(tel_u64(r, "tx_msgs"), st.tx_msgs);
	assert_int_equal(tel_u64(r, "rx_bad"), st.rx_bad);
	assert_int_equal(tel_u64(r, "connect_retries"), st.connect_retries);
	assert_true(st.sessions_accepted >= 1);
	assert_true(st.sessions_failed >= 1);
	/* Every counter, the uri and the workers. */
	assert_int_equal(tel_nb_keys(r), sizeof(st) / sizeof(uint64_t) + 2);
	assert_int_equal(tel_ints(r, "workers", ids, RTE_DIM(ids)), 2);
	assert_int_equal(ids[0], 0);
	assert_int_equal(ids[1], 10);
	/* By worker id: the same nexus. */
	r = tel_query("/pmrpc/nexus,10");
	assert_non_null(strstr(r, uri));
	assert_int_equal(tel_u64(r, "sessions_accepted"),
			st.sessions_accepted);
	assert_int_equal(pmr_session_destroy(env.cli[0], bad), 0);
	assert_int_equal(pmr_session_destroy(env.cli[0], s), 0);
}

/* The server runs on its own lcore while telemetry reads its counters. */
static bool srv_stop;

static int
srv_loop(void *arg)
{
	while (!__atomic_load_n(&srv_stop, __ATOMIC_RELAXED))
		pmr_worker_poll(arg);
	return 0;
}

static void
test_read_while_running(void **state)
{
	unsigned int lcore = pmr_test_worker_lcore();
	struct pmr_worker *srv = env.srv[0];
	struct pmr_worker_stats st;
	struct cont_rec c = { 0 };
	struct pmr_test_sess_ev e;
	uint64_t v, last = 0;
	unsigned int round;
	int s;

	(void)state;
	if (lcore >= RTE_MAX_LCORE)
		skip();
	s = pmr_test_connect(&env, env.cli[0], 0, &e);
	srv_stop = false;
	env.srv[0] = NULL;
	assert_int_equal(rte_eal_remote_launch(srv_loop, srv, lcore), 0);
	for (round = 0; round < 20; round++) {
		run_rpcs(s, 50, &c, false);
		/* Some polls, so that requests are at the server... */
		pmr_test_env_poll(&env);
		/* ...which may be handling them now: never backwards. */
		worker_query(0);
		v = tel_u64(tel_buf, "reqs_handled");
		assert_true(v >= last);
		last = v;
		PMR_TEST_POLL_UNTIL(&env, c.runs == 50 * (round + 1));
	}
	assert_int_equal(c.bad, 0);
	__atomic_store_n(&srv_stop, true, __ATOMIC_RELAXED);
	assert_int_equal(rte_eal_wait_lcore(lcore), 0);
	env.srv[0] = srv;
	pmr_worker_stats_get(srv, &st);
	worker_query(0);
	assert_int_equal(tel_u64(tel_buf, "reqs_handled"), st.reqs_handled);
	assert_int_equal(st.reqs_handled, 1000);
	assert_int_equal(pmr_session_destroy(env.cli[0], s), 0);
}

/*
 * Defect 12: every frame a worker's queue receives shows in /pmrpc/worker:
 * delivered to the engine (driver_rx_pkts), then accepted (rx_pkts) or
 * dropped by the engine (rx_drops, drop_*), or dropped by the driver
 * (driver_rx_dropped, driver_rx_drop_*). Frames are injected into the
 * server's queue through the other end of its ring pair: random ones,
 * and well-formed headers with one field wrong for each reason the eth
 * driver has, in known numbers.
 */
#define D12_UDP 31901
#define D12_SRV_IP RTE_IPV4(10, 2, 0, 1)
#define D12_SRV_MAC "02:00:0a:02:00:01"
#define D12_RANDOM 2000
#define D12_EACH 7
#define D12_HDR_LEN 42	/* Ethernet, IPv4, UDP */

enum d12_kind {
	D12_VALID,	/* to the engine, which drops it (no session) */
	D12_IP_OPTIONS,	/* ditto, through the parser's slow path */
	D12_SHORT,
	D12_ETHERTYPE,
	D12_DST_MAC,
	D12_IP_VERSION,
	D12_IP_IHL,
	D12_IP_LEN,
	D12_IP_FRAG,
	D12_IP_CKSUM,
	D12_IP_PROTO,
	D12_DST_IP,
	D12_DST_PORT,
	D12_UDP_LEN,
	D12_UDP_CKSUM,
	D12_SEGMENTED,
	D12_KINDS
};

/* The driver's counter each kind lands in (NULL: delivered). */
static const char *const d12_reason[D12_KINDS] = {
	[D12_VALID] = NULL,
	[D12_IP_OPTIONS] = NULL,
	[D12_SHORT] = "driver_rx_drop_short",
	[D12_ETHERTYPE] = "driver_rx_drop_ethertype",
	[D12_DST_MAC] = "driver_rx_drop_dst_mac",
	[D12_IP_VERSION] = "driver_rx_drop_ip_version",
	[D12_IP_IHL] = "driver_rx_drop_ip_ihl",
	[D12_IP_LEN] = "driver_rx_drop_ip_len",
	[D12_IP_FRAG] = "driver_rx_drop_ip_frag",
	[D12_IP_CKSUM] = "driver_rx_drop_ip_cksum",
	[D12_IP_PROTO] = "driver_rx_drop_ip_proto",
	[D12_DST_IP] = "driver_rx_drop_dst_ip",
	[D12_DST_PORT] = "driver_rx_drop_dst_port",
	[D12_UDP_LEN] = "driver_rx_drop_udp_len",
	[D12_UDP_CKSUM] = "driver_rx_drop_udp_cksum",
	[D12_SEGMENTED] = "driver_rx_drop_segmented",
};

/* The server's counters that account for its frames, from telemetry. */
struct d12_counts {
	uint64_t drv_rx, drv_dropped, rx_pkts, rx_drops;
	uint64_t reason[D12_KINDS];
};

static void
d12_read(uint16_t id, struct d12_counts *c)
{
	unsigned int k;

	worker_query(id);
	c->drv_rx = tel_u64(tel_buf, "driver_rx_pkts");
	c->drv_dropped = tel_u64(tel_buf, "driver_rx_dropped");
	c->rx_pkts = tel_u64(tel_buf, "rx_pkts");
	c->rx_drops = tel_u64(tel_buf, "rx_drops");
	for (k = 0; k < D12_KINDS; k++)
		c->reason[k] = d12_reason[k] != NULL ?
			tel_u64(tel_buf, d12_reason[k]) : 0;
}

/* Sum of every driver_rx_drop_* of the last reply. */
static uint64_t
d12_drop_sum(void)
{
	const char *p = tel_buf, *key = "\"driver_rx_drop_";
	uint64_t sum = 0;

	while ((p = strstr(p, key)) != NULL) {
		p = strchr(p + strlen(key), ':');
		assert_non_null(p);
		sum += strtoull(p + 1, NULL, 10);
	}
	return sum;
}

/* A well-formed frame of len bytes to the server's queue. */
static void
d12_frame(uint8_t *f, uint32_t len, const struct rte_ether_addr *dst,
		uint32_t ihl)
{
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)f;
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 1);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)((uint8_t *)ip + ihl);
	uint32_t i;

	for (i = 0; i < len; i++)
		f[i] = (uint8_t)rte_rand();
	eth->dst_addr = *dst;
	memset(&eth->src_addr, 0x02, sizeof(eth->src_addr));
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ip->version_ihl = (uint8_t)(0x40 | ihl / 4);
	ip->type_of_service = 0;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(len - sizeof(*eth)));
	ip->packet_id = 0;
	ip->fragment_offset = rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = rte_cpu_to_be_32(RTE_IPV4(10, 2, 0, 99));
	ip->dst_addr = rte_cpu_to_be_32(D12_SRV_IP);
	udp->src_port = rte_cpu_to_be_16(4000);
	udp->dst_port = rte_cpu_to_be_16(D12_UDP);
	udp->dgram_len = rte_cpu_to_be_16((uint16_t)(len - sizeof(*eth) -
			ihl));
	udp->dgram_cksum = 0;
}

static void
d12_ip_cksum(uint8_t *f)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)
		(f + sizeof(struct rte_ether_hdr));

	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
}

/* Fill m as a frame of kind k (random: k == D12_KINDS). */
static void
d12_build(struct rte_mempool *mp, struct rte_mbuf *m, unsigned int k,
		const struct rte_ether_addr *mac)
{
	const uint32_t l2 = sizeof(struct rte_ether_hdr);
	uint32_t len = 64 + (uint32_t)rte_rand_max(1200);
	uint32_t ihl = k == D12_IP_OPTIONS ? 24 : 20;
	uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *);
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(f + l2);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)((uint8_t *)ip + ihl);
	struct rte_mbuf *m2;
	uint32_t i;

	if (k == D12_KINDS) {
		/* Random bytes, now and then from our MAC and IPv4 on. */
		len = 1 + (uint32_t)rte_rand_max(1514);
		for (i = 0; i < len; i++)
			f[i] = (uint8_t)rte_rand();
		if (len > l2 && rte_rand_max(2) == 0) {
			memcpy(f, mac, sizeof(*mac));
			f[12] = 0x08;
			f[13] = 0x00;
		}
		goto out;
	}
	d12_frame(f, len, mac, ihl);
	switch (k) {
	case D12_SHORT:
		len = 1 + (uint32_t)rte_rand_max(D12_HDR_LEN - 1);
		break;
	case D12_ETHERTYPE:
		f[12] = 0x86;
		f[13] = 0xdd;
		break;
	case D12_DST_MAC:
		f[0] ^= 0x04;
		break;
	case D12_IP_VERSION:
		ip->version_ihl = 0x65;
		break;
	case D12_IP_IHL:
		ip->version_ihl = 0x44;
		break;
	case D12_IP_LEN:
		ip->total_length = rte_cpu_to_be_16((uint16_t)(len - l2 + 1));
		break;
	case D12_IP_FRAG:
		ip->fragment_offset = rte_cpu_to_be_16(RTE_IPV4_HDR_MF_FLAG);
		break;
	case D12_IP_PROTO:
		ip->next_proto_id = IPPROTO_TCP;
		break;
	case D12_DST_IP:
		ip->dst_addr = rte_cpu_to_be_32(RTE_IPV4(10, 2, 0, 7));
		break;
	case D12_DST_PORT:
		udp->dst_port = rte_cpu_to_be_16(D12_UDP + 1);
		break;
	case D12_UDP_LEN:
		udp->dgram_len = rte_cpu_to_be_16(7);
		break;
	case D12_UDP_CKSUM:
		/* Any non-zero sum but the right one. */
		udp->dgram_cksum = 0;
		udp->dgram_cksum = (uint16_t)~rte_ipv4_udptcp_cksum(ip, udp);
		if (udp->dgram_cksum == 0)
			udp->dgram_cksum = 1;
		break;
	default:
		break;
	}
	if (k != D12_SHORT)
		d12_ip_cksum(f);
	if (k == D12_IP_CKSUM)
		ip->hdr_checksum ^= 0x0101;
out:
	m->data_len = (uint16_t)len;
	m->pkt_len = len;
	if (k == D12_SEGMENTED) {
		/* The same frame in two segments. */
		m2 = rte_pktmbuf_alloc(mp);
		assert_non_null(m2);
		m->data_len = (uint16_t)(len / 2);
		memcpy(rte_pktmbuf_mtod(m2, uint8_t *), f + len / 2,
			len - len / 2);
		m2->data_len = (uint16_t)(len - len / 2);
		assert_int_equal(rte_pktmbuf_chain(m, m2), 0);
	}
}

/* The server's queue on a known UDP port (defect 12 aims frames at it). */
static int
setup_d12(void **state)
{
	struct pmr_worker_conf srv = {
		.nb_msgbufs = 1024, .devargs = "udp=31901,mac=" D12_SRV_MAC,
	};

	(void)state;
	pmr_test_env_up(&env, 1, handlers, &srv, NULL);
	return 0;
}

static void
defect12_driver_drops_counted(void **state)
{
	const unsigned int total = D12_RANDOM + D12_EACH * D12_KINDS;
	uint16_t port = env.port_b[0];
	struct d12_counts c0, c;
	struct rte_ether_addr mac;
	struct rte_mbuf *m[64];
	struct rte_mempool *mp;
	unsigned int i, k, n, sent = 0, kinds[D12_RANDOM + D12_EACH *
		D12_KINDS];
	uint64_t delivered;

	(void)state;
	mp = rte_pktmbuf_pool_create("d12_pool", 4095, 0, 0,
			RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	assert_non_null(mp);
	assert_int_equal(rte_ether_unformat_addr(D12_SRV_MAC, &mac), 0);
	for (i = 0; i < total; i++)
		kinds[i] = i < D12_RANDOM ? D12_KINDS :
			(i - D12_RANDOM) % D12_KINDS;
	/* Shuffled, so that each kind meets the others in a burst. */
	for (i = total - 1; i > 0; i--) {
		k = (unsigned int)rte_rand_max(i + 1);
		n = kinds[i];
		kinds[i] = kinds[k];
		kinds[k] = n;
	}
	d12_read(0, &c0);

	while (sent < total) {
		n = RTE_MIN(RTE_DIM(m), total - sent);
		assert_int_equal(rte_pktmbuf_alloc_bulk(mp, m, n), 0);
		for (i = 0; i < n; i++)
			d12_build(mp, m[i], kinds[sent + i], &mac);
		/* Into the server's queue, polled until it took them. */
		k = rte_eth_tx_burst(port, 0, m, (uint16_t)n);
		rte_pktmbuf_free_bulk(&m[k], n - k);
		sent += k;
		pmr_test_env_poll(&env);
	}
	PMR_TEST_POLL_UNTIL(&env, rte_mempool_full(mp));

	/* Nothing polls while telemetry reads: exact values. */
	d12_read(0, &c);
	delivered = c.drv_rx - c0.drv_rx;
	assert_int_equal(delivered + c.drv_dropped - c0.drv_dropped, total);
	assert_int_equal(d12_drop_sum(), c.drv_dropped);
	/* No session: the engine drops every frame the driver delivers. */
	assert_int_equal(c.rx_pkts, c0.rx_pkts);
	assert_int_equal(c.rx_drops - c0.rx_drops, delivered);
	assert_true(delivered >= 2 * D12_EACH);
	for (k = 0; k < D12_KINDS; k++)
		if (d12_reason[k] != NULL)
			assert_true(c.reason[k] - c0.reason[k] >= D12_EACH);
	rte_mempool_free(mp);
}

/*
 * Defect 23 (stop 23's CI): every test process ran with the default file
 * prefix, so all shared /var/run/dpdk/rte. Each process starting connected
 * to the telemetry sockets already there, to see whether they were in
 * use, and so started threads in processes that were still mapping their
 * memory; under ASan one of them crashed (multiproc_many_clients). Each
 * test process now has a runtime directory of its own, holding its own
 * socket only.
 */
static void
defect23_own_runtime_dir(void **state)
{
	const char *dir = rte_eal_get_runtime_dir();
	char want[64], path[PATH_MAX];
	const char *base;
	int fd;

	(void)state;
	base = strrchr(dir, '/');
	assert_non_null(base);
	snprintf(want, sizeof(want), "pmrt%ld", (long)getpid());
	assert_string_equal(base + 1, want);
	snprintf(path, sizeof(path), "%s/dpdk_telemetry.v2:1", dir);
	assert_int_not_equal(access(path, F_OK), 0);
	/* The first instance is this process's (tel_try checks the pid). */
	snprintf(path, sizeof(path), "%s/dpdk_telemetry.v2", dir);
	fd = tel_try(path);
	assert_true(fd >= 0);
	close(fd);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_commands_listed,
			setup, teardown),
		cmocka_unit_test_setup_teardown(test_workers_listed,
			setup, teardown),
		cmocka_unit_test_setup_teardown(test_worker_counters,
			setup, teardown),
		cmocka_unit_test_setup_teardown(test_worker_unknown,
			setup, teardown),
		cmocka_unit_test_setup_teardown(test_destroyed_worker_gone,
			setup, teardown),
		cmocka_unit_test_setup_teardown(test_nexus,
			setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_while_running,
			setup, teardown),
		cmocka_unit_test_setup_teardown(defect12_driver_drops_counted,
			setup_d12, teardown),
		cmocka_unit_test(defect23_own_runtime_dir),
	};

	/* [filter [skip]]: the cases to run, as meson's entries ask. */
	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	if (argc > 2)
		cmocka_set_skip_filter(argv[2]);

	return cmocka_run_group_tests_name("telemetry", tests,
			group_setup, group_teardown);
}
