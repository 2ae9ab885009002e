#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The pmrpc authors
#
# Run one command in a throw-away qemu VM with real Soft-RoCE (rdma_rxe):
#
#   devtools/vm/run.sh [-t SECS] [-H NR_2M_HUGEPAGES] [-c CPUS] [-m MB]
#                      [-o STDOUT_FILE] [-e STDERR_FILE] [-v]
#                      [-E NAME]... [--prepare] -- CMD [ARGS...]
#
# The VM boots Debian 12's kernel (fetched once into the cache dir with
# apt-get download, never installed) in qemu TCG, with the host's / shared
# read-only over 9p under a tmpfs overlay and the cwd shared read-write at
# the same path. It loads rdma_rxe, creates rxe0 on dummy0 (192.0.2.1/24,
# so rxe0 has an IPv4-mapped RoCE v2 GID at index 1), reserves -H 2-MiB
# hugepages on /dev/hugepages, and runs CMD as root in the cwd with the
# caller's PMR_* variables (and those named by -E), then powers off.
# CMD's stdout and stderr come out on ours (or in the -o/-e files), apart
# from each other and from the kernel's console (console.log in the run
# dir, printed on failure or with -v).
#
# Exit status: CMD's; 124 on timeout (-t, default 300 s; qemu killed);
# 125 if the VM died without a result; 77 if the VM cannot run here (no
# qemu and no way to install it, not root, no kernel package), with one
# line saying why -- 1 instead when PMR_REQUIRE_VM=1; 2 on bad usage.
#
# --prepare fetches the kernel and builds the initramfs, and boots nothing.
# Internal options of run2.sh: --net udp:LPORT:RPORT:IP/PREFIX (rxe0 on a
# virtio eth0 wired to another VM by UDP on 127.0.0.1), --netem SPEC,
# --peer IP.
#
# Environment:
#   PMR_VM_CACHE    the cache dir (default build/vm in the repo): the
#                   kernel, the initramfs, the per-run dirs (runs/)
#   PMR_VM_KEEP=1   keep the per-run dir (console.log, stdout, ...)
#   PMR_VM_QEMU     the qemu binary (default qemu-system-x86_64)
#   PMR_REQUIRE_VM=1  fail (1) rather than skip (77) when the VM can't run

set -uo pipefail

vm_dir=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
repo=$(cd "$vm_dir/../.." && pwd)
# shellcheck source=devtools/common.sh
source "$repo/devtools/common.sh"

usage() {
	sed -n '7,9s/^# //p' "${BASH_SOURCE[0]}" >&2
	exit 2
}

# The VM cannot run here: skip, or fail when the caller requires the VM.
cannot_run() {
	if [[ ${PMR_REQUIRE_VM:-0} == 1 ]]; then
		echo "vm: cannot run the VM: $* (PMR_REQUIRE_VM=1)" >&2
		exit 1
	fi
	echo "vm: skipped: cannot run the VM: $*" >&2
	exit 77
}

is_number() {
	[[ $1 =~ ^[0-9]+$ ]]
}

timeout_s=300 hugepages=0 cpus=2 mem='' out_file='' err_file='' verbose=0
prepare_only=0 net='' netem='' peer='' extra_env=()
while (($#)); do
	case $1 in
	-t | -H | -c | -m | -o | -e | -E | --net | --netem | --peer)
		(($# >= 2)) || usage
		case $1 in
		-t) timeout_s=$2 ;;
		-H) hugepages=$2 ;;
		-c) cpus=$2 ;;
		-m) mem=$2 ;;
		-o) out_file=$2 ;;
		-e) err_file=$2 ;;
		-E) extra_env+=("$2") ;;
		--net) net=$2 ;;
		--netem) netem=$2 ;;
		--peer) peer=$2 ;;
		esac
		shift 2
		;;
	-v) verbose=1; shift ;;
	--prepare) prepare_only=1; shift ;;
	--) shift; break ;;
	*) usage ;;
	esac
done
((prepare_only || $# > 0)) || usage
for n in "$timeout_s" "$hugepages" "$cpus" ${mem:+"$mem"}; do
	is_number "$n" || usage
done
((cpus >= 1 && timeout_s >= 1)) || usage
# 1 GiB for the guest beside its hugepages (TCG allocates lazily).
: "${mem:=$((hugepages * 2 + 1024 > 2048 ? hugepages * 2 + 1024 : 2048))}"

cache=${PMR_VM_CACHE:-$repo/build/vm}
qemu=${PMR_VM_QEMU:-qemu-system-x86_64}

# --- What the VM needs on the host ---------------------------------------

((EUID == 0)) || cannot_run "not root (the guest runs as root on the" \
	"host's / shared over 9p)"
if [[ -n ${PMR_VM_QEMU:-} && ! -x $PMR_VM_QEMU ]]; then
	cannot_run "PMR_VM_QEMU=$PMR_VM_QEMU is not an executable"
fi
mapfile -t missing < <(missing_packages "${vm_packages[@]}")
if ((${#missing[@]} > 0)); then
	command -v apt-get >/dev/null ||
		cannot_run "missing ${missing[*]} and no apt-get to install them"
	echo "vm: installing ${missing[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt_log=$(mktemp)
	{ apt-get update -q &&
	  apt-get install -y -q -o DPkg::Lock::Timeout=600 \
		--no-install-recommends "${missing[@]}"; } \
		</dev/null >"$apt_log" 2>&1
	apt_rc=$?
	if ((apt_rc != 0)); then
		tail -n 5 "$apt_log" >&2
		rm -f "$apt_log"
		cannot_run "could not install ${missing[*]}"
	fi
	rm -f "$apt_log"
fi
command -v "$qemu" >/dev/null || cannot_run "no $qemu"

mkdir -p "$cache/runs" || cannot_run "cannot create $cache"

# --- The kernel: Debian's package, unpacked into the cache once ----------

# Sets kroot (a dir holding boot/vmlinux-$kver and lib/modules/$kver) and
# kver: the newest kernel in the cache, else the one linux-image-amd64
# depends on, fetched with apt-get download and unpacked, not installed.
# A lock keeps concurrent first runs from fetching it twice.
find_kernel() {
	local d

	kroot='' kver=''
	while read -r d; do
		[[ -e $d/done ]] && kroot=$d
	done < <(printf '%s\n' "$cache"/kernel-* | sort -V)
	[[ -n $kroot ]] || return 1
	kver=${kroot##*/kernel-}
}

fetch_kernel() {
	local pkg tmp start log

	pkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
		awk '/Depends: linux-image-/ { print $2; exit }')
	if [[ -z $pkg ]]; then
		apt-get update -q >/dev/null 2>&1
		pkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
			awk '/Depends: linux-image-/ { print $2; exit }')
	fi
	[[ -n $pkg ]] || return 1
	kver=${pkg#linux-image-}
	start=$SECONDS
	printf 'vm: first run: fetching Debian'\''s kernel (%s) into %s ... ' \
		"$pkg" "$cache" >&2
	tmp=$(mktemp -d "$cache/kernel.XXXXXX")
	log=$tmp/fetch.log
	# _apt must be able to write where apt-get download puts the file.
	chmod 755 "$tmp"
	if ! { (cd "$tmp" && apt-get download "$pkg") &&
	       dpkg-deb -x "$tmp/${pkg}"_*.deb "$tmp" &&
	       rm -f "$tmp/${pkg}"_*.deb &&
	       depmod -b "$tmp" "$kver" &&
	       "$vm_dir/vmlinux.py" "$tmp/boot/vmlinuz-$kver" \
			"$tmp/boot/vmlinux-$kver"; } >"$log" 2>&1; then
		echo "failed:" >&2
		tail -n 5 "$log" >&2
		rm -rf "$tmp"
		return 1
	fi
	touch "$tmp/done"
	rm -rf "$cache/kernel-$kver"
	mv "$tmp" "$cache/kernel-$kver"
	kroot=$cache/kernel-$kver
	echo "done in $((SECONDS - start)) s" >&2
}

exec {lock_fd}>"$cache/kernel.lock"
flock "$lock_fd"
find_kernel || fetch_kernel || {
	flock -u "$lock_fd"
	cannot_run "no kernel package (linux-image-amd64) obtainable"
}
flock -u "$lock_fd"
kernel=$kroot/boot/vmlinux-$kver

# --- The initramfs: busybox and the modules to mount 9p and overlay ------

# Builds $1 (cpio.gz) for $kver from $kroot.
build_initramfs() {
	local w ko b m

	w=$(mktemp -d "$cache/initramfs.XXXXXX") || return
	mkdir -p "$w"/{bin,proc,sys,dev,newroot,lower,rw,mods}
	cp /bin/busybox "$w/bin/busybox" || return
	for b in sh mount umount mkdir insmod switch_root sleep cat echo \
		poweroff sed; do
		ln -s busybox "$w/bin/$b"
	done
	: >"$w/mods/order"
	for m in virtio_pci 9pnet_virtio 9p overlay; do
		modprobe -d "$kroot" -S "$kver" --show-depends "$m" ||
			return
	done | awk '$1 == "insmod" && !seen[$2]++ { print $2 }' >"$w/kos"
	while read -r ko; do
		b=${ko##*/}
		case $ko in
		*.ko.xz) xz -dc "$ko" >"$w/mods/${b%.xz}"; b=${b%.xz} ;;
		*.ko.zst) zstd -qdc "$ko" >"$w/mods/${b%.zst}"; b=${b%.zst} ;;
		*) cp "$ko" "$w/mods/$b" ;;
		esac
		echo "$b" >>"$w/mods/order"
	done <"$w/kos"
	rm "$w/kos"
	[[ -s $w/mods/order ]] || return 1
	install -m 755 "$vm_dir/init.sh" "$w/init"
	(cd "$w" && find . | cpio -o -H newc --quiet | gzip -1) >"$w.cpio.gz" &&
		mv "$w.cpio.gz" "$1"
	local rc=$?
	rm -rf "$w" "$w.cpio.gz"
	return "$rc"
}

# Rebuilt only when an input changes: its name has their hash.
inputs_hash=$({
	echo "$kver"
	cat "$vm_dir/init.sh"
	declare -f build_initramfs
	stat -c '%s %Y' /bin/busybox
} | sha256sum | cut -c1-16)
initrd=$cache/initramfs-$kver-$inputs_hash.cpio.gz
if [[ ! -e $initrd ]]; then
	build_initramfs "$initrd" || cannot_run "cannot build the initramfs"
fi
# What runs killed with SIGKILL left, and initramfs of older inputs: gone
# after a day (no run lasts that long).
find "$cache/runs" "$cache" -maxdepth 1 -mmin +1440 \
	\( -name 'run.*' -o -name 'two.*' -o -name 'initramfs-*.cpio.gz' \) \
	! -path "$initrd" -exec rm -rf {} + 2>/dev/null
((prepare_only)) && exit 0

# --- One run ---------------------------------------------------------------

run_dir=$(mktemp -d "$cache/runs/run.XXXXXX")
qemu_pid=
cleanup() {
	if [[ -n $qemu_pid ]]; then
		kill "$qemu_pid" 2>/dev/null
		wait "$qemu_pid" 2>/dev/null
	fi
	if [[ ${PMR_VM_KEEP:-0} != 1 ]]; then
		rm -rf "$run_dir"
	fi
}
trap cleanup EXIT
trap 'exit 143' TERM
trap 'exit 130' INT
trap 'exit 129' HUP

cp "$vm_dir/guest.sh" "$run_dir/guest.sh"
printf 'workdir=%s\n' "$PWD" >"$run_dir/stage1"
{
	printf 'vm_cwd=%q\n' "$PWD"
	printf 'vm_hugepages=%d\n' "$hugepages"
	printf 'vm_verbose=%d\n' "$verbose"
	# The guest's own deadline for the command, in seconds of its
	# uptime: before ours, so that a hung command's kernel stacks are
	# dumped (guest.sh) and the VM powers off with its output whole.
	printf 'vm_deadline=%d\n' "$((timeout_s > 40 ? timeout_s - 20 : 0))"
	for n in $(compgen -e); do
		if [[ $n == PMR_* || " ${extra_env[*]} " == *" $n "* ]]; then
			printf 'export %s=%q\n' "$n" "${!n}"
		fi
	done
	# The guest's own, after the caller's: they win.
	netip=
	if [[ -n $net ]]; then
		IFS=: read -r _ lport rport netip <<<"$net"
		printf 'export PMR_VM_IP=%q PMR_VM_PEER=%q\n' "${netip%/*}" \
			"$peer"
	else
		echo "export PMR_VM_IP=192.0.2.1"
		echo "unset PMR_VM_PEER"
	fi
	printf 'vm_netip=%q\nvm_netem=%q\n' "$netip" "$netem"
	echo "export PMR_VM_GUEST=1"
} >"$run_dir/env"
{ printf '%q ' "$@"; echo; } >"$run_dir/cmd"

net_args=(-nic none)
if [[ -n $net ]]; then
	last=${netip%/*}
	last=${last##*.}
	net_args=(-netdev "socket,id=n0,udp=127.0.0.1:$rport,localaddr=127.0.0.1:$lport"
		-device "virtio-net-pci,netdev=n0,mac=52:54:00:12:34:$(printf %02x "$last")")
fi
append="console=ttyS0 panic=-1 oops=panic tsc=reliable"
if ((verbose)); then
	append+=" loglevel=6"
else
	append+=" quiet loglevel=3"
fi
start=$EPOCHREALTIME
# The VM reads nothing from us; qemu on stdin would take the terminal.
timeout -k 5 "$timeout_s" "$qemu" -accel tcg,thread=multi -cpu max \
	-machine q35 -m "$mem" -smp "$cpus" \
	-nodefaults -no-user-config -display none -no-reboot -monitor none \
	-name "pmr-vm,process=pmr-vm" \
	-chardev "file,id=con,path=$run_dir/console.log" -serial chardev:con \
	-kernel "$kernel" -initrd "$initrd" -append "$append" "${net_args[@]}" \
	-fsdev local,id=hostroot,path=/,security_model=none,readonly=on,multidevs=remap \
	-device virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot \
	-fsdev "local,id=vmrun,path=$run_dir,security_model=none" \
	-device virtio-9p-pci,fsdev=vmrun,mount_tag=vmrun \
	-fsdev "local,id=kmods,path=$kroot/lib/modules,security_model=none,readonly=on" \
	-device virtio-9p-pci,fsdev=kmods,mount_tag=kmods \
	-fsdev "local,id=work,path=$PWD,security_model=none,multidevs=remap" \
	-device virtio-9p-pci,fsdev=work,mount_tag=work \
	</dev/null >"$run_dir/qemu.log" 2>&1 &
qemu_pid=$!
wait "$qemu_pid"
qemu_rc=$?
qemu_pid=
wall=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')

# CMD's output, as it wrote it, after the VM is gone: the two never mix.
copy_out() {
	[[ -e $1 ]] || return 0
	if [[ -n $2 ]]; then
		cp "$1" "$2"
	else
		cat "$1"
	fi
}
copy_out "$run_dir/stdout" "$out_file"
copy_out "$run_dir/stderr" "$err_file" >&2

show_console() {
	echo "vm: console ($run_dir/console.log):" >&2
	tr -d '\r' <"$run_dir/console.log" | tail -n "${1:-40}" >&2
	[[ -s $run_dir/qemu.log ]] && sed 's/^/vm: qemu: /' "$run_dir/qemu.log" >&2
}

if [[ -s $run_dir/rc ]]; then
	rc=$(<"$run_dir/rc")
	if [[ -s $run_dir/hung ]]; then
		echo "vm: timeout: the command ran past $(<"$run_dir/hung") s" \
			"of the guest's uptime and was killed; its processes'" \
			"kernel stacks are above" >&2
	fi
elif ((qemu_rc == 124 || qemu_rc == 137)); then
	echo "vm: timeout after ${timeout_s} s (VM killed)" >&2
	# Where it was: in the command (its output above), or before it.
	if [[ -s $run_dir/boot ]]; then
		echo "vm: the command had started $(<"$run_dir/boot") s into" \
			"the boot" >&2
	else
		echo "vm: the command never started (the boot or the set-up" \
			"did not finish)" >&2
	fi
	rc=124
elif [[ -s $run_dir/setup_error ]]; then
	echo "vm: setup failed in the VM: $(<"$run_dir/setup_error")" >&2
	rc=125
else
	echo "vm: the VM ended without a result (qemu exit $qemu_rc)" >&2
	rc=125
fi
if ((verbose)); then
	show_console 100000
elif ((rc == 124 || rc == 125)); then
	show_console 40
fi
if ((verbose)); then
	boot=$(cat "$run_dir/boot" 2>/dev/null || echo '?')
	echo "vm: boot to command ${boot} s, whole run ${wall} s, exit $rc" \
		"(run dir $run_dir)" >&2
fi
exit "$rc"
