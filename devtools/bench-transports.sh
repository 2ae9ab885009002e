#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The pmrpc authors
#
# Small-RPC round trip over each software transport, in one run: the
# in-process ring pair (rpcperf latency), memif between two processes, and
# af_packet between two network namespaces (pmr_peer, one 32-byte request
# at a time). Needs build/release (./devtools/test.sh or demo.sh) and root
# for the namespaces. Usage: devtools/bench-transports.sh [COUNT]

set -u
cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.."
count=${1:-20000}
export PMR_PEER=$PWD/build/release/test/pmr_peer
[ -x "$PMR_PEER" ] || { echo "build/release first (./devtools/test.sh)"; exit 2; }
# shellcheck source=test/multiproc/lib.sh
. test/multiproc/lib.sh

results=()
ring=$(build/release/apps/rpcperf/rpcperf $(eal 0-1) -- -q -w ring,latency \
	-n "$count" 2>/dev/null | awk '$1=="ring"||$1=="latency"{print $1, $5, $7}')
while read -r name p50 p99; do
	results+=("$(printf '%-22s %8s %8s' "$name (in-process)" "$p50" "$p99")")
done <<<"$ring"

peer_pair() {	# name, server vdev, client vdev, server uri, client uri
	start_server "$1-s" 0 "$2" --uri="$4" --devargs=port=0,ip=10.88.0.1
	run_client "$1-c" 1 "$3" --uri="$5" --devargs=port=0,ip=10.88.0.2 \
		--connect="$4" --count="$count" --conc=1 --size=32 ||
		fail "$1 client"
	stop "$LAST_PID" || true
	awk -v n="$1" '/^result/{printf "%-22s %8s %8s\n", n, $17, $19}' \
		"$TMP/$1-c.log"
}

results+=("$(peer_pair memif "--vdev=net_memif0,role=server,socket=$TMP/m.sock" \
	"--vdev=net_memif0,role=client,socket=$TMP/m.sock" 127.0.0.1:31990 \
	127.0.0.1:0)")

if ip netns add pmr-probe-$$ 2>/dev/null; then
	ip netns del pmr-probe-$$
	netns_pair
	a=$NS_A
	b=$NS_B
	NS_EXEC="ip netns exec $a" start_server afp-s 0 \
		"--vdev=net_af_packet0,iface=pd1" --uri=10.99.0.1:31850 \
		--devargs=port=0,ip=10.88.0.1
	NS_EXEC="ip netns exec $b" run_client afp-c 1 \
		"--vdev=net_af_packet1,iface=pd2" --uri=10.99.0.2:0 \
		--devargs=port=0,ip=10.88.0.2 --connect=10.99.0.1:31850 \
		--count="$count" --conc=1 --size=32 || fail "af_packet client"
	stop "$LAST_PID" || true
	results+=("$(awk '/^result/{printf "%-22s %8s %8s\n", \
		"af_packet (netns)", $17, $19}' "$TMP/afp-c.log")")
else
	results+=("af_packet: no network namespaces here")
fi

printf '%-22s %8s %8s\n' "32-byte RTT" "p50_us" "p99_us"
printf '%s\n' "${results[@]}"
