#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The pmrpc authors
#
# An rpcperf --server killed with SIGKILL under load, 5% loss injected on
# both sides: the --connect client (in a sanitizer build, the sanitized
# one) reports the session reset, its workload fails (exit status 1, as
# doc/rpcperf.md says) and nothing else goes wrong. Then the same from
# rpcperf -i: start, the server killed, stop; a new server at the same
# address, and a new run against it works. Two namespaces over af_packet
# (lib.sh): a data path that outlives its processes.

. "$(dirname "$0")/lib.sh"

RPCPERF=${RPCPERF:?RPCPERF must name the rpcperf binary}
LOSS=drop_tx=0.05
SANITIZER='Sanitizer|runtime error:|AddressSanitizer'

netns_pair

# start_rpcperf_server NAME: in NS_A, wait for its "ready" line.
start_rpcperf_server() {
	local name=$1 i

	# shellcheck disable=SC2046,SC2086
	ip netns exec "$NS_A" "$RPCPERF" $(eal 0 "$name") \
		--vdev=net_af_packet0,iface=pd1 -- --server \
		--nexus=10.99.0.1:31850 --devargs=port=0,ip=10.88.0.1 \
		--faults=$LOSS,seed=$RANDOM >"$TMP/$name.log" 2>&1 &
	LAST_PID=$!
	PIDS+=("$LAST_PID")
	for i in $(seq 100); do
		grep -q '^ready' "$TMP/$name.log" && return 0
		kill -0 "$LAST_PID" 2>/dev/null || fail "$name exited"
		sleep 0.1
	done
	fail "$name not ready after 10 s"
}

# wait_for FILE PATTERN SECONDS: poll until PATTERN is in FILE.
wait_for() {
	local i

	for i in $(seq $(($3 * 10))); do
		grep -qE "$2" "$1" && return 0
		sleep 0.1
	done
	return 1
}

no_sanitizer_report() {
	grep -E "$SANITIZER" "$@" && fail "sanitizer report in $*"
	return 0
}

client_args="--connect=10.99.0.1:31850 --nexus=10.99.0.2:0
	--devargs=port=0,ip=10.88.0.2 --client-lcores=1 --faults=$LOSS"

# 1. A run, the server killed under it.
start_rpcperf_server server1
server=$LAST_PID
# shellcheck disable=SC2046,SC2086
ip netns exec "$NS_B" timeout 300 "$RPCPERF" $(eal 0-1 client1) \
	--vdev=net_af_packet1,iface=pd2 -- $client_args -w rate -c 8 \
	-n 100000000 >"$TMP/client1.log" 2>"$TMP/client1.err" &
client=$!
PIDS+=("$client")
wait_for "$TMP/client1.err" '^rpcperf: rate [0-9]+/' 60 ||
	fail "client1 made no progress: $(tail -5 "$TMP/client1.err")"
kill -KILL "$server"
wait "$server" 2>/dev/null
wait "$client"
status=$?
cat "$TMP/client1.err" >&2
no_sanitizer_report "$TMP/client1.err"
[ "$status" = 1 ] || fail "client1: exit status $status, not 1"
reset='^rpcperf: lcore 1: session [0-9]+ to 10\.99\.0\.1:31850 worker 0 reset: '
grep -qE "$reset" "$TMP/client1.err" ||
	fail "client1 did not report the session reset"
grep -qE '^rate +32 +0 ' "$TMP/client1.log" ||
	fail "client1: no failed row for rate: $(cat "$TMP/client1.log")"
echo "PASS: killed server, the client reported the reset, exit 1"

# 2. rpcperf -i: start, kill, stop; restart, start, stop.
start_rpcperf_server server2
server=$LAST_PID
mkfifo "$TMP/cmds"
# shellcheck disable=SC2046,SC2086
ip netns exec "$NS_B" timeout 300 "$RPCPERF" $(eal 0-1 client2) \
	--vdev=net_af_packet1,iface=pd2 -- -i $client_args -w rate -c 8 \
	--warmup=0 <"$TMP/cmds" >"$TMP/client2.log" 2>"$TMP/client2.err" &
client=$!
PIDS+=("$client")
exec 3>"$TMP/cmds"
echo start >&3
wait_for "$TMP/client2.log" 'rate started' 60 ||
	fail "client2 did not start"
sleep 1
kill -KILL "$server"
wait "$server" 2>/dev/null
wait_for "$TMP/client2.err" ' reset: ' 60 ||
	fail "client2 did not report the session reset"
echo stop >&3
wait_for "$TMP/client2.log" 'rate (stopped|failed)' 120 ||
	fail "client2: no answer to stop"
kill -0 "$client" 2>/dev/null || fail "client2 died at stop"
start_rpcperf_server server3
server=$LAST_PID
echo start >&3
# Some round trips against the new server, then stop.
sleep 3
echo stop >&3
wait_for "$TMP/client2.log" 'rate stopped' 120 ||
	fail "client2: the run against the new server did not stop cleanly"
echo quit >&3
exec 3>&-
wait "$client"
status=$?
cat "$TMP/client2.err" >&2
no_sanitizer_report "$TMP/client2.err"
[ "$status" = 0 ] || fail "client2: exit status $status"
grep -E '^rate +32 +[0-9]+ ' "$TMP/client2.log" ||
	fail "client2: no table for the second run"
iters=$(awk '/^rate +32 +[0-9]+ /{print $3}' "$TMP/client2.log" | tail -1)
[ "$iters" -gt 0 ] || fail "client2: the second run did nothing"
[ "$(grep -c 'rate started' "$TMP/client2.log")" = 2 ] ||
	fail "client2: not two runs"
kill -INT "$server"
wait "$server" || fail "server3 exited with status $?"
no_sanitizer_report "$TMP"/server*.log
echo "PASS: rpcperf -i: reset reported, stop, a new run works ($iters)"
