#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The pmrpc authors
#
# Instructions per small RPC, counted by callgrind: runs test/instr_rpc (one
# thread, a server and a client worker on an in-process ring pair, 32-byte
# echo RPCs) under valgrind with instrumentation on around the measured
# RPCs only, then splits the instructions counted there between the engine,
# the eth driver (with the DPDK code it runs) and the harness itself.
# With PMR_INSTR_DRIVER=verbs the two workers are on the verbs driver, a
# queue each on the software HCA model (test/hca/libpmr_hca.so, preloaded),
# and the model's own instructions (what a NIC would do) are a fourth
# part, left out of the driver's.
# A benchmark, not a test: it exits 0 whatever the figure (non-zero only
# when it could not measure). Method and results: doc/benchmarks.md.
#
# Usage: devtools/bench-instructions.sh [RPCS [OUTSTANDING [SIZE]]]
#   RPCS         measured RPCs (default 10000)
#   OUTSTANDING  requests in flight, 1 to 8 (default 1)
#   SIZE         request and response bytes (default 32)
# Environment:
#   PMR_INSTR_BUILD  build dir (default build/release, set up if missing)
#   PMR_INSTR_TOP    engine functions listed by self cost (default 10)
#   PMR_INSTR_DRIVER the workers' driver: eth (default) or verbs
#   PMR_INSTR_DEVARGS devargs of both workers (verbs default: dev=hca0;
#                    eth: added to the ring-pair ports')
#   PMR_INSTR_NO_BUILD=1  do not build (the targets are there)
#   PMR_HCA_LIB      verbs: the model to preload (default: the build's
#                    test/hca/libpmr_hca.so; the build must be without
#                    sanitizers, whose runtime refuses a preloaded library)
#
# The callgrind output is kept as $PMR_INSTR_BUILD/instr_rpc.callgrind
# (contexts of up to 40 callers), for callgrind_annotate.

set -euo pipefail
cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.."

rpcs=${1:-10000}
depth=${2:-1}
size=${3:-32}
build=${PMR_INSTR_BUILD:-build/release}
top=${PMR_INSTR_TOP:-10}
driver=${PMR_INSTR_DRIVER:-eth}
case $driver in
eth) devargs=${PMR_INSTR_DEVARGS:-} ;;
verbs) devargs=${PMR_INSTR_DEVARGS:-dev=hca0} ;;
*) echo "${0##*/}: PMR_INSTR_DRIVER=$driver: eth or verbs" >&2; exit 2 ;;
esac
target=600	# engine instructions per small RPC the project is held to

say() {
	echo "${0##*/}: $*" >&2
}

for tool in valgrind meson ninja nm python3; do
	command -v "$tool" >/dev/null || { say "needs $tool"; exit 2; }
done
if [[ ! -f $build/build.ninja ]]; then
	say "setting up $build"
	meson setup "$build" -Dwerror=true >/dev/null
fi
# PMR_INSTR_NO_BUILD=1: the build is done (meson test's check).
targets=()
[[ ${PMR_INSTR_NO_BUILD:-0} == 1 ]] || targets=(test/instr_rpc)
preload=
if [[ $driver == verbs ]]; then
	preload=${PMR_HCA_LIB:-$build/test/hca/libpmr_hca.so}
	[[ -n ${PMR_HCA_LIB:-} || ${#targets[@]} == 0 ]] ||
		targets+=(test/hca/libpmr_hca.so)
fi
if ((${#targets[@]})) && ! ninja -C "$build" "${targets[@]}" >/dev/null; then
	say "building ${targets[*]} in $build failed" \
		"(needs valgrind/callgrind.h, package valgrind; verbs:" \
		"libibverbs' headers, package libibverbs-dev)"
	ninja -C "$build" "${targets[@]}" || true
	exit 2
fi
if [[ -n $preload ]] && ! [[ -f $preload ]]; then
	say "no HCA model at $preload"
	exit 2
fi

out=$build/instr_rpc.callgrind
log=$build/instr_rpc.log
# --collect-atstart=no: only the main thread's measured loop is counted
# (collection is per thread, the harness toggles it); the nexus and EAL
# threads count nothing. --separate-callers: each function's cost is kept
# per call chain, so that code reached from the driver, from the harness's
# callbacks and from the engine can be told apart.
say "running $rpcs RPCs of $size bytes, $depth outstanding, on $driver" \
	"${devargs:+($devargs) }${preload:+over the model }under callgrind"
# The model preloaded into the program only: valgrind adds its own
# preloads to what LD_PRELOAD names for the program.
if ! env ${preload:+LD_PRELOAD="$(readlink -f "$preload")"} \
	valgrind --tool=callgrind --instr-atstart=no --collect-atstart=no \
	--separate-callers=40 --callgrind-out-file="$out" \
	"$build/test/instr_rpc" -l 0 --no-pci --no-huge -m 256 --no-shconf \
	--log-level=lib.eal:warning -- -n "$rpcs" -d "$depth" -s "$size" \
	-D "$driver" ${devargs:+-a "$devargs"} >"$log" 2>&1; then
	cat "$log" >&2
	say "instr_rpc failed"
	exit 1
fi
result=$(grep '^instr_rpc: rpcs ' "$log") || { cat "$log" >&2; exit 1; }

# Symbols of the drivers' objects, and of the rest of libpmrpc.
symbols() {
	nm --defined-only "$@" | awk 'NF == 3 && $2 ~ /^[tTwW]$/ {print $3}' |
		sed 's/\..*//' | sort -u
}
# Each driver is its own static library (drivers/transport/meson.build).
drv_syms=$(symbols "$build"/drivers/transport/libpmr_drv_*.a.p/*.o) || true
[[ -n $drv_syms ]] || { say "no driver objects in $build"; exit 1; }

python3 - "$out" "$result" "$target" "$top" "$drv_syms" "$driver" <<'EOF'
import re
import sys

path, result, target, top, drv_syms, driver = sys.argv[1:7]
target, top = int(target), int(top)
driver_fns = set(drv_syms.split())
res = dict(zip(result.split()[1::2], result.split()[2::2]))
rpcs = int(res['rpcs'])

# Parse the callgrind file: self cost per (context, object), call counts.
names = {}          # compressed ids, per kind of spec
self_cost = {}      # (context, object) -> Ir
calls = {}          # callee context -> count
fn_ob = {}          # base function name -> objects seen
totals = None
spec = re.compile(r'^(ob|fl|fi|fe|fn|cob|cfi|cfl|cfn)=(?:\((\d+)\))?\s*(.*)$')


def lookup(kind, ident, name):
    table = names.setdefault('fn' if kind in ('fn', 'cfn') else
                             'ob' if kind in ('ob', 'cob') else 'fl', {})
    if ident is None:
        return name
    if name:
        table[ident] = name
    return table[ident]


def base(component):
    return component.split('.')[0]


ob = fn = cob = cfn = None
after_calls = False
with open(path, encoding='utf-8', errors='replace') as f:
    for line in f:
        line = line.rstrip('\n')
        m = spec.match(line)
        if m:
            kind, ident, name = m.groups()
            val = lookup(kind, ident, name)
            if kind == 'ob':
                ob = val
            elif kind == 'fn':
                fn = val
                fn_ob.setdefault(base(fn.split("'")[0]), set()).add(ob)
            elif kind == 'cob':
                cob = val
            elif kind == 'cfn':
                cfn = val
            continue
        if line.startswith('calls='):
            calls[cfn] = calls.get(cfn, 0) + int(line[6:].split()[0])
            fn_ob.setdefault(base(cfn.split("'")[0]), set()).add(
                cob if cob is not None else ob)
            cob = None
            after_calls = True
            continue
        if line.startswith('totals:'):
            totals = int(line.split()[1])
            continue
        if line[:1].isdigit() or line[:1] in '+-*':
            if after_calls:     # inclusive cost of that call: not self
                after_calls = False
                continue
            parts = line.split()
            if len(parts) > 1:
                key = (fn, ob)
                self_cost[key] = self_cost.get(key, 0) + int(parts[1])

total = sum(self_cost.values())
if totals is not None and totals != total:
    sys.exit('callgrind totals %d != sum of self costs %d' % (totals, total))


def owner_of(name):
    """engine, driver, model, harness or other (DPDK, libc, loader)."""
    obs = fn_ob.get(name, set())
    if any(o is not None and o.endswith('/instr_rpc') for o in obs):
        return 'harness'
    if any(o is not None and '/libpmr_hca.' in o for o in obs):
        return 'model'
    if any(o is not None and '/libpmrpc.' in o for o in obs):
        return 'driver' if name in driver_fns else 'engine'
    return 'other'


def classify(ctx):
    """Whose cost is a function's in this call chain, and which side."""
    chain = [base(c) for c in ctx.split("'") if not c.isdigit()]
    side = ('server' if 'poll_server' in chain else
            'client' if 'poll_client' in chain else '-')
    seen_engine = False
    for c in chain:
        o = owner_of(c)
        # The HCA model stands for the NIC: it and all it calls is the
        # model's, whoever called it (the driver, through the inline
        # helpers of verbs.h).
        if o == 'model':
            return 'model', side
        if o == 'driver':
            return 'driver', side
        if o == 'harness':
            return ('engine' if seen_engine else 'harness'), side
        if o == 'engine':
            seen_engine = True
    return ('engine' if seen_engine else 'unknown'), side


def obj_kind(o):
    if o is None:
        return 'other'
    if '/libpmrpc.' in o:
        return 'pmrpc'
    if '/libpmr_hca.' in o:
        return 'model'
    if '/librte_' in o:
        return 'dpdk'
    if o.endswith('/instr_rpc'):
        return 'harness'
    return 'libc/ld.so'


sums = {}
top_self = {}
timers = 0
for (ctx, o), ir in self_cost.items():
    who, side = classify(ctx)
    kind = obj_kind(o)
    for k in ((who,), (who, side), (who, kind)):
        sums[k] = sums.get(k, 0) + ir
    chain = [base(c) for c in ctx.split("'")]
    if who == 'engine':
        fname = base(ctx.split("'")[0])
        t = top_self.setdefault(fname, [0, kind])
        t[0] += ir
        if 'rpc_timers' in chain:
            timers += ir


def per(x):
    return x / rpcs


def get(*k):
    return sums.get(k, 0)


def polls(fn):
    return sum(n for c, n in calls.items()
               if base(c.split("'")[0]) == fn)


engine = get('engine')
print('instr_rpc: %s' % ' '.join('%s=%s' % kv for kv in res.items()))
print('callgrind: %d instructions in the measured region, %d RPCs, '
      '%.2f worker polls and %.2f packets per RPC' %
      (total, rpcs, per(polls('pmr_worker_poll')), per(int(res['pkts']))))
for k in ('idle_polls', 'retransmissions', 'timeouts', 'drops'):
    if res.get(k, '0') != '0':
        print('warning: %s %s in the measured region: not the steady '
              'state, figures inflated' % (k, res[k]))
print()


def row(indent, label, ir, note=''):
    print('%s%-*s %8.1f%s' % (' ' * indent, 46 - indent, label, per(ir),
                              note))


print('Instructions per RPC (Ir / measured RPCs):')
row(2, 'total (measured region, main thread)', total)
row(2, 'engine (client + server)', engine, '   target <= %d' % target)
row(4, 'client worker', get('engine', 'client'))
row(4, 'server worker', get('engine', 'server'))
row(4, 'of which libpmrpc code', get('engine', 'pmrpc'))
row(4, 'of which DPDK library calls', get('engine', 'dpdk'))
row(4, 'of which libc/ld.so', get('engine', 'libc/ld.so'))
row(4, 'of which under rpc_timers_run()', timers)
row(2, 'driver (%s_* and all under them%s)'
    % (driver, ', model excluded' if driver == 'verbs' else ''),
    get('driver'))
row(4, 'client worker', get('driver', 'client'))
row(4, 'server worker', get('driver', 'server'))
row(4, 'of which %s driver code' % driver, get('driver', 'pmrpc'))
if driver == 'eth':
    row(4, 'of which DPDK (ethdev, net_ring, mbuf...)',
        get('driver', 'dpdk'))
else:
    row(4, 'of which DPDK', get('driver', 'dpdk'))
row(4, 'of which libc/ld.so', get('driver', 'libc/ld.so'))
if get('model'):
    row(2, 'HCA model (test/hca, the "NIC"; excluded)', get('model'))
    row(4, 'client worker', get('model', 'client'))
    row(4, 'server worker', get('model', 'server'))
row(2, 'harness (loop, handler, continuation)', get('harness'))
if get('unknown'):
    row(2, 'unattributed', get('unknown'))
print()
print('engine: everything under pmr_worker_poll() (which here also runs')
print('  pmr_request(), from the continuation), minus the driver, minus the')
print("  harness's handler and continuation (their calls into pmrpc count as")
print('  engine). DPDK inline code (rte_ring, mempool cache, rdtsc) counts')
print('  where it is inlined; "DPDK library calls" are calls into librte_*.')
if driver == 'eth':
    print('driver: the eth_* data-path functions (eth_rx_burst, eth_tx_burst,')
    print('  eth_rx_release, eth_tx_flush...) and all they call: ethdev,')
    print('  net_ring, mbuf and mempool code, libc.')
else:
    print('driver: the verbs_* data-path functions (verbs_tx_burst,')
    print('  verbs_rx_burst, verbs_rx_release, verbs_tx_flush...), with the')
    print("  libibverbs inline helpers (ibv_post_send, ibv_poll_cq...) inlined")
    print('  in them, and what they call but the model.')
    print('HCA model: every function of libpmr_hca.so (the provider ops the')
    print('  inline helpers call: post, poll, the fabric) and all under them;')
    print("  a NIC's work on hardware, so in no other figure.")
print('total: every instruction of the main thread in the measured region,')
print('  the harness loop included.')
print()
print('Top %d engine functions by self cost (Ir per RPC; callgrind symbols,'
      % top)
print('inlined callees included in their callers):')
for fname, (ir, kind) in sorted(top_self.items(),
                                 key=lambda kv: -kv[1][0])[:top]:
    print('  %8.1f  %-40s %s' % (per(ir), fname, kind))
EOF

say "callgrind output: $out (callgrind_annotate --inclusive=yes $out)"
