#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The pmrpc authors
#
# pmrpc against its two yardsticks, on the same two cores, in one go:
#   - rpcperf (one invocation, -w ring,latency,rate, 32-byte payload): the
#     echo RPC round trip, the RPC rate of one client lcore, and a raw
#     rte_ring ping-pong between the same two lcores;
#   - UCX's ucx_perftest (Debian's ucx-utils) over shared memory, server
#     pinned to core 0 and client to core 1: ucp_am_lat and ucp_am_bw with
#     32-byte active messages.
# Then one table with the ratios next to the targets. doc/benchmarks.md says
# what each number measures and how UCX's are converted.
#
# Installs what is missing (ucx-utils included) and builds build/release
# like devtools/demo.sh. All traffic stays on this machine: rpcperf's ring
# pair is in-process, UCX moves data through shared memory and its test
# harness exchanges addresses over one TCP connection to 127.0.0.1.
#
# Environment:
#   PMR_BENCH_EAL_ARGS   EAL arguments instead of the automatic choice
#                        (must keep two lcores)
#   PMR_BENCH_ITERS      rpcperf round trips per workload and ucp_am_lat
#                        iterations (default 1000000)
#   PMR_BENCH_BW_ITERS   ucp_am_bw messages (default 10000000)
#   PMR_BENCH_UCX_TLS    UCX transports (default sm,self)
#   PMR_BENCH_UCX_WINDOW ucp_am_bw sends kept outstanding, -O (default 32)
#   PMR_BENCH_UCX_PORT   TCP port of ucx_perftest's rendezvous on 127.0.0.1
#                        (default: the first free one from 13337)
#   PMR_BENCH_LOG_DIR    copy the raw outputs of rpcperf and ucx_perftest here
#   PMR_BENCH_CORES      the two cores, "SERVER,CLIENT" (default 0,1): UCX's
#                        server and client, rpcperf's server lcore and its
#                        client (main) lcore

set -euo pipefail

cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.."

# shellcheck source=devtools/common.sh
source devtools/common.sh

if (($# > 0)); then
	awk 'NR < 5 { next } !/^#/ { exit } { sub(/^# ?/, ""); print }' "$0"
	[[ $1 == -h || $1 == --help ]] && exit 0
	exit 2
fi

iters=${PMR_BENCH_ITERS:-1000000}
bw_iters=${PMR_BENCH_BW_ITERS:-10000000}
ucx_tls=${PMR_BENCH_UCX_TLS:-sm,self}
ucx_window=${PMR_BENCH_UCX_WINDOW:-32}
size=32
IFS=, read -r core_srv core_cli <<<"${PMR_BENCH_CORES:-0,1}"
[[ $core_srv =~ ^[0-9]+$ && $core_cli =~ ^[0-9]+$ && $core_srv != "$core_cli" ]] ||
	{ say "PMR_BENCH_CORES: expected two different cores, e.g. 0,1" >&2; exit 2; }

# --- cleanup: every process started here is a child tracked in $pids -------

pids=()
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pmr-bench.XXXXXX")
cleanup() {
	local p
	trap - EXIT INT TERM
	for p in "${pids[@]+"${pids[@]}"}"; do
		kill -TERM "$p" 2>/dev/null || true
	done
	# Each runs under timeout -k, which forwards TERM to its command and
	# KILLs it 5 s later if it is still there.
	for p in "${pids[@]+"${pids[@]}"}"; do
		wait "$p" 2>/dev/null || true
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Start "$@" in the background under a time limit; its pid in $last_pid.
# (Background, so that a signal to this script interrupts `wait` at once.)
start() {
	local limit=$1 out=$2
	shift 2
	timeout -k 5 "$limit" "$@" >"$out" 2>&1 &
	last_pid=$!
	pids+=("$last_pid")
}

# Wait for a pid started by start(); its exit status.
finish() {
	local rc=0 p keep=()
	wait "$1" || rc=$?
	for p in "${pids[@]+"${pids[@]}"}"; do
		[[ $p == "$1" ]] || keep+=("$p")
	done
	pids=("${keep[@]+"${keep[@]}"}")
	return "$rc"
}

# --- install, build --------------------------------------------------------

install_packages
if ! command -v ucx_perftest >/dev/null; then
	# Not installed by install_packages (e.g. common.sh without it):
	say "ucx_perftest missing: installing Debian's ucx-utils for the UCX side"
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y -q --no-install-recommends ucx-utils </dev/null ||
		{ apt-get update -q && apt-get install -y -q \
			--no-install-recommends ucx-utils </dev/null; }
fi
huge_note=$(hugepages_setup)

dir=build/release
if [[ ! -f $dir/build.ninja ]]; then
	rm -rf "$dir"
	meson setup "$dir" -Dwerror=true >/dev/null
fi
ninja -C "$dir" >/dev/null

if [[ -n ${PMR_BENCH_EAL_ARGS:-} ]]; then
	read -r -a eal <<<"$PMR_BENCH_EAL_ARGS"
else
	# rpcperf's client runs on the main lcore, its server on the other.
	eal=(-l "$core_srv,$core_cli" --main-lcore "$core_cli" --no-pci
		--log-level=lib.eal:warning)
	if [[ -z $huge_note ]]; then
		eal+=(--in-memory)
	else
		say "$huge_note"
		eal+=(--no-huge -m 512 --no-shconf)
	fi
fi

# --- pmrpc: rpcperf ring, latency, rate --------------------------------------

# Both cores must be ours while we measure: a build or a test running on one
# of them makes the numbers meaningless. Each measurement is bracketed by
# mark/disturbance, which compare the two cores' busy time with what our
# own processes used (bash's `times`) and warn when more than 3% went
# elsewhere, or more than 10% was stolen by the hypervisor.
hz=$(getconf CLK_TCK)
warnings=()
mark() {
	times >"$tmp/times"
	mark_cpu=$(awk 'NR == 2' "$tmp/times")
	mark_ticks=$(awk -v a="cpu$core_srv" -v b="cpu$core_cli" '
		$1 == a || $1 == b { busy += $2 + $3 + $4 + $7 + $8; steal += $9 }
		END { print busy, steal }' /proc/stat)
	mark_time=$EPOCHREALTIME
}
disturbance() {	# what was measured
	local w
	times >"$tmp/times"
	w=$(awk -v a="cpu$core_srv" -v b="cpu$core_cli" -v hz="$hz" \
	    -v m="$mark_ticks" -v c0="$mark_cpu" -v c1="$(awk 'NR == 2' "$tmp/times")" \
	    -v wall="$(awk -v t0="$mark_time" -v t1="$EPOCHREALTIME" \
		'BEGIN { print t1 - t0 }')" -v what="$1" '
	function secs(s,  t, n, i, v) {		# "0m1.234s 0m0.010s"
		n = split(s, t, " ")
		for (i = 1; i <= n; i++) {
			sub(/s$/, "", t[i]); split(t[i], v, "m")
			tot += v[1] * 60 + v[2]
		}
		r = tot; tot = 0
		return r
	}
	$1 == a || $1 == b { busy += $2 + $3 + $4 + $7 + $8; steal += $9 }
	END {
		split(m, m0, " ")
		cap = 2 * wall
		other = (busy - m0[1]) / hz - (secs(c1) - secs(c0))
		st = (steal - m0[2]) / hz
		if (cap > 0 && (other > 0.03 * cap || st > 0.1 * cap))
			printf "%s: %.0f%% of the two cores went to other " \
				"processes, %.0f%% to the hypervisor\n", what,
				100 * other / cap, 100 * st / cap
	}' /proc/stat)
	if [[ -n $w ]]; then
		say "warning: $w: rerun on a quiet machine" >&2
		warnings+=("$w")
	fi
}

mark
say "rpcperf ${eal[*]} -- -q -w ring,latency,rate -s $size -n $iters"
start 600 "$tmp/rpcperf.out" "$dir/apps/rpcperf/rpcperf" "${eal[@]}" -- \
	-q -w ring,latency,rate -s "$size" -n "$iters"
if ! finish "$last_pid"; then
	cat "$tmp/rpcperf.out" >&2
	say "rpcperf failed" >&2
	exit 1
fi
disturbance rpcperf

# The table's columns by header name: "workload ... p50_us ... Mrps".
rpcperf_col() {	# workload, column
	awk -v w="$1" -v c="$2" '
		$1 == "workload" { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$1 == w && (c in col) { print $col[c]; exit }
	' "$tmp/rpcperf.out"
}
pmr_p50=$(rpcperf_col latency p50_us)
ring_p50=$(rpcperf_col ring p50_us)
pmr_mrps=$(rpcperf_col rate Mrps)
if [[ -z $pmr_p50 || -z $ring_p50 || -z $pmr_mrps ]]; then
	cat "$tmp/rpcperf.out" >&2
	say "cannot read rpcperf's table" >&2
	exit 1
fi

# --- UCX: ucx_perftest over shared memory ------------------------------------

port=${PMR_BENCH_UCX_PORT:-}
if [[ -z $port ]]; then
	port=13337
	while ss -Htan "( sport = :$port )" | grep -q .; do
		port=$((port + 1))
	done
fi

# UCX_TLS without tcp: the data path is shared memory (posix/sysv/cma with
# sm), so the only socket is ucx_perftest's own rendezvous on 127.0.0.1.
export UCX_TLS=$ucx_tls UCX_WARN_UNUSED_ENV_VARS=n

# Run one ucx_perftest test, server then client; the client's output in
# $tmp/ucx-NAME.out.
ucx_run() {	# name, ucx_perftest arguments...
	local name=$1 srv cli i
	shift
	say "UCX_TLS=$UCX_TLS ucx_perftest 127.0.0.1 -p $port $*"
	mark
	start 600 "$tmp/ucx-$name-server.out" \
		taskset -c "$core_srv" ucx_perftest -p "$port"
	srv=$last_pid
	# Wait for its listening socket (probing it with a connection would
	# become the test's client).
	for ((i = 0; i < 100; i++)); do
		ss -Hltn "( sport = :$port )" | grep -q . && break
		kill -0 "$srv" 2>/dev/null || break
		sleep 0.05
	done
	start 600 "$tmp/ucx-$name.out" \
		taskset -c "$core_cli" ucx_perftest 127.0.0.1 -p "$port" "$@"
	cli=$last_pid
	if ! finish "$cli" || ! finish "$srv"; then
		cat "$tmp/ucx-$name-server.out" "$tmp/ucx-$name.out" >&2
		say "ucx_perftest $name failed (UCX_TLS=$UCX_TLS)" >&2
		exit 1
	fi
	disturbance "ucx_perftest $name"
}

# Final line: "Final: iters lat_p50 lat_avg lat_overall bw_avg bw_overall
# msgrate_avg msgrate_overall". For ping-pong tests UCX divides every
# latency by 2 (one-way); its percentile is over the last 2048 iterations.
ucx_final() {	# name, field
	awk -v f="$2" '$1 == "Final:" { print $f; exit }' "$tmp/ucx-$1.out"
}

ucx_run lat -t ucp_am_lat -s "$size" -n "$iters"
ucx_run bw -t ucp_am_bw -s "$size" -n "$bw_iters" -O "$ucx_window"

ucx_lat_p50=$(ucx_final lat 3)
ucx_lat_avg=$(ucx_final lat 5)
ucx_bw_rate=$(ucx_final bw 9)
if [[ -z $ucx_lat_p50 || -z $ucx_lat_avg || -z $ucx_bw_rate ]]; then
	cat "$tmp/ucx-lat.out" "$tmp/ucx-bw.out" >&2
	say "cannot read ucx_perftest's Final lines" >&2
	exit 1
fi

# --- the table ---------------------------------------------------------------

if [[ -n ${PMR_BENCH_LOG_DIR:-} ]]; then
	mkdir -p "$PMR_BENCH_LOG_DIR"
	cp "$tmp"/*.out "$PMR_BENCH_LOG_DIR"/
fi

echo
echo "pmrpc vs rte_ring vs UCX: $size-byte payloads, core $core_srv server," \
	"core $core_cli client, UCX_TLS=$UCX_TLS"
awk -v pmr="$pmr_p50" -v ring="$ring_p50" -v rate="$pmr_mrps" \
    -v up="$ucx_lat_p50" -v ua="$ucx_lat_avg" -v ubw="$ucx_bw_rate" \
    -v n="$iters" -v bwn="$bw_iters" -v win="$ucx_window" '
function row(name, v, unit, how) {
	printf "%-30s %8.3f  %-7s %s\n", name, v, unit, how
}
function ratio(name, r, op, target) {
	ok = (op == "<=") ? (r <= target) : (r >= target)
	printf "%-30s %7.2fx  %s %.2fx  %s\n", name, r, op, target,
		ok ? "met" : "MISSED"
}
BEGIN {
	urtt = 2 * up		# UCX reports one-way latency: x2 for the RTT
	urate = ubw / 1e6
	printf "%-30s %8s  %-7s %s\n", "", "value", "unit", "how"
	row("pmrpc latency p50 RTT", pmr, "us",
		"rpcperf latency: " n " echo RPCs, 1 outstanding")
	row("ring p50 RTT", ring, "us",
		"rpcperf ring: " n " rte_ring ping-pongs")
	row("UCX am RTT", urtt, "us", sprintf("ucp_am_lat: 2 x one-way p50" \
		" (2 x mean: %.3f us), %s iters", 2 * ua, n))
	row("pmrpc rate (1 client lcore)", rate, "Mrps",
		"rpcperf rate: 32 outstanding RPCs over 4 sessions")
	row("UCX am_bw msg rate", urate, "Mmsg/s",
		"ucp_am_bw: " bwn " one-way messages, window " win)
	printf "%-30s %8s  %s\n", "", "ratio", "target"
	ratio("latency pmrpc/ring", pmr / ring, "<=", 1.5)
	ratio("latency pmrpc/UCX", pmr / urtt, "<=", 1.0)
	ratio("rate pmrpc/UCX", rate / urate, ">=", 1.6)
}'
for w in "${warnings[@]+"${warnings[@]}"}"; do
	echo "disturbed: $w"
done
