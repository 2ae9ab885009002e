#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The pmrpc authors
#
# The Soft-RoCE baseline: perftest on rxe0 in one VM (devtools/vm/run.sh),
# server and client both on rxe0 against 192.0.2.1 (GID index 1, RoCE v2),
# its figures in a markdown table with the VM's boot time:
#
#   devtools/bench-rxe.sh [--smoke] [--raw FILE] [-c CPUS]
#
# ib_send_lat -c UD, ib_send_lat -c RC, ib_read_lat, ib_read_bw,
# ib_write_bw, ib_send_bw -c UD. --smoke runs few iterations (well
# within a minute; CI runs it). --raw FILE keeps perftest's own output.
# Exits non-zero if a perftest run failed or a figure could not be read;
# 77 (skip) if the VM cannot run here (PMR_REQUIRE_VM=1: 1).
#
# Under TCG everything is ~20 times slower than on hardware: compare
# ratios on the same VM (the engine against these), never absolute times.

set -uo pipefail

cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." || exit

# The tests: name, then perftest's arguments (server and client alike).
tests=(
	"ib_send_lat -c UD|ib_send_lat -c UD"
	"ib_send_lat -c RC|ib_send_lat -c RC"
	"ib_read_lat|ib_read_lat"
	"ib_read_bw|ib_read_bw --report_gbits"
	"ib_write_bw|ib_write_bw --report_gbits"
	"ib_send_bw -c UD|ib_send_bw -c UD --report_gbits"
)

# In the VM: each test's server in the background, its client against
# 192.0.2.1; prints "=== NAME rc=N" then the client's output.
guest() {
	local iters=$1 tmo=$2 t name args rc src crc i port=18515

	echo "boot $(cut -d' ' -f1 /proc/uptime)"
	echo "setup $(nproc) $iters"
	rc=0
	for t in "${tests[@]}"; do
		name=${t%%|*}
		args=${t#*|}
		# shellcheck disable=SC2086
		timeout "$tmo" $args -d rxe0 -x 1 -F -n "$iters" -p $port \
			>/tmp/server.out 2>&1 &
		# The client needs the server's TCP socket for its
		# handshake: wait for it rather than sleep.
		for ((i = 0; i < 200; i++)); do
			ss -Hltn "sport = :$port" | grep -q . && break
			sleep 0.05
		done
		# A server slow to listen: retry, briefly.
		for ((i = 0; i < 20; i++)); do
			# shellcheck disable=SC2086
			timeout "$tmo" $args -d rxe0 -x 1 -F -n "$iters" \
				-p $port 192.0.2.1 >/tmp/client.out 2>&1
			crc=$?
			grep -q "Couldn't connect" /tmp/client.out || break
			sleep 0.2
		done
		wait $!
		src=$?
		echo "=== $name rc=$((crc != 0 ? crc : src))"
		cat /tmp/client.out
		if ((crc != 0 || src != 0)); then
			echo "--- server"
			cat /tmp/server.out
			rc=1
		fi
		port=$((port + 1))
	done
	return "$rc"
}

# Prints the table of raw output $1 (a run's wall time $2); returns 0 if
# each test ran and gave its figures. perftest's result line follows its header line (" #bytes ..."): latency
# tests give t_min, t_typical, t_avg and the 99% percentile in µs (t_min
# because busy-polled latencies under TCG often sit on the guest's 4-ms
# timer tick: t_min is the data path's own), bandwidth
# tests BW average (Gb/s, --report_gbits) and MsgRate (Mpps).
parse() {
	awk -v wall="$2" -v ntests=${#tests[@]} '
	function flush() {
		if (name == "")
			return
		if (fig == "") {
			bad++
			print "bench-rxe: no figures for " name \
				" (rc " trc ")" > "/dev/stderr"
		} else {
			print "| " name " | " fig " |"
		}
		name = ""
	}
	/^boot / { boot = $2 }
	/^setup / { cpus = $2; iters = $3 }
	/^=== / {
		flush()
		name = $0
		sub(/^=== /, "", name)
		trc = name
		sub(/.* rc=/, "", trc)
		sub(/ rc=[0-9]+$/, "", name)
		fig = ""
		want = 0
		if (trc != 0) {
			fails++
			print "bench-rxe: " name " failed (rc " trc ")" \
				> "/dev/stderr"
		}
		if (n++ == 0) {
			printf "Soft-RoCE (rxe0 in a qemu TCG VM, %s vCPUs), " \
				"%s iterations; VM boot to command %s s, " \
				"whole run %s s\n\n", cpus, iters, boot, wall
			print "| test | bytes | t_min µs | t_typical µs | t_avg µs | 99% µs | BW avg Gb/s | Mpps |"
			print "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
		}
		next
	}
	/^ #bytes/ { want = ($0 ~ /t_typical/) ? 1 : 2; next }
	want != 0 && $1 ~ /^[0-9]+$/ {
		if (want == 1 && NF >= 8)
			fig = $1 " | " $3 " | " $5 " | " $6 " | " $8 " | | "
		else if (want == 2 && NF >= 5 && $4 ~ /^[0-9.]+$/)
			fig = $1 " | | | | | " $4 " | " $5
		want = 0
	}
	END {
		flush()
		if (n != ntests) {
			print "bench-rxe: " n + 0 " of " ntests " tests ran" \
				> "/dev/stderr"
			bad++
		}
		exit (bad + fails > 0)
	}' "$1"
}

if [[ ${1:-} == --guest ]]; then
	guest "$2" "$3"
	exit
fi
# Internal, for tests: the table of a --raw file.
if [[ ${1:-} == --parse ]]; then
	parse "$2" "?"
	exit
fi

smoke=0 raw='' cpus=2
while (($#)); do
	case $1 in
	--smoke) smoke=1; shift ;;
	--raw) raw=$2; shift 2 ;;
	-c) cpus=$2; shift 2 ;;
	*)
		sed -n '9s/^# //p' "$0" >&2
		exit 2
		;;
	esac
done
# Per perftest run, then for the whole VM.
iters=1000 tmo=120 timeout=600
if ((smoke)); then
	iters=100 tmo=20 timeout=90
fi

out=$(mktemp)
trap 'rm -f "$out"' EXIT
start=$EPOCHREALTIME
devtools/vm/run.sh -c "$cpus" -t "$timeout" -o "$out" -- \
	devtools/bench-rxe.sh --guest "$iters" "$tmo"
rc=$?
wall=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
[[ -n $raw ]] && cp "$out" "$raw"
((rc == 77)) && exit 77

parse "$out" "$wall"
parse_rc=$?
if ((rc != 0 || parse_rc != 0)); then
	if ((rc == 0 || rc == 1)); then
		echo "bench-rxe: failed (VM exit $rc); perftest said:" >&2
		tail -n 60 "$out" >&2
	fi
	exit 1
fi
