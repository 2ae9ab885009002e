/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

#ifndef PMR_RPC_TELEMETRY_H
#define PMR_RPC_TELEMETRY_H

/*
 * The registry of live workers that the /pmrpc/... telemetry commands read
 * (rpc_telemetry.c, doc/telemetry.md). Internal to libpmrpc.
 */

struct pmr_worker;

/*
 * Make a created worker visible to telemetry. Best effort: if memory runs
 * out, the worker works but telemetry does not list it.
 */
void rpc_telemetry_add(struct pmr_worker *w);

/*
 * Hide a worker from telemetry; on return no telemetry callback uses it
 * any more. Call before tearing it down. No-op for an unknown worker.
 */
void rpc_telemetry_del(struct pmr_worker *w);

#endif /* PMR_RPC_TELEMETRY_H */
