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
# ib_write_bw, ib_send_bw -c UD. Then, in the same boot, rpcperf's latency
# workload on the verbs driver over rxe0 (2-byte payload, as perftest's),
# in one process and in two (--server, --connect; not with --smoke), with
# the driver's default signaling and with every send signalled (as
# ib_send_lat does), and its drv-latency (the driver's ping-pong without
# the engine; one process, not with --smoke), and a second table: its
# round trips next to ib_send_lat -c UD's, with the ratio. Then (not with
# --smoke) rpcperf's bandwidth in one process at ib_read_bw's size (64
# KiB) and 1 MiB, the engine's rendezvous threshold (by READ), and a
# third table: its Gb/s against ib_read_bw's, the ratio, and the path
# counters saying the messages went by READ (on rxe each offered message
# is copied into its pair's region: copied_bytes, doc/rendezvous.md).
# Then (not with --smoke) test/bench/rc_region.c (PMR_BENCH_RC_REGION,
# default build/release/test/bench_rc_region): what an RC QP's region
# adds to RC set-up on rxe0, a fourth table. perftest's
# send latency tests report half of each ping-pong round trip (one way:
# print_report_lat() in perftest_parameters.c divides by 2 for sends, not
# for reads and atomics); rpcperf reports whole round trips, so the
# comparison doubles perftest's figures. rpcperf is PMR_RPCPERF, default
# build/release/apps/rpcperf/rpcperf; without it, perftest alone (said).
# --smoke runs few iterations (well within a minute; CI runs it). --raw
# FILE keeps the raw output. Exits non-zero if a perftest or rpcperf run
# failed or a figure could not be read; 77 (skip) if the VM cannot run
# here (PMR_REQUIRE_VM=1: 1).
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
	[[ -n ${PMR_RPCPERF:-} ]] &&
		{ rpcperf_guest "$iters" "$tmo" "$3" || rc=1; }
	if [[ -n ${PMR_BENCH_RC_REGION:-} ]] && (($3 == 0)); then
		timeout "$tmo" "$PMR_BENCH_RC_REGION" -l 0 --no-pci \
			--no-huge -m 256 --no-shconf --log-level=lib.eal:error \
			-- -n 100 dev=rxe0 >/tmp/region.out 2>/tmp/region.err
		crc=$?
		echo "### rc-region rc=$crc"
		cat /tmp/region.out
		((crc == 0)) || { cat /tmp/region.err; rc=1; }
	fi
	return "$rc"
}

# In the VM, after perftest: rpcperf's latency on verbs over rxe0, in one
# process (client lcore 0, server lcore 1) and in two (a --server on lcore
# 1, a --connect client on lcore 0), each with the driver's default
# signaling (one send in 64) and with every send signalled (sig_every=1,
# as ib_send_lat, whose TX depth of 1 signals each send); with $3 = 1
# (--smoke) in one process only. Prints "+++ rpcperf NAME rc=N", then
# rpcperf's table (-q: nothing else on stdout).
rpcperf_guest() {
	local iters=$1 tmo=$2 smoke=$3 rc=0 crc src i srv sig dev
	local eal=(--no-pci --no-huge -m 512 --no-shconf
		--log-level=lib.eal:error)
	local args=(-q -w latency -s 2 -n "$iters" --warmup $((iters / 10))
		--driver=verbs)

	for sig in 64 1; do
		dev=dev=rxe0,sig_every=$sig
		timeout "$tmo" "$PMR_RPCPERF" -l 0-1 "${eal[@]}" -- \
			"${args[@]}" --driver-args="$dev" \
			>/tmp/rpcperf.out 2>/tmp/rpcperf.err
		crc=$?
		echo "+++ rpcperf one process, sig_every=$sig rc=$crc"
		cat /tmp/rpcperf.out
		((crc == 0)) || { cat /tmp/rpcperf.err; rc=1; }
	done
	((smoke)) && return "$rc"
	rpcperf_bw_guest "$iters" "$tmo" || rc=1
	# The driver alone: its ping-pong between two QPs, no engine.
	for sig in 64 1; do
		timeout "$tmo" "$PMR_RPCPERF" -l 0-1 "${eal[@]}" -- \
			"${args[@]}" -w drv-latency \
			--driver-args="dev=rxe0,sig_every=$sig" \
			>/tmp/rpcperf.out 2>/tmp/rpcperf.err
		crc=$?
		echo "+++ rpcperf one process, sig_every=$sig rc=$crc"
		cat /tmp/rpcperf.out
		((crc == 0)) || { cat /tmp/rpcperf.err; rc=1; }
	done
	for sig in 64 1; do
		dev=dev=rxe0,sig_every=$sig
		: >/tmp/server.out
		# Its timeout past the client's: the client ends it.
		timeout $((2 * tmo)) "$PMR_RPCPERF" -l 1 "${eal[@]}" -- -q \
			--driver=verbs --server --devargs="$dev" \
			>/tmp/server.out 2>/tmp/server.err &
		srv=$!
		for ((i = 0; i < 200; i++)); do
			grep -q '^ready: ' /tmp/server.out && break
			kill -0 "$srv" 2>/dev/null || break
			sleep 0.1
		done
		timeout "$tmo" "$PMR_RPCPERF" -l 0 "${eal[@]}" -- \
			"${args[@]}" --connect=127.0.0.1:31850 \
			--devargs="$dev" >/tmp/rpcperf.out 2>/tmp/rpcperf.err
		crc=$?
		kill -INT "$srv" 2>/dev/null
		wait "$srv"
		src=$?
		echo "+++ rpcperf two processes, sig_every=$sig" \
			"rc=$((crc != 0 ? crc : src))"
		cat /tmp/rpcperf.out
		if ((crc != 0 || src != 0)); then
			cat /tmp/rpcperf.err
			echo "--- server"
			cat /tmp/server.out /tmp/server.err
			rc=1
		fi
	done
	return "$rc"
}

# In the VM, after the latency runs (not with --smoke): rpcperf's
# bandwidth on verbs over rxe0 in one process, the engine's rendezvous
# threshold (messages over 16 KiB go by RDMA READ), at ib_read_bw's
# message size (65536, its default) and at 1 MiB. Prints "*** rpcperf-bw
# BYTES rc=N", then rpcperf's table and its path line. PMR_RXE_BW_ARGS:
# more rpcperf arguments for these runs (PMR_ variables reach the VM).
rpcperf_bw_guest() {
	local iters=$1 tmo=$2 rc=0 crc size n
	local eal=(--no-pci --no-huge -m 1024 --no-shconf
		--log-level=lib.eal:error)

	for size in 65536 1048576; do
		# As many bytes at 1 MiB as at 64 KiB would take too long.
		n=$((size > 65536 ? iters / 4 : iters))
		# shellcheck disable=SC2086
		timeout "$tmo" "$PMR_RPCPERF" -l 0-1 "${eal[@]}" -- -q \
			-w bandwidth -s "$size" -n "$n" --warmup $((n / 10)) \
			-c 8 --driver=verbs --driver-args=dev=rxe0 \
			${PMR_RXE_BW_ARGS:-} >/tmp/rpcperf.out 2>/tmp/rpcperf.err
		crc=$?
		echo "*** rpcperf-bw $size rc=$crc"
		cat /tmp/rpcperf.out
		((crc == 0)) || { cat /tmp/rpcperf.err; rc=1; }
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
	# The rpcperf part: compare() reads it.
	/^\+\+\+ / { flush(); want = 0; next }
	/^\*\*\* / { flush(); want = 0; next }
	/^### / { flush(); want = 0; next }
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

# The second table: rpcperf's round trips (min, p50, 99th percentile)
# against ib_send_lat -c UD's doubled (t_min, t_typical = the median, 99%
# percentile), in raw output $1; nothing when it has no rpcperf part.
# Returns 0 if each rpcperf run ran and gave its figures.
compare() {
	awk '
	function ratio(a, b) {
		return b > 0 ? sprintf("%.2f", a / b) : "?"
	}
	/^=== / { ud = ($0 ~ /^=== ib_send_lat -c UD rc=/); want = 0; next }
	ud && /^ #bytes/ { want = 1; next }
	ud && want && $1 ~ /^[0-9]+$/ && NF >= 8 {
		pbytes = $1; pmin = 2 * $3; pp50 = 2 * $5; pp99 = 2 * $8
		want = 0
	}
	/^\+\+\+ rpcperf / {
		ud = 0
		name = $0
		sub(/^\+\+\+ rpcperf /, "", name)
		rc = name
		sub(/.* rc=/, "", rc)
		sub(/ rc=[0-9]+$/, "", name)
		runs[++n] = name
		if (rc != 0) {
			bad++
			print "bench-rxe: rpcperf " name " failed (rc " rc ")" \
				> "/dev/stderr"
		}
		next
	}
	n > 0 && ($1 == "latency" || $1 == "drv-latency") && NF >= 13 &&
	    $3 ~ /^[0-9]+$/ {
		got[n] = 1
		runs[n] = $1 ", " runs[n]
		bytes[n] = $2; rmin[n] = $4; rp50[n] = $5; rp99[n] = $7
		retr[n] = $12
	}
	END {
		if (n == 0)
			exit 0
		print ""
		print "rpcperf on rxe0 (verbs driver, UD), same boot: round " \
			"trips. ib_send_lat reports half of each round trip " \
			"(one way), so its figures are doubled here; the " \
			"ratios are rpcperf over perftest."
		print ""
		print "| round trip | bytes | min µs | p50 µs | 99% µs | retrans | p50 ratio | min ratio |"
		print "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
		if (pp50 == "") {
			bad++
			print "bench-rxe: no ib_send_lat -c UD figures to " \
				"compare with" > "/dev/stderr"
		} else {
			printf "| perftest ib_send_lat -c UD, x2 | %s | %.2f | " \
				"%.2f | %.2f | | 1.00 | 1.00 |\n", pbytes, pmin,
				pp50, pp99
		}
		for (i = 1; i <= n; i++) {
			if (!got[i]) {
				bad++
				print "bench-rxe: no figures for rpcperf " \
					runs[i] > "/dev/stderr"
				continue
			}
			printf "| rpcperf %s | %s | %s | %s | %s | " \
				"%s | %s | %s |\n", runs[i], bytes[i], rmin[i],
				rp50[i], rp99[i], retr[i],
				ratio(rp50[i], pp50), ratio(rmin[i], pmin)
			if (pp50 != "")
				sum = sum sprintf("\n  %s: %s", runs[i],
					ratio(rp50[i], pp50))
		}
		if (sum != "")
			printf "\nrpcperf/perftest round-trip p50 (issue 15 " \
				"target: 1.3 or less):%s\n", sum
		# A median of a millisecond or more: a run that sat on the
		# guest 4-ms ticks most of the time (doc/benchmarks.md).
		slow = pp50 >= 1000 ? "perftest" : ""
		for (i = 1; i <= n; i++)
			if (got[i] && rp50[i] >= 1000)
				slow = slow (slow != "" ? ", " : "") "rpcperf " \
					runs[i]
		if (slow != "")
			printf "warning: %s ran on the guest 4-ms timer " \
				"ticks (median over 1 ms): its ratios mean " \
				"nothing, run again\n", slow
		exit (bad > 0)
	}' "$1"
}

# The third table: rpcperf's bandwidth on rxe0 against ib_read_bw's, in
# raw output $1; nothing when it has no rpcperf-bw part. Returns 0 if each
# such run ran and gave its figures.
bwcompare() {
	awk '
	function ratio(a, b) {
		return b > 0 ? sprintf("%.2f", a / b) : "?"
	}
	/^=== / { rd = ($0 ~ /^=== ib_read_bw rc=/); want = 0; bw = 0; next }
	rd && /^ #bytes/ { want = 1; next }
	rd && want && $1 ~ /^[0-9]+$/ && NF >= 5 && $4 ~ /^[0-9.]+$/ {
		pbytes = $1; pbw = $4; want = 0
	}
	/^\+\+\+ / { rd = 0; bw = 0; next }
	/^### / { rd = 0; bw = 0; next }
	/^\*\*\* rpcperf-bw / {
		rd = 0; bw = 1
		runs[++n] = $3
		rc = $4
		sub(/rc=/, "", rc)
		if (rc != 0) {
			bad++
			print "bench-rxe: rpcperf bandwidth " $3 " failed " \
				"(rc " rc ")" > "/dev/stderr"
		}
		next
	}
	bw && $1 == "bandwidth" && NF >= 13 && $3 ~ /^[0-9]+$/ {
		got[n] = 1; gbps[n] = $11; retr[n] = $12; p50[n] = $5
	}
	bw && $1 == "bandwidth" && $2 == "path:" {
		line = $0
		sub(/^bandwidth path: /, "", line)
		path[n] = line
	}
	END {
		if (n == 0)
			exit 0
		print ""
		print "rpcperf bandwidth on rxe0 (verbs driver, one process, " \
			"rendezvous threshold the engine'"'"'s), same boot, " \
			"against ib_read_bw (BW average); the ratio is " \
			"rpcperf over ib_read_bw."
		print ""
		print "| run | bytes | Gb/s | p50 µs | retrans | ratio | path |"
		print "| --- | ---: | ---: | ---: | ---: | ---: | --- |"
		if (pbw == "") {
			bad++
			print "bench-rxe: no ib_read_bw figures to compare " \
				"with" > "/dev/stderr"
		} else {
			printf "| perftest ib_read_bw | %s | %s | | | 1.00 | |\n",
				pbytes, pbw
		}
		for (i = 1; i <= n; i++) {
			if (!got[i]) {
				bad++
				print "bench-rxe: no figures for rpcperf " \
					"bandwidth " runs[i] > "/dev/stderr"
				continue
			}
			printf "| rpcperf bandwidth | %s | %s | %s | %s | %s " \
				"| %s |\n", runs[i], gbps[i], p50[i], retr[i],
				ratio(gbps[i], pbw), path[i]
		}
		exit (bad > 0)
	}' "$1"
}

# The fourth table: test/bench/rc_region.c's, as it printed it, from raw
# output $1; nothing when the run has none. Returns 0 unless it failed.
regions() {
	awk '
	/^(===|\+\+\+|\*\*\*) / { on = 0; next }
	/^### rc-region / {
		on = 1; n++
		rc = $3
		sub(/rc=/, "", rc)
		if (rc != 0) {
			bad++
			print "bench-rxe: bench_rc_region failed (rc " rc ")" \
				> "/dev/stderr"
		}
		print ""
		next
	}
	on && (/^\|/ || /^RC pair/) { print; rows++ }
	END {
		if (n > 0 && rows < 3) {
			bad++
			print "bench-rxe: no figures from bench_rc_region" \
				> "/dev/stderr"
		}
		exit (bad > 0)
	}' "$1"
}

if [[ ${1:-} == --guest ]]; then
	guest "$2" "$3" "$4"
	exit
fi
# Internal, for tests: the tables of a --raw file.
if [[ ${1:-} == --parse ]]; then
	parse "$2" "?"
	prc=$?
	compare "$2" || prc=1
	bwcompare "$2" || prc=1
	regions "$2" || prc=1
	exit "$prc"
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

# rpcperf for the second table, by absolute path (the VM sees the host's
# files at the same paths); none: perftest alone.
rpcperf=${PMR_RPCPERF:-build/release/apps/rpcperf/rpcperf}
if [[ -x $rpcperf ]]; then
	PMR_RPCPERF=$(readlink -f "$rpcperf")
	export PMR_RPCPERF
	timeout=$((timeout + (smoke ? 20 : 240)))
else
	unset PMR_RPCPERF
fi
region=${PMR_BENCH_RC_REGION:-build/release/test/bench_rc_region}
if [[ -x $region ]] && ((!smoke)); then
	PMR_BENCH_RC_REGION=$(readlink -f "$region")
	export PMR_BENCH_RC_REGION
	timeout=$((timeout + 120))
else
	unset PMR_BENCH_RC_REGION
fi

out=$(mktemp)
trap 'rm -f "$out"' EXIT
start=$EPOCHREALTIME
devtools/vm/run.sh -c "$cpus" -t "$timeout" -o "$out" -- \
	devtools/bench-rxe.sh --guest "$iters" "$tmo" "$smoke"
rc=$?
wall=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
[[ -n $raw ]] && cp "$out" "$raw"
((rc == 77)) && exit 77
# Said once the VM ran (a VM that cannot run says one line, no more).
[[ -n ${PMR_RPCPERF:-} ]] || echo "bench-rxe: no rpcperf at $rpcperf" \
	"(build it, or set PMR_RPCPERF): perftest alone" >&2

parse "$out" "$wall"
parse_rc=$?
compare "$out" || parse_rc=1
bwcompare "$out" || parse_rc=1
regions "$out" || parse_rc=1
if ((rc != 0 || parse_rc != 0)); then
	if ((rc == 0 || rc == 1)); then
		echo "bench-rxe: failed (VM exit $rc); perftest said:" >&2
		tail -n 60 "$out" >&2
	fi
	exit 1
fi
