#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The pmrpc authors
#
# Peer failure: the server is killed with SIGKILL in the middle of a run
# with 5% loss injected. The client's nexus notices within its peer timeout
# (heartbeats), every pending request completes with SESSION_RESET, nothing
# leaks (the client checks its pools), and once a server is back at the
# same address the client connects again and finishes its work. Two hosts
# (namespaces) over af_packet: a data path that outlives its processes.

. "$(dirname "$0")/lib.sh"

netns_pair
port=31850
loss=drop_tx=0.025,drop_rx=0.025
peer_timeout=300
bound_ms=5000	# generous: ASan builds on two busy cores

NS_EXEC="ip netns exec $NS_A" start_server server 0 \
	"--vdev=net_af_packet0,iface=pd1" --uri=10.99.0.1:$port \
	--devargs=port=0,ip=10.88.0.1 --faults=$loss,seed=3
server=$LAST_PID
NS_EXEC="ip netns exec $NS_B" run_client client 1 \
	"--vdev=net_af_packet1,iface=pd2" --uri=10.99.0.2:0 \
	--devargs=port=0,ip=10.88.0.2 --connect=10.99.0.1:$port \
	--until-reset --count=2000 --max-size=3000 --faults=$loss,seed=4 \
	--peer-timeout-ms=$peer_timeout --reconnect-ms=30000 &
client=$!
sleep 2
kill -0 "$client" 2>/dev/null || fail "client ended before the kill"
kill -KILL "$server"
wait "$server" 2>/dev/null
# A new server at the same address, a little later.
sleep 1
NS_EXEC="ip netns exec $NS_A" start_server server2 0 \
	"--vdev=net_af_packet0,iface=pd1" --uri=10.99.0.1:$port \
	--devargs=port=0,ip=10.88.0.1
wait "$client" || fail "client failed"
grep '^reset\|^reconnected\|^result' "$TMP/client.log"
ms=$(awk '/^reset after/{print $3}' "$TMP/client.log")
[ -n "$ms" ] || fail "no session reset seen"
[ "$ms" -le $bound_ms ] || fail "reset noticed after $ms ms (bound $bound_ms)"
grep -q '^reconnected' "$TMP/client.log" || fail "no reconnection"
stop "$LAST_PID" || fail "second server failed"
echo "PASS: peer killed, reset after $ms ms, reconnected"
