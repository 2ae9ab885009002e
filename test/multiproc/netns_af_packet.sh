#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The pmrpc authors
#
# Two hosts: network namespaces made here, a veth pair for the data path
# (net_af_packet, and net_af_xdp where the kernel allows it; no kernel
# addresses on it, or the kernel would answer every packet with ICMP) and
# a second veth pair with addresses for the nexuses' kernel UDP.

. "$(dirname "$0")/lib.sh"

netns_pair
a=$NS_A
b=$NS_B

run_pair() {
	local name=$1 vdev_a=$2 vdev_b=$3

	NS_EXEC="ip netns exec $a" start_server "$name-server" 0 "$vdev_a" \
		--uri=10.99.0.1:31850 --devargs=port=0,ip=10.88.0.1 || return 1
	NS_EXEC="ip netns exec $b" run_client "$name-client" 1 "$vdev_b" \
		--uri=10.99.0.2:0 --devargs=port=0,ip=10.88.0.2 \
		--connect=10.99.0.1:31850 --count=3000 --max-size=4000 ||
		fail "$name client failed"
	grep '^result' "$TMP/$name-client.log"
	stop "$LAST_PID" || fail "$name server failed"
	grep -q '^server handled 3000 ' "$TMP/$name-server.log" ||
		fail "$name server did not handle 3000 requests"
	echo "PASS: $name"
}

run_pair af_packet "--vdev=net_af_packet0,iface=pd1" \
	"--vdev=net_af_packet1,iface=pd2"

# af_xdp needs XDP in the kernel and BPF rights: try, report either way.
if ip netns exec "$a" "$PEER" $(eal 0 xdp-probe) \
	--vdev=net_af_xdp0,iface=pd1 -- --bad-args \
	>"$TMP/xdp-probe.log" 2>&1; [ $? = 2 ] &&
	! grep -qi "fail\|error" "$TMP/xdp-probe.log"; then
	run_pair af_xdp "--vdev=net_af_xdp0,iface=pd1" \
		"--vdev=net_af_xdp1,iface=pd2"
else
	echo "NOTE: net_af_xdp not usable here: $(grep -i 'fail\|error' \
		"$TMP/xdp-probe.log" | head -1)"
fi
