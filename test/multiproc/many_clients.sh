#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The pmrpc authors
#
# Many clients, one server: 8 client processes, each with its own memif
# port to its own worker of one server process, 1000 requests each, all at
# once; all answered, and the server's counters add up.

. "$(dirname "$0")/lib.sh"

n=8
sock=$TMP/memif.sock
port=$((32000 + $$ % 1000))
vdevs=""
devargs=()
for i in $(seq 0 $((n - 1))); do
	vdevs+=" --vdev=net_memif$i,role=server,socket=$sock,id=$i"
	devargs+=("--devargs=port=$i,ip=10.6.0.$((i + 1))")
done
start_server server 0 "$vdevs" --uri=127.0.0.1:$port "${devargs[@]}"
server=$LAST_PID

clients=()
for i in $(seq 0 $((n - 1))); do
	run_client "client$i" 1 "--vdev=net_memif0,role=client,socket=$sock,id=$i" \
		--uri=127.0.0.1:0 --devargs=port=0,ip=10.6.1.$((i + 1)) \
		--connect=127.0.0.1:$port --remote-worker=$i --count=1000 \
		--max-size=3000 &
	clients+=($!)
done
for i in $(seq 0 $((n - 1))); do
	wait "${clients[$i]}" || fail "client $i failed"
	grep -q '^result sent 1000 ok 1000 ' "$TMP/client$i.log" ||
		fail "client $i: $(grep '^result' "$TMP/client$i.log")"
done
stop "$server" || fail "server failed"
grep '^worker\|^server' "$TMP/server.log"
grep -q "^server handled $((n * 1000)) " "$TMP/server.log" ||
	fail "server did not handle $((n * 1000)) requests"
[ "$(grep -c '^worker .* handled 1000 ' "$TMP/server.log")" = $n ] ||
	fail "a server worker did not handle exactly 1000"
echo "PASS: $n clients"
