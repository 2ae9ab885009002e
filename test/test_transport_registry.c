/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/* The transport registry: built-in drivers, lookup, custom registration. */

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_memory.h>

#include "eth_private.h"
#include "pmr_msgbuf.h"
#include "pmr_nexus.h"
#include "pmr_rpc.h"
#include "pmr_transport.h"
#include "pmr_transport_driver.h"
#include "pmr_test.h"

/* A fake driver whose queues never come up. */

static struct pmr_transport_queue *
fake_queue_create(const struct pmr_transport_driver *drv __rte_unused,
		const char *devargs __rte_unused, int socket_id __rte_unused)
{
	rte_errno = ENODEV;
	return NULL;
}

static void
fake_queue_destroy(struct pmr_transport_queue *q __rte_unused)
{
}

static int
fake_queue_addr(struct pmr_transport_queue *q __rte_unused,
		struct pmr_transport_addr *addr __rte_unused)
{
	return -ENOTSUP;
}

static struct pmr_transport_peer *
fake_peer_create(struct pmr_transport_queue *q __rte_unused,
		const struct pmr_transport_addr *addr __rte_unused)
{
	rte_errno = ENOTSUP;
	return NULL;
}

static void
fake_peer_destroy(struct pmr_transport_queue *q __rte_unused,
		struct pmr_transport_peer *peer __rte_unused)
{
}

static int
fake_stats_get(struct pmr_transport_queue *q __rte_unused,
		struct pmr_transport_stats *stats)
{
	memset(stats, 0, sizeof(*stats));
	return 0;
}

static void
fake_stats_reset(struct pmr_transport_queue *q __rte_unused)
{
}

#define FAKE_OPS \
	.queue_create = fake_queue_create, \
	.queue_destroy = fake_queue_destroy, \
	.queue_addr = fake_queue_addr, \
	.peer_create = fake_peer_create, \
	.peer_destroy = fake_peer_destroy, \
	.stats_get = fake_stats_get, \
	.stats_reset = fake_stats_reset

static const struct pmr_transport_driver fake_driver = {
	.name = "fake",
	.caps = {
		.flags = PMR_TRANSPORT_CAP_RDMA_READ,
		.mtu = 4096,
		.headroom = 64,
		.addr_len = 8,
	},
	FAKE_OPS,
};

/* Same name, different driver. */
static const struct pmr_transport_driver fake_dup_driver = {
	.name = "fake",
	FAKE_OPS,
};

/* Same name as a built-in driver. */
static const struct pmr_transport_driver fake_eth_driver = {
	.name = "eth",
	FAKE_OPS,
};

static const struct pmr_transport_driver fake_no_create_driver = {
	.name = "fake_nocreate",
	.queue_destroy = fake_queue_destroy,
	.queue_addr = fake_queue_addr,
	.peer_create = fake_peer_create,
	.peer_destroy = fake_peer_destroy,
	.stats_get = fake_stats_get,
	.stats_reset = fake_stats_reset,
};

/* Says it has RC QPs but has none of the rc_* callbacks. */
static const struct pmr_transport_driver fake_rc_nocb_driver = {
	.name = "fake_rc_nocb",
	.caps = { .flags = PMR_TRANSPORT_CAP_RC },
	FAKE_OPS,
};

/* Exactly PMR_TRANSPORT_NAME_MAX characters: no room for the NUL. */
static const struct pmr_transport_driver fake_long_driver = {
	.name = "fake_name_16_chr",
	FAKE_OPS,
};

static const struct pmr_transport_driver fake_empty_driver = {
	.name = "",
	FAKE_OPS,
};

static const struct pmr_transport_driver fake_noname_driver = {
	.name = NULL,
	FAKE_OPS,
};

/*
 * Fake drivers whose one queue comes up, to see which pools get registered:
 * memreg_driver says it needs registration, memreg_noflag_driver has the
 * callback but not the flag.
 */
static struct pmr_transport_queue memreg_queue;
static unsigned int memreg_calls;

static struct pmr_transport_queue *
memreg_queue_create(const struct pmr_transport_driver *drv,
		const char *devargs __rte_unused, int socket_id __rte_unused)
{
	memset(&memreg_queue, 0, sizeof(memreg_queue));
	memreg_queue.caps = drv->caps;
	return &memreg_queue;
}

static int
memreg_mem_register(struct pmr_transport_queue *q,
		const struct pmr_msgbuf_chunk *chunk)
{
	assert_ptr_equal(q, &memreg_queue);
	assert_non_null(chunk);
	memreg_calls++;
	return 0;
}

static int
memreg_mem_unregister(struct pmr_transport_queue *q,
		const struct pmr_msgbuf_chunk *chunk)
{
	assert_ptr_equal(q, &memreg_queue);
	assert_non_null(chunk);
	memreg_calls--;
	return 0;
}

static int
memreg_mem_key(struct pmr_transport_queue *q, const void *addr, size_t len,
		struct pmr_transport_mkey *key)
{
	assert_ptr_equal(q, &memreg_queue);
	(void)addr;
	(void)len;
	key->lkey = 0x1234;
	key->rkey = 0x5678;
	return 0;
}

#define MEMREG_OPS \
	.queue_create = memreg_queue_create, \
	.queue_destroy = fake_queue_destroy, \
	.queue_addr = fake_queue_addr, \
	.peer_create = fake_peer_create, \
	.peer_destroy = fake_peer_destroy, \
	.mem_register = memreg_mem_register, \
	.mem_unregister = memreg_mem_unregister, \
	.mem_key = memreg_mem_key, \
	.stats_get = fake_stats_get, \
	.stats_reset = fake_stats_reset

static const struct pmr_transport_driver memreg_driver = {
	.name = "memreg",
	.caps = { .flags = PMR_TRANSPORT_CAP_MEM_REG, .mtu = 1024 },
	MEMREG_OPS,
};

static const struct pmr_transport_driver memreg_noflag_driver = {
	.name = "memreg_noflag",
	.caps = { .mtu = 1024 },
	MEMREG_OPS,
};

/* Registered after the built-in ones: never the default. */
static const struct pmr_transport_driver fake_other_driver = {
	.name = "other",
	FAKE_OPS,
};

/* Families of an empty name and of one too long for the handshake. */
static const struct pmr_transport_driver fake_empty_family_driver = {
	.name = "fam_empty",
	.family = "",
	FAKE_OPS,
};

static const struct pmr_transport_driver fake_long_family_driver = {
	.name = "fam_long",
	.family = "fake_name_16_chr",
	FAKE_OPS,
};

/* Says it needs registration but cannot do it. */
static const struct pmr_transport_driver memreg_nocb_driver = {
	.name = "memreg_nocb",
	.caps = { .flags = PMR_TRANSPORT_CAP_MEM_REG },
	FAKE_OPS,
};

/* Registration without its undo and its keys: refused as well. */
static const struct pmr_transport_driver memreg_half_driver = {
	.name = "memreg_half",
	.caps = { .flags = PMR_TRANSPORT_CAP_MEM_REG, .mtu = 1024 },
	.queue_create = memreg_queue_create,
	.queue_destroy = fake_queue_destroy,
	.queue_addr = fake_queue_addr,
	.peer_create = fake_peer_create,
	.peer_destroy = fake_peer_destroy,
	.mem_register = memreg_mem_register,
	.stats_get = fake_stats_get,
	.stats_reset = fake_stats_reset,
};

/*
 * The library names no driver: the default is the first of the table meson
 * generated from the drivers it built (eth first), and stays so whatever
 * an application registers.
 */
static void
test_default_driver(void **state)
{
	unsigned int i;

	(void)state;
	assert_true(pmr_transport_nb_builtin >= 1);
	assert_true(pmr_transport_count() >= pmr_transport_nb_builtin);
	for (i = 0; i < pmr_transport_nb_builtin; i++)
		assert_ptr_equal(pmr_transport_get(i),
				pmr_transport_builtin[i]);
	assert_null(pmr_transport_builtin[pmr_transport_nb_builtin]);

	assert_ptr_equal(pmr_transport_default(), pmr_transport_get(0));
	assert_ptr_equal(pmr_transport_default(), &pmr_eth_driver);
	assert_string_equal(pmr_transport_name(pmr_transport_default()),
			"eth");

	assert_int_equal(pmr_transport_register(&fake_other_driver), 0);
	assert_ptr_equal(pmr_transport_default(), &pmr_eth_driver);
}

/* A worker that names no driver gets the default one. */
static void
test_default_worker(void **state)
{
	struct pmr_worker_conf conf = {
		.devargs = NULL,	/* filled in below */
		.nb_msgbufs = 64,
		.nb_mid_msgbufs = 2,
		.nb_large_msgbufs = 1,
		.max_msg_size = 1 << 16,
	};
	struct pmr_transport_queue *q;
	struct pmr_worker *w;
	struct pmr_nexus *nx;
	uint16_t a, b;
	char args[64];

	(void)state;
	assert_int_equal(pmr_test_ring_pair("dflt", &a, &b), 0);
	snprintf(args, sizeof(args), "port=%u,ip=10.9.1.1", a);
	conf.devargs = args;
	nx = pmr_nexus_create("127.0.0.1:0", NULL);
	assert_non_null(nx);
	w = pmr_worker_create(nx, &conf);
	assert_non_null(w);
	q = pmr_worker_queue(w);
	assert_non_null(q);
	assert_ptr_equal(q->driver, pmr_transport_default());
	assert_int_equal(pmr_worker_destroy(w), 0);
	assert_int_equal(pmr_nexus_destroy(nx), 0);
	pmr_test_ring_pair_free("dflt", a, b);
}

/*
 * PMR_TRANSPORT_CAP_MEM_REG is the contract: a queue with it gets each
 * chunk of a pool registered, a queue without it nothing, whatever
 * callbacks its driver has; a driver with the flag must have the callback.
 */
static void
test_mem_reg_flag(void **state)
{
	struct pmr_transport_queue *q;
	struct rte_mempool *mp;

	(void)state;
	assert_int_equal(pmr_transport_register(&memreg_nocb_driver),
			-EINVAL);
	assert_null(pmr_transport_find("memreg_nocb"));
	assert_int_equal(pmr_transport_register(&memreg_half_driver),
			-EINVAL);
	assert_null(pmr_transport_find("memreg_half"));
	assert_int_equal(pmr_transport_register(&memreg_driver), 0);
	assert_int_equal(pmr_transport_register(&memreg_noflag_driver), 0);

	mp = pmr_msgbuf_pool_create("memreg_mp", 64, 0, 256, 64,
			SOCKET_ID_ANY);
	assert_non_null(mp);

	q = pmr_transport_queue_create(&memreg_noflag_driver, NULL,
			SOCKET_ID_ANY);
	assert_ptr_equal(q, &memreg_queue);
	memreg_calls = 0;
	assert_int_equal(pmr_transport_mem_register(q, mp), 0);
	assert_int_equal(memreg_calls, 0);
	pmr_transport_queue_destroy(q);

	q = pmr_transport_queue_create(&memreg_driver, NULL, SOCKET_ID_ANY);
	assert_ptr_equal(q, &memreg_queue);
	memreg_calls = 0;
	assert_int_equal(pmr_transport_mem_register(q, mp), 0);
	assert_true(memreg_calls >= 1);
	/* Its keys come from the driver; unregister undoes each chunk. */
	{
		struct pmr_transport_mkey key;
		struct pmr_msgbuf *mb = pmr_msgbuf_alloc(mp, 8);

		assert_non_null(mb);
		assert_int_equal(pmr_transport_mem_key(q, mb->data, 8, &key),
				0);
		assert_int_equal(key.lkey, 0x1234);
		assert_int_equal(key.rkey, 0x5678);
		assert_int_equal(pmr_transport_mem_key(q, mb->data, 8, NULL),
				-EINVAL);
		assert_int_equal(pmr_msgbuf_free(mb), 0);
	}
	assert_int_equal(pmr_transport_mem_unregister(q, mp), 0);
	assert_int_equal(memreg_calls, 0);
	assert_int_equal(pmr_transport_mem_register(q, mp), 0);
	/* A queue narrower than its driver: no flag, no registration. */
	q->caps.flags &= ~PMR_TRANSPORT_CAP_MEM_REG;
	memreg_calls = 0;
	assert_int_equal(pmr_transport_mem_register(q, mp), 0);
	assert_int_equal(pmr_transport_mem_unregister(q, mp), 0);
	assert_int_equal(memreg_calls, 0);
	{
		struct pmr_transport_mkey key;

		assert_int_equal(pmr_transport_mem_key(q, &key, 1, &key),
				-ENOTSUP);
	}
	pmr_transport_queue_destroy(q);

	assert_int_equal(pmr_msgbuf_pool_free(mp), 0);
}

static void
test_find_eth(void **state)
{
	const struct pmr_transport_driver *eth;

	(void)state;
	eth = pmr_transport_find("eth");
	assert_non_null(eth);
	assert_ptr_equal(eth, &pmr_eth_driver);
	assert_string_equal(pmr_transport_name(eth), "eth");
	assert_null(pmr_transport_name(NULL));

	rte_errno = 0;
	assert_null(pmr_transport_find("no_such_driver"));
	assert_int_equal(rte_errno, ENOENT);
	rte_errno = 0;
	assert_null(pmr_transport_find(""));
	assert_int_equal(rte_errno, ENOENT);
	rte_errno = 0;
	assert_null(pmr_transport_find(NULL));
	assert_int_equal(rte_errno, ENOENT);
}

static void
test_eth_caps(void **state)
{
	const struct pmr_transport_driver *eth;
	struct pmr_transport_caps caps;

	(void)state;
	eth = pmr_transport_find("eth");
	assert_non_null(eth);
	memset(&caps, 0, sizeof(caps));
	assert_int_equal(pmr_transport_caps_get(eth, &caps), 0);
	assert_true(caps.mtu > 0);
	assert_true(caps.headroom >= 42);	/* Ethernet + IPv4 + UDP */
	assert_int_equal(caps.addr_len, 12);
	assert_true(caps.addr_len <= PMR_TRANSPORT_ADDR_MAX);
	assert_true((caps.flags & PMR_TRANSPORT_CAP_TX_ZEROCOPY) != 0);
	assert_true((caps.flags & PMR_TRANSPORT_CAP_RX_ZEROCOPY) != 0);
	assert_true((caps.flags & PMR_TRANSPORT_CAP_RC) == 0);
	assert_true((caps.flags & PMR_TRANSPORT_CAP_RDMA_READ) == 0);

	assert_int_equal(pmr_transport_caps_get(NULL, &caps), -EINVAL);
	assert_int_equal(pmr_transport_caps_get(eth, NULL), -EINVAL);
	assert_int_equal(pmr_transport_caps_get(NULL, NULL), -EINVAL);
}

static void
test_iterate(void **state)
{
	const struct pmr_transport_driver *drv, *other;
	unsigned int count, i, j;

	(void)state;
	count = pmr_transport_count();
	assert_true(count >= 1);
	for (i = 0; i < count; i++) {
		drv = pmr_transport_get(i);
		assert_non_null(drv);
		assert_non_null(pmr_transport_name(drv));
		assert_true(strlen(pmr_transport_name(drv)) > 0);
		assert_true(strlen(pmr_transport_name(drv)) <
				PMR_TRANSPORT_NAME_MAX);
		/* find() returns this very driver. */
		assert_ptr_equal(pmr_transport_find(pmr_transport_name(drv)),
				drv);
		for (j = 0; j < i; j++) {
			other = pmr_transport_get(j);
			assert_string_not_equal(pmr_transport_name(drv),
					pmr_transport_name(other));
		}
	}
	assert_null(pmr_transport_get(count));
	assert_null(pmr_transport_get(count + 1));
	assert_null(pmr_transport_get(UINT32_MAX));
}

static void
test_register_custom(void **state)
{
	const struct pmr_transport_driver *drv;
	struct pmr_transport_caps caps;
	unsigned int count;

	(void)state;
	count = pmr_transport_count();
	rte_errno = 0;
	assert_null(pmr_transport_find("fake"));
	assert_int_equal(rte_errno, ENOENT);

	assert_int_equal(pmr_transport_register(&fake_driver), 0);
	assert_int_equal(pmr_transport_count(), count + 1);
	drv = pmr_transport_find("fake");
	assert_ptr_equal(drv, &fake_driver);
	assert_ptr_equal(pmr_transport_get(count), &fake_driver);
	assert_null(pmr_transport_get(count + 1));
	assert_string_equal(pmr_transport_name(drv), "fake");
	assert_int_equal(pmr_transport_caps_get(drv, &caps), 0);
	assert_int_equal(caps.mtu, 4096);
	assert_int_equal(caps.addr_len, 8);
	assert_int_equal(caps.flags, PMR_TRANSPORT_CAP_RDMA_READ);
	/* The built-in driver is still there. */
	assert_ptr_equal(pmr_transport_find("eth"), &pmr_eth_driver);

	/* A name is registered once, built-in or not. */
	assert_int_equal(pmr_transport_register(&fake_driver), -EEXIST);
	assert_int_equal(pmr_transport_register(&fake_dup_driver), -EEXIST);
	assert_int_equal(pmr_transport_register(&fake_eth_driver), -EEXIST);
	assert_ptr_equal(pmr_transport_find("fake"), &fake_driver);
	assert_ptr_equal(pmr_transport_find("eth"), &pmr_eth_driver);
	assert_int_equal(pmr_transport_count(), count + 1);
}

static void
test_register_invalid(void **state)
{
	unsigned int count;

	(void)state;
	RTE_BUILD_BUG_ON(sizeof("fake_name_16_chr") - 1 !=
			PMR_TRANSPORT_NAME_MAX);
	count = pmr_transport_count();
	assert_int_equal(pmr_transport_register(NULL), -EINVAL);
	assert_int_equal(pmr_transport_register(&fake_no_create_driver),
			-EINVAL);
	assert_int_equal(pmr_transport_register(&fake_long_driver), -EINVAL);
	assert_int_equal(pmr_transport_register(&fake_empty_driver), -EINVAL);
	assert_int_equal(pmr_transport_register(&fake_noname_driver), -EINVAL);
	assert_int_equal(pmr_transport_register(&fake_rc_nocb_driver),
			-EINVAL);
	assert_int_equal(pmr_transport_register(&fake_empty_family_driver),
			-EINVAL);
	assert_int_equal(pmr_transport_register(&fake_long_family_driver),
			-EINVAL);
	assert_int_equal(pmr_transport_count(), count);
	rte_errno = 0;
	assert_null(pmr_transport_find("fake_nocreate"));
	assert_int_equal(rte_errno, ENOENT);
	assert_null(pmr_transport_find("fake_name_16_chr"));

	/* RC needs rc_fail; windows need RC and the mw callbacks: copies of
	 * a built-in driver with RC and windows (verbs), each missing one,
	 * are refused; a whole copy is taken. */
	{
		static struct pmr_transport_driver bad, whole;
		const struct pmr_transport_driver *rc;

		rc = pmr_transport_find("verbs");
		if (rc == NULL ||
		    (rc->caps.flags & PMR_TRANSPORT_CAP_MW) == 0)
			return;
		bad = *rc;
		bad.name = "rc_nofail";
		bad.rc_fail = NULL;
		assert_int_equal(pmr_transport_register(&bad), -EINVAL);
		bad = *rc;
		bad.name = "mw_nofree";
		bad.mw_free = NULL;
		assert_int_equal(pmr_transport_register(&bad), -EINVAL);
		bad = *rc;
		bad.name = "mw_norkey";
		bad.mw_rkey = NULL;
		assert_int_equal(pmr_transport_register(&bad), -EINVAL);
		bad = *rc;
		bad.name = "mw_noalloc";
		bad.mw_alloc = NULL;
		assert_int_equal(pmr_transport_register(&bad), -EINVAL);
		bad = *rc;
		bad.name = "mw_norc";
		bad.caps.flags &= ~PMR_TRANSPORT_CAP_RC;
		assert_int_equal(pmr_transport_register(&bad), -EINVAL);
		assert_int_equal(pmr_transport_count(), count);
		whole = *rc;
		whole.name = "rc_whole";
		assert_int_equal(pmr_transport_register(&whole), 0);
	}
}

static void
test_queue_create_fake(void **state)
{
	const struct pmr_transport_driver *drv;

	(void)state;
	drv = pmr_transport_find("fake");
	if (drv == NULL)
		assert_int_equal(pmr_transport_register(&fake_driver), 0);
	drv = pmr_transport_find("fake");
	assert_ptr_equal(drv, &fake_driver);

	rte_errno = 0;
	assert_null(pmr_transport_queue_create(drv, NULL, SOCKET_ID_ANY));
	assert_int_equal(rte_errno, ENODEV);
	rte_errno = 0;
	assert_null(pmr_transport_queue_create(drv, "anything=1", 0));
	assert_int_equal(rte_errno, ENODEV);

	rte_errno = 0;
	assert_null(pmr_transport_queue_create(NULL, NULL, SOCKET_ID_ANY));
	assert_int_equal(rte_errno, EINVAL);
}

static void
test_queue_create_eth_bad(void **state)
{
	const struct pmr_transport_driver *eth;

	(void)state;
	eth = pmr_transport_find("eth");
	assert_non_null(eth);

	rte_errno = 0;
	assert_null(pmr_transport_queue_create(eth, "nonsense_key=1",
			SOCKET_ID_ANY));
	assert_int_equal(rte_errno, EINVAL);

	/* --no-pci and no ring pair: port 99 does not exist. */
	rte_errno = 0;
	assert_null(pmr_transport_queue_create(eth, "port=99",
			SOCKET_ID_ANY));
	assert_int_equal(rte_errno, ENODEV);
}

/* Runs last: it leaves the registry full. */
static void
test_register_full(void **state)
{
	static struct pmr_transport_driver fill[PMR_TRANSPORT_NAME_MAX * 2];
	static char names[RTE_DIM(fill)][PMR_TRANSPORT_NAME_MAX];
	const struct pmr_transport_driver ops = { FAKE_OPS };
	unsigned int count, i;
	int ret = 0;

	(void)state;
	count = pmr_transport_count();
	for (i = 0; i < RTE_DIM(fill); i++) {
		snprintf(names[i], sizeof(names[i]), "fill%u", i);
		fill[i] = ops;
		fill[i].name = names[i];
		ret = pmr_transport_register(&fill[i]);
		if (ret != 0)
			break;
		assert_ptr_equal(pmr_transport_find(names[i]), &fill[i]);
		assert_int_equal(pmr_transport_count(), count + i + 1);
	}
	/* The registry has a bound, and says so. */
	assert_int_equal(ret, -ENOSPC);
	assert_true(i > 0);
	assert_int_equal(pmr_transport_count(), count + i);
	rte_errno = 0;
	assert_null(pmr_transport_find(names[i]));
	assert_int_equal(rte_errno, ENOENT);
	/* A taken name is still reported as such. */
	assert_int_equal(pmr_transport_register(&fill[0]), -EEXIST);
	/* Everything registered before is still found. */
	assert_ptr_equal(pmr_transport_find("eth"), &pmr_eth_driver);
	assert_ptr_equal(pmr_transport_find("fake"), &fake_driver);
	assert_ptr_equal(pmr_transport_find(names[i - 1]), &fill[i - 1]);
	assert_null(pmr_transport_get(pmr_transport_count()));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_find_eth),
		cmocka_unit_test(test_default_driver),
		cmocka_unit_test(test_default_worker),
		cmocka_unit_test(test_mem_reg_flag),
		cmocka_unit_test(test_eth_caps),
		cmocka_unit_test(test_iterate),
		cmocka_unit_test(test_register_custom),
		cmocka_unit_test(test_register_invalid),
		cmocka_unit_test(test_queue_create_fake),
		cmocka_unit_test(test_queue_create_eth_bad),
		cmocka_unit_test(test_register_full),
	};

	return cmocka_run_group_tests_name("transport_registry", tests,
			pmr_test_eal_setup, pmr_test_eal_teardown);
}
