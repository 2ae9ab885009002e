#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The pmrpc authors
#
# Stage 1 of the VM (devtools/vm/run.sh): PID 1 in the initramfs, busybox.
# Loads the virtio, 9p and overlay modules, mounts the host's / (9p,
# read-only) under an overlay with a tmpfs upper layer (the host may lack
# mount points we need, e.g. /lib/modules), the per-run dir (tag vmrun) on
# /run/vmrun, the kernel's modules (tag kmods) on /lib/modules and the
# caller's cwd (tag work) read-write at its own path, then switches to the
# host's userland to run guest.sh (stage 2).
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
die() {
	echo "vm init: $*"
	poweroff -f
}
while read -r m; do
	insmod "/mods/$m" || echo "vm init: insmod $m failed"
done < /mods/order
p9="trans=virtio,version=9p2000.L,msize=512000"
mount -t 9p -o "$p9,cache=none" vmrun /rw || die "cannot mount the run dir"
workdir=$(sed -n 's/^workdir=//p' /rw/stage1)
umount /rw
mount -t 9p -o "$p9,ro,cache=loose" hostroot /lower ||
	die "cannot mount the host's /"
mount -t tmpfs tmpfs /rw
mkdir -p /rw/upper /rw/work
mount -t overlay -o lowerdir=/lower,upperdir=/rw/upper,workdir=/rw/work \
	overlay /newroot || die "cannot mount the overlay"
# The guest's own /run (the host's runtime state, DPDK's among it, stays
# out). Everything else is the host's, written in the overlay: a tmpfs
# on /tmp or /root would hide a checkout there from the guest.
mkdir -p /newroot/run
mount -t tmpfs -o mode=755 tmpfs /newroot/run
mkdir -p /newroot/run/vmrun /newroot/lib/modules
mount -t 9p -o "$p9,cache=none" vmrun /newroot/run/vmrun ||
	die "cannot mount the run dir"
mount -t 9p -o "$p9,ro,cache=loose" kmods /newroot/lib/modules ||
	die "cannot mount the kernel's modules"
if [ -n "$workdir" ]; then
	mkdir -p "/newroot$workdir"
	# cache=mmap: the host sees the guest's writes at once, and
	# mmap() works (build tools, DPDK's files).
	mount -t 9p -o "$p9,cache=mmap" work "/newroot$workdir" ||
		die "cannot mount $workdir"
fi
mount --move /dev /newroot/dev
mount --move /proc /newroot/proc
mount --move /sys /newroot/sys
exec switch_root /newroot /bin/bash /run/vmrun/guest.sh
