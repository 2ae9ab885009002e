/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * The eth driver's control path: devargs, port setup, peers, statistics.
 *
 * devargs (DPDK kvargs): port=<id or name> (required), ip=<a.b.c.d>,
 * udp=<port>, mac=<xx:xx:xx:xx:xx:xx>, rxd=<n>, txd=<n>,
 * tx_copy_max=<bytes>, mtu=<bytes>.
 * See doc/drivers.md.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_devargs.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_kvargs.h>
#include <rte_malloc.h>
#include <rte_spinlock.h>

#include "eth_private.h"

RTE_LOG_REGISTER(pmr_eth_logtype, pmr.eth, NOTICE);

#define ETH_DRAIN_MS 1000
#define ETH_TX_COPY_AUTO UINT32_MAX	/* no tx_copy_max= given */

/* Ports owned by a queue of this process (control path only). */
static bool port_owned[RTE_MAX_ETHPORTS];
static rte_spinlock_t port_owned_lock = RTE_SPINLOCK_INITIALIZER;
static uint32_t pool_seq;	/* unique pool names */

/*
 * Pools whose mbufs a peer still held when their queue went away (on ring
 * pairs the mbufs travel): freed by a later create or destroy once full.
 */
static struct rte_mempool *zombie_pools[32];
static rte_spinlock_t zombie_lock = RTE_SPINLOCK_INITIALIZER;
static void eth_zombies_reap(void);

static int
eth_port_claim(uint16_t port_id, bool claim)
{
	int ret = 0;

	rte_spinlock_lock(&port_owned_lock);
	if (claim && port_owned[port_id])
		ret = -EBUSY;
	else
		port_owned[port_id] = claim;
	rte_spinlock_unlock(&port_owned_lock);
	return ret;
}

static const char *const eth_valid_args[] = {
	"port", "ip", "udp", "rxd", "txd", "tx_copy_max", "mtu", "mac", NULL,
};

struct eth_args {
	uint16_t port_id;
	bool has_port;
	rte_be32_t ip;
	uint16_t udp;
	uint16_t rxd;
	uint16_t txd;
	uint32_t tx_copy_max;
	uint32_t mtu;		/* 0: the port's */
	struct rte_ether_addr mac;	/* zero: the port's */
};

static int
parse_uint(const char *value, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (value == NULL || value[0] == '\0' || value[0] == '-')
		return -EINVAL;
	errno = 0;
	v = strtoull(value, &end, 0);
	if (errno != 0 || *end != '\0' || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

static int
arg_port(const char *key __rte_unused, const char *value, void *opaque)
{
	struct eth_args *a = opaque;
	uint64_t v;
	uint16_t id;

	if (parse_uint(value, RTE_MAX_ETHPORTS - 1, &v) == 0) {
		if (!rte_eth_dev_is_valid_port((uint16_t)v))
			return -ENODEV;
		a->port_id = (uint16_t)v;
	} else if (rte_eth_dev_get_port_by_name(value, &id) == 0) {
		a->port_id = id;
	} else {
		return -ENODEV;
	}
	a->has_port = true;
	return 0;
}

static int
arg_ip(const char *key __rte_unused, const char *value, void *opaque)
{
	struct eth_args *a = opaque;
	struct in_addr in;

	if (value == NULL || inet_pton(AF_INET, value, &in) != 1 ||
	    in.s_addr == 0 || in.s_addr == INADDR_BROADCAST)
		return -EINVAL;
	a->ip = in.s_addr;
	return 0;
}

static int
arg_mac(const char *key __rte_unused, const char *value, void *opaque)
{
	struct eth_args *a = opaque;

	if (value == NULL || rte_ether_unformat_addr(value, &a->mac) != 0 ||
	    !rte_is_valid_assigned_ether_addr(&a->mac))
		return -EINVAL;
	return 0;
}

static int
arg_u16(const char *key __rte_unused, const char *value, void *opaque)
{
	uint64_t v;

	if (parse_uint(value, UINT16_MAX, &v) != 0 || v == 0)
		return -EINVAL;
	*(uint16_t *)opaque = (uint16_t)v;
	return 0;
}

static int
arg_u32(const char *key __rte_unused, const char *value, void *opaque)
{
	uint64_t v;

	if (parse_uint(value, UINT32_MAX, &v) != 0)
		return -EINVAL;
	*(uint32_t *)opaque = (uint32_t)v;
	return 0;
}

static int
eth_parse_args(const char *devargs, struct eth_args *a)
{
	struct rte_kvargs *kv;
	int ret = 0;

	memset(a, 0, sizeof(*a));
	a->udp = PMR_ETH_UDP_PORT_DEFAULT;
	a->rxd = PMR_ETH_RXD_DEFAULT;
	a->txd = PMR_ETH_TXD_DEFAULT;
	a->tx_copy_max = ETH_TX_COPY_AUTO;

	kv = rte_kvargs_parse(devargs != NULL ? devargs : "", eth_valid_args);
	if (kv == NULL) {
		ETH_LOG(ERR, "bad devargs '%s' (keys: port ip udp mac rxd txd "
			"tx_copy_max mtu)", devargs);
		return -EINVAL;
	}
#define ARG(key, fn, ptr) do { \
	if (ret == 0 && rte_kvargs_count(kv, key) > 1) \
		ret = -EINVAL; \
	if (ret == 0 && rte_kvargs_count(kv, key) == 1) { \
		ret = fn(key, rte_kvargs_get(kv, key), ptr); \
		if (ret != 0) \
			ETH_LOG(ERR, "devarg %s=%s: %s", key, \
				rte_kvargs_get(kv, key), strerror(-ret)); \
	} \
} while (0)
	ARG("port", arg_port, a);
	ARG("ip", arg_ip, a);
	ARG("udp", arg_u16, &a->udp);
	ARG("rxd", arg_u16, &a->rxd);
	ARG("txd", arg_u16, &a->txd);
	ARG("tx_copy_max", arg_u32, &a->tx_copy_max);
	ARG("mtu", arg_u32, &a->mtu);
	ARG("mac", arg_mac, a);
#undef ARG
	rte_kvargs_free(kv);
	if (ret != 0)
		return ret;
	if (!a->has_port) {
		ETH_LOG(ERR, "devargs need port=<id or name>");
		return -EINVAL;
	}
	if (a->ip == 0) {
		/* 198.18.0.0/15 is for benchmarks (RFC 2544). */
		a->ip = htonl(0xc6120000u | (a->port_id + 1u));
		ETH_LOG(INFO, "port %u: no ip=, using 198.18.%u.%u",
			a->port_id, (a->port_id + 1u) >> 8,
			(a->port_id + 1u) & 0xff);
	}
	return 0;
}

/* Configure and start the port with one queue and the offloads it has. */
static int
eth_port_setup(struct eth_queue *eq, const struct eth_args *a,
		int socket_id)
{
	struct rte_eth_conf conf;
	struct rte_eth_dev_info info;
	struct rte_eth_rxconf rxconf;
	struct rte_eth_txconf txconf;
	uint16_t mtu = 0;
	int ret;

	ret = rte_eth_dev_info_get(eq->port_id, &info);
	if (ret != 0)
		return ret;
	memset(&conf, 0, sizeof(conf));
	if (info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_IPV4_CKSUM) {
		conf.txmode.offloads |= RTE_ETH_TX_OFFLOAD_IPV4_CKSUM;
		eq->ip_cksum_offload = true;
	}
	if (info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_IPV4_CKSUM)
		conf.rxmode.offloads |= RTE_ETH_RX_OFFLOAD_IPV4_CKSUM;
	if (info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_UDP_CKSUM)
		conf.rxmode.offloads |= RTE_ETH_RX_OFFLOAD_UDP_CKSUM;
	if (a->mtu != 0)
		conf.rxmode.mtu = a->mtu;

	/* Fails with -EBUSY on a started port: somebody else's. */
	ret = rte_eth_dev_configure(eq->port_id, 1, 1, &conf);
	if (ret != 0)
		return ret;
	eq->nb_rxd = a->rxd;
	eq->nb_txd = a->txd;
	ret = rte_eth_dev_adjust_nb_rx_tx_desc(eq->port_id, &eq->nb_rxd,
			&eq->nb_txd);
	if (ret != 0)
		return ret;
	rxconf = info.default_rxconf;
	rxconf.offloads = conf.rxmode.offloads;
	ret = rte_eth_rx_queue_setup(eq->port_id, 0, eq->nb_rxd, socket_id,
			&rxconf, eq->rx_pool);
	if (ret != 0)
		return ret;
	txconf = info.default_txconf;
	txconf.offloads = conf.txmode.offloads;
	ret = rte_eth_tx_queue_setup(eq->port_id, 0, eq->nb_txd, socket_id,
			&txconf);
	if (ret != 0)
		return ret;
	ret = rte_eth_dev_start(eq->port_id);
	if (ret != 0)
		return ret;

	if (rte_eth_dev_get_mtu(eq->port_id, &mtu) != 0 || mtu == 0)
		mtu = PMR_ETH_MTU_DEFAULT;
	if (a->mtu != 0 && a->mtu < mtu)
		mtu = (uint16_t)a->mtu;
	eq->pub.caps.mtu = mtu - sizeof(struct rte_ipv4_hdr) -
		sizeof(struct rte_udp_hdr);
	eq->pub.caps.rx_depth = eq->nb_rxd;
	return 0;
}

/*
 * tx_copy_max= if given; else copy everything on ring pairs, where an mbuf
 * itself travels to the receiver, which would then hold the sender's
 * msgbuf for as long as it likes (a handler may keep a request): the
 * sender could not get its buffer back by its own means. On other ports a
 * send completes locally, and zero-copy measured faster at every size.
 */
static uint32_t
eth_tx_copy_default(uint16_t port_id, uint32_t tx_copy_max)
{
	struct rte_eth_dev_info info;

	if (tx_copy_max != ETH_TX_COPY_AUTO)
		return RTE_MIN(tx_copy_max, (uint32_t)UINT16_MAX);
	if (rte_eth_dev_info_get(port_id, &info) == 0 &&
	    info.driver_name != NULL &&
	    strcmp(info.driver_name, "net_ring") == 0)
		return UINT16_MAX;
	return PMR_ETH_TX_COPY_MAX_DEFAULT;
}

/*
 * The queue's MAC: mac= if given, else the port's. Software ports (ring
 * pairs) may have none: derive a locally administered one from the IP.
 */
static int
eth_mac_setup(uint16_t port_id, const struct eth_args *a,
		struct rte_ether_addr *mac)
{
	int ret;

	if (rte_is_valid_assigned_ether_addr(&a->mac)) {
		*mac = a->mac;
	} else {
		ret = rte_eth_macaddr_get(port_id, mac);
		if (ret != 0)
			return ret;
		if (rte_is_valid_assigned_ether_addr(mac))
			return 0;
		mac->addr_bytes[0] = RTE_ETHER_LOCAL_ADMIN_ADDR;
		mac->addr_bytes[1] = 0;
		memcpy(&mac->addr_bytes[2], &a->ip, sizeof(a->ip));
	}
	/* Ports that filter by MAC must accept it; others may refuse. */
	ret = rte_eth_dev_default_mac_addr_set(port_id, mac);
	if (ret != 0 && ret != -ENOTSUP)
		ETH_LOG(DEBUG, "port %u: MAC not set (%s), filtering in "
			"software", port_id, strerror(-ret));
	return 0;
}

/* The port's receive drops, as counted (zeros without ethdev stats). */
static void
eth_nic_drops_get(uint16_t port_id, struct eth_nic_drops *d)
{
	struct rte_eth_stats es;

	memset(d, 0, sizeof(*d));
	if (rte_eth_stats_get(port_id, &es) != 0)
		return;
	d->missed = es.imissed;
	d->errors = es.ierrors;
	d->nombuf = es.rx_nombuf;
}

/* a - b, or a if the port's counters went back (reset under us). */
static inline uint64_t
eth_since(uint64_t a, uint64_t b)
{
	return a >= b ? a - b : a;
}

/* The port's receive drops since the queue was made or reset. */
static void
eth_nic_drops_since(const struct eth_queue *eq, struct eth_nic_drops *d)
{
	eth_nic_drops_get(eq->port_id, d);
	d->missed = eth_since(d->missed, eq->nic0.missed);
	d->errors = eth_since(d->errors, eq->nic0.errors);
	d->nombuf = eth_since(d->nombuf, eq->nic0.nombuf);
}

/* Is the port a net_memif one (its bursts then go through the gate)? */
static bool
eth_port_is_memif(uint16_t port_id)
{
	struct rte_eth_dev_info info;

	return rte_eth_dev_info_get(port_id, &info) == 0 &&
		info.driver_name != NULL &&
		strcmp(info.driver_name, "net_memif") == 0;
}

/*
 * Why a port did not start, where DPDK's errno does not say: net_memif in
 * role=client fails rte_eth_dev_start() with -1 (-EPERM, "Operation not
 * permitted") when nobody listens on its socket, i.e. when the client is
 * started before its server. Writes the reason into why and returns true
 * then.
 */
static bool
eth_memif_client_alone(uint16_t port_id, char *why, size_t len)
{
	const struct rte_devargs *da;
	struct rte_eth_dev_info info;
	const char *role, *sock;
	struct rte_kvargs *kv;
	bool alone = false;

	if (rte_eth_dev_info_get(port_id, &info) != 0 ||
	    info.driver_name == NULL || info.device == NULL ||
	    strcmp(info.driver_name, "net_memif") != 0)
		return false;
	da = rte_dev_devargs(info.device);
	if (da == NULL || da->args == NULL)
		return false;
	kv = rte_kvargs_parse(da->args, NULL);
	if (kv == NULL)
		return false;
	role = rte_kvargs_get(kv, "role");
	if (role != NULL && strcmp(role, "client") == 0) {
		sock = rte_kvargs_get(kv, "socket");
		/* net_memif's default socket when none is given. */
		snprintf(why, len, "memif client: no server listening on "
			"socket %s: start the server first",
			sock != NULL ? sock : "/run/memif.sock");
		alone = true;
	}
	rte_kvargs_free(kv);
	return alone;
}

static struct pmr_transport_queue *
eth_queue_create(const struct pmr_transport_driver *drv, const char *devargs,
		int socket_id)
{
	char name[RTE_MEMPOOL_NAMESIZE];
	char why[256];		/* a memif socket path is at most 108 */
	struct eth_queue *eq;
	struct eth_args a;
	bool held;
	int ret;
	uint32_t mtu, room, seq;

	eth_zombies_reap();
	ret = eth_parse_args(devargs, &a);
	if (ret != 0) {
		rte_errno = -ret;
		return NULL;
	}
	if (eth_port_claim(a.port_id, true) != 0) {
		ETH_LOG(ERR, "port %u already has a queue", a.port_id);
		rte_errno = EBUSY;
		return NULL;
	}
	if (socket_id == SOCKET_ID_ANY)
		socket_id = rte_eth_dev_socket_id(a.port_id);

	eq = rte_zmalloc_socket("pmr_eth_queue", sizeof(*eq),
			RTE_CACHE_LINE_SIZE, socket_id);
	if (eq == NULL) {
		eth_port_claim(a.port_id, false);
		rte_errno = ENOMEM;
		return NULL;
	}
	eq->port_id = a.port_id;
	eq->queue_id = 0;
	eq->pub.tx_burst = eth_tx_burst;
	eq->pub.rx_burst = eth_rx_burst;
	eq->pub.rx_release = eth_rx_release;
	if (eth_port_is_memif(a.port_id)) {
		/* Its peer's memory comes and goes: eth_gate.c. */
		ret = eth_gate_get();
		if (ret != 0)
			goto fail;
		eq->gate = &eth_gate_slots[a.port_id];
		eq->pub.tx_burst = eth_tx_burst_gated;
		eq->pub.rx_burst = eth_rx_burst_gated;
	}
	eq->pub.caps = drv->caps;
	eq->local.ip = a.ip;
	eq->local.port = htons(a.udp);
	ret = eth_mac_setup(a.port_id, &a, &eq->local.mac);
	if (ret != 0)
		goto fail;
	pmr_eth_rx_match_init(&eq->rx_match, &eq->local);

	/* RX buffers must hold a whole frame: no scattered RX. */
	mtu = a.mtu != 0 ? a.mtu : (uint32_t)PMR_ETH_MTU_DEFAULT;
	room = RTE_MAX(RTE_ALIGN_CEIL(mtu + RTE_ETHER_HDR_LEN +
			RTE_ETHER_CRC_LEN + 2 * RTE_VLAN_HLEN, 64),
			(uint32_t)RTE_MBUF_DEFAULT_DATAROOM) +
		RTE_PKTMBUF_HEADROOM;
	if (room > UINT16_MAX) {
		ret = -EINVAL;
		goto fail;
	}
	seq = __atomic_fetch_add(&pool_seq, 1, __ATOMIC_RELAXED);
	snprintf(name, sizeof(name), "pmr_eth_rx_%u_%u", a.port_id, seq);
	eq->rx_pool = rte_pktmbuf_pool_create(name,
			2u * a.rxd + 2u * PMR_BURST_MAX, PMR_BURST_MAX, 0,
			(uint16_t)room, socket_id);
	if (eq->rx_pool == NULL) {
		ret = -rte_errno;
		goto fail;
	}
	/*
	 * TX mbufs: copies carry up to a whole frame (gathered packets are
	 * copied whatever their size); zero-copy mbufs carry the shared info
	 * in their private area. Mbufs stay out while the peer holds them
	 * (ring pairs), hence the generous count.
	 */
	eq->tx_copy_max = eth_tx_copy_default(a.port_id, a.tx_copy_max);
	room = RTE_PKTMBUF_HEADROOM + RTE_ETHER_HDR_LEN + mtu;
	snprintf(name, sizeof(name), "pmr_eth_tx_%u_%u", a.port_id, seq);
	eq->tx_pool = rte_pktmbuf_pool_create(name,
			4u * a.txd + 2u * PMR_BURST_MAX, PMR_BURST_MAX,
			ETH_TX_MBUF_PRIV_SIZE, (uint16_t)RTE_ALIGN_CEIL(room, 64),
			socket_id);
	if (eq->tx_pool == NULL) {
		ret = -rte_errno;
		goto fail;
	}

	ret = eth_port_setup(eq, &a, socket_id);
	if (ret == -EPERM && eth_memif_client_alone(a.port_id, why,
			sizeof(why))) {
		/* Nobody to connect to: say so, and with the errno too. */
		ETH_LOG(ERR, "port %u setup: %s", a.port_id, why);
		ret = -ECONNREFUSED;
		goto fail;
	}
	if (ret != 0) {
		ETH_LOG(ERR, "port %u setup: %s", a.port_id, strerror(-ret));
		goto fail;
	}
	eth_nic_drops_get(eq->port_id, &eq->nic0);
	if (eq->gate != NULL) {
		/* Its bursts wait for the gate from now on. */
		held = eth_gate_hold(eq->port_id);
		eth_gate_attach(eq->port_id);
		eth_gate_release(held);
	}
	if (eq->tx_copy_max >= eq->pub.caps.mtu)
		eq->pub.caps.flags &= ~PMR_TRANSPORT_CAP_TX_ZEROCOPY;
	ETH_LOG(INFO, "port %u: queue up, payload mtu %u, ip cksum %s",
		eq->port_id, eq->pub.caps.mtu,
		eq->ip_cksum_offload ? "offloaded" : "software");
	return &eq->pub;
fail:
	rte_mempool_free(eq->tx_pool);
	rte_mempool_free(eq->rx_pool);
	if (eq->gate != NULL)
		eth_gate_put();
	eth_port_claim(eq->port_id, false);
	rte_free(eq);
	rte_errno = -ret;
	return NULL;
}

static void
eth_zombies_reap(void)
{
	unsigned int i;

	rte_spinlock_lock(&zombie_lock);
	for (i = 0; i < RTE_DIM(zombie_pools); i++) {
		if (zombie_pools[i] != NULL && rte_mempool_full(zombie_pools[i])) {
			rte_mempool_free(zombie_pools[i]);
			zombie_pools[i] = NULL;
		}
	}
	rte_spinlock_unlock(&zombie_lock);
}

/*
 * Wait a little for the mbufs of a pool to come back, then free it; if a
 * peer still holds some, keep the pool alive (rather than corrupt memory)
 * and free it later.
 */
static void
eth_pool_release(struct rte_mempool *mp)
{
	uint64_t deadline = rte_get_timer_cycles() +
		rte_get_timer_hz() * ETH_DRAIN_MS / 1000;
	unsigned int i;

	if (mp == NULL)
		return;
	while (!rte_mempool_full(mp) && rte_get_timer_cycles() < deadline)
		rte_delay_us_sleep(1000);
	if (rte_mempool_full(mp)) {
		rte_mempool_free(mp);
		return;
	}
	rte_spinlock_lock(&zombie_lock);
	for (i = 0; i < RTE_DIM(zombie_pools); i++) {
		if (zombie_pools[i] == NULL) {
			zombie_pools[i] = mp;
			break;
		}
	}
	rte_spinlock_unlock(&zombie_lock);
	ETH_LOG(WARNING, "pool %s: a peer still holds %u mbufs after %u ms: "
		"%s", mp->name, rte_mempool_in_use_count(mp), ETH_DRAIN_MS,
		i < RTE_DIM(zombie_pools) ? "freed once they are back" :
		"pool leaked");
}

static void
eth_queue_destroy(struct pmr_transport_queue *q)
{
	struct eth_queue *eq = eth_queue(q);
	struct rte_mbuf *mbufs[PMR_BURST_MAX];
	bool held = false;
	uint16_t nb;

	if (eq->nb_peers != 0)
		ETH_LOG(WARNING, "port %u: destroyed with %u peers",
			eq->port_id, eq->nb_peers);
	/*
	 * On memif, with the interrupt thread held: net_memif's stop runs
	 * its disconnect here, which its callbacks may be running for the
	 * same port (the peer went), and its close changes what they read.
	 */
	if (eq->gate != NULL) {
		held = eth_gate_hold(eq->port_id);
		eth_gate_detach(eq->port_id);
	}
	/* Drain what arrived, then stop and close: the PMD frees the rest. */
	while ((nb = rte_eth_rx_burst(eq->port_id, eq->queue_id, mbufs,
			PMR_BURST_MAX)) > 0)
		rte_pktmbuf_free_bulk(mbufs, nb);
	rte_eth_tx_done_cleanup(eq->port_id, eq->queue_id, 0);
	rte_eth_dev_stop(eq->port_id);
	rte_eth_dev_close(eq->port_id);
	if (eq->gate != NULL) {
		eth_gate_release(held);
		eth_gate_put();
	}
	eth_pool_release(eq->tx_pool);
	eth_pool_release(eq->rx_pool);
	eth_port_claim(eq->port_id, false);
	rte_free(eq);
	eth_zombies_reap();
}

static int
eth_queue_addr(struct pmr_transport_queue *q, struct pmr_transport_addr *addr)
{
	pmr_eth_addr_encode(&eth_queue(q)->local, addr);
	return 0;
}

static struct pmr_transport_peer *
eth_peer_create(struct pmr_transport_queue *q,
		const struct pmr_transport_addr *addr)
{
	struct eth_queue *eq = eth_queue(q);
	struct eth_peer *peer;
	struct pmr_eth_endpoint ep;

	if (pmr_eth_addr_decode(addr, &ep) != 0) {
		rte_errno = EINVAL;
		return NULL;
	}
	peer = rte_zmalloc("pmr_eth_peer", sizeof(*peer), RTE_CACHE_LINE_SIZE);
	if (peer == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	peer->ep = ep;
	peer->pub.src = pmr_eth_src_key(&ep);
	pmr_eth_hdr_template(peer->hdr, &eq->local, &ep);
	peer->ip_sum = pmr_eth_hdr_ip_sum(peer->hdr);
	eq->nb_peers++;
	return &peer->pub;
}

static void
eth_peer_destroy(struct pmr_transport_queue *q,
		struct pmr_transport_peer *peer)
{
	eth_queue(q)->nb_peers--;
	rte_free(container_of(peer, struct eth_peer, pub));
}

static int
eth_tx_flush(struct pmr_transport_queue *q)
{
	struct eth_queue *eq = eth_queue(q);
	int ret;

	ret = rte_eth_tx_done_cleanup(eq->port_id, eq->queue_id, 0);
	return ret == -ENOTSUP ? 0 : RTE_MIN(ret, 0);
}

static int
eth_stats_get(struct pmr_transport_queue *q, struct pmr_transport_stats *s)
{
	const struct eth_stats *st = &eth_queue(q)->stats;
	struct eth_nic_drops nic;
	unsigned int i;

	memset(s, 0, sizeof(*s));
	s->tx_pkts = st->tx_pkts;
	s->tx_bytes = st->tx_bytes;
	s->tx_zerocopy = st->tx_zerocopy;
	s->tx_full = st->tx_full;
	s->rx_pkts = st->rx_pkts;
	s->rx_bytes = st->rx_bytes;
	for (i = 0; i < PMR_ETH_DROP_MAX; i++)
		s->rx_dropped += st->rx_drop[i];
	eth_nic_drops_since(eth_queue(q), &nic);
	s->rx_dropped += nic.missed + nic.errors + nic.nombuf;
	return 0;
}

static void
eth_stats_reset(struct pmr_transport_queue *q)
{
	struct eth_queue *eq = eth_queue(q);

	memset(&eq->stats, 0, sizeof(eq->stats));
	eth_nic_drops_get(eq->port_id, &eq->nic0);
}

static int
eth_xstats_get(struct pmr_transport_queue *q, struct pmr_transport_xstat *xs,
		unsigned int n)
{
	const struct eth_stats *st = &eth_queue(q)->stats;
	struct eth_nic_drops nic;
	unsigned int i, k = 0;

#define XSTAT(nm, val) do { \
	if (k < n) { \
		snprintf(xs[k].name, sizeof(xs[k].name), "%s", nm); \
		xs[k].value = (val); \
	} \
	k++; \
} while (0)
	XSTAT("tx_invalid", st->tx_invalid);
	XSTAT("gate_closed", st->gate_closed);
	for (i = 1; i < PMR_ETH_DROP_MAX; i++) {
		char nm[sizeof(xs[0].name)];

		snprintf(nm, sizeof(nm), "rx_drop_%s", pmr_eth_drop_name(i));
		XSTAT(nm, st->rx_drop[i]);
	}
	/* Dropped by the port before the queue could see them. */
	eth_nic_drops_since(eth_queue(q), &nic);
	XSTAT("rx_drop_nic_missed", nic.missed);
	XSTAT("rx_drop_nic_errors", nic.errors);
	XSTAT("rx_drop_nic_nombuf", nic.nombuf);
#undef XSTAT
	return (int)k;
}

const struct pmr_transport_driver pmr_eth_driver = {
	.name = "eth",
	.caps = {
		.flags = PMR_TRANSPORT_CAP_TX_ZEROCOPY |
			PMR_TRANSPORT_CAP_RX_ZEROCOPY,
		.mtu = 9000 - sizeof(struct rte_ipv4_hdr) -
			sizeof(struct rte_udp_hdr),
		.headroom = PMR_ETH_HDR_LEN,
		.addr_len = PMR_ETH_ADDR_LEN,
	},
	.queue_create = eth_queue_create,
	.queue_destroy = eth_queue_destroy,
	.queue_addr = eth_queue_addr,
	.peer_create = eth_peer_create,
	.peer_destroy = eth_peer_destroy,
	.tx_flush = eth_tx_flush,
	.stats_get = eth_stats_get,
	.stats_reset = eth_stats_reset,
	.xstats_get = eth_xstats_get,
};
