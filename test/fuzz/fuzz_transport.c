/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * "fuzzq": the fake transport driver of the worker fuzz target (see
 * fuzz_transport.h). Single-threaded data path; only peer creation and
 * destruction also run on the nexus thread.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_hash_crc.h>

#include "fuzz_transport.h"
#include "pmr_fuzz.h"

#if defined(__SANITIZE_ADDRESS__)
#define FZQ_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FZQ_ASAN 1
#endif
#endif
#ifdef FZQ_ASAN
#include <sanitizer/asan_interface.h>
#define FZQ_POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define FZQ_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define FZQ_POISON(p, n) memset(p, 0xdb, n)
#define FZQ_UNPOISON(p, n) do { } while (0)
#endif

#define FZQ_ADDR_LEN 8
#define FZQ_TX_REFS 8192	/* power of 2 */
/* tx_flush calls without completions before they complete anyway. */
#define FZQ_FLUSH_PATIENCE 4096

enum fzq_slot_state {
	SLOT_FREE = 0,
	SLOT_QUEUED,		/* in the FIFO */
	SLOT_OUT,		/* handed out by rx_burst */
};

struct fzq_slot {
	uint8_t *buf;		/* FZQ_MTU bytes, malloc'd: ASan bounds */
	uint32_t len;
	uint64_t src;
	uint8_t state;
};

/* A zero-copy reference: what was sent, to check it was not changed. */
struct fzq_ref {
	struct pmr_msgbuf *mb;
	const uint8_t *data;
	uint32_t len;
	uint32_t crc;
};

struct fzq_queue {
	struct pmr_transport_queue base;	/* first */
	unsigned int id;
	struct fzq_slot slots[FZQ_RX_SLOTS];
	uint16_t free_stack[FZQ_RX_SLOTS];
	unsigned int nb_free;
	uint16_t fifo[FZQ_RX_SLOTS];	/* slot numbers, in order */
	unsigned int fifo_len;
	unsigned int nb_out;
	struct fzq_ref refs[FZQ_TX_REFS];
	uint32_t ref_head, ref_tail;
	uint32_t tx_budget;
	uint16_t rx_burst_max;
	bool flush_completes;
	unsigned int idle_flushes;
	struct fzq_counters cnt;
	struct pmr_transport_stats base_stats;	/* at the last reset */
};

static struct fzq_queue *queues[FZQ_MAX_QUEUES + 1];
static unsigned int nb_peers;
static void (*rx_trace)(unsigned int id, const uint8_t *pkt, uint32_t len,
		uint64_t src);

static struct fzq_queue *
fzq_get(unsigned int id)
{
	FUZZ_CHECK(id >= 1 && id <= FZQ_MAX_QUEUES && queues[id] != NULL);
	return queues[id];
}

/* Take a free slot; NULL if none. */
static struct fzq_slot *
slot_take(struct fzq_queue *fq, uint16_t *idx)
{
	struct fzq_slot *s;

	if (fq->nb_free == 0)
		return NULL;
	*idx = fq->free_stack[--fq->nb_free];
	s = &fq->slots[*idx];
	FUZZ_CHECK(s->state == SLOT_FREE);
	FZQ_UNPOISON(s->buf, FZQ_MTU);
	return s;
}

static void
slot_put(struct fzq_queue *fq, uint16_t idx)
{
	struct fzq_slot *s = &fq->slots[idx];

	s->state = SLOT_FREE;
	FZQ_POISON(s->buf, FZQ_MTU);
	fq->free_stack[fq->nb_free++] = idx;
}

/* Append to queue fq's FIFO; the packet is lost if there is no room. */
static int
fifo_push(struct fzq_queue *fq, const void *hdr, uint32_t hdr_len,
		const void *data, uint32_t len, uint64_t src)
{
	struct fzq_slot *s;
	uint16_t idx;

	if (hdr_len + len > FZQ_MTU || fq->fifo_len == FZQ_RX_SLOTS)
		return -ENOSPC;
	s = slot_take(fq, &idx);
	if (s == NULL)
		return -ENOSPC;
	if (hdr_len != 0)
		memcpy(s->buf, hdr, hdr_len);
	if (len != 0)
		memcpy(s->buf + hdr_len, data, len);
	s->len = hdr_len + len;
	s->src = src;
	s->state = SLOT_QUEUED;
	fq->fifo[fq->fifo_len++] = idx;
	return 0;
}

static uint16_t
fzq_tx_burst(struct pmr_transport_queue *q, const struct pmr_tx_pkt *pkts,
		uint16_t n)
{
	struct fzq_queue *fq = (struct fzq_queue *)q;
	uint16_t i;

	for (i = 0; i < n; i++) {
		const struct pmr_tx_pkt *p = &pkts[i];
		const struct pmr_msgbuf *mb = p->mb;
		struct fzq_ref *r;
		uint64_t dst;

		if (fq->tx_budget == 0 ||
		    fq->ref_tail - fq->ref_head == FZQ_TX_REFS) {
			fq->cnt.tx_refused += n - i;
			break;
		}
		if (fq->tx_budget != UINT32_MAX)
			fq->tx_budget--;
		/* The contract of struct pmr_tx_pkt. */
		FUZZ_CHECK(p->peer != NULL);
		FUZZ_CHECK((uint32_t)p->hdr_len + p->len <= q->caps.mtu);
		FUZZ_CHECK(p->hdr_len == 0 || p->hdr != NULL);
		if (mb == NULL) {
			FUZZ_CHECK(p->len == 0 && p->hdr_len != 0);
		} else {
			FUZZ_CHECK(p->data >= mb->data - mb->headroom);
			FUZZ_CHECK(p->data + p->len <= mb->data + mb->capacity);
			/* In place: room for the driver's header in front. */
			FUZZ_CHECK(p->hdr_len != 0 ||
				p->data - q->caps.headroom >=
				mb->data - mb->headroom);
		}
		dst = p->peer->src;
		if (dst >= 1 && dst <= FZQ_MAX_QUEUES && queues[dst] != NULL &&
		    fifo_push(queues[dst], p->hdr, p->hdr_len, p->data,
				p->len, fq->id) == 0)
			fq->cnt.tx_pkts++;
		else
			fq->cnt.tx_lost++;
		if (mb != NULL) {
			/* Zero-copy: held until a completion. */
			pmr_msgbuf_tx_ref(p->mb);
			r = &fq->refs[fq->ref_tail++ & (FZQ_TX_REFS - 1)];
			r->mb = p->mb;
			r->data = p->data;
			r->len = p->len;
			r->crc = rte_hash_crc(p->data, p->len, 0);
		}
	}
	return i;
}

static uint16_t
fzq_rx_burst(struct pmr_transport_queue *q, struct pmr_rx_pkt *pkts,
		uint16_t n)
{
	struct fzq_queue *fq = (struct fzq_queue *)q;
	uint16_t i;

	if (fq->rx_burst_max != 0)
		n = RTE_MIN(n, fq->rx_burst_max);
	n = (uint16_t)RTE_MIN((unsigned int)n, fq->fifo_len);
	for (i = 0; i < n; i++) {
		struct fzq_slot *s = &fq->slots[fq->fifo[i]];

		s->state = SLOT_OUT;
		if (rx_trace != NULL)
			rx_trace(fq->id, s->buf, s->len, s->src);
		pkts[i].data = s->buf;
		pkts[i].len = s->len;
		pkts[i].src = s->src;
		pkts[i].handle = (void *)(uintptr_t)(fq->fifo[i] + 1u);
	}
	memmove(fq->fifo, fq->fifo + n,
		(fq->fifo_len - n) * sizeof(fq->fifo[0]));
	fq->fifo_len -= n;
	fq->nb_out += n;
	fq->cnt.rx_delivered += n;
	return n;
}

static void
fzq_rx_release(struct pmr_transport_queue *q, struct pmr_rx_pkt *pkts,
		uint16_t n)
{
	struct fzq_queue *fq = (struct fzq_queue *)q;
	uint16_t i;

	for (i = 0; i < n; i++) {
		uintptr_t h = (uintptr_t)pkts[i].handle;

		/* Released once, and only what rx_burst handed out. */
		FUZZ_CHECK(h >= 1 && h <= FZQ_RX_SLOTS);
		FUZZ_CHECK(fq->slots[h - 1].state == SLOT_OUT);
		slot_put(fq, (uint16_t)(h - 1));
		fq->nb_out--;
		fq->cnt.rx_released++;
	}
}

/* Drop the n oldest references, checking the packets were left alone. */
static void
refs_complete(struct fzq_queue *fq, uint32_t n)
{
	while (n-- > 0 && fq->ref_head != fq->ref_tail) {
		struct fzq_ref *r = &fq->refs[fq->ref_head++ &
				(FZQ_TX_REFS - 1)];

		/* A msgbuf in flight must be neither written nor freed. */
		FUZZ_CHECK(pmr_msgbuf_tx_pending(r->mb) != 0);
		FUZZ_CHECK(rte_hash_crc(r->data, r->len, 0) == r->crc);
		pmr_msgbuf_tx_unref(r->mb);
	}
	fq->idle_flushes = 0;
}

static int
fzq_tx_flush(struct pmr_transport_queue *q)
{
	struct fzq_queue *fq = (struct fzq_queue *)q;

	/*
	 * A device completes its sends in the end: a worker that waits
	 * for that (spinning on tx_flush) is not left spinning forever.
	 */
	if (fq->flush_completes || ++fq->idle_flushes >= FZQ_FLUSH_PATIENCE)
		refs_complete(fq, UINT32_MAX);
	return 0;
}

static struct pmr_transport_queue *
fzq_queue_create(const struct pmr_transport_driver *drv, const char *devargs,
		int socket_id)
{
	struct fzq_queue *fq;
	unsigned int id, i;

	(void)socket_id;
	if (devargs == NULL || sscanf(devargs, "id=%u", &id) != 1 ||
	    id < 1 || id > FZQ_MAX_QUEUES || queues[id] != NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	fq = calloc(1, sizeof(*fq));
	if (fq == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	for (i = 0; i < FZQ_RX_SLOTS; i++) {
		fq->slots[i].buf = malloc(FZQ_MTU);
		if (fq->slots[i].buf == NULL)
			break;
		FZQ_POISON(fq->slots[i].buf, FZQ_MTU);
		fq->free_stack[i] = (uint16_t)(FZQ_RX_SLOTS - 1 - i);
	}
	if (i < FZQ_RX_SLOTS) {
		while (i-- > 0) {
			FZQ_UNPOISON(fq->slots[i].buf, FZQ_MTU);
			free(fq->slots[i].buf);
		}
		free(fq);
		rte_errno = ENOMEM;
		return NULL;
	}
	fq->nb_free = FZQ_RX_SLOTS;
	fq->id = id;
	fq->tx_budget = UINT32_MAX;
	fq->flush_completes = true;
	fq->base.tx_burst = fzq_tx_burst;
	fq->base.rx_burst = fzq_rx_burst;
	fq->base.rx_release = fzq_rx_release;
	fq->base.caps = drv->caps;
	queues[id] = fq;
	return &fq->base;
}

static void
fzq_queue_destroy(struct pmr_transport_queue *q)
{
	struct fzq_queue *fq = (struct fzq_queue *)q;
	unsigned int i;

	refs_complete(fq, UINT32_MAX);
	queues[fq->id] = NULL;
	for (i = 0; i < FZQ_RX_SLOTS; i++) {
		FZQ_UNPOISON(fq->slots[i].buf, FZQ_MTU);
		free(fq->slots[i].buf);
	}
	free(fq);
}

static int
fzq_queue_addr(struct pmr_transport_queue *q, struct pmr_transport_addr *addr)
{
	struct fzq_queue *fq = (struct fzq_queue *)q;
	uint32_t id = fq->id;

	memset(addr, 0, sizeof(*addr));
	addr->len = FZQ_ADDR_LEN;
	memcpy(addr->bytes, "fzq", 4);
	memcpy(addr->bytes + 4, &id, sizeof(id));
	return 0;
}

static struct pmr_transport_peer *
fzq_peer_create(struct pmr_transport_queue *q,
		const struct pmr_transport_addr *addr)
{
	struct pmr_transport_peer *peer;
	uint32_t id;

	(void)q;
	if (addr->len != FZQ_ADDR_LEN || memcmp(addr->bytes, "fzq", 4) != 0) {
		rte_errno = EINVAL;
		return NULL;
	}
	memcpy(&id, addr->bytes + 4, sizeof(id));
	peer = malloc(sizeof(*peer));
	if (peer == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	peer->src = id;
	__atomic_fetch_add(&nb_peers, 1, __ATOMIC_RELAXED);
	return peer;
}

static void
fzq_peer_destroy(struct pmr_transport_queue *q,
		struct pmr_transport_peer *peer)
{
	(void)q;
	__atomic_fetch_sub(&nb_peers, 1, __ATOMIC_RELAXED);
	free(peer);
}

static int
fzq_stats_get(struct pmr_transport_queue *q, struct pmr_transport_stats *st)
{
	struct fzq_queue *fq = (struct fzq_queue *)q;

	memset(st, 0, sizeof(*st));
	st->tx_pkts = fq->cnt.tx_pkts - fq->base_stats.tx_pkts;
	st->tx_full = fq->cnt.tx_refused - fq->base_stats.tx_full;
	st->rx_pkts = fq->cnt.rx_delivered - fq->base_stats.rx_pkts;
	return 0;
}

static void
fzq_stats_reset(struct pmr_transport_queue *q)
{
	struct fzq_queue *fq = (struct fzq_queue *)q;

	fq->base_stats.tx_pkts = fq->cnt.tx_pkts;
	fq->base_stats.tx_full = fq->cnt.tx_refused;
	fq->base_stats.rx_pkts = fq->cnt.rx_delivered;
}

static const struct pmr_transport_driver fzq_driver = {
	.name = FZQ_DRIVER_NAME,
	.caps = {
		.flags = PMR_TRANSPORT_CAP_TX_ZEROCOPY |
			PMR_TRANSPORT_CAP_RX_ZEROCOPY,
		.mtu = FZQ_MTU,
		.headroom = FZQ_HEADROOM,
		.addr_len = FZQ_ADDR_LEN,
		.rx_depth = FZQ_RX_DEPTH,
	},
	.queue_create = fzq_queue_create,
	.queue_destroy = fzq_queue_destroy,
	.queue_addr = fzq_queue_addr,
	.peer_create = fzq_peer_create,
	.peer_destroy = fzq_peer_destroy,
	.tx_flush = fzq_tx_flush,
	.stats_get = fzq_stats_get,
	.stats_reset = fzq_stats_reset,
};

int
fzq_register(void)
{
	return pmr_transport_register(&fzq_driver);
}

struct pmr_transport_queue *
fzq_queue(unsigned int id)
{
	return &fzq_get(id)->base;
}

unsigned int
fzq_id(const struct pmr_transport_queue *q)
{
	return ((const struct fzq_queue *)q)->id;
}

int
fzq_inject(unsigned int id, const void *pkt, uint32_t len, uint64_t src)
{
	struct fzq_queue *fq = fzq_get(id);
	int ret;

	ret = fifo_push(fq, NULL, 0, pkt, len, src);
	if (ret == 0)
		fq->cnt.injected++;
	return ret;
}

unsigned int
fzq_rx_queued(unsigned int id)
{
	return fzq_get(id)->fifo_len;
}

uint8_t *
fzq_rx_peek(unsigned int id, unsigned int pos, uint32_t *len)
{
	struct fzq_queue *fq = fzq_get(id);
	struct fzq_slot *s;

	if (pos >= fq->fifo_len)
		return NULL;
	s = &fq->slots[fq->fifo[pos]];
	*len = s->len;
	return s->buf;
}

/* Take the packet at pos out of the FIFO; return its slot. */
static uint16_t
fifo_remove(struct fzq_queue *fq, unsigned int pos)
{
	uint16_t idx = fq->fifo[pos];

	memmove(fq->fifo + pos, fq->fifo + pos + 1,
		(fq->fifo_len - pos - 1) * sizeof(fq->fifo[0]));
	fq->fifo_len--;
	return idx;
}

void
fzq_rx_drop(unsigned int id, unsigned int pos)
{
	struct fzq_queue *fq = fzq_get(id);

	if (pos < fq->fifo_len)
		slot_put(fq, fifo_remove(fq, pos));
}

void
fzq_rx_dup(unsigned int id, unsigned int pos)
{
	struct fzq_queue *fq = fzq_get(id);
	struct fzq_slot *s;

	if (pos >= fq->fifo_len)
		return;
	s = &fq->slots[fq->fifo[pos]];
	fifo_push(fq, NULL, 0, s->buf, s->len, s->src);
}

void
fzq_rx_defer(unsigned int id, unsigned int pos)
{
	struct fzq_queue *fq = fzq_get(id);
	uint16_t idx;

	if (pos < fq->fifo_len) {
		idx = fifo_remove(fq, pos);
		fq->fifo[fq->fifo_len++] = idx;
	}
}

void
fzq_rx_flush(unsigned int id)
{
	struct fzq_queue *fq = fzq_get(id);

	while (fq->fifo_len > 0)
		slot_put(fq, fifo_remove(fq, 0));
}

unsigned int
fzq_rx_out(unsigned int id)
{
	return fzq_get(id)->nb_out;
}

void
fzq_set_rx_trace(void (*fn)(unsigned int id, const uint8_t *pkt,
		uint32_t len, uint64_t src))
{
	rx_trace = fn;
}

void
fzq_set_rx_burst_max(unsigned int id, uint16_t n)
{
	fzq_get(id)->rx_burst_max = n;
}

void
fzq_set_tx_budget(unsigned int id, uint32_t n)
{
	fzq_get(id)->tx_budget = n;
}

void
fzq_set_flush_completes(unsigned int id, bool on)
{
	fzq_get(id)->flush_completes = on;
}

void
fzq_complete(unsigned int id, uint32_t n)
{
	refs_complete(fzq_get(id), n);
}

unsigned int
fzq_tx_refs(unsigned int id)
{
	struct fzq_queue *fq = fzq_get(id);

	return fq->ref_tail - fq->ref_head;
}

void
fzq_counters(unsigned int id, struct fzq_counters *c)
{
	*c = fzq_get(id)->cnt;
}

unsigned int
fzq_peers(void)
{
	return __atomic_load_n(&nb_peers, __ATOMIC_RELAXED);
}
