#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The pmrpc authors
#
# memif churn (issue 26, defect 3): a server and a client process over four
# net_memif interfaces, a worker each side per interface, requests of 0 to
# 4000 bytes always in flight. Either end is killed with SIGKILL and
# started again, in turn, PMR_CHURN_ROUNDS times each (5); then the client
# closes its ports and opens them again PMR_CHURN_PORT_ROUNDS times (10).
#
# Each going peer makes net_memif unmap its memory in the survivor's EAL
# interrupt thread (and a closing port runs memif's disconnect on the
# closing thread, perhaps with that thread running it too), while the
# survivor's worker may be in a burst on it; the eth driver's memif gate
# (doc/drivers.md) keeps them apart. Each process runs on one CPU, its
# interrupt thread with its lcore, and both poll without yielding, so that
# the thread that unmaps takes the CPU from the worker wherever it is.
#
# The survivor must live through each death (no SIGSEGV, no sanitizer
# report), serve or request again once the peer is back, and end cleanly:
# exit status 0, every buffer back at each of its workers' destroy (the
# client makes new workers after each server death: a memif client
# connects only when its port starts).

. "$(dirname "$0")/lib.sh"

rounds=${PMR_CHURN_ROUNDS:-5}
port_rounds=${PMR_CHURN_PORT_ROUNDS:-10}
pairs=4			# memif interfaces, a worker each side, one lcore
served=50		# answers per session before an epoch counts as served
peer_timeout=1000	# ms: not shorter, or a loaded machine resets sessions
sock=$TMP/memif.sock
port=$((32000 + $$ % 1000))
# The first and the last CPU this test may use (one, if that is all).
cpus=$(python3 -c 'import os; print(*sorted(os.sched_getaffinity(0)))')
cli_cpu=$(echo "$cpus" | awk '{print $1}')
srv_cpu=$(echo "$cpus" | awk '{print $NF}')
echo "server on CPU $srv_cpu, client on CPU $cli_cpu, $rounds rounds," \
	"$port_rounds port rounds"

# EAL arguments: lcore 0 on CPU $1, and under taskset every other thread
# of the process there too (EAL's control threads take the CPUs the
# process may use that no lcore has, else the main lcore's).
eal_on() {
	echo "--lcores=0@$1 --no-pci --in-memory" \
		"--file-prefix=$PREFIX-${2:?eal_on: no name}" \
		"--log-level=lib.eal:error"
}

# vdevs ROLE, devargs HOST: one side's ports (memif interface k of the
# socket, a file: an abstract socket's name stays taken by net_memif once
# its last port closes) and its workers' devargs (10.5.k.HOST); worker k
# of the client has its session with worker k of the server.
vdevs() {
	local k s="socket=$sock,socket-abstract=no"
	for k in $(seq 0 $((pairs - 1))); do
		echo "--vdev=net_memif$k,role=$1,id=$k,$s"
	done
}

devargs() {
	local k
	for k in $(seq 0 $((pairs - 1))); do
		echo "--devargs=port=net_memif$k,ip=10.5.$k.$1"
	done
}

# died PID WHAT: fail, saying how PID ended (139: SIGSEGV, 134: SIGABRT,
# a sanitizer's abort, 1: its own failure or a sanitizer's exit).
died() {
	local st
	wait "$1" 2>/dev/null
	st=$?
	fail "$2 died (exit status $st)"
}

alive() {
	kill -0 "$1" 2>/dev/null || died "$1" "$2"
}

# wait_for FILE PID WHAT CMD...: until CMD... FILE succeeds; fail if PID
# exits first, or the survivor (watch, watch_what) does, or after 30 s.
watch=
watch_what=
wait_for() {
	local f=$1 pid=$2 what=$3 _
	shift 3
	for _ in $(seq 300); do
		"$@" "$f" && return 0
		alive "$pid" "$what"
		[ -z "$watch" ] || alive "$watch" "$watch_what"
		sleep 0.1
	done
	fail "$what: not seen in 30 s: $*"
}

ready() {
	grep -q '^ready' "$1"
}

# served_after N FILE: an epoch after N served.
served_after() {
	awk -v n="$1" '$1 == "served" && $2 > n { f = 1 } END { exit !f }' \
		"$2"
}

# The client's last epoch is up and served, not ending: a client killed in
# the middle of its memif handshake can crash a DPDK 22.11 server
# (doc/drivers.md), which is not what this test is about.
steady() {
	awk '$1 == "up" { u = $2 } $1 == "served" { s = $2 }
		$1 == "end" { e = $2 }
		END { exit !(u > 0 && s == u && e != u) }' "$1"
}

# The client's last epoch so far (0: none).
last_epoch() {
	awk '$1 == "up" { n = $2 } END { print n + 0 }' "$1"
}

# A server (a new process each time: the last one was killed).
nsrv=0
srv_up() {
	nsrv=$((nsrv + 1))
	# SIGKILL left the socket file behind: memif would not bind.
	rm -f "$sock"
	: >"$TMP/server$nsrv.log"
	# shellcheck disable=SC2046
	taskset -c "$srv_cpu" "$PEER" $(eal_on "$srv_cpu" "server$nsrv") \
		$(vdevs server) -- --server $(devargs 1) \
		--uri=127.0.0.1:$port --peer-timeout-ms=$peer_timeout --spin \
		>"$TMP/server$nsrv.log" 2>&1 &
	srv=$!
	PIDS+=("$srv")
	wait_for "$TMP/server$nsrv.log" "$srv" "server$nsrv" ready
}

# A client, requesting until SIGTERM, through any server's death.
ncli=0
cli_up() {
	ncli=$((ncli + 1))
	: >"$TMP/client$ncli.log"
	# shellcheck disable=SC2046
	taskset -c "$cli_cpu" "$PEER" $(eal_on "$cli_cpu" "client$ncli") \
		$(vdevs client) -- --client --churn $(devargs 2) \
		--uri=127.0.0.1:0 --connect=127.0.0.1:$port --count=$served \
		--conc=8 --max-size=4000 --peer-timeout-ms=$peer_timeout \
		--reconnect-ms=20000 --spin >"$TMP/client$ncli.log" 2>&1 &
	cli=$!
	PIDS+=("$cli")
	wait_for "$TMP/client$ncli.log" "$cli" "client$ncli" served_after 0
}

SECONDS=0
srv_up
cli_up
echo "$SECONDS s: server$nsrv served client$ncli"
for r in $(seq "$rounds"); do
	# The client dies mid-run; the server serves the next one.
	wait_for "$TMP/client$ncli.log" "$cli" "client$ncli (round $r)" steady
	kill -KILL "$cli"
	wait "$cli" 2>/dev/null
	watch=$srv
	watch_what="server$nsrv (client$ncli killed, round $r)"
	cli_up
	alive "$srv" "server$nsrv (client$ncli up, round $r)"
	echo "$SECONDS s: round $r: client$((ncli - 1)) killed," \
		"server$nsrv served client$ncli"

	# The server dies mid-run; the client requests of the next one (its
	# epochs after the kill are the new server's).
	wait_for "$TMP/client$ncli.log" "$cli" "client$ncli (round $r)" steady
	kill -KILL "$srv"
	wait "$srv" 2>/dev/null
	epoch=$(last_epoch "$TMP/client$ncli.log")
	watch=$cli
	watch_what="client$ncli (server$nsrv killed, round $r)"
	srv_up
	wait_for "$TMP/client$ncli.log" "$cli" \
		"client$ncli (server$nsrv up, round $r)" served_after "$epoch"
	echo "$SECONDS s: round $r: server$((nsrv - 1)) killed, client$ncli" \
		"served by server$nsrv"
done

# Then the client's ports alone, closed and opened again (SIGUSR1) while
# the server polls on: each close is another chance for the race on the
# server's side, cheaper than a process.
for r in $(seq "$port_rounds"); do
	wait_for "$TMP/client$ncli.log" "$cli" "client$ncli (port round $r)" \
		steady
	epoch=$(last_epoch "$TMP/client$ncli.log")
	watch=$srv
	watch_what="server$nsrv (client$ncli's ports closed, port round $r)"
	kill -USR1 "$cli"
	wait_for "$TMP/client$ncli.log" "$cli" \
		"client$ncli (its ports closed, port round $r)" \
		served_after "$epoch"
done
echo "$SECONDS s: client$ncli closed its ports $port_rounds times"

stop "$cli" || fail "client$ncli: exit $? (buffers leaked or bad echo)"
grep '^result' "$TMP/client$ncli.log"
stop "$srv" || fail "server$nsrv: exit $? (buffers leaked)"
grep '^server handled' "$TMP/server$nsrv.log"
for f in "$TMP"/*.log; do
	if grep -q 'Sanitizer\|runtime error:' "$f"; then
		fail "sanitizer report in $(basename "$f")"
	fi
done
echo "PASS: memif churn: $rounds kills of each end, $port_rounds port" \
	"rounds in $SECONDS s"
