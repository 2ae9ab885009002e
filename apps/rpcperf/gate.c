/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * The gate between the EAL interrupt thread and the pollers (--server).
 *
 * net_memif (DPDK 22.11) maps its peer's memory when the peer connects and
 * unmaps it when the peer goes, in the callbacks of its control socket,
 * which the EAL interrupt thread runs. Nothing keeps an rx or tx burst on
 * another thread out of that memory meanwhile: the burst checks that the
 * port is connected, the interrupt thread unmaps, the burst reads the ring
 * and the process dies of SIGSEGV. A client that exits while the server
 * polls is enough. The driver says nothing before it unmaps, so the gate
 * keeps the interrupt thread busy instead: a callback of ours, on an
 * eventfd that is always ready, holds the thread while the pollers poll;
 * it closes the gate, waits until each poller that joined stands still
 * between two polls (rpcperf_gate_pass()) or has left, and returns. The
 * other callbacks then run, then ours again, which opens the gate.
 *
 * So a memif connect or disconnect waits at most GATE_HOLD_US for its
 * turn, and the pollers stop that often for one turn of the interrupt
 * thread. seq is odd while the gate is closed; a poller that stops writes
 * the odd value it stopped at in its slot.
 */

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_interrupts.h>

#include "rpcperf.h"

#define GATE_HOLD_US 2000
#define GATE_SPINS 64		/* yields before a poller seems descheduled */
#define GATE_NAP_US 100

struct rpcperf_gate rpcperf_gate;

static struct rte_intr_handle *gate_intr;

/* The interrupt thread: open, hold, close; or go if the gate is down. */
static void
gate_hold(void *arg)
{
	struct rpcperf_gate *g = arg;
	uint32_t seq = g->seq;
	uint64_t cnt;
	unsigned int k, spins = 0;

	if (__atomic_load_n(&g->down, __ATOMIC_ACQUIRE)) {
		/* Not ready any more: no more calls until unregistered. */
		if (read(rte_intr_fd_get(gate_intr), &cnt, sizeof(cnt)) < 0)
			cnt = 0;
		return;
	}
	__atomic_store_n(&g->seq, seq + 1, __ATOMIC_RELEASE);
	rte_delay_us_sleep(GATE_HOLD_US);
	seq += 2;
	__atomic_store_n(&g->seq, seq, __ATOMIC_SEQ_CST);
	/* Pairs with the fence of rpcperf_gate_join(). */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (k = 0; k < RTE_DIM(g->slot); k++)
		while (__atomic_load_n(&g->slot[k].joined, __ATOMIC_ACQUIRE) &&
		       __atomic_load_n(&g->slot[k].seen, __ATOMIC_ACQUIRE) !=
				seq) {
			/* A poller off its CPU: leave ours to others. */
			if (++spins < GATE_SPINS)
				sched_yield();
			else
				rte_delay_us_sleep(GATE_NAP_US);
		}
}

int
rpcperf_gate_up(void)
{
	struct rpcperf_gate *g = &rpcperf_gate;
	int fd, ret;

	/* Closed until the interrupt thread first holds it. */
	memset(g, 0, sizeof(*g));
	g->seq = 1;
	fd = eventfd(1, EFD_NONBLOCK | EFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	gate_intr = rte_intr_instance_alloc(RTE_INTR_INSTANCE_F_PRIVATE);
	if (gate_intr == NULL) {
		close(fd);
		return -ENOMEM;
	}
	if (rte_intr_fd_set(gate_intr, fd) != 0 ||
	    rte_intr_type_set(gate_intr, RTE_INTR_HANDLE_EXT) != 0) {
		ret = -rte_errno;
		goto fail;
	}
	ret = rte_intr_callback_register(gate_intr, gate_hold, g);
	if (ret != 0)
		goto fail;
	g->up = true;
	return 0;
fail:
	rte_intr_instance_free(gate_intr);
	gate_intr = NULL;
	close(fd);
	memset(g, 0, sizeof(*g));
	return ret;
}

void
rpcperf_gate_join(unsigned int slot)
{
	struct rpcperf_gate *g = &rpcperf_gate;
	uint32_t seq;

	if (!g->up)
		return;
	__atomic_store_n(&g->slot[slot].joined, true, __ATOMIC_SEQ_CST);
	/* Either gate_hold() sees the slot joined or we see it closed. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	seq = __atomic_load_n(&g->seq, __ATOMIC_ACQUIRE);
	if (seq & 1)
		rpcperf_gate_wait(slot, seq);
}

void
rpcperf_gate_wait(unsigned int slot, uint32_t seq)
{
	struct rpcperf_gate *g = &rpcperf_gate;

	__atomic_store_n(&g->slot[slot].seen, seq, __ATOMIC_RELEASE);
	while (__atomic_load_n(&g->seq, __ATOMIC_ACQUIRE) == seq)
		sched_yield();
}

void
rpcperf_gate_leave(unsigned int slot)
{
	__atomic_store_n(&rpcperf_gate.slot[slot].joined, false,
			__ATOMIC_RELEASE);
}

void
rpcperf_gate_down(void)
{
	struct rpcperf_gate *g = &rpcperf_gate;
	unsigned int k;
	int fd;

	if (!g->up)
		return;
	for (k = 0; k < RTE_DIM(g->slot); k++)
		rpcperf_gate_leave(k);
	__atomic_store_n(&g->down, true, __ATOMIC_RELEASE);
	/* Waits for gate_hold() to return if it is running. */
	if (rte_intr_callback_unregister_sync(gate_intr, gate_hold, g) < 0)
		fprintf(stderr, "rpcperf: gate: callback not unregistered\n");
	fd = rte_intr_fd_get(gate_intr);
	rte_intr_instance_free(gate_intr);
	gate_intr = NULL;
	close(fd);
	/* Open for good: rpcperf_gate_pass() lets everybody through. */
	__atomic_store_n(&g->seq, 0, __ATOMIC_RELEASE);
	g->up = false;
}
