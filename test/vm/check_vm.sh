#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The pmrpc authors
#
# Tests of the VM harness (devtools/vm/), one mode per meson test, as few
# boots as can show that it works (each costs 5-8 s under TCG):
#   skip     no boot: a VM that cannot run skips (77) with one line, or
#            fails (1) with PMR_REQUIRE_VM=1; run2.sh and bench-rxe.sh too
#   run      one boot: exit status, stdout and stderr apart (-o/-e), PMR_
#            variables and those named by -E passed, no others, -H hugepages, rxe0 ACTIVE with
#            an IPv4-mapped RoCE v2 GID, the cwd shared read-write
#   timeout  one boot: -t expires: 124, output so far kept, no qemu left,
#            the console (-v) only on stderr
#   hang     one boot: a command past the guest's deadline (-t less 20 s)
#            is killed in the guest after its processes' kernel stacks
#            are written to stderr: 124 before -t, stdout kept
#   two      two VMs (run2.sh --netem): netem in both, ib_send_lat -c UD
#            from B to A, outputs apart
#   bench    devtools/bench-rxe.sh --smoke: six figures, under a minute
#   bench_parse  no boot: bench-rxe.sh's table of perftest's output
#            (perftest-smoke.txt, a real --raw of --smoke), and its
#            failure when a run failed, gave no figure or is missing
#   bench_compare  no boot: bench-rxe.sh's second table, rpcperf's round
#            trips against ib_send_lat -c UD's doubled (rxe-rpcperf.txt,
#            a real --raw of a whole run), its ratios and its warning for
#            a run on the guest's ticks; its failure when an rpcperf run
#            failed or gave no figure, or perftest's UD figures are gone
#   two_vms_parse  no boot: devtools/bench-two-vms.sh's table of a saved
#            raw output (two-vms.txt, a real --raw of one run: a clean
#            boot and a lossy one), its rows, reasons and verdict; a cell
#            that passed alone passes; the same with its client's exit,
#            its payload check (client or server) or its client's block
#            changed fails, saying why
# Exits 77 when the VM cannot run here (and PMR_REQUIRE_VM is not 1).

set -uo pipefail

here=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
repo=$(cd "$here/../.." && pwd)
run=$repo/devtools/vm/run.sh
run2=$repo/devtools/vm/run2.sh
mode=${1:?mode: skip, run, timeout, hang, two or bench}

tmp=$(mktemp -d)
exec 3>&1	# timed()'s line, past the redirections of the command
written=$PWD/.vm-test-written.$$	# made by the VM in our cwd (run)
trap 'rm -rf "$tmp" "$written"' EXIT

fail() {
	echo "FAIL: vm_$mode: $*"
	for f in "$tmp"/{out,err,run.out,run.err,a.*,b.*}; do
		[[ -f $f ]] || continue
		echo "--- ${f##*/}:"
		tail -n 30 "$f"
	done
	exit 1
}

# Runs "$@", its status in $rc, its wall time printed (and in $wall).
timed() {
	local start=$EPOCHREALTIME

	"$@"
	rc=$?
	wall=$(awk -v a="$start" -v b="$EPOCHREALTIME" \
		'BEGIN { printf "%.1f", b - a }')
	echo "${1##*/} took $wall s, exit $rc" >&3
}

# A skip of the harness is this test's skip.
skip_on_77() {
	if ((rc == 77)); then
		cat "$tmp/err" 2>/dev/null
		exit 77
	fi
}

expect_line() {
	grep -qxF -- "$2" "$tmp/$1" || fail "no line '$2' in $1"
}

# A line of $tmp/out holding each of "$@".
row_with() {
	local line part ok

	while IFS= read -r line; do
		ok=1
		for part; do
			[[ $line == *"$part"* ]] || { ok=0; break; }
		done
		((ok)) && return 0
	done <"$tmp/out"
	fail "no row with: $*"
}

case $mode in
skip)
	# No qemu: one line on stderr, 77; PMR_REQUIRE_VM=1 makes it 1.
	for prog in "$run" "$run2" "$repo/devtools/bench-rxe.sh" \
		"$repo/devtools/bench-two-vms.sh"; do
		args=(-- true)
		[[ $prog == "$run2" ]] && args=(-- true -- true)
		[[ $prog == */bench-*.sh ]] && args=(--smoke)
		PMR_VM_QEMU=/nonexistent PMR_REQUIRE_VM=0 "$prog" "${args[@]}" \
			>"$tmp/out" 2>"$tmp/err"
		rc=$?
		((rc == 77)) || fail "${prog##*/} without qemu: exit $rc, not 77"
		[[ $(wc -l <"$tmp/err") == 1 ]] ||
			fail "${prog##*/}: not one line on stderr"
		grep -q 'PMR_VM_QEMU=/nonexistent' "$tmp/err" ||
			fail "${prog##*/}: the reason is not given"
		PMR_VM_QEMU=/nonexistent PMR_REQUIRE_VM=1 "$prog" "${args[@]}" \
			>"$tmp/out" 2>"$tmp/err"
		rc=$?
		((rc == 1)) ||
			fail "${prog##*/} with PMR_REQUIRE_VM=1: exit $rc, not 1"
	done
	# Not root: the same, when an unprivileged user can run it at all.
	if ((EUID == 0)) && command -v setpriv >/dev/null &&
	   setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$run"; then
		(cd / && PMR_REQUIRE_VM=0 setpriv --reuid=65534 \
			--regid=65534 --clear-groups "$run" -- true) \
			>"$tmp/out" 2>"$tmp/err"
		rc=$?
		((rc == 77)) || fail "not root: exit $rc, not 77"
		grep -q 'not root' "$tmp/err" || fail "not root: no reason given"
	fi
	echo "PASS: vm_skip"
	;;
run)
	token="t$RANDOM $RANDOM'\"\$x"
	# The command from the host's /tmp, outside the cwd: the guest sees
	# the host's files everywhere (a clone under /tmp once did not).
	cp "$here/guest_facts.sh" "$tmp/facts.sh"
	PMR_VM_TEST_TOKEN=$token VM_TEST_OTHER=leak VM_TEST_NAMED=named \
		timed "$run" -H 8 -t 120 -E VM_TEST_NAMED \
		-o "$tmp/out" -e "$tmp/err" -- "$tmp/facts.sh" "$written" \
		>"$tmp/run.out" 2>"$tmp/run.err"
	skip_on_77
	((rc == 3)) || fail "exit $rc, not the command's 3"
	expect_line out "cwd $PWD"
	expect_line out "uid 0"
	expect_line out "token $token"
	expect_line out "other unset"
	expect_line out "named named"
	expect_line out "guest 1"
	expect_line out "hugepages 8"
	expect_line out "hugetlbfs mounted"
	grep -q '^rdma link rxe0/1 state ACTIVE .* netdev dummy0' "$tmp/out" ||
		fail "rxe0 not ACTIVE on dummy0"
	grep -q '^devinfo state:.*PORT_ACTIVE' "$tmp/out" ||
		fail "ibv_devinfo: port not active"
	grep -q '^devinfo link_layer:.*Ethernet' "$tmp/out" ||
		fail "ibv_devinfo: not Ethernet"
	grep -q '^devinfo GID\[ *1\]:.*::ffff:192\.0\.2\.1, RoCE v2' "$tmp/out" ||
		fail "no IPv4-mapped RoCE v2 GID at index 1"
	expect_line err "to stderr"
	grep -q 'to stderr' "$tmp/out" && fail "stderr in stdout"
	grep -qE 'Linux version|vm guest' "$tmp/out" "$tmp/err" &&
		fail "console in the command's output"
	[[ ! -s $tmp/run.out ]] || fail "stdout printed despite -o"
	[[ $(cat "$written" 2>/dev/null) == written ]] ||
		fail "the command's file is not in the cwd"
	echo "PASS: vm_run"
	;;
timeout)
	# Long enough for a boot on a loaded machine (5 s idle, up to 13 s
	# seen): the command must have started for its output to be checked.
	timed "$run" -v -t 20 -- sh -c \
		'echo before timeout; echo err before timeout >&2; sleep 300' \
		>"$tmp/out" 2>"$tmp/err"
	skip_on_77
	((rc == 124)) || fail "exit $rc, not 124"
	awk -v w="$wall" 'BEGIN { exit !(w < 35) }' ||
		fail "took $wall s for -t 20"
	[[ $(cat "$tmp/out") == "before timeout" ]] ||
		fail "stdout is not the command's alone"
	grep -qxF 'err before timeout' "$tmp/err" || fail "stderr lost"
	grep -q 'timeout after 20 s' "$tmp/err" || fail "timeout not reported"
	grep -q 'the command had started [0-9.]* s into the boot' "$tmp/err" ||
		fail "not said that the command had started"
	grep -q 'Linux version' "$tmp/err" || fail "-v: no console on stderr"
	run_dir=$(sed -n 's/.*(run dir \(.*\))$/\1/p' "$tmp/err")
	[[ -n $run_dir ]] || fail "-v: no run dir"
	sleep 1
	pgrep -f -- "$run_dir" >/dev/null && fail "qemu left running"
	[[ ! -e $run_dir ]] || fail "run dir $run_dir left behind"
	echo "PASS: vm_timeout"
	;;
hang)
	# -t 45: the guest's deadline is 25 s of its uptime.
	timed "$run" -t 45 -- sh -c 'echo before hang; sleep 300' \
		>"$tmp/out" 2>"$tmp/err"
	skip_on_77
	((rc == 124)) || fail "exit $rc, not 124"
	awk -v w="$wall" 'BEGIN { exit !(w < 44) }' ||
		fail "took $wall s: the host's -t 45 ended it, not the guest"
	[[ $(cat "$tmp/out") == "before hang" ]] ||
		fail "stdout is not the command's alone"
	grep -q 'the command is past its deadline' "$tmp/err" ||
		fail "no dump of the hung command"
	grep -q '^== pid [0-9]*: sleep 300$' "$tmp/err" ||
		fail "the hung command's child not in the dump"
	grep -q '^-- task [0-9]* sleep: S (sleeping), wchan ' "$tmp/err" ||
		fail "no state and wchan of the sleeping task"
	grep -q '^   \[<0>\] .*nanosleep' "$tmp/err" ||
		fail "no kernel stack of the sleeping task"
	grep -q 'the command ran past 25 s of the guest' "$tmp/err" ||
		fail "the host did not say the guest killed it"
	echo "PASS: vm_hang"
	;;
two)
	timed "$run2" --netem 'delay 1ms' -t 200 -O "$tmp" -- \
		"$here/two_side.sh" -- "$here/two_side.sh" \
		>"$tmp/run.out" 2>"$tmp/run.err"
	skip_on_77
	((rc == 0)) || fail "exit $rc"
	expect_line a.stdout "ip 192.0.2.1 peer 192.0.2.2"
	expect_line b.stdout "ip 192.0.2.2 peer 192.0.2.1"
	for s in a b; do
		grep -q '^qdisc qdisc netem .* delay 1ms' "$tmp/$s.stdout" ||
			fail "no netem on $s's eth0"
		grep -q '^rdma link rxe0/1 state ACTIVE .* netdev eth0' \
			"$tmp/$s.stdout" || fail "$s: rxe0 not on eth0"
		# The result line: bytes, iterations, then latencies.
		grep -qE '^ 2 +100 +[0-9.]+' "$tmp/$s.stdout" ||
			fail "$s: no ib_send_lat result"
	done
	grep -q 'ip 192.0.2.2' "$tmp/a.stdout" && fail "b's output in a's"
	echo "PASS: vm_two"
	;;
bench)
	timed "$repo/devtools/bench-rxe.sh" --smoke >"$tmp/out" 2>"$tmp/err"
	skip_on_77
	cat "$tmp/out"
	((rc == 0)) || fail "exit $rc"
	# Six rows, each with a figure.
	[[ $(grep -cE '^\| ib_[a-z_]+( -c (UD|RC))? \| [0-9]+ \|.*[0-9]' \
		"$tmp/out") == 6 ]] || fail "not six rows of figures"
	grep -qE 'boot to command [0-9.]+ s' "$tmp/out" || fail "no boot time"
	awk -v w="$wall" 'BEGIN { exit !(w < 60) }' ||
		fail "--smoke took $wall s, more than a minute"
	echo "PASS: vm_bench"
	;;
bench_parse)
	bench=$repo/devtools/bench-rxe.sh
	raw=$here/perftest-smoke.txt
	"$bench" --parse "$raw" >"$tmp/out" 2>"$tmp/err" ||
		fail "the good output did not parse"
	expect_line out "| ib_send_lat -c UD | 2 | 11.98 | 12.89 | 20.96 | 152.59 | |  |"
	expect_line out "| ib_read_lat | 2 | 23.80 | 24.16 | 25.96 | 300.23 | |  |"
	expect_line out "| ib_write_bw | 65536 | | | | | 0.44 | 0.000842 |"
	expect_line out "| ib_send_bw -c UD | 1024 | | | | | 0.096329 | 0.011759 |"
	grep -q 'boot to command 4.68 s' "$tmp/out" || fail "no boot time"
	[[ $(grep -c '^| ib_' "$tmp/out") == 6 ]] || fail "not six rows"
	# A result line lost, a run that failed, a test missing.
	sed '/^=== ib_read_lat/,/^=== /{/^ 2 /d}' "$raw" >"$tmp/nofig"
	sed 's/^=== ib_write_bw rc=0/=== ib_write_bw rc=1/' "$raw" >"$tmp/rc1"
	sed '/^=== ib_send_bw/,$d' "$raw" >"$tmp/short"
	for bad in nofig:'no figures for ib_read_lat' rc1:'ib_write_bw failed (rc 1)' \
		short:'5 of 6 tests ran'; do
		"$bench" --parse "$tmp/${bad%%:*}" >"$tmp/out" 2>"$tmp/err" &&
			fail "${bad%%:*}: parsed as good"
		grep -qF "${bad#*:}" "$tmp/err" ||
			fail "${bad%%:*}: no '${bad#*:}'"
	done
	echo "PASS: vm_bench_parse"
	;;
bench_compare)
	bench=$repo/devtools/bench-rxe.sh
	raw=$here/rxe-rpcperf.txt
	"$bench" --parse "$raw" >"$tmp/out" 2>"$tmp/err" ||
		fail "the good output did not parse"
	# perftest's one-way t_min, t_typical and 99% (10.86, 11.57,
	# 5147.71), doubled: round trips, as rpcperf's.
	expect_line out "| perftest ib_send_lat -c UD, x2 | 2 | 21.72 | 23.14 | 10295.42 | | 1.00 | 1.00 |"
	expect_line out "| rpcperf latency, one process, sig_every=64 | 2 | 26.940 | 48.550 | 181.980 | 0 | 2.10 | 1.24 |"
	expect_line out "| rpcperf latency, one process, sig_every=1 | 2 | 22.680 | 24.300 | 86.790 | 0 | 1.05 | 1.04 |"
	expect_line out "  latency, two processes, sig_every=64: 2.21"
	grep -q '^warning: rpcperf latency, two processes, sig_every=1 ran on the guest 4-ms timer ticks' \
		"$tmp/out" || fail "no warning for the run on the ticks"
	[[ $(grep -c '^| rpcperf latency' "$tmp/out") == 4 ]] ||
		fail "not four rpcperf rows"
	# The perftest table is still the same six rows.
	[[ $(grep -c '^| ib_' "$tmp/out") == 6 ]] || fail "not six rows"
	# No rpcperf part: no second table.
	"$bench" --parse "$here/perftest-smoke.txt" >"$tmp/out" 2>"$tmp/err" ||
		fail "perftest alone did not parse"
	grep -q 'rpcperf' "$tmp/out" && fail "a second table without rpcperf"
	# An rpcperf run that failed, one without its row, no UD figures.
	sed 's/^\(+++ rpcperf one process, sig_every=64 rc=\)0$/\11/' \
		"$raw" >"$tmp/rc1"
	sed '/^+++ rpcperf two processes, sig_every=64/,/^+++ /{/^latency /d}' \
		"$raw" >"$tmp/nofig"
	sed '/^=== ib_send_lat -c UD/,/^=== /{/^ 2 /d}' "$raw" >"$tmp/noud"
	for bad in rc1:'rpcperf one process, sig_every=64 failed (rc 1)' \
		nofig:'no figures for rpcperf two processes, sig_every=64' \
		noud:'no ib_send_lat -c UD figures to compare with'; do
		"$bench" --parse "$tmp/${bad%%:*}" >"$tmp/out" 2>"$tmp/err" &&
			fail "${bad%%:*}: parsed as good"
		grep -qF "${bad#*:}" "$tmp/err" ||
			fail "${bad%%:*}: no '${bad#*:}'"
	done
	echo "PASS: vm_bench_compare"
	;;
two_vms_parse)
	bench=$repo/devtools/bench-two-vms.sh
	raw=$here/two-vms.txt
	"$bench" --parse "$raw" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	((rc == 1)) || fail "the saved run: exit $rc, not 1 (cells failed)"
	# A cell that passed, one that timed out, and the reasons the log
	# gives for the others: the nexus's resets, a READ's retry_exceeded,
	# READs that never completed, the client killed at its time limit.
	expect_line out "| 1 | clean | 65536 | 1 | pass | 301/301 | 0.023 | 20.7 | 309 | 0 | 0/0 | 0/0 | 0/0 | 0/0 | 15 |  |"
	expect_line out "| 1 | clean | 1048576 | 8 | **FAIL** | 12/68 | - | - | 96 | 4 | 0/0 | 0/0 | 0/0 | 0/0 | 8 | first failed RPC: TIMEOUT; server dropped 63 packets (slot_busy 63) |"
	row_with '| 1 | clean | 65536 | 8 | **FAIL** | 0/308 |' \
		'sessions did not come up: Connection timed out;' \
		'server: RC region registered in 636 ms'
	row_with '| 1 | clean | 1048576 | 1 | **FAIL** | 11/61 |' \
		'| 0/1 | 4/4 | 1/1 | 0/0 |' \
		'server nexus: peer 192.0.2.2:33877 silent 1329 ms, 4 reset;' \
		'server RC WR: retry_exceeded x1;' \
		'server: 1 READ of a request: retry_exceeded'
	row_with '| 1 | loss | 65536 | 1 | **FAIL** | 85/301 |' \
		'the client still exiting at the cell time limit (60 s), killed'
	row_with '| 1 | loss | 65536 | 8 | **FAIL** | 8/308 |' \
		'server: 3 READs of requests never completed (flushed at exit)'
	expect_line out "clean   65536 B -c 1: passed 1 of 1"
	expect_line out "loss 1048576 B -c 8: passed 0 of 1"
	[[ $(grep -c '^| 1 | \(clean\|loss\) | ' "$tmp/out") == 8 ]] ||
		fail "not 8 rows"
	expect_line out "FAIL: not every cell of every run completed with its payloads verified"
	# The clean boot's first cell alone: it passed.
	awk '/^### boot/ { if (++boots > 1) exit; sub(/,.*$/, "") }
		/^=== (server|client) cell / { keep = ($4 == "0") }
		/^(## |@@ )/ { keep = 1 }
		keep || /^### boot/' "$raw" >"$tmp/one"
	"$bench" --parse "$tmp/one" >"$tmp/out" 2>"$tmp/err" ||
		fail "a cell that passed alone did not pass"
	expect_line out "PASS: every cell of every run"
	expect_line out "clean   65536 B -c 1: passed 1 of 1"
	# The boot line of today's script (each cell's limit, the deadlines)
	# parses the same; a client stopped at its limit says how far it got.
	sed '/^### boot/s/$/:60 deadlines=engine/' "$tmp/one" >"$tmp/new"
	"$bench" --parse "$tmp/new" >"$tmp/out" 2>"$tmp/err" ||
		fail "the boot line with limits and deadlines did not pass"
	expect_line out "clean   65536 B -c 1: passed 1 of 1"
	sed -e 's/^\(=== client cell 0 .*\) rc=0 /\1 rc=124 /' \
		-e '/^=== client cell 0/,/^--- stderr/{/^--- stderr/a\
rpcperf: rate: stopped by a signal after 85 of 301 round trips
}' "$tmp/new" >"$tmp/stopped"
	"$bench" --parse "$tmp/stopped" >"$tmp/out" 2>"$tmp/err" &&
		fail "a client stopped at its limit parsed as a pass"
	grep -qF 'cell time limit (60 s) hit: stopped after 85 of 301 round trips' \
		"$tmp/out" || fail "stopped: no 'stopped after 85 of 301'"
	# The same cell with its client's exit, a payload check or its
	# client's block changed: it fails, and says why.
	sed 's/^\(=== client cell 0 .*\) rc=0 /\1 rc=1 /' "$tmp/one" >"$tmp/rc1"
	sed '/^json /s/"verify_errors": 0/"verify_errors": 3/' "$tmp/one" \
		>"$tmp/verify"
	sed '/^total /s/ 0$/ 2/' "$tmp/one" >"$tmp/srvverify"
	sed '/^=== client cell 0/,$d' "$tmp/one" >"$tmp/noclient"
	for bad in rc1:'| **FAIL** |' verify:'3 payloads differ' \
		srvverify:'| 0/2 | ' noclient:'no result from B'; do
		"$bench" --parse "$tmp/${bad%%:*}" >"$tmp/out" 2>"$tmp/err" &&
			fail "${bad%%:*}: parsed as a pass"
		grep -qF -- "${bad#*:}" "$tmp/out" ||
			fail "${bad%%:*}: no '${bad#*:}'"
		grep -qF 'FAIL: not every cell' "$tmp/out" ||
			fail "${bad%%:*}: no verdict"
	done
	echo "PASS: vm_two_vms_parse"
	;;
*)
	echo "unknown mode $mode" >&2
	exit 2
	;;
esac
