#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The pmrpc authors
#
# In the VM (devtools/vm/run.sh; meson test vm_rpcperf_verbs): rpcperf on
# the verbs driver over the real rxe0, across two processes: a --server
# with one worker, and a --connect client running short latency and rate
# workloads. Passes when the client ran every round trip it was asked for,
# on verbs, and the server's table counts at least the requests sent.
#
#   rpcperf_verbs.sh RPCPERF

set -uo pipefail

rpcperf=${1:?usage: rpcperf_verbs.sh RPCPERF}
iters=300 warmup=30
tmp=$(mktemp -d)
srv=

fail() {
	local f

	echo "FAIL: $*"
	for f in "$tmp"/*; do
		echo "--- ${f##*/}"
		tail -n 40 "$f"
	done
	[[ -n $srv ]] && kill -9 "$srv" 2>/dev/null
	exit 1
}

if ! [[ -e /sys/class/infiniband/rxe0 ]]; then
	echo "no rxe0 here: skipped (run it in the VM, devtools/vm/run.sh)"
	exit 77
fi
# Two DPDK processes: no shared config, no hugepage files between them,
# each its own runtime directory (or each connects to the other's
# telemetry socket; doc/testing.md, "The EAL fixture"). The guest's /run
# is a tmpfs of its own: nothing to remove.
eal=(--no-pci --no-huge -m 512 --no-shconf --log-level=lib.eal:error)

"$rpcperf" -l 1 "${eal[@]}" --file-prefix=vmsrv -- --driver=verbs --server \
	--devargs=dev=rxe0 >"$tmp/server.out" 2>"$tmp/server.err" &
srv=$!
# It says "ready: ..." on stdout once its nexus listens.
for ((i = 0; i < 300; i++)); do
	grep -q '^ready: ' "$tmp/server.out" && break
	kill -0 "$srv" 2>/dev/null || break
	sleep 0.1
done
grep -q '^ready: ' "$tmp/server.out" || fail "the server did not come up"

timeout 180 "$rpcperf" -l 0 "${eal[@]}" --file-prefix=vmcli -- \
	--driver=verbs \
	--connect=127.0.0.1:31850 --devargs=dev=rxe0 -w latency,rate \
	-n "$iters" --warmup "$warmup" -c 8 --json \
	>"$tmp/client.json" 2>"$tmp/client.err"
crc=$?
kill -INT "$srv"
wait "$srv"
src=$?
srv=
((crc == 0)) || fail "client exit $crc"
((src == 0)) || fail "server exit $src"

python3 - "$tmp/client.json" "$tmp/server.out" "$iters" "$warmup" <<'EOF' ||
import json
import sys

doc, table, iters, warmup = sys.argv[1], sys.argv[2], int(sys.argv[3]), \
    int(sys.argv[4])
d = json.load(open(doc))
cfg = d['config']
assert cfg['driver'] == 'verbs' and cfg['mode'] == 'client', cfg
assert cfg['devargs'] == ['dev=rxe0'], cfg['devargs']
res = {r['workload']: r for r in d['results']}
assert sorted(res) == ['latency', 'rate'], sorted(res)
for name, r in res.items():
    assert r['iters'] == iters and r['mrps'] > 0, (name, r)
    print('%s: %d round trips, p50 %.1f us, min %.1f us, %d '
          'retransmissions' % (name, r['iters'], r['p50_us'],
                               r['min_us'], r['retransmissions']))
# The server's table at exit: "total  <requests> <responses> ...".
total = [line.split() for line in open(table)
         if line.startswith('total')]
assert total, 'no total row in the server table'
requests = int(total[0][1])
sent = 2 * (iters + warmup)
assert requests >= sent, 'server handled %d requests, %d sent' % (
    requests, sent)
print('server: %d requests handled, %d sent' % (requests, sent))
EOF
	fail "the results do not add up"
echo "PASS: rpcperf on verbs over rxe0, two processes"
