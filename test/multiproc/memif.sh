#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The pmrpc authors
#
# Two processes over net_memif: a server and a client, a few thousand RPCs
# of mixed sizes (single- and multi-packet), every echo verified.

. "$(dirname "$0")/lib.sh"

sock=$TMP/memif.sock
port=$((31000 + $$ % 1000))
start_server server 0 "--vdev=net_memif0,role=server,socket=$sock" \
	--uri=127.0.0.1:$port --devargs=port=0,ip=10.5.0.1
# The server's telemetry socket is in a runtime directory of its own
# (lib.sh's eal; defect 23), where the client will not look.
[ -S "$RUNTIME_BASE/$PREFIX-server/dpdk_telemetry.v2" ] ||
	fail "no telemetry socket in $RUNTIME_BASE/$PREFIX-server"
run_client client 1 "--vdev=net_memif0,role=client,socket=$sock" \
	--uri=127.0.0.1:0 --devargs=port=0,ip=10.5.0.2 \
	--connect=127.0.0.1:$port --count=4000 --max-size=4000 ||
	fail "client failed"
grep '^result' "$TMP/client.log"
[ ! -e "$RUNTIME_BASE/$PREFIX-server/dpdk_telemetry.v2:1" ] ||
	fail "another process shared the server's runtime directory"
stop "$LAST_PID" || fail "server failed"
grep -q '^server handled 4000 ' "$TMP/server.log" ||
	fail "server did not handle 4000 requests"
echo "PASS: memif"
