/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * The nexus against a hostile network (issue 10, defects 3 to 6): two
 * real nexuses in this process, each on its own 127.0.0.1 port, a real
 * client worker on nexus A and a real server worker on nexus B on a ring
 * pair, polled by the test's thread. The attacker is the test: it forges
 * datagrams from addresses it cannot receive at (a raw socket with
 * IP_HDRINCL, checksums right), among them the nexuses' own IP:port, and
 * watches what the nexuses send with a packet socket on lo. The attacker
 * is given both nexuses' boot ids (read from their state): nothing may
 * depend on keeping them secret.
 *
 * One group of cases per meson test (argv[1] is a cmocka filter).
 */

#include "pmr_test_rpc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <netinet/ip.h>
#include <netinet/udp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <rte_random.h>

#include "nexus_private.h"
#include "nexus_wire.h"

#define SRV_ID 0
#define CLI_ID 10
/* Sources nothing in the test receives at (lo routes all of 127/8). */
#define SPOOF_NET "127.77.0.0"
/* Real sources of the test's own raw UDP sockets (not the nexuses'). */
#define FLOODER_IP "127.0.0.2"
#define HOG_IP "127.0.0.3"
#define CAPPED_IP "127.0.0.4"

#define HB_MS 50
#define PEER_TIMEOUT_MS 600

static uint64_t
now_ms(void)
{
	return pmr_test_now_ns() / 1000000;
}

/* Two nexuses: A with a client worker, B with a server worker. */
struct henv {
	char pair[16];
	uint16_t pa, pb;
	struct pmr_nexus *a, *b;
	struct pmr_worker *ca, *sb;
	struct sockaddr_in a_addr, b_addr;
};

static unsigned int henv_seq;

static struct sockaddr_in
nexus_sockaddr(struct pmr_nexus *nx)
{
	const char *colon = strrchr(pmr_nexus_uri(nx), ':');
	struct sockaddr_in sa = {
		.sin_family = AF_INET,
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};

	assert_non_null(colon);
	sa.sin_port = htons((uint16_t)atoi(colon + 1));
	return sa;
}

static struct pmr_worker *
worker_on(struct pmr_nexus *nx, uint16_t id, uint16_t port, const char *ip,
		uint32_t max_sessions)
{
	struct pmr_worker_conf conf = {
		.worker_id = id,
		.nb_msgbufs = 1024,
		.max_sessions = max_sessions,
	};
	struct pmr_worker *w;
	char args[64];

	snprintf(args, sizeof(args), "port=%u,ip=%s", port, ip);
	conf.devargs = args;
	w = pmr_worker_create(nx, &conf);
	assert_non_null(w);
	return w;
}

static void
henv_up_conf(struct henv *e, const struct pmr_nexus_conf *aconf,
		const struct pmr_nexus_conf *bconf, uint32_t srv_sessions)
{
	memset(e, 0, sizeof(*e));
	snprintf(e->pair, sizeof(e->pair), "hn%u", henv_seq++);
	assert_int_equal(pmr_test_ring_pair(e->pair, &e->pa, &e->pb), 0);
	e->a = pmr_nexus_create("127.0.0.1:0", aconf);
	assert_non_null(e->a);
	e->b = pmr_nexus_create("127.0.0.1:0", bconf);
	assert_non_null(e->b);
	e->a_addr = nexus_sockaddr(e->a);
	e->b_addr = nexus_sockaddr(e->b);
	e->ca = worker_on(e->a, CLI_ID, e->pa, "10.9.0.1", 0);
	e->sb = worker_on(e->b, SRV_ID, e->pb, "10.9.0.2", srv_sessions);
}

static void
henv_up_timeout(struct henv *e, uint32_t peer_timeout_ms)
{
	struct pmr_nexus_conf conf = {
		.connect_timeout_ms = 10000,
		.heartbeat_interval_ms = HB_MS,
		.peer_timeout_ms = peer_timeout_ms,
	};

	henv_up_conf(e, &conf, &conf, 0);
}

static void
henv_up(struct henv *e)
{
	henv_up_timeout(e, PEER_TIMEOUT_MS);
}

static void
henv_down(struct henv *e)
{
	assert_int_equal(pmr_worker_destroy(e->ca), 0);
	assert_int_equal(pmr_worker_destroy(e->sb), 0);
	assert_int_equal(pmr_nexus_destroy(e->a), 0);
	assert_int_equal(pmr_nexus_destroy(e->b), 0);
	pmr_test_ring_pair_free(e->pair, e->pa, e->pb);
}

static void
henv_poll(struct henv *e)
{
	pmr_worker_poll(e->ca);
	pmr_worker_poll(e->sb);
}

/* Poll for ms milliseconds. */
static void
henv_poll_for(struct henv *e, unsigned int ms)
{
	uint64_t end = now_ms() + ms;

	while (now_ms() < end) {
		henv_poll(e);
		usleep(200);
	}
}

#define HENV_POLL_UNTIL(e, cond) do { \
	uint64_t deadline_ = pmr_test_now_ns() + PMR_TEST_WAIT_NS; \
	while (!(cond)) { \
		henv_poll(e); \
		assert_true(pmr_test_now_ns() < deadline_); \
	} \
} while (0)

static struct pmr_nexus_stats
nstats(struct pmr_nexus *nx)
{
	struct pmr_nexus_stats st;

	assert_int_equal(pmr_nexus_stats_get(nx, &st), 0);
	return st;
}

/* Open a session from A's client worker to B's server worker. */
static int
henv_connect(struct henv *e, struct pmr_test_sess_ev *ev)
{
	int s;

	memset(ev, 0, sizeof(*ev));
	s = pmr_session_create(e->ca, pmr_nexus_uri(e->b), SRV_ID,
			pmr_test_on_session, ev);
	assert_true(s >= 0);
	HENV_POLL_UNTIL(e, ev->count > 0);
	return s;
}

static uint64_t
boot_of(struct pmr_nexus *nx)
{
	uint64_t b;

	pthread_mutex_lock(&nx->lock);
	b = nx->boot_id;
	pthread_mutex_unlock(&nx->lock);
	return b;
}

static uint64_t
rand_nz(void)
{
	uint64_t v;

	do
		v = rte_rand();
	while (v == 0);
	return v;
}

/* Forging datagrams: a raw IPv4 socket, the headers written here. */

static uint16_t
csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static uint32_t
csum_add(uint32_t sum, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)((p[i] << 8) | p[i + 1]);
	if (len & 1)
		sum += (uint32_t)(p[len - 1] << 8);
	return sum;
}

static int spoof_fd = -1;

/* Send payload to to, from from (an address the test may not own). */
static void
spoof_send(const struct sockaddr_in *from, const struct sockaddr_in *to,
		const void *payload, size_t len)
{
	uint8_t pkt[sizeof(struct iphdr) + sizeof(struct udphdr) +
		NEXUS_WIRE_MAX_LEN + 64];
	struct iphdr *ip = (struct iphdr *)pkt;
	struct udphdr *udp = (struct udphdr *)(ip + 1);
	size_t total = sizeof(*ip) + sizeof(*udp) + len;
	uint8_t pseudo[12];
	uint32_t sum;
	int one = 1;

	assert_true(len <= NEXUS_WIRE_MAX_LEN + 64);
	if (spoof_fd < 0) {
		spoof_fd = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
		assert_true(spoof_fd >= 0);
		assert_int_equal(setsockopt(spoof_fd, IPPROTO_IP, IP_HDRINCL,
				&one, sizeof(one)), 0);
	}
	memset(pkt, 0, sizeof(*ip) + sizeof(*udp));
	ip->version = 4;
	ip->ihl = 5;
	ip->tot_len = htons((uint16_t)total);
	ip->id = htons((uint16_t)rte_rand());
	ip->ttl = 64;
	ip->protocol = IPPROTO_UDP;
	ip->saddr = from->sin_addr.s_addr;
	ip->daddr = to->sin_addr.s_addr;
	ip->check = htons(csum_fold(csum_add(0, ip, sizeof(*ip))));
	udp->source = from->sin_port;
	udp->dest = to->sin_port;
	udp->len = htons((uint16_t)(sizeof(*udp) + len));
	memcpy(udp + 1, payload, len);
	memcpy(pseudo, &ip->saddr, 4);
	memcpy(pseudo + 4, &ip->daddr, 4);
	pseudo[8] = 0;
	pseudo[9] = IPPROTO_UDP;
	memcpy(pseudo + 10, &udp->len, 2);
	sum = csum_add(0, pseudo, sizeof(pseudo));
	sum = csum_add(sum, udp, sizeof(*udp) + len);
	udp->check = htons(csum_fold(sum));
	if (udp->check == 0)
		udp->check = 0xffff;
	assert_int_equal(sendto(spoof_fd, pkt, total, 0,
			(const struct sockaddr *)to, sizeof(*to)),
			(ssize_t)total);
}

static void
spoof_msg(const struct sockaddr_in *from, const struct sockaddr_in *to,
		const struct nexus_wire_msg *m)
{
	uint8_t buf[NEXUS_WIRE_MAX_LEN];
	int len = nexus_wire_encode(m, buf, sizeof(buf));

	assert_true(len > 0);
	spoof_send(from, to, buf, (size_t)len);
}

/* Watching lo: a packet socket, UDP datagrams as the kernel delivers them. */

struct sniffed {
	struct sockaddr_in src, dst;
	uint8_t data[NEXUS_WIRE_MAX_LEN + 64];
	size_t len;		/* of data, maybe truncated */
	size_t udp_len;		/* the datagram's real length */
};

static int
sniff_open(void)
{
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_protocol = htons(ETH_P_IP),
	};
	int rcvbuf = 16 << 20;
	int fd;

	fd = socket(AF_PACKET, SOCK_DGRAM | SOCK_NONBLOCK, htons(ETH_P_IP));
	assert_true(fd >= 0);
	sll.sll_ifindex = (int)if_nametoindex("lo");
	assert_true(sll.sll_ifindex > 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sll, sizeof(sll)), 0);
	setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf));
	return fd;
}

/* Next UDP datagram seen on lo (once: inbound copies only); 0 or -1. */
static int
sniff_next(int fd, struct sniffed *s)
{
	uint8_t pkt[2048];
	struct sockaddr_ll sll;
	socklen_t slen;
	const struct iphdr *ip = (const struct iphdr *)pkt;
	const struct udphdr *udp;
	ssize_t n;
	size_t hl;

	for (;;) {
		slen = sizeof(sll);
		n = recvfrom(fd, pkt, sizeof(pkt), 0,
				(struct sockaddr *)&sll, &slen);
		if (n < 0)
			return -1;
		if (sll.sll_pkttype == PACKET_OUTGOING)
			continue;
		if ((size_t)n < sizeof(*ip) || ip->version != 4 ||
		    ip->protocol != IPPROTO_UDP)
			continue;
		hl = (size_t)ip->ihl * 4;
		if ((size_t)n < hl + sizeof(*udp))
			continue;
		udp = (const struct udphdr *)(pkt + hl);
		memset(s, 0, sizeof(*s));
		s->src.sin_family = AF_INET;
		s->src.sin_addr.s_addr = ip->saddr;
		s->src.sin_port = udp->source;
		s->dst.sin_family = AF_INET;
		s->dst.sin_addr.s_addr = ip->daddr;
		s->dst.sin_port = udp->dest;
		s->udp_len = ntohs(udp->len) - sizeof(*udp);
		s->len = RTE_MIN((size_t)n - hl - sizeof(*udp),
				sizeof(s->data));
		s->len = RTE_MIN(s->len, s->udp_len);
		memcpy(s->data, udp + 1, s->len);
		return 0;
	}
}

static bool
same_sa(const struct sockaddr_in *a, const struct sockaddr_in *b)
{
	return a->sin_addr.s_addr == b->sin_addr.s_addr &&
		a->sin_port == b->sin_port;
}

/*
 * Open and close one session while watching lo: the first CONNECT_REQ A
 * sent B, as bytes, a template for forged ones (its queue address is
 * real).
 */
static size_t
capture_req(struct henv *e, uint8_t *req)
{
	struct pmr_test_sess_ev ev;
	struct nexus_wire_msg m;
	struct sniffed s;
	size_t len = 0;
	int fd, sn;

	fd = sniff_open();
	sn = henv_connect(e, &ev);
	assert_int_equal(ev.ev, PMR_SESSION_EV_CONNECTED);
	while (sniff_next(fd, &s) == 0) {
		if (!same_sa(&s.src, &e->a_addr) ||
		    !same_sa(&s.dst, &e->b_addr) ||
		    nexus_wire_decode(s.data, s.len, &m) != 0 ||
		    m.type != NEXUS_WIRE_CONNECT_REQ)
			continue;
		memcpy(req, s.data, s.len);
		len = s.len;
		break;
	}
	close(fd);
	assert_true(len > 0);
	assert_int_equal(pmr_session_destroy(e->ca, sn), 0);
	henv_poll_for(e, 50);
	return len;
}

/* A UDP socket of the test's own, bound to ip, that receives. */
static int
udp_open(const char *ip)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	int rcvbuf = 8 << 20;
	int fd;

	assert_int_equal(inet_pton(AF_INET, ip, &sa.sin_addr), 1);
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	assert_true(fd >= 0);
	setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf));
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	return fd;
}

static void
udp_send_msg(int fd, const struct sockaddr_in *to,
		const struct nexus_wire_msg *m)
{
	uint8_t buf[NEXUS_WIRE_MAX_LEN];
	int len = nexus_wire_encode(m, buf, sizeof(buf));

	assert_true(len > 0);
	assert_int_equal(sendto(fd, buf, (size_t)len, 0,
			(const struct sockaddr *)to, sizeof(*to)), len);
}

/* Next message (not a HEARTBEAT) within ms while polling e; 0 or -1. */
static int
udp_recv_msg(struct henv *e, int fd, struct nexus_wire_msg *m,
		unsigned int ms)
{
	uint8_t buf[NEXUS_WIRE_MAX_LEN + 64];
	uint64_t end = now_ms() + ms;
	ssize_t n;

	for (;;) {
		n = recv(fd, buf, sizeof(buf), 0);
		if (n > 0 && nexus_wire_decode(buf, (size_t)n, m) == 0) {
			if (m->type != NEXUS_WIRE_HEARTBEAT)
				return 0;
			continue;
		}
		if (n > 0)
			continue;
		if (now_ms() > end)
			return -1;
		henv_poll(e);
		usleep(200);
	}
}

/*
 * Send CONNECT_REQ req from fd (a real source: it does what an honest
 * client does with any reply that asks it to repeat the request) and
 * return the final answer's type, ACCEPT or REFUSE; *ans is the answer.
 */
static uint16_t
udp_handshake(struct henv *e, int fd, struct nexus_wire_msg *req,
		struct nexus_wire_msg *ans)
{
	uint64_t end = now_ms() + 20000;

	req->req.cookie = 0;
	udp_send_msg(fd, &e->b_addr, req);
	for (;;) {
		assert_true(now_ms() < end);
		if (udp_recv_msg(e, fd, ans, 300) != 0) {
			udp_send_msg(fd, &e->b_addr, req);	/* lost */
			continue;
		}
		if (ans->hs_id != req->hs_id)
			continue;
		if (ans->type == NEXUS_WIRE_COOKIE) {
			req->req.cookie = ans->cookie.cookie;
			udp_send_msg(fd, &e->b_addr, req);
			continue;
		}
		if (ans->type == NEXUS_WIRE_ACCEPT ||
		    ans->type == NEXUS_WIRE_REFUSE)
			return ans->type;
	}
}

static int
group_setup(void **state)
{
	return pmr_test_eal_setup(state);
}

static int
group_teardown(void **state)
{
	if (spoof_fd >= 0)
		close(spoof_fd);
	return pmr_test_eal_teardown(state);
}

/*
 * Defect 3: a heartbeat forged from the victim's peer's own IP:port with a
 * new boot id (and one from the victim's own address to the peer), and
 * replays of real heartbeats, reset nothing.
 */
static void
defect3_spoofed_boot_id(void **state)
{
	struct pmr_test_sess_ev ev;
	struct nexus_wire_msg hb;
	struct sniffed s, real[8];
	unsigned int nb_real = 0, i;
	uint64_t end;
	int fd, sn;

	struct henv e;

	(void)state;
	/*
	 * A long peer timeout: only a believed forgery can reset anything
	 * here, never a nexus thread starved on a loaded machine.
	 */
	henv_up_timeout(&e, 10000);
	fd = sniff_open();
	sn = henv_connect(&e, &ev);
	assert_int_equal(ev.ev, PMR_SESSION_EV_CONNECTED);
	/* Real heartbeats B -> A, for replay. */
	end = now_ms() + 10000;
	while (nb_real < RTE_DIM(real) && now_ms() < end) {
		henv_poll(&e);
		if (sniff_next(fd, &s) != 0 || !same_sa(&s.src, &e.b_addr) ||
		    !same_sa(&s.dst, &e.a_addr) ||
		    nexus_wire_decode(s.data, s.len, &hb) != 0 ||
		    hb.type != NEXUS_WIRE_HEARTBEAT)
			continue;
		real[nb_real++] = s;
	}
	close(fd);
	assert_true(nb_real > 0);

	for (i = 0; i < 20; i++) {
		/* A counter far ahead, and a MAC it has to guess. */
		hb = (struct nexus_wire_msg){
			.type = NEXUS_WIRE_HEARTBEAT,
			.hb = {
				.boot_id = rand_nz(),
				.peer_boot_id = boot_of(e.a),
				.counter = UINT64_MAX - i,
				.mac = rte_rand(),
			},
		};
		spoof_msg(&e.b_addr, &e.a_addr, &hb);
		hb.hb.boot_id = rand_nz();
		hb.hb.peer_boot_id = boot_of(e.b);
		spoof_msg(&e.a_addr, &e.b_addr, &hb);
		spoof_send(&e.b_addr, &e.a_addr, real[i % nb_real].data,
				real[i % nb_real].len);
		henv_poll_for(&e, 10);
	}
	/* Several heartbeat intervals for anything to show. */
	henv_poll_for(&e, 5 * HB_MS);
	assert_int_equal(pmr_session_state(e.ca, sn), PMR_SESSION_CONNECTED);
	assert_int_equal(ev.count, 1);
	assert_int_equal(nstats(e.a).sessions_reset, 0);
	assert_int_equal(nstats(e.b).sessions_reset, 0);
	assert_int_equal(nstats(e.a).peers_dead, 0);
	assert_int_equal(nstats(e.b).peers_dead, 0);
	/* The forgeries were seen, counted and ignored. */
	assert_true(nstats(e.a).heartbeats_rejected >= 1);
	assert_true(nstats(e.b).heartbeats_rejected >= 1);
	assert_true(nstats(e.a).heartbeats_replayed >= 1);

	assert_int_equal(pmr_session_destroy(e.ca, sn), 0);
	henv_poll_for(&e, 50);
	henv_down(&e);
}

/*
 * Defect 4: with B silent (its nexus thread held), decodable junk forged
 * from B's address, and replays of B's real heartbeats, do not keep B
 * alive at A: A resets the session after peer_timeout_ms.
 */
static void
junk_keepalive(bool replay)
{
	struct pmr_test_sess_ev ev;
	struct nexus_wire_msg m;
	struct sniffed s, real[8];
	unsigned int nb_real = 0, i = 0;
	uint64_t end, a_boot, b_boot;
	struct henv e;
	int fd, sn;

	henv_up(&e);
	fd = sniff_open();
	sn = henv_connect(&e, &ev);
	assert_int_equal(ev.ev, PMR_SESSION_EV_CONNECTED);
	end = now_ms() + 10000;
	while (replay && nb_real < RTE_DIM(real) && now_ms() < end) {
		henv_poll(&e);
		if (sniff_next(fd, &s) != 0 || !same_sa(&s.src, &e.b_addr) ||
		    !same_sa(&s.dst, &e.a_addr) ||
		    nexus_wire_decode(s.data, s.len, &m) != 0 ||
		    m.type != NEXUS_WIRE_HEARTBEAT)
			continue;
		real[nb_real++] = s;
	}
	close(fd);
	assert_true(!replay || nb_real > 0);

	/* B goes silent. */
	a_boot = boot_of(e.a);
	b_boot = boot_of(e.b);
	pthread_mutex_lock(&e.b->lock);
	end = now_ms() + 20 * PEER_TIMEOUT_MS;
	while (pmr_session_state(e.ca, sn) == PMR_SESSION_CONNECTED &&
	       now_ms() < end) {
		if (replay) {
			spoof_send(&e.b_addr, &e.a_addr,
					real[i % nb_real].data,
					real[i % nb_real].len);
		} else {
			m = (struct nexus_wire_msg){
				.type = NEXUS_WIRE_REFUSE,
				.hs_id = rand_nz(),
				.refuse = {
					.client_worker = CLI_ID,
					.client_session = (uint16_t)sn,
					.server_worker = SRV_ID,
					.status = PMR_SM_E_NO_RESOURCES,
				},
			};
			spoof_msg(&e.b_addr, &e.a_addr, &m);
			m = (struct nexus_wire_msg){
				.type = NEXUS_WIRE_DISCONNECT,
				.hs_id = rand_nz(),
				.disc = {
					.dst_worker = CLI_ID,
					.dst_session = (uint16_t)sn,
					.src_worker = SRV_ID,
				},
			};
			spoof_msg(&e.b_addr, &e.a_addr, &m);
			/* Right boot ids, no key. */
			m = (struct nexus_wire_msg){
				.type = NEXUS_WIRE_HEARTBEAT,
				.hb = {
					.boot_id = b_boot,
					.peer_boot_id = a_boot,
					.counter = UINT64_MAX - i,
					.mac = rte_rand(),
				},
			};
			spoof_msg(&e.b_addr, &e.a_addr, &m);
		}
		i++;
		henv_poll_for(&e, 20);
	}
	assert_int_equal(pmr_session_state(e.ca, sn), PMR_SESSION_RESET);
	assert_int_equal(ev.ev, PMR_SESSION_EV_RESET);
	assert_int_equal(nstats(e.a).peers_dead, 1);
	/* What came was seen and not taken for life. */
	if (replay)
		assert_true(nstats(e.a).heartbeats_replayed >= 1);
	else
		assert_true(nstats(e.a).heartbeats_rejected >= 1);
	pthread_mutex_unlock(&e.b->lock);

	assert_int_equal(pmr_session_destroy(e.ca, sn), 0);
	/* B finds A silent in turn and frees its end. */
	HENV_POLL_UNTIL(&e, nstats(e.b).sessions_reset == 1);
	henv_poll_for(&e, 50);
	henv_down(&e);
}

static void
defect4_junk_keepalive(void **state)
{
	(void)state;
	junk_keepalive(false);
}

static void
defect4_replayed_heartbeats(void **state)
{
	(void)state;
	junk_keepalive(true);
}

/*
 * Defect 5 (nexus half): a CONNECT_REQ asking for 65535 credits is
 * accepted with no more than the server worker's own (8, the default).
 */
static void
defect5_credit_hog(void **state)
{
	uint8_t tmpl[NEXUS_WIRE_MAX_LEN];
	struct nexus_wire_msg req, ans;
	struct pmr_test_sess_ev ev;
	struct henv e;
	size_t len;
	int fd, sn;

	(void)state;
	henv_up(&e);
	len = capture_req(&e, tmpl);
	assert_int_equal(nexus_wire_decode(tmpl, len, &req), 0);
	fd = udp_open(HOG_IP);
	req.hs_id = rand_nz();
	req.req.client_session = 77;
	req.req.credits = 65535;
	assert_int_equal(udp_handshake(&e, fd, &req, &ans), NEXUS_WIRE_ACCEPT);
	assert_true(ans.accept.credits >= 1 && ans.accept.credits <= 8);
	/* A real client still gets in. */
	sn = henv_connect(&e, &ev);
	assert_int_equal(ev.ev, PMR_SESSION_EV_CONNECTED);
	assert_int_equal(pmr_session_destroy(e.ca, sn), 0);
	close(fd);
	henv_poll_for(&e, 50);
	henv_down(&e);
}

/*
 * Defect 6: thousands of CONNECT_REQs forged from addresses nothing
 * receives at, and a flood from one real source, while a real client
 * connects: it does, no session is made for a forged source, and those
 * get nothing but at most one small COOKIE per datagram.
 */
static void
defect6_flood(void **state)
{
	uint8_t tmpl[NEXUS_WIRE_MAX_LEN];
	struct nexus_wire_msg req, ans, m;
	struct pmr_nexus_conf conf = {
		.connect_timeout_ms = 10000,
		.max_sessions_per_source = 16,
	};
	struct pmr_test_sess_ev ev;
	struct sockaddr_in from = { .sin_family = AF_INET };
	struct sniffed s;
	unsigned int spoofed = 3000, replies = 0, i, accepted, k;
	static uint8_t got[3000];
	uint64_t base_accepted;
	struct henv e;
	size_t len;
	int fd, sfd, sn;

	(void)state;
	henv_up_conf(&e, &conf, &conf, 0);
	len = capture_req(&e, tmpl);
	assert_int_equal(nexus_wire_decode(tmpl, len, &req), 0);
	base_accepted = nstats(e.b).sessions_accepted;
	sfd = sniff_open();
	fd = udp_open(FLOODER_IP);
	memset(got, 0, sizeof(got));

	/* The real client starts connecting... */
	memset(&ev, 0, sizeof(ev));
	sn = pmr_session_create(e.ca, pmr_nexus_uri(e.b), SRV_ID,
			pmr_test_on_session, &ev);
	assert_true(sn >= 0);
	/* ... amid forged requests and the real source's. */
	for (i = 0; i < spoofed; i++) {
		from.sin_addr.s_addr = htonl(ntohl(inet_addr(SPOOF_NET)) +
				1 + (i % 60000));
		from.sin_port = htons((uint16_t)(1024 + i));
		req.hs_id = rand_nz();
		req.req.client_session = (uint16_t)i;
		spoof_msg(&from, &e.b_addr, &req);
		if (i % 3 == 0) {
			req.hs_id = rand_nz();
			udp_send_msg(fd, &e.b_addr, &req);
		}
		if (i % 64 == 0)
			henv_poll(&e);
	}
	HENV_POLL_UNTIL(&e, ev.count > 0);
	assert_int_equal(ev.ev, PMR_SESSION_EV_CONNECTED);

	/* The real source repeats what it is asked to: at most 16 get in. */
	accepted = 0;
	for (i = 0; i < 32; i++) {
		req.hs_id = rand_nz();
		req.req.client_session = (uint16_t)(5000 + i);
		if (udp_handshake(&e, fd, &req, &ans) == NEXUS_WIRE_ACCEPT)
			accepted++;
		else
			assert_int_equal(ans.refuse.status,
					PMR_SM_E_NO_RESOURCES);
	}
	assert_true(accepted >= 1 && accepted <= 16);
	henv_poll_for(&e, 200);

	/* No session but the real client's and the real source's. */
	assert_true(nstats(e.b).sessions_accepted - base_accepted <=
			1 + 16);
	/* Forged sources got small COOKIEs only, never more than asked. */
	while (sniff_next(sfd, &s) == 0) {
		if (!same_sa(&s.src, &e.b_addr) ||
		    (ntohl(s.dst.sin_addr.s_addr) >> 16) !=
		    (ntohl(inet_addr(SPOOF_NET)) >> 16))
			continue;
		replies++;
		assert_int_equal(nexus_wire_decode(s.data, s.len, &m), 0);
		assert_int_equal(m.type, NEXUS_WIRE_COOKIE);
		assert_true(s.udp_len <= len);
		/* One request each: one COOKIE at most. */
		k = ntohs(s.dst.sin_port) - 1024u;
		assert_true(k < spoofed);
		assert_int_equal(got[k]++, 0);
	}
	/* The watch works: the forged sources did get their COOKIEs. */
	assert_true(replies > 0 && replies <= spoofed);
	assert_true(nstats(e.b).cookies_sent >= replies);
	close(sfd);
	close(fd);
	assert_int_equal(pmr_session_destroy(e.ca, sn), 0);
	henv_poll_for(&e, 50);
	henv_down(&e);
}

/*
 * Defect 6: one source IP holds at most max_sessions_per_source sessions
 * and pending handshakes; more are refused (NO_RESOURCES), and room
 * comes back when one closes.
 */
static void
defect6_per_source_cap(void **state)
{
	uint8_t tmpl[NEXUS_WIRE_MAX_LEN];
	struct nexus_wire_msg req, ans, first, disc;
	struct pmr_nexus_conf conf = {
		.connect_timeout_ms = 10000,
		.max_sessions_per_source = 4,
	};
	unsigned int i, accepted = 0;
	struct henv e;
	size_t len;
	int fd;

	(void)state;
	henv_up_conf(&e, &conf, &conf, 0);
	len = capture_req(&e, tmpl);
	assert_int_equal(nexus_wire_decode(tmpl, len, &req), 0);
	fd = udp_open(CAPPED_IP);
	memset(&first, 0, sizeof(first));
	for (i = 0; i < 8; i++) {
		req.hs_id = rand_nz();
		req.req.client_session = (uint16_t)(100 + i);
		if (udp_handshake(&e, fd, &req, &ans) == NEXUS_WIRE_ACCEPT) {
			if (accepted++ == 0)
				first = ans;
		} else {
			assert_int_equal(ans.refuse.status,
					PMR_SM_E_NO_RESOURCES);
		}
	}
	assert_int_equal(accepted, 4);
	assert_int_equal(nstats(e.b).refused_per_source, 4);

	/* One closes: room for one more. */
	disc = (struct nexus_wire_msg){
		.type = NEXUS_WIRE_DISCONNECT,
		.hs_id = first.hs_id,
		.disc = {
			.dst_worker = first.accept.server_worker,
			.dst_session = first.accept.server_session,
			.src_worker = first.accept.client_worker,
			.src_session = first.accept.client_session,
		},
	};
	udp_send_msg(fd, &e.b_addr, &disc);
	henv_poll_for(&e, 200);
	req.hs_id = rand_nz();
	req.req.client_session = 200;
	assert_int_equal(udp_handshake(&e, fd, &req, &ans), NEXUS_WIRE_ACCEPT);
	close(fd);
	henv_poll_for(&e, 50);
	henv_down(&e);
}

/*
 * Defect 6: a client refused for want of room (NO_RESOURCES) retries with
 * backoff until its connect timeout, and connects once room frees up.
 */
static void
defect6_refused_retries(void **state)
{
	struct pmr_nexus_conf conf = {
		.connect_timeout_ms = 10000,
		.heartbeat_interval_ms = HB_MS,
		.peer_timeout_ms = PEER_TIMEOUT_MS,
	};
	struct pmr_test_sess_ev ev1, ev2;
	uint64_t refused;
	struct henv e;
	int s1, s2;

	(void)state;
	henv_up_conf(&e, &conf, &conf, 1);
	s1 = henv_connect(&e, &ev1);
	assert_int_equal(ev1.ev, PMR_SESSION_EV_CONNECTED);
	refused = nstats(e.b).sessions_refused;
	memset(&ev2, 0, sizeof(ev2));
	s2 = pmr_session_create(e.ca, pmr_nexus_uri(e.b), SRV_ID,
			pmr_test_on_session, &ev2);
	assert_true(s2 >= 0);
	/* Refused (the server has one session), and still trying. */
	HENV_POLL_UNTIL(&e, nstats(e.b).sessions_refused > refused ||
			ev2.count > 0);
	henv_poll_for(&e, 300);
	assert_int_equal(ev2.count, 0);
	assert_int_equal(pmr_session_state(e.ca, s2), PMR_SESSION_CONNECTING);
	/* Room frees up. */
	assert_int_equal(pmr_session_destroy(e.ca, s1), 0);
	HENV_POLL_UNTIL(&e, ev2.count > 0);
	assert_int_equal(ev2.ev, PMR_SESSION_EV_CONNECTED);
	assert_int_equal(pmr_session_destroy(e.ca, s2), 0);
	henv_poll_for(&e, 50);
	henv_down(&e);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(defect3_spoofed_boot_id),
		cmocka_unit_test(defect4_junk_keepalive),
		cmocka_unit_test(defect4_replayed_heartbeats),
		cmocka_unit_test(defect5_credit_hog),
		cmocka_unit_test(defect6_flood),
		cmocka_unit_test(defect6_per_source_cap),
		cmocka_unit_test(defect6_refused_retries),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
