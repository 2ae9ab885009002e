#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The pmrpc authors
#
# Runs in the VM (check_vm.sh run): prints what the host side checks, one
# fact a line, writes $1 in the cwd (the read-write share), says something
# on stderr and exits 3.
echo "cwd $PWD"
echo "uid $(id -u)"
echo "token ${PMR_VM_TEST_TOKEN-unset}"
echo "other ${VM_TEST_OTHER-unset}"
echo "named ${VM_TEST_NAMED-unset}"
echo "guest ${PMR_VM_GUEST-unset}"
echo "hugepages $(cat /proc/sys/vm/nr_hugepages)"
grep -q '^nodev /dev/hugepages hugetlbfs' /proc/mounts &&
	echo "hugetlbfs mounted"
echo "kernel $(uname -r)"
rdma link show rxe0/1 | sed 's/^/rdma /'
ibv_devinfo -v -d rxe0 | grep -E 'state:|GID\[ *1\]|link_layer' |
	sed 's/^[[:space:]]*/devinfo /'
echo written >"$1"
echo "to stderr" >&2
exit 3
