/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * Fault injection: drop, duplicate and reorder a fraction of the packets a
 * worker sends or receives, from a seeded generator, so that applications
 * (and pmrpc's own tests) can see loss recovery at work. Configured per
 * worker (pmr_worker_conf.faults); off costs one branch per burst.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_kvargs.h>

#include "rpc_private.h"
#include "rpc_tx.h"

static const char *const fault_keys[] = {
	"drop_tx", "drop_rx", "dup_tx", "reorder_tx", "reorder_rx", "seed",
	NULL,
};

static int
parse_fraction(const char *key, const char *value, void *opaque)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(value, &end);
	if (value[0] == '\0' || *end != '\0' || errno != 0 || !(v >= 0) ||
	    v > 1) {
		RPC_LOG(ERR, "faults: %s=%s: expected a fraction from 0 to 1",
			key, value);
		return -EINVAL;
	}
	*(uint32_t *)opaque = v >= 1 ? UINT32_MAX :
		(uint32_t)(v * 4294967296.0);
	return 0;
}

static int
parse_seed(const char *key, const char *value, void *opaque)
{
	char *end;

	errno = 0;
	*(uint64_t *)opaque = strtoull(value, &end, 0);
	if (value[0] == '\0' || value[0] == '-' || *end != '\0' ||
	    errno != 0) {
		RPC_LOG(ERR, "faults: %s=%s: expected a number", key, value);
		return -EINVAL;
	}
	return 0;
}

/* rpc_faults_parse() but for the warning that faults are on. */
static int
faults_parse(struct rpc_faults *f, const char *spec, uint16_t worker_id)
{
	struct rte_kvargs *kv;
	uint64_t seed = 1;
	int ret = 0;

	memset(f, 0, sizeof(*f));
	if (spec == NULL || spec[0] == '\0')
		return 0;
	kv = rte_kvargs_parse(spec, fault_keys);
	if (kv == NULL) {
		RPC_LOG(ERR, "faults '%s': keys are drop_tx drop_rx dup_tx "
			"reorder_tx reorder_rx seed", spec);
		return -EINVAL;
	}
#define FAULT(key, fn, ptr) do { \
	if (ret == 0 && rte_kvargs_count(kv, key) > 1) \
		ret = -EINVAL; \
	if (ret == 0 && rte_kvargs_count(kv, key) == 1) \
		ret = fn(key, rte_kvargs_get(kv, key), ptr); \
} while (0)
	FAULT("drop_tx", parse_fraction, &f->drop_tx);
	FAULT("drop_rx", parse_fraction, &f->drop_rx);
	FAULT("dup_tx", parse_fraction, &f->dup_tx);
	FAULT("reorder_tx", parse_fraction, &f->reorder_tx);
	FAULT("reorder_rx", parse_fraction, &f->reorder_rx);
	FAULT("seed", parse_seed, &seed);
#undef FAULT
	rte_kvargs_free(kv);
	if (ret != 0)
		return ret;
	/* Distinct, reproducible streams per worker; never zero. */
	f->rng = (seed + 1) * 0x9e3779b97f4a7c15ULL + worker_id;
	if (f->rng == 0)
		f->rng = 1;
	f->on = (f->drop_tx | f->drop_rx | f->dup_tx | f->reorder_tx |
		 f->reorder_rx) != 0;
	return 0;
}

int
rpc_faults_parse(struct rpc_faults *f, const char *spec, uint16_t worker_id)
{
	int ret = faults_parse(f, spec, worker_id);

	if (ret == 0 && f->on)
		RPC_LOG(WARNING, "worker %u: fault injection on: %s",
			worker_id, spec);
	return ret;
}

int
pmr_faults_check(const char *spec)
{
	struct rpc_faults f;

	return faults_parse(&f, spec, 0);
}

/* xorshift64*: the upper 32 bits, compared against a scaled fraction. */
static inline bool
fault_hit(struct rpc_faults *f, uint32_t fraction)
{
	uint64_t x = f->rng;

	if (fraction == 0)
		return false;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	f->rng = x;
	return (uint32_t)((x * 0x2545f4914f6cdd1dULL) >> 32) < fraction;
}

/*
 * Rewrite the burst pkts[0..n) in place (room for 2n): drop, duplicate,
 * swap with the next. A dropped packet still frees its msgbuf; a duplicate
 * goes out before its original, which alone frees it once sent.
 */
uint16_t
rpc_faults_tx(struct pmr_worker *w, struct pmr_tx_pkt *pkts, bool *free_after,
		uint16_t n)
{
	struct rpc_faults *f = &w->faults;
	struct pmr_tx_pkt in[PMR_BURST_MAX];
	bool in_free[PMR_BURST_MAX];
	uint16_t i, k = 0;

	memcpy(in, pkts, n * sizeof(*pkts));
	memcpy(in_free, free_after, n * sizeof(*free_after));
	for (i = 0; i < n; i++) {
		if (fault_hit(f, f->drop_tx)) {
			w->stats.fault_dropped++;
			if (in_free[i])
				rpc_txfree_push(w, in[i].mb);
			continue;
		}
		if (fault_hit(f, f->dup_tx)) {
			w->stats.fault_duplicated++;
			pkts[k] = in[i];
			free_after[k++] = false;
		}
		pkts[k] = in[i];
		free_after[k++] = in_free[i];
		/* Never move an original ahead of its duplicate. */
		if (k >= 2 && fault_hit(f, f->reorder_tx) &&
		    !(pkts[k - 2].mb == pkts[k - 1].mb && free_after[k - 1])) {
			struct pmr_tx_pkt t = pkts[k - 1];
			bool tf = free_after[k - 1];

			pkts[k - 1] = pkts[k - 2];
			free_after[k - 1] = free_after[k - 2];
			pkts[k - 2] = t;
			free_after[k - 2] = tf;
			w->stats.fault_reordered++;
		}
	}
	return k;
}

/*
 * Drop received packets, or hold one back until the next burst (which
 * then gets it last). pkts has room for n + 1.
 */
uint16_t
rpc_faults_rx(struct pmr_worker *w, struct pmr_rx_pkt *pkts, uint16_t n)
{
	struct rpc_faults *f = &w->faults;
	struct pmr_rx_pkt held = f->held;
	bool had = f->has_held;
	uint16_t i, k = 0;

	f->has_held = false;
	for (i = 0; i < n; i++) {
		if (fault_hit(f, f->drop_rx)) {
			w->stats.fault_dropped++;
			pmr_transport_rx_release(w->q, &pkts[i], 1);
			continue;
		}
		if (!f->has_held && fault_hit(f, f->reorder_rx)) {
			w->stats.fault_reordered++;
			f->held = pkts[i];
			f->has_held = true;
			continue;
		}
		pkts[k++] = pkts[i];
	}
	if (had)
		pkts[k++] = held;
	return k;
}
