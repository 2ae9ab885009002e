/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * The nexus's control thread: it sleeps in poll() on the UDP socket, an
 * eventfd (for a prompt stop), the RC QP maker's eventfd (QPs made off
 * this thread, nexus_rc_make.c) and the workers' devices' async event fds
 * (nexus_events.c), and on each wake-up receives datagrams, reads events,
 * drains the worker rings, looks for a stall of its own, and runs the
 * handshake and heartbeat timers; it sleeps no longer than
 * poll_interval_ms, nor past the next heartbeat or peer deadline. Also the
 * UDP send path, the clock and the random numbers the nexus uses.
 *
 * Placement: rte_ctrl_thread_create() makes it a DPDK control thread,
 * which EAL pins to its control cpuset: the CPUs of the process's
 * affinity at rte_eal_init() that no lcore uses, or, when lcores use them
 * all, the main lcore's. It is a SCHED_OTHER thread (it inherits the
 * creator's policy, and EAL sets none) that sleeps in poll(), so a
 * busy-polling lcore on the same CPU does not keep it from running when
 * it wakes; what still keeps it off the CPU for a while (other load,
 * cgroup quotas, a VM's steal time, an application thread holding its
 * lock) is a stall, which it measures and does not hold against its
 * peers (nexus_heartbeat.c).
 */

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <rte_lcore.h>
#include <rte_random.h>

#include "nexus_private.h"

#define NS_PER_MS UINT64_C(1000000)

uint64_t
nexus_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / NS_PER_MS;
}

static uint64_t
clock_ns(clockid_t id)
{
	struct timespec ts = { 0 };

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000 * NS_PER_MS + (uint64_t)ts.tv_nsec;
}

/* Fill buf from the kernel's random source (rte_rand() if that fails). */
void
nexus_random(void *buf, size_t len)
{
	uint8_t *p = buf;
	ssize_t n;

	while (len > 0) {
		n = getrandom(p, len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		p += n;
		len -= (size_t)n;
	}
	if (len > 0)
		NX_LOG(WARNING, "getrandom failed (%s), using rte_rand",
			strerror(errno));
	for (; len > 0; len--)
		*p++ = (uint8_t)rte_rand();
}

int
nexus_udp_send(struct pmr_nexus *nx, const struct sockaddr_in *to,
		const uint8_t *buf, size_t len)
{
	ssize_t n;

	do {
		n = sendto(nx->sock, buf, len, MSG_DONTWAIT,
				(const struct sockaddr *)to, sizeof(*to));
	} while (n < 0 && errno == EINTR);
	if (n < 0) {
		NX_LOG(DEBUG, "sendto: %s", strerror(errno));
		return -errno;
	}
	nx->stats.tx_msgs++;
	return 0;
}

int
nexus_udp_send_msg(struct pmr_nexus *nx, const struct sockaddr_in *to,
		const struct nexus_wire_msg *m)
{
	uint8_t buf[NEXUS_WIRE_MAX_LEN];
	int len;

	len = nexus_wire_encode(m, buf, sizeof(buf));
	if (len < 0) {
		NX_LOG(ERR, "cannot encode message type %u", m->type);
		return len;
	}
	return nexus_udp_send(nx, to, buf, (size_t)len);
}

/*
 * Receive and handle up to a budget of datagrams. Return true if the
 * budget ran out (more may wait), false once the socket is empty.
 */
static bool
nexus_udp_rx(struct pmr_nexus *nx)
{
	uint8_t buf[NEXUS_WIRE_MAX_LEN];
	struct nexus_wire_msg m;
	struct sockaddr_in src;
	socklen_t slen;
	unsigned int i;
	ssize_t n;
	int ret;

	for (i = 0; i < NEXUS_RX_BUDGET; i++) {
		slen = sizeof(src);
		/* MSG_TRUNC: n is the datagram's real length. */
		n = recvfrom(nx->sock, buf, sizeof(buf),
				MSG_DONTWAIT | MSG_TRUNC,
				(struct sockaddr *)&src, &slen);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				NX_LOG(WARNING, "recvfrom: %s",
					strerror(errno));
			return false;
		}
		if (slen != sizeof(src) || src.sin_family != AF_INET ||
		    (size_t)n > sizeof(buf)) {
			nx->stats.rx_bad++;
			continue;
		}
		ret = nexus_wire_decode(buf, (size_t)n, &m);
		if (ret != 0) {
			char ip[INET_ADDRSTRLEN];

			inet_ntop(AF_INET, &src.sin_addr, ip, sizeof(ip));
			NX_LOG(DEBUG, "bad message from %s:%u: %s", ip,
				ntohs(src.sin_port), nexus_wire_strerror(ret));
			nx->stats.rx_bad++;
			continue;
		}
		nexus_session_rx(nx, &src, &m);
	}
	return true;
}

static void
nexus_stall_start(struct pmr_nexus *nx, int timeout)
{
	nx->stall_wall_ns = clock_ns(CLOCK_MONOTONIC);
	nx->stall_cpu_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	nx->stall_sleep_ns = (uint64_t)timeout * NS_PER_MS;
}

/*
 * How long (ms) the thread did not run when it meant to since its last
 * look, with now (ms) the time of this one: the wall-clock time since,
 * less its CPU time and the sleep it asked of poll(). Waiting for the CPU
 * or for the lock counts, running or sleeping as asked does not; a poll()
 * woken early by a datagram, the thread then kept off the CPU, counts
 * short by at most the rest of the sleep it asked.
 */
static uint64_t
nexus_stall_measure(struct pmr_nexus *nx, uint64_t *now)
{
	uint64_t wall = clock_ns(CLOCK_MONOTONIC);
	uint64_t cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	uint64_t gap = wall - nx->stall_wall_ns;
	uint64_t busy = cpu - nx->stall_cpu_ns + nx->stall_sleep_ns;

	nx->stall_wall_ns = wall;
	nx->stall_cpu_ns = cpu;
	nx->stall_sleep_ns = 0;
	*now = wall / NS_PER_MS;
	return gap > busy ? (gap - busy) / NS_PER_MS : 0;
}

/*
 * The thread did not run for stall_ms: count it, tell the peers it is
 * back (heartbeats), give them back that time, and read what they sent
 * meanwhile before anything is judged. Lock held.
 */
static void
nexus_stalled(struct pmr_nexus *nx, uint64_t stall_ms, uint64_t now)
{
	unsigned int i;

	nx->stats.stalls++;
	nx->stats.stall_ms += stall_ms;
	nx->stats.stall_ms_max = RTE_MAX(nx->stats.stall_ms_max, stall_ms);
	if (stall_ms >= nx->conf.heartbeat_interval_ms &&
	    now >= nx->stall_logged_ms + NEXUS_STALL_LOG_MS) {
		nx->stall_logged_ms = now;
		NX_LOG(NOTICE, "%s: the nexus thread did not run for %" PRIu64
			" ms (not held against its peers)", nx->uri,
			stall_ms);
	} else {
		NX_LOG(DEBUG, "%s: the nexus thread did not run for %" PRIu64
			" ms", nx->uri, stall_ms);
	}
	nexus_session_stalled(nx, stall_ms, now);
	for (i = 0; i < NEXUS_STALL_DRAIN_ROUNDS; i++)
		if (!nexus_udp_rx(nx))
			break;
}

static void *
nexus_thread_main(void *arg)
{
	struct pmr_nexus *nx = arg;
	struct pollfd fds[3 + NEXUS_EVENT_FDS_MAX];
	unsigned int nev;
	uint64_t next, now, stall;
	bool more;
	int timeout;

	timeout = nx->conf.poll_interval_ms > INT_MAX ?
		INT_MAX : (int)nx->conf.poll_interval_ms;
	nexus_stall_start(nx, timeout);
	for (;;) {
		fds[0] = (struct pollfd){ .fd = nx->sock, .events = POLLIN };
		fds[1] = (struct pollfd){ .fd = nx->stop_fd, .events = POLLIN };
		fds[2] = (struct pollfd){ .fd = nx->mk_fd, .events = POLLIN };
		nev = nexus_events_fds(nx, fds + 3, NEXUS_EVENT_FDS_MAX);
		if (poll(fds, 3 + nev, timeout) < 0 && errno != EINTR) {
			NX_LOG(ERR, "poll: %s", strerror(errno));
			usleep(1000);
			continue;
		}
		if ((fds[1].revents & POLLIN) != 0)
			break;
		pthread_mutex_lock(&nx->lock);
		nexus_udp_rx(nx);
		if ((fds[2].revents & POLLIN) != 0)
			nexus_rc_make_poll(nx);
		nexus_events_poll(nx, fds + 3, nev);
		more = nexus_workers_poll(nx);
		/* Its own stall first: peers are judged by its running time. */
		stall = nexus_stall_measure(nx, &now);
		if (stall >= NEXUS_STALL_MIN_MS)
			nexus_stalled(nx, stall, now);
		nexus_session_timers(nx, now);
		next = RTE_MIN((uint64_t)nx->conf.poll_interval_ms,
				nexus_remote_next_ms(nx, nexus_now_ms()));
		pthread_mutex_unlock(&nx->lock);
		/* Workers' messages left: round again, the socket read first. */
		timeout = more ? 0 : next > INT_MAX ? INT_MAX : (int)next;
		nx->stall_sleep_ns = (uint64_t)timeout * NS_PER_MS;
	}
	return NULL;
}

int
nexus_thread_start(struct pmr_nexus *nx)
{
	int ret;

	/* Returns a negative errno on failure. */
	ret = rte_ctrl_thread_create(&nx->thread, "pmr-nexus", NULL,
			nexus_thread_main, nx);
	if (ret != 0)
		return ret;
	nx->thread_started = true;
	return 0;
}

void
nexus_thread_stop(struct pmr_nexus *nx)
{
	uint64_t one = 1;
	ssize_t n;

	if (!nx->thread_started)
		return;
	do {
		n = write(nx->stop_fd, &one, sizeof(one));
	} while (n < 0 && errno == EINTR);
	if (n != sizeof(one))
		NX_LOG(ERR, "cannot signal the nexus thread: %s",
			strerror(errno));
	pthread_join(nx->thread, NULL);
	nx->thread_started = false;
}
