# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The pmrpc authors
#
# Shared by devtools/test.sh and devtools/demo.sh (sourced, from the repo
# root): the packages pmrpc needs, installing the missing ones, hugepages.

packages=(build-essential pkg-config meson ninja-build libdpdk-dev dpdk
	libibverbs-dev rdma-core libcmocka-dev python3-pyelftools valgrind)
# The libFuzzer targets (devtools/fuzz.sh): clang 14 and, for libFuzzer
# itself, its compiler-rt (only recommended by clang-14's dependencies).
packages+=(clang libclang-rt-14-dev)
packages+=(ucx-utils)	# ucx_perftest, for devtools/bench-compare.sh (~1 MB)
# The API reference (doxygen, built and checked by test.sh); what a static
# link against DPDK needs (its libdpdk.pc names -lsystemd via libelf...);
# devtools/plot-histogram.py's plots.
packages+=(doxygen libsystemd-dev python3-matplotlib)
# The Soft-RoCE VM (devtools/vm/run.sh, which installs these alone when
# they are missing): qemu, the initramfs' busybox, depmod and cpio, and
# in the guest the rdma tools and perftest (devtools/bench-rxe.sh).
vm_packages=(qemu-system-x86 busybox-static kmod cpio xz-utils rdma-core
	ibverbs-providers ibverbs-utils perftest iproute2 libibverbs-dev)
packages+=("${vm_packages[@]}")

hugepages_want=1024	# 2-MiB pages: 2 GiB, enough for two tests at once

say() {
	echo "${0##*/}: $*"
}

# Prints those of the packages named that are not installed, one a line.
missing_packages() {
	local p status

	for p in "$@"; do
		status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
		[[ $status == *" ok installed" ]] || echo "$p"
	done
}

install_packages() {
	local missing=()

	mapfile -t missing < <(missing_packages "${packages[@]}")
	((${#missing[@]} == 0)) && return 0
	if ((EUID != 0)); then
		say "missing packages: ${missing[*]}" >&2
		say "install them as root: apt-get install --no-install-recommends ${missing[*]}" >&2
		exit 1
	fi
	say "installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	apt-get install -y -q --no-install-recommends "${missing[@]}" </dev/null
}

# Reserve $hugepages_want 2-MiB pages and mount hugetlbfs. Prints the one
# line to show when that can't be done, nothing when all is in place.
hugepages_setup() {
	local nr_file=/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages
	local nr no_huge="tests use --no-huge"

	if [[ ! -r $nr_file ]]; then
		echo "no 2-MiB hugepage support: $no_huge"
		return
	fi
	nr=$(<"$nr_file")
	if ((nr >= hugepages_want)) && grep -qs ' hugetlbfs ' /proc/mounts; then
		return
	fi
	if ((EUID != 0)) || [[ ! -w /proc/sys/vm/nr_hugepages ]]; then
		echo "cannot set up hugepages (not root, or /proc/sys/vm/nr_hugepages read-only): $no_huge"
		return
	fi
	if ((nr < hugepages_want)); then
		# The sysfs knob is per size; /proc/sys/vm/nr_hugepages is for
		# the default size, 2 MiB on x86 unless the kernel says otherwise.
		if ! { echo "$hugepages_want" >"$nr_file"; } 2>/dev/null &&
		   grep -qs '^Hugepagesize: *2048 kB' /proc/meminfo; then
			echo "$hugepages_want" >/proc/sys/vm/nr_hugepages 2>/dev/null || true
		fi
		nr=$(<"$nr_file")
		if ((nr == 0)); then
			echo "the kernel gave no 2-MiB hugepages: $no_huge"
			return
		fi
		say "reserved $nr 2-MiB hugepages" >&2
	fi
	if ! grep -qs ' hugetlbfs ' /proc/mounts; then
		if ! { mkdir -p /dev/hugepages &&
		       mount -t hugetlbfs -o pagesize=2M nodev /dev/hugepages; } 2>/dev/null; then
			echo "cannot mount hugetlbfs at /dev/hugepages: $no_huge"
			return
		fi
		say "mounted hugetlbfs at /dev/hugepages" >&2
	fi
	if ((nr < hugepages_want)); then
		echo "only $nr of $hugepages_want 2-MiB hugepages:" \
			"tests use them while 512 MiB are free, else --no-huge"
	fi
}

