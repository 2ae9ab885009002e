#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The pmrpc authors
#
# Stage 2 of the VM (devtools/vm/run.sh): PID 1 on the host's userland.
# Sets up hugepages, the link (dummy0, or eth0 in two-VM mode, with netem
# if asked), rdma_rxe's rxe0 on it, then runs the command in the caller's
# cwd with its stdout and stderr in files of the run dir (the host prints
# them; the console stays in console.log), stores its exit status in rc
# and powers off. A setup failure is written to setup_error instead.
# shellcheck disable=SC2154 # vm_* come from the run dir's env file
set -u
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8 TERM=dumb
run=/run/vmrun
exec </dev/null >/dev/console 2>&1
# The settings run.sh wrote: vm_cwd, vm_hugepages, vm_verbose, vm_netip,
# vm_netem, and the variables exported to the command.
# shellcheck source=/dev/null
. "$run/env"

log() {
	if ((vm_verbose)); then
		echo "vm guest: $*"
	fi
}

fail() {
	echo "vm guest: $*"
	echo "$*" >"$run/setup_error"
	sync
	/bin/busybox poweroff -f
}

# Waits up to 5 s for a shell condition.
wait_for() {
	local i

	for ((i = 0; i < 100; i++)); do
		eval "$1" && return 0
		sleep 0.05
	done
	return 1
}

mkdir -p /dev/pts /dev/shm /dev/hugepages
mount -t devpts devpts /dev/pts
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
ip link set lo up
hostname pmr-vm

if ((vm_hugepages > 0)); then
	echo "$vm_hugepages" >/proc/sys/vm/nr_hugepages
	mount -t hugetlbfs -o pagesize=2M nodev /dev/hugepages ||
		fail "cannot mount hugetlbfs"
	got=$(cat /proc/sys/vm/nr_hugepages)
	((got == vm_hugepages)) ||
		fail "asked for $vm_hugepages 2-MiB hugepages, got $got (raise -m)"
	log "hugepages: $got"
fi

if [[ -n $vm_netip ]]; then
	# Two-VM mode: rxe0 on the virtio NIC wired to the other VM.
	link=eth0
	modprobe virtio_net || fail "modprobe virtio_net failed"
	wait_for '[[ -e /sys/class/net/eth0 ]]' || fail "no eth0"
	ip addr add "$vm_netip" dev eth0 || fail "ip addr add $vm_netip failed"
	ip link set eth0 up
	if [[ -n $vm_netem ]]; then
		modprobe sch_netem || fail "modprobe sch_netem failed"
		# shellcheck disable=SC2086
		tc qdisc add dev eth0 root netem $vm_netem ||
			fail "tc qdisc add dev eth0 root netem $vm_netem failed"
		log "netem: $(tc qdisc show dev eth0)"
	fi
else
	# One VM: rxe0 on a dummy link. Its IPv4 address gives rxe0 an
	# IPv4-mapped RoCE v2 GID; rxe loops traffic to itself back.
	link=dummy0
	modprobe dummy numdummies=0 || fail "modprobe dummy failed"
	ip link add dummy0 type dummy
	ip addr add 192.0.2.1/24 dev dummy0
	ip link set dummy0 up
fi
modprobe rdma_rxe || fail "modprobe rdma_rxe failed"
modprobe rdma_ucm
modprobe ib_umad
rdma link add rxe0 type rxe netdev "$link" || fail "rdma link add rxe0 failed"
port=/sys/class/infiniband/rxe0/ports/1
wait_for "grep -q ACTIVE $port/state" || fail "rxe0 not ACTIVE: $(cat $port/state)"
wait_for "grep -qs '^0000:0000:0000:0000:0000:ffff:' $port/gids/1" ||
	fail "rxe0 has no IPv4-mapped GID at index 1"
log "$(rdma link show)"

# The processes under pid $1, itself first, one a line. Bash builtins
# only, here and in hang_dump(): a fork costs tens of ms under TCG.
tree() {
	local -A parent=()
	local -a list=("$1")
	local d k v pid i=0

	for d in /proc/[0-9]*; do
		while read -r k v; do
			if [[ $k == PPid: ]]; then
				parent[${d#/proc/}]=$v
				break
			fi
		done 2>/dev/null <"$d/status"
	done
	while ((i < ${#list[@]})); do
		for pid in "${!parent[@]}"; do
			[[ ${parent[$pid]} == "${list[i]}" ]] && list+=("$pid")
		done
		i=$((i + 1))
	done
	printf '%s\n' "${list[@]}"
}

# A hung command: where each of its processes and threads is, in the
# kernel (a wait in rxe, a lock, a syscall) and in its state.
hang_dump() {
	local p t k v state wchan comm line
	local -a args

	echo "vm guest: the command is past its deadline: its processes"
	for p in $(tree "$1"); do
		[[ -d /proc/$p ]] || continue	# gone (the $() above)
		args=()
		mapfile -d '' -t args 2>/dev/null </proc/"$p"/cmdline
		echo "== pid $p: ${args[*]}"
		for t in /proc/"$p"/task/*; do
			state='' wchan='' comm=''
			read -r comm 2>/dev/null <"$t/comm"
			read -r wchan 2>/dev/null <"$t/wchan"
			while read -r k v; do
				[[ $k == State: ]] && { state=$v; break; }
			done 2>/dev/null <"$t/status"
			echo "-- task ${t##*/} $comm: $state, wchan $wchan"
			while IFS= read -r line; do
				echo "   $line"
			done 2>/dev/null <"$t/stack"
		done
	done
}

cd "$vm_cwd" || fail "cannot cd to $vm_cwd"
cut -d' ' -f1 /proc/uptime >"$run/boot"
bash "$run/cmd" >"$run/stdout" 2>"$run/stderr" &
cmd=$!
dog=
if ((${vm_deadline:-0} > 0)); then
	(
		up=$(cut -d. -f1 /proc/uptime)
		((vm_deadline > up)) && sleep $((vm_deadline - up))
		echo "$vm_deadline" >"$run/hung"
		hang_dump "$cmd" >>"$run/stderr" 2>&1
		for p in $(tree "$cmd"); do
			kill -KILL "$p" 2>/dev/null
		done
		# Killed, unless in the kernel for good (D state): then
		# the result is ours, and the VM goes now.
		sleep 5
		echo 124 >"$run/rc.tmp"
		mv "$run/rc.tmp" "$run/rc"
		sync
		/bin/busybox poweroff -f
	) &
	dog=$!
fi
wait "$cmd"
rc=$?
[[ -n $dog ]] && kill "$dog" 2>/dev/null
[[ -s $run/hung ]] && rc=124
echo "$rc" >"$run/rc.tmp"
mv "$run/rc.tmp" "$run/rc"
sync
/bin/busybox poweroff -f
