/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * The memif gate: the EAL interrupt thread against the bursts of memif
 * queues.
 *
 * net_memif (DPDK 22.11) maps its peer's memory when the peer connects and
 * unmaps it when the peer goes, in the callbacks of its control socket,
 * which the EAL interrupt thread runs. Nothing keeps an rx or tx burst on
 * another thread out of that memory meanwhile: the burst checks that the
 * port is connected, the interrupt thread unmaps, the burst reads the ring
 * and the process dies of SIGSEGV. The driver says nothing before it
 * unmaps, so the gate keeps the interrupt thread busy instead: a callback
 * of ours, on an eventfd that is always ready, holds that thread while the
 * bursts run; when it lets go, it first closes the gate and waits until no
 * memif queue is inside a burst. memif's callbacks then run, then ours
 * again, which opens the gate.
 *
 * A queue marks itself busy, then looks at the gate (eth_gate_enter(),
 * eth_private.h): open, it bursts and unmarks; closed, it unmarks and
 * does not burst. The callback closes the gate, then looks at every
 * queue's mark. Each side writes, then fences, then reads the other's
 * (Dekker): at least one sees the other, so no burst runs on memory
 * memif's callbacks change.
 *
 * Neither side waits long for the other. The callback gives the bursts
 * in progress ETH_GATE_QUICK_US to end; one that does not is most likely
 * of a thread the kernel took off its CPU, so the gate opens again for
 * ETH_GATE_RETRY_US rather than keep every queue waiting for that thread,
 * and closes again; only after ETH_GATE_PATIENCE_US does it wait for the
 * bursts whatever they take (each is bounded by its own work; a queue
 * that does not poll holds nothing). A burst that finds the gate closed
 * gives way to the interrupt thread if that thread closed it on the same
 * CPU (it yields; elsewhere it spins), then: RX tries once more and else
 * returns nothing (the packets wait in memif's ring); TX tries until the
 * gate opens, at most ETH_GATE_TX_WAIT_US, as the engine drops a burst
 * refused a few times in a row, then is refused.
 *
 * memif's stop and close (rte_eth_dev_stop(), _close() at queue destroy)
 * run memif's disconnect on the calling thread; the interrupt thread may
 * run it at the same time for the same port (the peer went), and both
 * unregister and free the same control channel. So a queue's port is
 * stopped and closed while the callback holds the interrupt thread for it
 * (eth_gate_hold()): the callback serves such a request before it closes
 * the gate and stays until it is done. A queue's create attaches it to
 * the gate the same way.
 *
 * The callback is registered while any memif queue exists (reference
 * counted: eth_gate_get(), _put()), so a process without memif ports pays
 * nothing, and a queue on any other port neither (its bursts are built
 * without the gate).
 *
 * Costs, on memif ports only: a memif connect or disconnect waits for its
 * turn on the interrupt thread at most ETH_GATE_OPEN_US plus the thread's
 * way back to its CPU, ETH_GATE_PATIENCE_US more if a poller is off its
 * CPU in a burst (so do EAL alarms and the other interrupt callbacks);
 * the thread wakes every ETH_GATE_OPEN_US; a burst takes an atomic
 * exchange and a store; the gate is closed a few microseconds per turn
 * (bursts refused then are counted: the xstat gate_closed); a queue's
 * create and destroy wait for the thread, at most ETH_GATE_HOLD_MS (then
 * logged, and done without it).
 */

#define _GNU_SOURCE	/* sched_getcpu() */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_interrupts.h>
#include <rte_pause.h>

#include "eth_private.h"

#define ETH_GATE_OPEN_US 2000	/* the bursts' turn, memif's wait */
#define ETH_GATE_QUICK_US 20	/* bursts in progress end in this, or */
#define ETH_GATE_RETRY_US 200	/* ... the gate opens again this long */
#define ETH_GATE_PATIENCE_US 20000	/* then the bursts are waited for */
#define ETH_GATE_TX_WAIT_US 500	/* most a TX burst waits for the gate */
#define ETH_GATE_HOLD_MS 1000	/* most a stop waits for the thread */
#define ETH_GATE_SPINS 64	/* yields before a queue seems descheduled */
#define ETH_GATE_NAP_US 50

/* Closed (1) unless the interrupt thread is in eth_gate_cb()'s window. */
uint32_t eth_gate_closed __rte_cache_aligned = 1;
/* Each port's queue marks its bursts here. */
struct eth_gate_slot eth_gate_slots[RTE_MAX_ETHPORTS];
/* The CPU the interrupt thread closed the gate on last. */
static int gate_cpu = -1;

/* The control path's side: all under gate_lock. */
static pthread_mutex_t gate_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned int gate_refs;		/* memif queues */
static struct rte_intr_handle *gate_intr;
static int gate_fd = -1;
static uint32_t gate_gen;		/* of hold requests */

/* Read by the callback, written under gate_lock. */
static bool gate_port[RTE_MAX_ETHPORTS];	/* its bursts gated */
static uint32_t gate_down;		/* unregistering: no more turns */
static uint32_t gate_req;		/* a hold wanted (its gen), or 0 */
static uint32_t gate_ack;		/* the hold the callback stands for */

/*
 * Is no gated queue inside a burst (the gate closed)? Waits up to
 * quick_us for those in progress to end, or, quick_us 0, until they do.
 */
static bool
eth_gate_drain(unsigned int quick_us)
{
	uint64_t deadline = rte_get_timer_cycles() +
		rte_get_timer_hz() * quick_us / 1000000;
	unsigned int p, spins = 0;

	for (p = 0; p < RTE_DIM(eth_gate_slots); p++) {
		if (!__atomic_load_n(&gate_port[p], __ATOMIC_RELAXED))
			continue;
		while (__atomic_load_n(&eth_gate_slots[p].busy,
				__ATOMIC_ACQUIRE) != 0) {
			if (quick_us != 0) {
				if (rte_get_timer_cycles() > deadline)
					return false;
				rte_pause();
			} else if (++spins < ETH_GATE_SPINS) {
				/* A queue off its CPU, maybe ours. */
				sched_yield();
			} else {
				rte_delay_us_sleep(ETH_GATE_NAP_US);
			}
		}
	}
	return true;
}

/* A port stops and closes (eth_gate_hold()) while we stand here. */
static void
eth_gate_serve(void)
{
	uint32_t req = __atomic_load_n(&gate_req, __ATOMIC_ACQUIRE);

	if (req == 0)
		return;
	__atomic_store_n(&gate_ack, req, __ATOMIC_RELEASE);
	while (__atomic_load_n(&gate_req, __ATOMIC_ACQUIRE) == req)
		rte_delay_us_sleep(ETH_GATE_NAP_US);
}

/*
 * The interrupt thread, in turn with every other callback: open the gate,
 * let the bursts run, serve a hold if one is wanted, close the gate, and
 * go (memif's callbacks run next) once no burst is in progress. A burst
 * that does not end at once is most likely of a thread off its CPU: the
 * gate opens again for a while rather than keep every queue waiting for
 * it, for at most ETH_GATE_PATIENCE_US, then the bursts are waited for.
 */
static void
eth_gate_cb(void *arg __rte_unused)
{
	uint64_t cnt, patience;

	if (__atomic_load_n(&gate_down, __ATOMIC_ACQUIRE) != 0) {
		/* Not ready any more: no more turns until unregistered. */
		if (read(gate_fd, &cnt, sizeof(cnt)) < 0)
			cnt = 0;
		return;
	}
	__atomic_store_n(&eth_gate_closed, 0, __ATOMIC_RELEASE);
	rte_delay_us_sleep(ETH_GATE_OPEN_US);
	patience = rte_get_timer_cycles() +
		rte_get_timer_hz() * ETH_GATE_PATIENCE_US / 1000000;
	for (;;) {
		eth_gate_serve();
		__atomic_store_n(&gate_cpu, sched_getcpu(), __ATOMIC_RELAXED);
		__atomic_store_n(&eth_gate_closed, 1, __ATOMIC_RELAXED);
		/* Pairs with the exchange of eth_gate_enter(). */
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		if (rte_get_timer_cycles() > patience) {
			eth_gate_drain(0);
			return;
		}
		if (eth_gate_drain(ETH_GATE_QUICK_US))
			return;
		__atomic_store_n(&eth_gate_closed, 0, __ATOMIC_RELEASE);
		rte_delay_us_sleep(ETH_GATE_RETRY_US);
	}
}

static int
eth_gate_up(void)
{
	int ret;

	gate_fd = eventfd(1, EFD_NONBLOCK | EFD_CLOEXEC);
	if (gate_fd < 0)
		return -errno;
	gate_intr = rte_intr_instance_alloc(RTE_INTR_INSTANCE_F_PRIVATE);
	if (gate_intr == NULL) {
		ret = -ENOMEM;
		goto fail;
	}
	if (rte_intr_fd_set(gate_intr, gate_fd) != 0 ||
	    rte_intr_type_set(gate_intr, RTE_INTR_HANDLE_EXT) != 0) {
		ret = -rte_errno;
		goto fail;
	}
	/* Closed until the interrupt thread first opens it. */
	__atomic_store_n(&eth_gate_closed, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&gate_down, 0, __ATOMIC_RELAXED);
	ret = rte_intr_callback_register(gate_intr, eth_gate_cb, NULL);
	if (ret != 0)
		goto fail;
	ETH_LOG(DEBUG, "memif gate up");
	return 0;
fail:
	rte_intr_instance_free(gate_intr);
	gate_intr = NULL;
	close(gate_fd);
	gate_fd = -1;
	return ret;
}

static void
eth_gate_down(void)
{
	__atomic_store_n(&gate_down, 1, __ATOMIC_RELEASE);
	/* Waits for eth_gate_cb() to return if it is running. */
	if (rte_intr_callback_unregister_sync(gate_intr, eth_gate_cb,
			NULL) < 0)
		ETH_LOG(WARNING, "memif gate: callback not unregistered");
	rte_intr_instance_free(gate_intr);
	gate_intr = NULL;
	close(gate_fd);
	gate_fd = -1;
	ETH_LOG(DEBUG, "memif gate down");
}

int
eth_gate_get(void)
{
	int ret = 0;

	pthread_mutex_lock(&gate_lock);
	if (gate_refs == 0)
		ret = eth_gate_up();
	if (ret == 0)
		gate_refs++;
	pthread_mutex_unlock(&gate_lock);
	if (ret != 0)
		ETH_LOG(ERR, "memif gate: %s", strerror(-ret));
	return ret;
}

void
eth_gate_put(void)
{
	pthread_mutex_lock(&gate_lock);
	if (--gate_refs == 0)
		eth_gate_down();
	pthread_mutex_unlock(&gate_lock);
}

/*
 * Hold the interrupt thread in eth_gate_cb() (memif's callbacks wait)
 * until eth_gate_release(): returns with gate_lock held, and true if the
 * thread stands for us; false if it did not come in ETH_GATE_HOLD_MS
 * (another callback keeps it: logged, the caller goes on without) or if
 * this is that thread (nothing else of it runs meanwhile anyway).
 */
bool
eth_gate_hold(uint16_t port_id)
{
	uint64_t deadline;
	uint32_t gen;

	pthread_mutex_lock(&gate_lock);
	if (rte_thread_is_intr())
		return false;
	gen = ++gate_gen != 0 ? gate_gen : ++gate_gen;
	deadline = rte_get_timer_cycles() +
		rte_get_timer_hz() * ETH_GATE_HOLD_MS / 1000;
	__atomic_store_n(&gate_req, gen, __ATOMIC_RELEASE);
	while (__atomic_load_n(&gate_ack, __ATOMIC_ACQUIRE) != gen) {
		if (rte_get_timer_cycles() > deadline) {
			__atomic_store_n(&gate_req, 0, __ATOMIC_RELEASE);
			ETH_LOG(WARNING, "port %u: the interrupt thread did "
				"not come in %u ms: going on without it",
				port_id, ETH_GATE_HOLD_MS);
			return false;
		}
		rte_delay_us_sleep(ETH_GATE_NAP_US);
	}
	return true;
}

void
eth_gate_release(bool held)
{
	if (held)
		__atomic_store_n(&gate_req, 0, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&gate_lock);
}

/*
 * A burst found the gate closed on the CPU it runs on: the interrupt
 * thread, which will open it, may be waiting for that CPU. A burst on
 * another CPU would only give its CPU away.
 */
static inline void
eth_gate_make_way(void)
{
	if (__atomic_load_n(&gate_cpu, __ATOMIC_RELAXED) == sched_getcpu())
		sched_yield();
	else
		rte_pause();
}

/*
 * A TX burst found the gate closed: wait a little for it to open rather
 * than refuse the burst, which the engine would drop after a few tries.
 * True once through the gate (then eth_gate_leave()), false after
 * ETH_GATE_TX_WAIT_US. Not marked meanwhile: the interrupt thread waits
 * for no waiting queue.
 */
bool
eth_gate_wait(struct eth_gate_slot *slot)
{
	uint64_t deadline = rte_get_timer_cycles() +
		rte_get_timer_hz() * ETH_GATE_TX_WAIT_US / 1000000;

	do {
		eth_gate_make_way();
		if (__atomic_load_n(&eth_gate_closed, __ATOMIC_RELAXED) == 0 &&
		    eth_gate_enter(slot))
			return true;
	} while (rte_get_timer_cycles() < deadline);
	return false;
}

/*
 * An RX burst found the gate closed: make way once, try again, else
 * receive nothing this time: the packets wait in memif's ring.
 */
bool
eth_gate_yield(struct eth_gate_slot *slot)
{
	eth_gate_make_way();
	return __atomic_load_n(&eth_gate_closed, __ATOMIC_RELAXED) == 0 &&
		eth_gate_enter(slot);
}

/* The bursts of port_id's queue look at the gate (under a hold). */
void
eth_gate_attach(uint16_t port_id)
{
	__atomic_store_n(&eth_gate_slots[port_id].busy, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&gate_port[port_id], true, __ATOMIC_RELEASE);
}

void
eth_gate_detach(uint16_t port_id)
{
	__atomic_store_n(&gate_port[port_id], false, __ATOMIC_RELEASE);
}
