/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

#ifndef PMR_NEXUS_PRIVATE_H
#define PMR_NEXUS_PRIVATE_H

/*
 * The nexus's state, shared by its files:
 *   nexus.c          create/destroy, handlers, statistics
 *   nexus_uri.c      "host:port" parsing and resolution
 *   nexus_thread.c   the control thread: poll(), UDP receive and send
 *   nexus_worker.c   attach/detach, the worker rings and their backlog
 *   nexus_session.c  session table, client handshakes, timers, teardown
 *   nexus_server.c   server handshakes: cookies, records, the worker's
 *                    answer
 *   nexus_heartbeat.c  remote nexuses with sessions up: heartbeats, failure
 *                    and restart detection
 *   nexus_keys.c     the nexus's secrets: handshake cookies, heartbeat keys
 *   nexus_source.c   sessions and pending handshakes per source IP
 *   nexus_rc.c       RC queue pairs between workers: set-up, hand-over,
 *                    teardown
 *   nexus_events.c   device async events of the workers' queues
 *
 * Locking: one mutex (pmr_nexus.lock) protects everything below that can
 * change after create. The control thread holds it while it works (never
 * while it sleeps in poll()); application threads hold it in attach,
 * detach, handler registration and stats_get.
 */

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/queue.h>

#include <rte_log.h>

#include "nexus_wire.h"
#include "pmr_nexus.h"
#include "pmr_nexus_worker.h"

extern int pmr_nexus_logtype;
#define NX_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, pmr_nexus_logtype, "pmr.nexus: " fmt "\n", \
		##__VA_ARGS__)

#define NEXUS_CONNECT_TIMEOUT_MS_DEFAULT 1000
#define NEXUS_CONNECT_RETRY_MS_DEFAULT 100
#define NEXUS_POLL_INTERVAL_MS_DEFAULT 5
#define NEXUS_HEARTBEAT_INTERVAL_MS_DEFAULT 100
#define NEXUS_PEER_TIMEOUT_MS_DEFAULT 500
#define NEXUS_MAX_SESSIONS_PER_SOURCE_DEFAULT 4096

/*
 * A client refused for want of room (PMR_SM_E_NO_RESOURCES) asks again
 * after connect_retry_ms, doubling up to this, until its connect timeout.
 */
#define NEXUS_REFUSED_BACKOFF_MAX_MS 1000
/*
 * The cookie secret is replaced this often; a cookie is good while the
 * secret it was made with is the current or the one before (10 to 20 s).
 */
#define NEXUS_COOKIE_ROTATE_MS 10000
/* Buckets of the per-source count hash (a power of two). */
#define NEXUS_SRC_BUCKETS 1024

/* Answered server handshakes are kept this many connect timeouts. */
#define NEXUS_ANSWER_LINGER_TIMEOUTS 10
/* Most server handshake records (pending and answered) of a nexus. */
#define NEXUS_SHS_MAX 16384
/* Buckets of the server handshake hash (a power of two). */
#define NEXUS_SHS_BUCKETS 4096
/* Buckets of the remote nexus hash (a power of two). */
#define NEXUS_REMOTE_BUCKETS 1024
/* UDP DISCONNECT copies sent for one session (UDP may drop some). */
#define NEXUS_DISCONNECT_COPIES 3
/* Receive buffer asked for the UDP socket (bytes). */
#define NEXUS_SOCK_RCVBUF (4 << 20)
/* Most datagrams handled per wake-up. */
#define NEXUS_RX_BUDGET 256
/*
 * Stalls of the nexus thread (nexus_thread.c): a wake-up this much (ms) or
 * more later than the thread meant, for want of the CPU or of its lock,
 * is a stall, whose length is not held against its peers; less is
 * scheduling jitter, which the margin between heartbeat_interval_ms and
 * peer_timeout_ms absorbs.
 */
#define NEXUS_STALL_MIN_MS 10
/* After a stall, most receive budgets read before the peers are judged. */
#define NEXUS_STALL_DRAIN_ROUNDS 16
/* Stalls are logged at NOTICE at most this often (ms), else at DEBUG. */
#define NEXUS_STALL_LOG_MS 1000
/*
 * Most messages taken from one worker's ring per wake-up. Each may send
 * datagrams (a close sends NEXUS_DISCONNECT_COPIES), possibly to this very
 * nexus: taken in small batches with the socket read in between, a burst
 * of thousands of closes does not overflow a receive buffer of the
 * default size (net.core.rmem_default, 208 KiB).
 */
#define NEXUS_WORKER_BUDGET 32

/* Sessions of a worker: a two-level table indexed by session number. */
#define NEXUS_SESSION_PAGE_BITS 8
#define NEXUS_SESSION_PAGE_SIZE (1u << NEXUS_SESSION_PAGE_BITS)
#define NEXUS_SESSION_PAGES (65536u >> NEXUS_SESSION_PAGE_BITS)

enum nexus_session_state {
	NEXUS_S_CONNECTING,	/* client: handshake under way */
	NEXUS_S_UP,		/* both: the worker has the session */
	NEXUS_S_REMOTE_CLOSED,	/* DISCONNECTED sent to the worker */
};

/* A session of a local worker, from CONNECT (client) or ACCEPT (server). */
struct nexus_session {
	TAILQ_ENTRY(nexus_session) next;	/* nexus.connecting */
	TAILQ_ENTRY(nexus_session) rnext;	/* rem->sessions, while UP */
	struct nexus_remote *rem;	/* UP: its remote nexus, or NULL */
	enum nexus_session_state state;
	bool is_client;
	struct nexus_worker *w;		/* the local worker */
	uint16_t local_session;
	uint16_t remote_worker;
	uint16_t remote_session;	/* valid once UP */
	uint16_t credits;		/* client: sent in CONNECT_REQ */
	uint32_t pkt_size;		/* client: sent in CONNECT_REQ */
	uint64_t token;		/* valid once UP; authenticates nothing */
	uint64_t hs_id;
	struct sockaddr_in remote;	/* the remote nexus */
	uint64_t remote_boot;		/* its boot id, from the handshake */
	/* Heartbeat keys of the handshake: the remote's to us, ours to it. */
	uint8_t tx_key[NEXUS_WIRE_SECRET_LEN];
	uint8_t rx_key[NEXUS_WIRE_SECRET_LEN];
	bool src_counted;		/* server: in nexus.src_hash */
	struct pmr_transport_peer *peer; /* on the local worker's queue */
	uint64_t cookie;		/* CONNECTING: the server's, or 0 */
	uint32_t backoff_ms;	/* CONNECTING: after a refusal, or 0 */
	uint64_t next_retry_ms;		/* CONNECTING */
	uint64_t deadline_ms;		/* CONNECTING */
	/* While UP: the RC pair of its two workers, if there is one. */
	struct nexus_rc_pair *rc;
	TAILQ_ENTRY(nexus_session) rc_next;	/* rc->sessions */
	bool rc_wanted;		/* RC_WANT taken, RC_READY not sent */
};

/*
 * A CONNECT_REQ as the server side saw it: pending at a worker (in that
 * worker's pending list), then answered (in nexus.answered, oldest first)
 * until it expires, so that retransmitted requests get the same answer.
 */
struct nexus_shs {
	LIST_ENTRY(nexus_shs) hash;	/* nexus.shs_hash[] */
	TAILQ_ENTRY(nexus_shs) next;	/* worker.pending or nexus.answered */
	uint64_t hs_id;
	struct sockaddr_in src;		/* the client nexus */
	bool answered;
	struct nexus_worker *w;		/* pending: the worker asked */
	uint64_t cookie;		/* pending: echoed by the worker */
	struct pmr_transport_peer *peer; /* pending: for the worker */
	uint16_t client_worker;
	uint16_t client_session;
	uint64_t client_boot;		/* the client nexus's boot id */
	/* The heartbeat key the client nexus issued to us. */
	uint8_t client_key[NEXUS_WIRE_SECRET_LEN];
	uint16_t credits;		/* asked by the client */
	uint32_t pkt_size;		/* the client worker's */
	bool src_counted;		/* pending: in nexus.src_hash */
	uint64_t token;
	uint64_t expire_ms;		/* answered */
	uint16_t reply_len;		/* answered: the reply, to resend */
	uint8_t reply[NEXUS_WIRE_MAX_LEN];
};

/*
 * A remote nexus with which sessions are UP: it gets heartbeats, and if it
 * stays silent for peer_timeout_ms its sessions are reset. Freed when its
 * last UP session leaves that state.
 */
struct nexus_remote {
	LIST_ENTRY(nexus_remote) hash;	/* nexus.remote_hash[] */
	TAILQ_ENTRY(nexus_remote) next;	/* nexus.remotes */
	struct sockaddr_in addr;
	uint64_t boot_id;		/* its boot id, as last confirmed */
	/* Keys of its heartbeats: the one it issued us, the one we did. */
	uint8_t tx_key[NEXUS_WIRE_SECRET_LEN];
	uint8_t rx_key[NEXUS_WIRE_SECRET_LEN];
	uint64_t rx_counter;		/* highest heartbeat counter seen */
	/*
	 * Last authenticated message, moved later by the stalls of this
	 * nexus since (the time it did not run is not held against it).
	 */
	uint64_t last_seen_ms;
	uint64_t stalled_ms;	/* how much later, since that message */
	uint32_t rc_rx_gen;		/* highest RC_REQ generation acted on */
	bool rc_share_told;		/* its refusal of a QP logged */
	TAILQ_HEAD(, nexus_session) sessions;	/* UP, with this remote */
	unsigned int nb_sessions;
};

/* A source IP address with server sessions or pending handshakes. */
struct nexus_src {
	LIST_ENTRY(nexus_src) hash;	/* nexus.src_hash[] */
	uint32_t ip;			/* network byte order */
	uint32_t count;		/* sessions + pending handshakes */
};

/* A message to a worker that did not fit in its to_worker ring yet. */
struct nexus_backlog {
	STAILQ_ENTRY(nexus_backlog) next;
	struct pmr_sm_msg msg;
};

/* An attached worker. */
struct nexus_worker {
	TAILQ_ENTRY(nexus_worker) next;	/* nexus.workers */
	uint16_t id;
	struct pmr_transport_queue *q;
	struct rte_ring *to_worker;
	struct rte_ring *from_worker;
	/* Its queue driver's family, which requests must name. */
	char driver[PMR_TRANSPORT_NAME_MAX];
	struct pmr_transport_addr addr;	/* of q */
	struct nexus_session **sessions[NEXUS_SESSION_PAGES];
	uint32_t nb_sessions;
	TAILQ_HEAD(, nexus_shs) pending;	/* CONNECT_IN not answered */
	STAILQ_HEAD(, nexus_backlog) backlog;
	/* Percent of its RC QPs one source may hold (nexus_rc.c). */
	uint8_t rc_share_pct;
};

struct pmr_nexus {
	char uri[PMR_URI_MAX];
	struct pmr_nexus_conf conf;
	unsigned int seq;		/* unique per process, for names */
	uint64_t boot_id;		/* random, non-zero: this incarnation */
	/* Random: the heartbeat keys this nexus issues derive from it. */
	uint8_t hb_master[NEXUS_WIRE_SECRET_LEN];
	uint64_t hb_counter;		/* last heartbeat counter sent */
	/* Cookie secrets: the current one and the one before. */
	uint8_t cookie_key[2][NEXUS_WIRE_SECRET_LEN];
	uint64_t cookie_rotate_ms;	/* when cookie_key[0] is replaced */
	struct sockaddr_in local;	/* bound address */
	int sock;			/* UDP, non-blocking */
	int stop_fd;			/* eventfd: stop the thread */
	pthread_t thread;
	bool thread_started;
	/* The thread's own, for its stalls (nexus_thread.c): at its last
	 * look, the wall clock and its CPU time (ns); the sleep it asked of
	 * poll() since (ns); when a stall was last logged at NOTICE. */
	uint64_t stall_wall_ns;
	uint64_t stall_cpu_ns;
	uint64_t stall_sleep_ns;
	uint64_t stall_logged_ms;

	pthread_mutex_t lock;
	TAILQ_HEAD(, nexus_worker) workers;
	unsigned int nb_workers;
	struct pmr_nexus_handler handlers[256];
	bool handlers_closed;

	TAILQ_HEAD(, nexus_session) connecting;	/* client handshakes */
	LIST_HEAD(, nexus_shs) shs_hash[NEXUS_SHS_BUCKETS];
	uint32_t shs_seed;		/* random: no crafted collisions */
	TAILQ_HEAD(, nexus_shs) answered;	/* oldest first */
	unsigned int nb_shs;
	uint64_t next_cookie;
	LIST_HEAD(, nexus_src) src_hash[NEXUS_SRC_BUCKETS];

	TAILQ_HEAD(, nexus_remote) remotes;	/* with sessions UP */
	LIST_HEAD(, nexus_remote) remote_hash[NEXUS_REMOTE_BUCKETS];
	uint64_t next_heartbeat_ms;

	TAILQ_HEAD(, nexus_rc_pair) rc_pairs;	/* nexus_rc.c */
	uint32_t rc_gen;		/* last RC_REQ generation sent */
	uint64_t rc_next_id;		/* last pair id given */
	/* Tests: RC datagrams to drop, send twice, hold back (one, sent
	 * after the next), nexus_rc_faults(). */
	uint32_t rc_drop, rc_dup, rc_hold;
	bool rc_held;
	struct sockaddr_in rc_held_to;
	struct nexus_wire_msg rc_held_msg;

	/* The RC QP maker thread (nexus_rc_make.c): jobs to do and done,
	 * under mk_lock; mk_fd (eventfd) wakes the nexus thread for the
	 * done ones. Tests: mk_spin_ms of CPU time spent before each QP
	 * is made (nexus_rc_make_spin()). */
	pthread_mutex_t mk_lock;
	pthread_cond_t mk_cond;
	TAILQ_HEAD(, nexus_rc_job) mk_todo;
	TAILQ_HEAD(, nexus_rc_job) mk_done;
	struct nexus_rc_job *mk_running;
	pthread_t mk_thread;
	bool mk_started;
	bool mk_stop;
	int mk_fd;
	uint32_t mk_spin_ms;

	struct pmr_nexus_stats stats;	/* written under lock */
};

/* nexus_uri.c */
int nexus_uri_split(const char *uri, char *host, size_t host_size,
		uint16_t *port);
int nexus_uri_resolve(const char *uri, struct sockaddr_in *sa,
		bool port_zero_ok);

/*
 * Write sa as "a.b.c.d:port" into uri (PMR_URI_MAX bytes). Inline: the
 * fuzz targets link the session code without nexus_uri.c.
 */
static inline void
nexus_uri_format(const struct sockaddr_in *sa, char *uri)
{
	char ip[INET_ADDRSTRLEN];

	if (inet_ntop(AF_INET, &sa->sin_addr, ip, sizeof(ip)) == NULL)
		ip[0] = '\0';
	snprintf(uri, PMR_URI_MAX, "%s:%u", ip, ntohs(sa->sin_port));
}

/* nexus_thread.c */
uint64_t nexus_now_ms(void);
void nexus_random(void *buf, size_t len);
int nexus_thread_start(struct pmr_nexus *nx);
void nexus_thread_stop(struct pmr_nexus *nx);
int nexus_udp_send(struct pmr_nexus *nx, const struct sockaddr_in *to,
		const uint8_t *buf, size_t len);
int nexus_udp_send_msg(struct pmr_nexus *nx, const struct sockaddr_in *to,
		const struct nexus_wire_msg *m);

/* nexus_worker.c */
struct nexus_worker *nexus_worker_find(struct pmr_nexus *nx, uint16_t id);
int nexus_worker_send(struct nexus_worker *w, const struct pmr_sm_msg *msg);
int nexus_worker_try_send(struct nexus_worker *w,
		const struct pmr_sm_msg *msg);
/* Take the workers' messages; true if some are left for the next round. */
bool nexus_workers_poll(struct pmr_nexus *nx);

/* nexus_session.c */
struct nexus_session *nexus_session_get(struct nexus_worker *w,
		uint16_t local_session);
void nexus_session_rx(struct pmr_nexus *nx, const struct sockaddr_in *src,
		const struct nexus_wire_msg *m);
void nexus_session_worker_msg(struct pmr_nexus *nx, struct nexus_worker *w,
		const struct pmr_sm_msg *msg);
void nexus_session_timers(struct pmr_nexus *nx, uint64_t now);
/*
 * The nexus thread did not run for stall_ms (ms) up to now: move every
 * deadline that judges a peer (its silence, a handshake's or an RC
 * set-up's answer) that much later, but never past a whole timeout from
 * now, and heartbeat every remote at once. Lock held.
 */
void nexus_session_stalled(struct pmr_nexus *nx, uint64_t stall_ms,
		uint64_t now);
void nexus_session_worker_gone(struct pmr_nexus *nx, struct nexus_worker *w);
void nexus_session_tell_closed(struct pmr_nexus *nx, struct nexus_session *s,
		uint16_t status);
int nexus_session_put(struct nexus_worker *w, struct nexus_session *s);
bool nexus_same_addr(const struct sockaddr_in *a, const struct sockaddr_in *b);

/* nexus_server.c */
void nexus_server_rx_connect_req(struct pmr_nexus *nx,
		const struct sockaddr_in *src, const struct nexus_wire_msg *m);
void nexus_server_accept(struct pmr_nexus *nx, struct nexus_worker *w,
		const struct pmr_sm_msg *msg);
void nexus_server_refuse(struct pmr_nexus *nx, struct nexus_worker *w,
		const struct pmr_sm_msg *msg);
void nexus_server_timers(struct pmr_nexus *nx, uint64_t now);
void nexus_server_worker_gone(struct pmr_nexus *nx, struct nexus_worker *w);
void nexus_session_free_all(struct pmr_nexus *nx);

/* nexus_keys.c */
void nexus_keys_init(struct pmr_nexus *nx, uint64_t now);
void nexus_keys_timers(struct pmr_nexus *nx, uint64_t now);
uint64_t nexus_cookie_make(const struct pmr_nexus *nx,
		const struct sockaddr_in *src, uint64_t hs_id);
bool nexus_cookie_valid(const struct pmr_nexus *nx,
		const struct sockaddr_in *src, uint64_t hs_id, uint64_t cookie);
void nexus_secret_issue(const struct pmr_nexus *nx,
		const struct sockaddr_in *remote,
		uint8_t secret[NEXUS_WIRE_SECRET_LEN]);

/* nexus_source.c */
uint32_t nexus_src_count(struct pmr_nexus *nx, const struct sockaddr_in *src);
int nexus_src_take(struct pmr_nexus *nx, const struct sockaddr_in *src);
void nexus_src_put(struct pmr_nexus *nx, const struct sockaddr_in *src);

/*
 * nexus_rc_make.c: an RC QP made off the nexus thread. Making one
 * registers its region (pmr_transport_rc_region_conf()), which pins
 * memory: a second or more for a large region on a slow host, which the
 * nexus thread spends serving its socket and heartbeats instead.
 */
struct nexus_rc_job {
	TAILQ_ENTRY(nexus_rc_job) next;
	struct pmr_transport_queue *q;
	void *owner;			/* its pair; NULL: abandoned */
	struct pmr_transport_rc *rc;	/* made; NULL: failed */
	struct pmr_transport_rc_attr attr;	/* rc's */
	int err;			/* rte_errno when rc is NULL */
	uint64_t ms;			/* how long the making took */
};
int nexus_rc_make_init(struct pmr_nexus *nx);
/* Stop the thread (after the nexus thread): nothing may be queued. */
void nexus_rc_make_fini(struct pmr_nexus *nx);
/* Queue j (q and owner set): 0, or -errno if no thread could start. */
int nexus_rc_make_start(struct pmr_nexus *nx, struct nexus_rc_job *j);
/* Its pair is gone: j is freed now or once made (its QP destroyed). */
void nexus_rc_make_abandon(struct pmr_nexus *nx, struct nexus_rc_job *j);
/* Wait until no job of q runs, then free q's abandoned ones made. */
void nexus_rc_make_wait(struct pmr_nexus *nx, struct pmr_transport_queue *q);
/* Nexus thread, lock held: hand each job made to nexus_rc_made(). */
void nexus_rc_make_poll(struct pmr_nexus *nx);
/* Tests: spend ms of CPU time before each QP is made (0: none). */
void nexus_rc_make_spin(struct pmr_nexus *nx, uint32_t ms);

/* nexus_rc.c */
/* j (not abandoned) is made or failed: its pair goes on. Lock held. */
void nexus_rc_made(struct pmr_nexus *nx, struct nexus_rc_job *j);
void nexus_rc_rx(struct pmr_nexus *nx, const struct sockaddr_in *src,
		const struct nexus_wire_msg *m);
void nexus_rc_worker_msg(struct pmr_nexus *nx, struct nexus_worker *w,
		const struct pmr_sm_msg *msg);
void nexus_rc_session_up(struct pmr_nexus *nx, struct nexus_session *s);
void nexus_rc_session_down(struct pmr_nexus *nx, struct nexus_session *s);
void nexus_rc_timers(struct pmr_nexus *nx, uint64_t now);
void nexus_rc_stalled(struct pmr_nexus *nx, uint64_t stall_ms, uint64_t now);
void nexus_rc_worker_gone(struct pmr_nexus *nx, struct nexus_worker *w);
/* w's RC QP rc failed (a device event): reset the pair. True if it was
 * one of this nexus's pairs. Lock held. */
bool nexus_rc_qp_failed(struct pmr_nexus *nx, struct nexus_worker *w,
		const struct pmr_transport_rc *rc);
void nexus_rc_free_all(struct pmr_nexus *nx);
/*
 * Tests: lose the next drop RC_REQ/RC_ACK datagrams this nexus sends, send
 * the next dup twice, and hold back the next hold (each sent after the
 * one that follows it: reordered). Takes the nexus lock.
 */
void nexus_rc_faults(struct pmr_nexus *nx, uint32_t drop, uint32_t dup,
		uint32_t hold);
/* nexus_events.c */
/* Most device event fds the nexus thread polls (distinct devices). */
#define NEXUS_EVENT_FDS_MAX 16
struct pollfd;
struct pmr_transport_event;
struct pmr_transport_rc;
/*
 * Fill fds (at most max) with the event fds of the attached workers'
 * devices, one per device; takes the lock. Returns how many.
 */
unsigned int nexus_events_fds(struct pmr_nexus *nx, struct pollfd *fds,
		unsigned int max);
/* Read and dispatch the events of the devices whose fd polled readable. */
void nexus_events_poll(struct pmr_nexus *nx, const struct pollfd *fds,
		unsigned int n);
/*
 * An async event on an RC QP of worker w's queue: counted, not told to w
 * (the RC code sees the QP's failed operations and resets the pair's
 * sessions); the hook for the nexus's RC code (issue 16).
 */
void nexus_events_rc(struct pmr_nexus *nx, struct nexus_worker *w,
		struct pmr_transport_rc *rc,
		const struct pmr_transport_event *ev);

/* nexus_heartbeat.c */
struct nexus_remote *nexus_remote_find(struct pmr_nexus *nx,
		const struct sockaddr_in *addr);
void nexus_remote_link(struct pmr_nexus *nx, struct nexus_session *s);
void nexus_remote_alive(struct pmr_nexus *nx, struct nexus_worker *w,
		const struct pmr_sm_msg *msg);
void nexus_remote_unlink(struct pmr_nexus *nx, struct nexus_session *s);
void nexus_remote_rx_heartbeat(struct pmr_nexus *nx,
		const struct sockaddr_in *src, const struct nexus_wire_msg *m);
void nexus_remote_timers(struct pmr_nexus *nx, uint64_t now);
void nexus_remote_stalled(struct pmr_nexus *nx, uint64_t stall_ms,
		uint64_t now);
uint64_t nexus_remote_next_ms(struct pmr_nexus *nx, uint64_t now);

#endif /* PMR_NEXUS_PRIVATE_H */
