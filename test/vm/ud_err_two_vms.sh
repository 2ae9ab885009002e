#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The pmrpc authors
#
# One side of vm_ud_err (issue 25, defect 0), in a VM of
# devtools/vm/run2.sh: two rxe0s of different MTUs. A (192.0.2.1) keeps
# eth0 at 1500 (rxe0's active MTU 1024) and runs the server; B
# (192.0.2.2) raises eth0 to 4200 (rxe follows its netdev: active MTU
# 4096) and runs the client, which sends the server's worker one
# datagram of 1,200 bytes, then has its QP moved to ERR
# (test/verbs_drv/test_verbs_ud_err_vm.c says what each checks).
#
#   ud_err_two_vms.sh TEST_VERBS_UD_ERR_VM

set -uo pipefail

exe=${1:?usage: ud_err_two_vms.sh TEST_VERBS_UD_ERR_VM}
# One vCPU per VM: one lcore, no hugepages.
export PMR_TEST_EAL_ARGS="-l 0 --no-pci --no-huge -m 512 --no-shconf \
--log-level=lib.eal:warning"

# rxe0's active MTU as ibv_devinfo says (rxe follows its netdev's).
active_mtu() {
	ibv_devinfo -d rxe0 | awk '$1 == "active_mtu:" { print $2; exit }'
}

if [[ $PMR_VM_IP == 192.0.2.2 ]]; then
	ip link set eth0 mtu 4200 || { echo "FAIL: eth0 mtu 4200"; exit 1; }
	want=4096 role=vm_client
else
	want=1024 role=vm_server
fi
for ((i = 0; i < 100; i++)); do
	[[ $(active_mtu) == "$want" ]] && break
	sleep 0.05
done
echo "$PMR_VM_IP: eth0 mtu $(cat /sys/class/net/eth0/mtu), rxe0" \
	"active_mtu $(active_mtu)"
if [[ $(active_mtu) != "$want" ]]; then
	echo "FAIL: rxe0's active MTU is not $want"
	exit 1
fi
start=$SECONDS
"$exe" "$role"
rc=$?
echo "$role: exit $rc in $((SECONDS - start)) s"
exit $rc
