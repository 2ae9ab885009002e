#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The pmrpc authors
#
# One side of check_vm.sh two, in a VM of devtools/vm/run2.sh: A
# (192.0.2.1) serves ib_send_lat -c UD, B runs its client against A,
# retrying while A's VM is still booting. Prints its addresses and qdisc.
echo "ip $PMR_VM_IP peer $PMR_VM_PEER"
tc qdisc show dev eth0 | sed 's/^/qdisc /'
rdma link show rxe0/1 | sed 's/^/rdma /'
args=(-d rxe0 -x 1 -c UD -F -n 100)
if [[ $PMR_VM_IP == 192.0.2.1 ]]; then
	exec timeout 100 ib_send_lat "${args[@]}"
fi
for ((i = 0; i < 200; i++)); do
	timeout 100 ib_send_lat "${args[@]}" "$PMR_VM_PEER" >/tmp/out 2>&1
	rc=$?
	grep -q "Couldn't connect" /tmp/out || break
	sleep 0.2
done
cat /tmp/out
exit "$rc"
