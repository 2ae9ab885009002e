#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The pmrpc authors
#
# Large messages by RDMA READ against memcpy, on the software HCA model,
# in-process (issue 17): in one go, rpcperf's memcpy baseline at SIZE, then
# bandwidth at SIZE on --driver=verbs over the model (preloaded) by READ
# (the engine's threshold) three ways (issue 25): exact memory windows
# (PMR_HCA_CONFIG=dev=hca0,mw=1: in place, no copy), the rxe
# personality's windows (mw=1,rxe=1: each message copied into its pair's
# region, a window bound on the copy) and no windows (dev=hca0: copied,
# the region's key); then by datagrams (--rdv-threshold=off), and on eth
# (ring pair) for reference. Prints a markdown table: Gb/s, the ratio to
# the memcpy of this run and to the in-place READ, and the path counters
# proving which path ran. Issue 17's target: the in-place READ row at 50%
# of memcpy or more.
# A benchmark, not a test: it exits 0 whatever the figures (non-zero only
# when a run failed). Method and results: doc/benchmarks.md.
#
# Usage: devtools/bench-rdv.sh [SIZE [ITERS [CONCURRENCY]]]
#   SIZE         request bytes (default 1048576)
#   ITERS        measured requests per run (default 10000)
#   CONCURRENCY  requests kept outstanding (default 4; doc/benchmarks.md
#                has 2, 4 and 8)
# Environment:
#   PMR_BENCH_BUILD  build dir (default build/release, set up if missing;
#                    without sanitizers, whose runtime refuses a preloaded
#                    library)
#   PMR_HCA_CONFIG   the model's config of the in-place row (default
#                    dev=hca0,mw=1)
#   PMR_BENCH_EAL    EAL arguments (default: -l 0-1 --no-pci, and
#                    --in-memory with free hugepages, else --no-huge
#                    -m 2048)

set -euo pipefail
cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.."

size=${1:-1048576}
iters=${2:-10000}
conc=${3:-4}
build=${PMR_BENCH_BUILD:-build/release}
hca_config=${PMR_HCA_CONFIG:-dev=hca0,mw=1}

say() {
	echo "${0##*/}: $*" >&2
}

for tool in meson ninja python3; do
	command -v "$tool" >/dev/null || { say "needs $tool"; exit 2; }
done
if [[ ! -f $build/build.ninja ]]; then
	say "setting up $build"
	meson setup "$build" -Dbuildtype=release >/dev/null
fi
ninja -C "$build" -j2 apps/rpcperf/rpcperf test/hca/libpmr_hca.so \
	>/dev/null
rpcperf=$build/apps/rpcperf/rpcperf
hca=$(readlink -f "$build/test/hca/libpmr_hca.so")

if [[ -n ${PMR_BENCH_EAL:-} ]]; then
	read -r -a eal <<<"$PMR_BENCH_EAL"
elif [[ $(cat /sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages \
		2>/dev/null || echo 0) -gt 512 ]]; then
	eal=(-l 0-1 --no-pci --in-memory)
else
	eal=(-l 0-1 --no-pci --no-huge -m 2048)
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
common=(-q --json -s "$size" -n "$iters" --warmup 100 -c "$conc")

# run NAME [env...] -- rpcperf args
run() {
	local name=$1
	shift
	local envs=()
	while [[ $1 != -- ]]; do
		envs+=("$1")
		shift
	done
	shift
	say "$name: rpcperf ${*}"
	if ! env "${envs[@]}" "$rpcperf" "${eal[@]}" -- "${common[@]}" "$@" \
			>"$tmp/$name.json" 2>"$tmp/$name.err"; then
		say "$name failed:"
		tail -20 "$tmp/$name.err" >&2
		exit 1
	fi
}

model=(LD_PRELOAD="$hca" PMR_HCA_CONFIG="$hca_config")
verbs=(--driver=verbs --driver-args=dev=hca0)
run by_read "${model[@]}" -- "${verbs[@]}" -w memcpy,bandwidth
run by_read_rxe LD_PRELOAD="$hca" PMR_HCA_CONFIG=dev=hca0,mw=1,rxe=1 -- \
	"${verbs[@]}" -w bandwidth
run by_read_key LD_PRELOAD="$hca" PMR_HCA_CONFIG=dev=hca0 -- \
	"${verbs[@]}" -w bandwidth
run by_dgram "${model[@]}" -- "${verbs[@]}" -w bandwidth --rdv-threshold=off
run on_eth -- -w bandwidth

python3 - "$tmp" "$size" "$iters" "$conc" "$hca_config" <<'EOF'
import json
import sys

tmp, size, iters, conc, hca = sys.argv[1:]
names = ('by_read', 'by_read_rxe', 'by_read_key', 'by_dgram', 'on_eth')
runs = {n: json.load(open('%s/%s.json' % (tmp, n))) for n in names}


def result(run, wl):
    return next(r for r in runs[run]['results'] if r['workload'] == wl)


memcpy = result('by_read', 'memcpy')
read = result('by_read', 'bandwidth')
rows = [
    ('memcpy (baseline)', memcpy),
    ('verbs/model, by READ, exact windows (%s: in place)' % hca, read),
    ('verbs/model, by READ, rxe windows (mw=1,rxe=1: region copy)',
     result('by_read_rxe', 'bandwidth')),
    ('verbs/model, by READ, no windows (region copy, its key)',
     result('by_read_key', 'bandwidth')),
    ('verbs/model, by datagrams (--rdv-threshold=off)',
     result('by_dgram', 'bandwidth')),
    ('eth ring pair (reference)', result('on_eth', 'bandwidth')),
]
print('%s B, %s requests, %s outstanding\n' % (size, iters, conc))
print('| run | Gb/s | / memcpy | / in place | p50 us | retrans | reads '
      '| read bytes | descs sent | fallbacks | copied bytes |')
print('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
for name, r in rows:
    p = r.get('path')
    cells = ['%d' % p[k] for k in ('reads', 'read_bytes', 'descs_sent',
                                   'fallbacks', 'copied_bytes')] \
        if p is not None else ['-'] * 5
    print('| %s | %.1f | %.0f%% | %.2f | %.1f | %d | %s |'
          % (name, r['gbps'], 100 * r['gbps'] / memcpy['gbps'],
             r['gbps'] / read['gbps'], r['p50_us'],
             r['retransmissions'], ' | '.join(cells)))
ratio = read['gbps'] / memcpy['gbps']
print('\nREAD path in place: %.0f%% of memcpy (target >= 50%%): %s'
      % (100 * ratio, 'met' if ratio >= 0.5 else 'NOT met'))
for n in ('by_read', 'by_read_rxe', 'by_read_key'):
    p = result(n, 'bandwidth')['path']
    if p['reads'] == 0 or p['fallbacks'] != 0:
        print('warning: %s did not go by READ only: %s' % (n, p))
EOF
