#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The pmrpc authors
#
# Build and test pmrpc on Debian 12, from a fresh machine or a warm tree:
#   1. install the build and test packages that are missing (root only);
#   2. reserve 2-MiB hugepages when possible (the tests fall back to
#      --no-huge otherwise);
#   3. build build/release and build/sanitize (ASan + UBSan), -Dwerror=true;
#   4. run meson test in each, one suite at a time with its wall time
#      printed (the 'vm' suite last and alone: devtools/vm/ boots qemu
#      VMs with Soft-RoCE; release build only), cmocka's per-case lines
#      shown (the 'doxygen' test among them: the API reference of the
#      public headers, any doxygen warning a failure; doxygen is
#      installed in step 1);
#      then run each libFuzzer target (devtools/fuzz.sh) for a while, one
#      test result per target, when clang with libFuzzer is there;
#   5. print the totals as the last line: "N passed, N failed".
# Exits non-zero if a build or a test failed.
#
# Environment:
#   PMR_TEST_BUILDS    builds to run, from "release sanitize" (the default)
#   PMR_TEST_EAL_ARGS  EAL arguments for the tests instead of the fixture's
#                      choice (test/common/pmr_test.h); passed through
#   PMR_FUZZ_SECONDS   seconds of each libFuzzer run (default 60; 0 skips
#                      the fuzz step)
#   PMR_REQUIRE_VM     1: the VM suite fails rather than skips when no VM
#                      can run (.ci/run sets it, and PMR_REQUIRE_NETNS)

set -euo pipefail

cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.."

# shellcheck source=devtools/common.sh
source devtools/common.sh

# Options of each build, on top of the project's defaults.
# pkgconfig.relocatable is a project default too; given here so that a
# build dir made before it was one gets it (install_external needs it).
declare -A build_opts=(
	[release]="-Dwerror=true -Dpkgconfig.relocatable=true"
	[sanitize]="-Dwerror=true -Dpkgconfig.relocatable=true \
-Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debug \
-Dasserts=true"
)

# Build dir $1; returns non-zero if configuring or compiling failed.
build() {
	local dir=build/$1 opts=${build_opts[$1]}
	local stamp=build/$1/.pmr-test-opts

	# A dir made by hand (or an older test.sh) may lack our options:
	# configure it, cheaply, only when the recorded options differ.
	if [[ ! -f $dir/build.ninja ]]; then
		rm -rf "$dir"
		# shellcheck disable=SC2086
		meson setup "$dir" $opts || return
		echo "$opts" >"$stamp"
	elif [[ ! -f $stamp || $(<"$stamp") != "$opts" ]]; then
		# shellcheck disable=SC2086
		meson configure "$dir" $opts || return
		echo "$opts" >"$stamp"
	fi
	ninja -C "$dir"
}

# Totals of a testlog.json, as "passed failed skipped".
count_results() {
	python3 - "$1" <<'EOF'
import json
import sys

passed = failed = skipped = 0
with open(sys.argv[1], encoding='utf-8') as f:
    for line in f:
        if not line.strip():
            continue
        result = json.loads(line).get('result')
        if result in ('OK', 'EXPECTEDFAIL'):
            passed += 1
        elif result == 'SKIP':
            skipped += 1
        else:  # FAIL, TIMEOUT, UNEXPECTEDPASS, ERROR, INTERRUPT
            failed += 1
print(passed, failed, skipped)
EOF
}

# The failed tests of a testlog.json, each with the last lines of its
# output: CI shows only the tail of what we print, so the names of what
# failed and why must come last, just before the totals.
failed_tests() {
	python3 - "$1" "$2" <<'EOF'
import json
import sys

with open(sys.argv[1], encoding='utf-8') as f:
    for line in f:
        if not line.strip():
            continue
        t = json.loads(line)
        if t.get('result') in ('OK', 'EXPECTEDFAIL', 'SKIP'):
            continue
        print('== %s: %s %s after %.0f s (exit %s); its last lines:' %
              (sys.argv[2], t.get('name'), t.get('result'),
               t.get('duration') or 0, t.get('returncode')))
        out = (t.get('stdout') or '') + (t.get('stderr') or '')
        for l in out.splitlines()[-15:]:
            print('   | ' + l[:200])
EOF
}

install_packages

huge_note=$(hugepages_setup)
[[ -z $huge_note ]] || say "$huge_note"

if [[ -n ${PMR_TEST_EAL_ARGS:-} ]]; then
	export PMR_TEST_EAL_ARGS
	say "EAL arguments from PMR_TEST_EAL_ARGS: $PMR_TEST_EAL_ARGS"
fi

total_pass=0 total_fail=0 total_skip=0 failures=
read -r -a builds <<<"${PMR_TEST_BUILDS:-release sanitize}"
for b in "${builds[@]}"; do
	if [[ -z ${build_opts[$b]+set} ]]; then
		say "unknown build '$b' in PMR_TEST_BUILDS (known: ${!build_opts[*]})" >&2
		total_fail=$((total_fail + 1))
		continue
	fi
	say "== $b: build"
	if ! build "$b"; then
		say "== $b: BUILD FAILED" >&2
		failures+="== $b: BUILD FAILED"$'\n'
		total_fail=$((total_fail + 1))
		continue
	fi

	test_env=()
	if [[ $b == sanitize ]]; then
		# UBSan and ASan errors end the test with a failure; LSan runs at
		# exit (EAL frees its own allocations in rte_eal_cleanup(), so no
		# suppressions are needed). Options the caller set come after
		# ours, and win.
		asan="halt_on_error=1:abort_on_error=0:print_stacktrace=1"
		asan+=":detect_leaks=1:detect_stack_use_after_return=1"
		asan+=":check_initialization_order=1:strict_string_checks=1"
		ubsan="halt_on_error=1:print_stacktrace=1"
		test_env=(ASAN_OPTIONS="$asan${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
			LSAN_OPTIONS="suppressions=$PWD/devtools/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
			UBSAN_OPTIONS="$ubsan${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}")
	fi
	log=build/$b/meson-logs/testlog.json
	all=build/$b/meson-logs/testlog-all.json
	rm -f "$all"
	say "== $b: test"
	rc=0
	# One meson test per suite, each one's wall time printed; the VM
	# suite last, alone (its VMs take both cores). The list is read
	# whole first: "meson test --list | grep -q" under pipefail failed
	# whenever grep's early exit gave meson a SIGPIPE, and the VM suite
	# was then left out without a word.
	tests=$(meson test -C "build/$b" --no-rebuild --list 2>/dev/null) ||
		true
	mapfile -t suites < <(sed -n 's|^[^:]*:\([^ ]*\) / .*|\1|p' \
		<<<"$tests" | sort -u | grep -vx vm
		grep -q '^[^:]*:vm / ' <<<"$tests" && echo vm)
	((${#suites[@]} > 0)) || suites=("")
	for s in "${suites[@]}"; do
		start=$EPOCHREALTIME
		rm -f "$log"
		src=0
		env "${test_env[@]}" meson test -C "build/$b" --no-rebuild \
			--print-errorlogs --num-processes 2 --verbose \
			${s:+--suite "$s"} </dev/null || src=$?
		((src == 0)) || rc=$src
		counts="0 0 0"
		if [[ -s $log ]]; then
			cat "$log" >>"$all"
			counts=$(count_results "$log") || counts="0 1 0"
		fi
		read -r pass fail skip <<<"$counts"
		say "== $b: suite ${s:-all}: $pass OK, $fail failed," \
			"$skip skipped in $(awk -v a="$start" \
			-v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }') s"
	done

	counts="0 0 0"
	if [[ -s $all ]]; then
		counts=$(count_results "$all") || counts="0 1 0"
	fi
	read -r pass fail skip <<<"$counts"
	# meson test failed but logged no failed test (crashed, bad option...)
	if ((rc != 0 && fail == 0)); then
		fail=1
	fi
	say "== $b: $pass OK, $fail failed, $skip skipped (meson test exit $rc)"
	if ((fail > 0)) && [[ -s $all ]]; then
		failures+=$(failed_tests "$all" "$b")$'\n' || true
	fi
	total_pass=$((total_pass + pass))
	total_fail=$((total_fail + fail))
	total_skip=$((total_skip + skip))
done

# Bounded libFuzzer runs on copies of the seed corpora, in build/fuzz; a
# crash fails its target and devtools/fuzz.sh prints the input's path.
fuzz_seconds=${PMR_FUZZ_SECONDS:-60}
if [[ ! $fuzz_seconds =~ ^[0-9]+$ ]]; then
	say "PMR_FUZZ_SECONDS must be a number of seconds: '$fuzz_seconds'" >&2
	total_fail=$((total_fail + 1))
elif ((10#$fuzz_seconds > 0)); then
	for t in rx nexus nexus_seq worker worker_rdv; do
		say "== fuzz $t: $fuzz_seconds s"
		rc=0
		devtools/fuzz.sh "$t" "$fuzz_seconds" </dev/null || rc=$?
		if ((rc == 0)); then
			total_pass=$((total_pass + 1))
		elif ((rc == 77)); then
			say "== fuzz $t: skipped (no clang with libFuzzer)"
			total_skip=$((total_skip + 1))
		else
			say "== fuzz $t: FAILED" >&2
			failures+="== fuzz $t: FAILED (exit $rc; build/fuzz/fuzz-$t.log)"$'\n'
			total_fail=$((total_fail + 1))
		fi
	done
fi

# The last line is exactly "N passed, N failed" (CI reads it); skips
# (a test that cannot run here, e.g. verbs on a host without RDMA) go on
# the line before.
[[ -z $failures ]] || printf 'test.sh: what failed:\n%s' "$failures"
((total_skip == 0)) || say "$total_skip skipped (not counted as passed)"
echo "$total_pass passed, $total_fail failed"
((total_fail == 0))
