#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The pmrpc authors
#
# rpcperf's drops include the frames its driver dropped. Two namespaces
# over af_packet (lib.sh); an rpcperf --server in one, an rpcperf -i
# --connect client in the other; while the client runs, garbage frames
# (random bytes, wrong MAC, not IPv4, ...) are sent at its interface from
# the server's side. "stop" must count them in the table's drops column and
# name the driver's reasons on stderr.

. "$(dirname "$0")/lib.sh"

RPCPERF=${RPCPERF:?RPCPERF must name the rpcperf binary}
GARBAGE=500

netns_pair
# shellcheck disable=SC2046
ip netns exec "$NS_A" "$RPCPERF" $(eal 0 server) \
	--vdev=net_af_packet0,iface=pd1 -- \
	--server --nexus=10.99.0.1:31850 --devargs=port=0,ip=10.88.0.1 \
	>"$TMP/server.log" 2>&1 &
server=$!
PIDS+=("$server")
for i in $(seq 100); do
	grep -q '^ready' "$TMP/server.log" && break
	kill -0 "$server" 2>/dev/null || fail "server exited"
	sleep 0.1
done
grep -q '^ready' "$TMP/server.log" || fail "server not ready after 10 s"

# The client reads its commands from a pipe we feed as it goes.
mkfifo "$TMP/cmds"
# shellcheck disable=SC2046
ip netns exec "$NS_B" timeout 300 "$RPCPERF" $(eal 0-1 client) \
	--vdev=net_af_packet1,iface=pd2 -- -i \
	--connect=10.99.0.1:31850 --nexus=10.99.0.2:0 \
	--devargs=port=0,ip=10.88.0.2 --client-lcores=1 -w rate -c 4 \
	--warmup=0 \
	<"$TMP/cmds" >"$TMP/client.log" 2>"$TMP/client.err" &
client=$!
PIDS+=("$client")
exec 3>"$TMP/cmds"

echo start >&3
for i in $(seq 100); do
	grep -q 'rate started' "$TMP/client.log" && break
	kill -0 "$client" 2>/dev/null || fail "client exited"
	sleep 0.1
done
grep -q 'rate started' "$TMP/client.log" || fail "client did not start"

# Garbage at the client's interface, from the server's end of the veth.
ip netns exec "$NS_A" python3 - "$GARBAGE" <<'PY' || fail "garbage sender"
import os, random, socket, sys
n = int(sys.argv[1])
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(('pd1', 0))
rnd = random.Random(12)
for i in range(n):
    kind = i % 4
    if kind == 0:		# random bytes from a random MAC
        f = bytes(rnd.getrandbits(8) for _ in range(rnd.randint(60, 1500)))
    elif kind == 1:		# broadcast, not IPv4
        f = b'\xff' * 6 + b'\x02' * 6 + b'\x86\xdd' + bytes(60)
    elif kind == 2:		# IPv4 to a MAC nobody has
        f = b'\x02\x00\x00\x00\x00\x09' + b'\x02' * 6 + b'\x08\x00' + \
            bytes(80)
    else:			# broadcast IPv4 with a wrong header
        f = b'\xff' * 6 + b'\x02' * 6 + b'\x08\x00' + b'\x46' + bytes(60)
    s.send(f)
PY
sleep 1
echo stop >&3
for i in $(seq 300); do
	grep -q 'rate stopped\|rate failed' "$TMP/client.log" && break
	sleep 0.1
done
echo quit >&3
exec 3>&-
wait "$client" || fail "client exited with status $?"
cat "$TMP/client.err" >&2
grep -E '^rate +' "$TMP/client.log" || fail "no table at stop"
drops=$(awk '/^rate +[0-9]/{print $NF}' "$TMP/client.log" | head -1)
[ -n "$drops" ] && [ "$drops" -ge "$GARBAGE" ] ||
	fail "drops $drops, but $GARBAGE garbage frames were sent"
# By reason: "rpcperf: client lcore 1 driver dropped N frames: ..."
line=$(grep 'client lcore 1 driver dropped' "$TMP/client.err") ||
	fail "no driver drops by reason on stderr"
n=$(echo "$line" | awk '{print $7}')
[ "$n" -ge "$GARBAGE" ] && [ "$n" -le "$drops" ] ||
	fail "driver dropped $n frames: not in $GARBAGE..$drops"
for why in ethertype dst_mac; do
	echo "$line" | grep -q " $why [0-9]" || fail "no $why drops in: $line"
done
grep -qE 'Sanitizer|runtime error:' "$TMP/client.err" "$TMP/server.log" &&
	fail "sanitizer report"
kill -INT "$server"
wait "$server" || fail "server exited with status $?"
echo "PASS: rpcperf drops include $n driver drops ($drops in all)"
