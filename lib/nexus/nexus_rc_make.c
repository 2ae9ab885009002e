/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * RC QPs made off the nexus thread (issue 26). Making one registers its
 * region (pmr_transport_rc_region_conf()), which pins the region's
 * memory: 24 MiB took 0.3-1.9 s on one vCPU under TCG, and a nexus
 * thread that spent that in ibv_reg_mr() sent no heartbeat and read no
 * datagram, so its peers declared it dead. The nexus thread hands the
 * making to this thread instead (nexus_rc.c's MAKING state) and goes on
 * serving its socket, its rings and its timers; the result comes back
 * through mk_done and an eventfd the nexus thread polls.
 *
 * One DPDK control thread per nexus, started at its first job (a process
 * without RC never has it), making one QP at a time in the order asked.
 * It touches nothing of the nexus but its own queue (mk_lock): the
 * nexus lock is never taken here, so the nexus may wait for it under
 * that lock (a worker detaching waits for its queue's QP being made).
 * Thread rule of pmr_transport_rc.h: rc_create is control path, and may
 * run beside the nexus thread's rc_connect and rc_destroy on the same
 * queue (the drivers hold their own lock for those).
 */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_tailq.h>

#include "nexus_private.h"

static uint64_t
thread_cpu_ms(void)
{
	struct timespec ts = { 0 };

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Tests: burn ms of this thread's CPU time, as a long registration does. */
static void
spin(uint32_t ms)
{
	uint64_t end;

	if (ms == 0)
		return;
	end = thread_cpu_ms() + ms;
	while (thread_cpu_ms() < end)
		;
}

static void
make_one(struct pmr_nexus *nx, struct nexus_rc_job *j)
{
	uint64_t t0 = nexus_now_ms();

	spin(__atomic_load_n(&nx->mk_spin_ms, __ATOMIC_RELAXED));
	rte_errno = 0;
	j->rc = pmr_transport_rc_create(j->q, &j->attr);
	j->err = j->rc == NULL ? (rte_errno != 0 ? rte_errno : EIO) : 0;
	j->ms = nexus_now_ms() - t0;
}

static void *
maker_main(void *arg)
{
	struct pmr_nexus *nx = arg;
	struct nexus_rc_job *j;
	uint64_t one = 1;

	pthread_mutex_lock(&nx->mk_lock);
	while (!nx->mk_stop) {
		j = TAILQ_FIRST(&nx->mk_todo);
		if (j == NULL) {
			pthread_cond_wait(&nx->mk_cond, &nx->mk_lock);
			continue;
		}
		TAILQ_REMOVE(&nx->mk_todo, j, next);
		nx->mk_running = j;
		pthread_mutex_unlock(&nx->mk_lock);
		make_one(nx, j);
		pthread_mutex_lock(&nx->mk_lock);
		nx->mk_running = NULL;
		TAILQ_INSERT_TAIL(&nx->mk_done, j, next);
		pthread_cond_broadcast(&nx->mk_cond);
		/* Cannot fail but by overflow, which a wake-up then is. */
		if (write(nx->mk_fd, &one, sizeof(one)) < 0)
			NX_LOG(DEBUG, "RC maker: eventfd: %s", strerror(errno));
	}
	pthread_mutex_unlock(&nx->mk_lock);
	return NULL;
}

int
nexus_rc_make_init(struct pmr_nexus *nx)
{
	pthread_mutex_init(&nx->mk_lock, NULL);
	pthread_cond_init(&nx->mk_cond, NULL);
	TAILQ_INIT(&nx->mk_todo);
	TAILQ_INIT(&nx->mk_done);
	nx->mk_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (nx->mk_fd < 0) {
		int ret = -errno;

		pthread_cond_destroy(&nx->mk_cond);
		pthread_mutex_destroy(&nx->mk_lock);
		return ret;
	}
	return 0;
}

/* A job made for an abandoned pair: its QP, never handed out, goes. */
static void
job_discard(struct nexus_rc_job *j)
{
	if (j->rc != NULL)
		pmr_transport_rc_destroy(j->q, j->rc);
	free(j);
}

void
nexus_rc_make_fini(struct pmr_nexus *nx)
{
	struct nexus_rc_job *j;

	if (nx->mk_started) {
		pthread_mutex_lock(&nx->mk_lock);
		nx->mk_stop = true;
		pthread_cond_broadcast(&nx->mk_cond);
		pthread_mutex_unlock(&nx->mk_lock);
		pthread_join(nx->mk_thread, NULL);
		nx->mk_started = false;
	}
	/* Every pair was freed (no worker is left): only abandoned ones. */
	while ((j = TAILQ_FIRST(&nx->mk_done)) != NULL) {
		TAILQ_REMOVE(&nx->mk_done, j, next);
		job_discard(j);
	}
	close(nx->mk_fd);
	pthread_cond_destroy(&nx->mk_cond);
	pthread_mutex_destroy(&nx->mk_lock);
}

int
nexus_rc_make_start(struct pmr_nexus *nx, struct nexus_rc_job *j)
{
	int ret;

	pthread_mutex_lock(&nx->mk_lock);
	if (!nx->mk_started) {
		char name[RTE_MAX_THREAD_NAME_LEN];

		snprintf(name, sizeof(name), "pmr-nx-rc%u", nx->seq);
		ret = rte_ctrl_thread_create(&nx->mk_thread, name, NULL,
				maker_main, nx);
		if (ret != 0) {
			pthread_mutex_unlock(&nx->mk_lock);
			NX_LOG(ERR, "cannot start the RC QP maker thread: %s",
				strerror(-ret));
			return ret;
		}
		nx->mk_started = true;
	}
	TAILQ_INSERT_TAIL(&nx->mk_todo, j, next);
	pthread_cond_signal(&nx->mk_cond);
	pthread_mutex_unlock(&nx->mk_lock);
	return 0;
}

void
nexus_rc_make_abandon(struct pmr_nexus *nx, struct nexus_rc_job *j)
{
	struct nexus_rc_job *t;

	pthread_mutex_lock(&nx->mk_lock);
	if (nx->mk_running == j) {
		j->owner = NULL;	/* discarded once made */
		pthread_mutex_unlock(&nx->mk_lock);
		return;
	}
	TAILQ_FOREACH(t, &nx->mk_todo, next)
		if (t == j)
			break;
	if (t != NULL)
		TAILQ_REMOVE(&nx->mk_todo, j, next);
	else
		TAILQ_REMOVE(&nx->mk_done, j, next);
	pthread_mutex_unlock(&nx->mk_lock);
	job_discard(j);
}

void
nexus_rc_make_wait(struct pmr_nexus *nx, struct pmr_transport_queue *q)
{
	struct nexus_rc_job *j, *tmp;
	TAILQ_HEAD(, nexus_rc_job) gone = TAILQ_HEAD_INITIALIZER(gone);

	pthread_mutex_lock(&nx->mk_lock);
	while (nx->mk_running != NULL && nx->mk_running->q == q)
		pthread_cond_wait(&nx->mk_cond, &nx->mk_lock);
	RTE_TAILQ_FOREACH_SAFE(j, &nx->mk_done, next, tmp)
		if (j->q == q && j->owner == NULL) {
			TAILQ_REMOVE(&nx->mk_done, j, next);
			TAILQ_INSERT_TAIL(&gone, j, next);
		}
	pthread_mutex_unlock(&nx->mk_lock);
	while ((j = TAILQ_FIRST(&gone)) != NULL) {
		TAILQ_REMOVE(&gone, j, next);
		job_discard(j);
	}
}

void
nexus_rc_make_poll(struct pmr_nexus *nx)
{
	TAILQ_HEAD(, nexus_rc_job) done = TAILQ_HEAD_INITIALIZER(done);
	struct nexus_rc_job *j;
	uint64_t n;

	if (read(nx->mk_fd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		NX_LOG(DEBUG, "RC maker: eventfd: %s", strerror(errno));
	pthread_mutex_lock(&nx->mk_lock);
	TAILQ_CONCAT(&done, &nx->mk_done, next);
	pthread_mutex_unlock(&nx->mk_lock);
	while ((j = TAILQ_FIRST(&done)) != NULL) {
		TAILQ_REMOVE(&done, j, next);
		if (j->owner == NULL)
			job_discard(j);
		else
			nexus_rc_made(nx, j);	/* frees j */
	}
}

void
nexus_rc_make_spin(struct pmr_nexus *nx, uint32_t ms)
{
	__atomic_store_n(&nx->mk_spin_ms, ms, __ATOMIC_RELAXED);
}
