#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The pmrpc authors
#
# Build a libFuzzer target of test/fuzz and run it (doc/fuzzing.md):
#   devtools/fuzz.sh TARGET [SECONDS [LIBFUZZER_OPTION...]]
# TARGET is rx, nexus, nexus_seq, worker or worker_rdv; SECONDS defaults to 600, 0
# runs until a crash or Ctrl-C. Options after SECONDS go to libFuzzer as
# they are (-dict=..., -use_value_profile=1, -fork=1 -ignore_crashes=1, ...).
#
# Everything lives under build/fuzz, nothing is written to the source tree:
#   build/fuzz/build/            meson build dir: CC=clang, -Dfuzz=true
#                                (libFuzzer + ASan + UBSan, -O1 -g)
#   build/fuzz/corpus-TARGET/    the working corpus: the seeds of
#                                test/fuzz/corpus/TARGET/ copied in, plus
#                                what earlier runs found (kept)
#   build/fuzz/crashes-TARGET/   crash, leak and timeout inputs
#   build/fuzz/fuzz-TARGET.log   libFuzzer's output of the last run
# One fuzzing process (no -jobs/-workers).
#
# Exit status: 0 no crash; 1 a crash (the input's path is printed) or the
# build failed; 2 bad usage; 77 no clang with libFuzzer (devtools/test.sh
# counts that as skipped; devtools/common.sh lists the packages).

set -euo pipefail

cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.."

# shellcheck source=devtools/common.sh
source devtools/common.sh

usage() {
	echo "usage: ${0##*/} rx|nexus|nexus_seq|worker|worker_rdv [SECONDS [LIBFUZZER_OPTION...]]" >&2
	exit 2
}

(($# >= 1)) || usage
target=$1
seconds=${2:-600}
shift $(($# >= 2 ? 2 : 1))
# Options of a target's own, before the caller's (which win).
target_opts=()
case $target in
rx)	max_len=2048 ;;	# a frame: over a 1500-byte MTU's
nexus)	max_len=256 ;;	# a nexus datagram: NEXUS_WIRE_MAX_LEN is less
nexus_seq) max_len=4096 ;;	# a sequence of operations, a few bytes each
worker)	max_len=1024 ;;	# a sequence of operations (fuzz_worker.c)
worker_rdv) max_len=512	# the READ path's operations (fuzz_worker_rdv.c)
	# No leak check after each input: the verbs driver keeps its
	# objects' pointers in DPDK memory, which LeakSanitizer does not
	# scan, and the nexus thread destroys a closed pair's QP after the
	# input ended; the corpus replay of the sanitizer build checks for
	# leaks at exit, when everything is gone.
	# And 60 s an input, not 10: a pair lost to the transport is
	# replaced by the real nexus thread (its RC set-up retried 100 ms
	# later, issue 26), which an instrumented input waits for in real
	# time: one such input took 15 s here (1.6 s in a release build).
	target_opts=(-detect_leaks=0 -timeout=60) ;;
*)	usage ;;
esac
[[ $seconds =~ ^[0-9]+$ ]] || usage

top=build/fuzz
dir=$top/build
opts="-Dfuzz=true -Dwerror=true -Doptimization=1 -Ddebug=true"

# clang that links a libFuzzer target (Debian: clang, libclang-rt-14-dev).
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
	'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);' \
	'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)' \
	'{ (void)d; (void)n; return 0; }' >"$probe/probe.c"
if ! command -v clang >/dev/null ||
   ! clang -fsanitize=fuzzer,address,undefined -o "$probe/probe" \
	"$probe/probe.c" 2>/dev/null; then
	say "no clang with libFuzzer: apt-get install clang libclang-rt-14-dev" >&2
	exit 77
fi

# Configure once; again (from scratch: the compiler is fixed at setup) when
# the options differ. The corpora beside the build dir stay.
mkdir -p "$top"
stamp=$dir/.pmr-fuzz-opts
if [[ ! -f $dir/build.ninja || ! -f $stamp || $(<"$stamp") != "$opts" ]]; then
	rm -rf "$dir"
	# shellcheck disable=SC2086
	if ! CC=clang meson setup "$dir" $opts >"$top/setup.log" 2>&1; then
		cat "$top/setup.log" >&2
		say "$target: configuring $dir FAILED" >&2
		exit 1
	fi
	echo "$opts" >"$stamp"
fi
if ! ninja -C "$dir" "test/fuzz/fuzz_$target"; then
	say "$target: BUILD FAILED" >&2
	exit 1
fi

corpus=$top/corpus-$target
crashes=$top/crashes-$target
log=$top/fuzz-$target.log
mkdir -p "$corpus" "$crashes"
cp test/fuzz/corpus/"$target"/* "$corpus"/
before=$(find "$crashes" -type f | wc -l)

cmd=("$dir/test/fuzz/fuzz_$target" -max_total_time="$seconds"
	-max_len="$max_len" -timeout=10 -print_final_stats=1
	-artifact_prefix="$crashes/" "${target_opts[@]}" "$@" "$corpus")
say "$target: ${cmd[*]}"
say "$target: output in $log"
rc=0
if [[ -t 1 ]]; then
	"${cmd[@]}" 2>&1 | tee "$log" || rc=${PIPESTATUS[0]}
else
	"${cmd[@]}" >"$log" 2>&1 || rc=$?
fi

if ((rc == 0)); then
	done_line=$(grep -E '^Done [0-9]+ runs' "$log" | tail -n 1) || true
	cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+' "$log" |
		tail -n 1) || true
	say "$target: OK: ${done_line:-done}; ${cov:-no coverage line}"
	exit 0
fi

# On a terminal the output was shown as it came.
if [[ ! -t 1 ]]; then
	echo "--- last lines of $log:"
	tail -n 40 "$log"
	echo "---"
fi
artifact=$(grep -oE 'Test unit written to [^ ]+' "$log" | tail -n 1 |
	sed 's/^Test unit written to //') || true
if [[ -z $artifact ]] &&
   (($(find "$crashes" -type f | wc -l) > before)); then
	# libFuzzer names them crash-<sha1>, leak-..., timeout-...
	# shellcheck disable=SC2012
	artifact=$(ls -t "$crashes"/* | head -n 1)
fi
say "$target: FAILED (libFuzzer exit $rc)"
if [[ -n $artifact ]]; then
	say "$target: crash artifact: $artifact"
	say "$target: reproduce: $dir/test/fuzz/fuzz_$target $artifact"
fi
exit 1
