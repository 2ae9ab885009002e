#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The pmrpc authors
#
# One side of vm_rpcperf_loss, in a VM of devtools/vm/run2.sh with netem
# loss on the wire between the two rxe0s (issue 15's reliability run):
# A (192.0.2.1) runs rpcperf --server on the verbs driver until B says it
# is done; B retries a one-RPC probe until A serves (the VMs boot
# together), then runs latency and rate, and checks that every round trip
# completed and that the loss was recovered by retransmissions. A checks
# that it handled at least every request B sent.
#
#   rpcperf_two_vms.sh RPCPERF [ITERS]

set -uo pipefail

rpcperf=${1:?usage: rpcperf_two_vms.sh RPCPERF [ITERS]}
iters=${2:-500}
warmup=50
port=31850	# the server's nexus
done_port=31999	# B tells A it is done (UDP, repeated: the wire loses)
eal=(-l 1 --no-pci --no-huge -m 512 --no-shconf --log-level=lib.eal:error)
tmp=$(mktemp -d)

echo "ip $PMR_VM_IP peer $PMR_VM_PEER"
tc qdisc show dev eth0 | sed 's/^/qdisc /'

fail() {
	local f

	echo "FAIL: $*"
	for f in "$tmp"/*; do
		echo "--- ${f##*/}"
		tail -n 40 "$f"
	done
	exit 1
}

if [[ $PMR_VM_IP == 192.0.2.1 ]]; then
	"$rpcperf" "${eal[@]}" -- --driver=verbs --server \
		--nexus="$PMR_VM_IP:$port" --devargs=dev=rxe0 \
		>"$tmp/server.out" 2>"$tmp/server.err" &
	srv=$!
	# Until B says it is done (or it is time to give up).
	python3 - "$done_port" <<'EOF'
import socket
import sys

s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(('0.0.0.0', int(sys.argv[1])))
s.settimeout(400)
try:
    while s.recv(64) != b'done':
        pass
except socket.timeout:
    sys.exit('B never said it was done')
EOF
	kill -INT "$srv"
	wait "$srv"
	src=$?
	cat "$tmp/server.out"
	((src == 0)) || fail "server exit $src"
	total=$(awk '$1 == "total" { print $2 }' "$tmp/server.out")
	sent=$((2 * (iters + warmup)))
	[[ -n $total ]] && ((total >= sent)) ||
		fail "the server handled ${total:-no} requests, $sent sent"
	echo "PASS: server handled $total requests, $sent sent"
	exit 0
fi

tell_done() {
	python3 - "$PMR_VM_PEER" "$done_port" <<'EOF'
import socket
import sys
import time

s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for _ in range(50):
    s.sendto(b'done', (sys.argv[1], int(sys.argv[2])))
    time.sleep(0.02)
EOF
}

client=(--driver=verbs --connect="$PMR_VM_PEER:$port"
	--nexus="$PMR_VM_IP:0" --devargs=dev=rxe0)
for ((i = 0; i < 100; i++)); do
	timeout 60 "$rpcperf" "${eal[@]}" -- "${client[@]}" -q -w latency \
		-n 1 --warmup 0 >"$tmp/probe.out" 2>"$tmp/probe.err" && break
	sleep 0.5
done
if ((i == 100)); then
	tell_done
	fail "the server never answered a probe"
fi
timeout 300 "$rpcperf" "${eal[@]}" -- "${client[@]}" -w latency,rate \
	-n "$iters" --warmup "$warmup" -c 8 --json \
	>"$tmp/client.json" 2>"$tmp/client.err"
crc=$?
tell_done
((crc == 0)) || fail "client exit $crc"
python3 - "$tmp/client.json" "$iters" <<'EOF' || fail "the results do not add up"
import json
import sys

d = json.load(open(sys.argv[1]))
iters = int(sys.argv[2])
assert d['config']['driver'] == 'verbs', d['config']
retrans = 0
for r in d['results']:
    assert r['iters'] == iters and r['mrps'] > 0, r
    retrans += r['retransmissions']
    print('%s: %d round trips, p50 %.1f us, p99 %.1f us, %d '
          'retransmissions' % (r['workload'], r['iters'], r['p50_us'],
                               r['p99_us'], r['retransmissions']))
assert [r['workload'] for r in d['results']] == ['latency', 'rate']
# The wire lost packets: the engine recovered them.
assert retrans > 0, 'no retransmission under loss'
EOF
echo "PASS: every round trip over the lossy wire"
