#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The pmrpc authors
#
# Two VMs wired together, one command in each:
#
#   devtools/vm/run2.sh [--netem SPEC] [-t SECS] [-c CPUS] [-m MB]
#                       [-H NR_2M_HUGEPAGES] [-O DIR] [-v]
#                       -- CMD_A [ARGS...] -- CMD_B [ARGS...]
#
# Each VM is a devtools/vm/run.sh VM whose rxe0 sits on its own virtio
# eth0 (A: 192.0.2.1/24, B: 192.0.2.2/24), the two NICs wired by a qemu
# UDP socket netdev on 127.0.0.1 (ports picked under a lock among those
# free, so concurrent runs never share one). rxe on one host loops back
# internally: this is the way to put real loss (--netem 'loss 5%', tc
# netem on both eth0s) between two devices. In each guest PMR_VM_IP is
# its own address and PMR_VM_PEER the other's; the two boot together, so
# a client must retry until its server listens.
#
# A command may not contain a lone "--" (wrap it in sh -c). -c defaults
# to 1 (one vCPU per VM on a 2-core machine). The outputs stay apart: in
# DIR/{a,b}.{stdout,stderr} with -O, else printed after both ended, each
# under a "== a stdout" (...) line on our stdout or stderr.
#
# Exit status: 0 only if both commands succeeded; 77 (or 1 with
# PMR_REQUIRE_VM=1) if the VMs cannot run; else the status of the side
# that failed first: the other is then stopped, not waited for.

set -uo pipefail

vm_dir=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
repo=$(cd "$vm_dir/../.." && pwd)

usage() {
	sed -n '7,9s/^# //p' "${BASH_SOURCE[0]}" >&2
	exit 2
}

opts=() netem='' outdir='' cpus=1
while (($#)); do
	case $1 in
	-t | -m | -H)
		(($# >= 2)) || usage
		opts+=("$1" "$2")
		shift 2
		;;
	-c) (($# >= 2)) || usage; cpus=$2; shift 2 ;;
	--netem) (($# >= 2)) || usage; netem=$2; shift 2 ;;
	-O) (($# >= 2)) || usage; outdir=$2; shift 2 ;;
	-v) opts+=(-v); shift ;;
	--) shift; break ;;
	*) usage ;;
	esac
done
cmd_a=()
while (($#)) && [[ $1 != -- ]]; do
	cmd_a+=("$1")
	shift
done
(($# >= 2 && ${#cmd_a[@]} > 0)) || usage
shift
cmd_b=("$@")
opts+=(-c "$cpus")

# The kernel and initramfs first, once, so that a failure to run says so
# once and the two VMs start together.
"$vm_dir/run.sh" --prepare || exit

cache=${PMR_VM_CACHE:-$repo/build/vm}
tmp=$(mktemp -d "$cache/runs/two.XXXXXX")
keep=${outdir:-$tmp}
mkdir -p "$keep" || exit 2
pids=()
cleanup() {
	local p

	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null
	done
	wait
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

# Is UDP port $1 bound on this host?
udp_bound() {
	ss -Hlun "sport = :$1" 2>/dev/null | grep -q .
}

# Ports: two free neighbours, chosen and bound under a lock so that two
# run2.sh never pick the same pair (the lock is held until both qemus
# have bound theirs).
exec {lock_fd}>"$cache/ports.lock"
flock "$lock_fd"
for ((try = 0; try < 100; try++)); do
	port=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
	udp_bound "$port" || udp_bound $((port + 1)) || break
done
"$vm_dir/run.sh" "${opts[@]}" --net "udp:$port:$((port + 1)):192.0.2.1/24" \
	--peer 192.0.2.2 ${netem:+--netem "$netem"} \
	-o "$keep/a.stdout" -e "$keep/a.stderr" -- "${cmd_a[@]}" &
pid_a=$!
"$vm_dir/run.sh" "${opts[@]}" --net "udp:$((port + 1)):$port:192.0.2.2/24" \
	--peer 192.0.2.1 ${netem:+--netem "$netem"} \
	-o "$keep/b.stdout" -e "$keep/b.stderr" -- "${cmd_b[@]}" &
pid_b=$!
pids=("$pid_a" "$pid_b")
for ((i = 0; i < 200; i++)); do
	udp_bound "$port" && udp_bound $((port + 1)) && break
	sleep 0.05
done
flock -u "$lock_fd"

# The first to fail stops the other (a server would wait for its client
# until the timeout).
rc_a='' rc_b='' first_rc=0
while [[ -z $rc_a || -z $rc_b ]]; do
	wait -n -p done_pid "${pids[@]}"
	rc=$?
	if [[ $done_pid == "$pid_a" ]]; then
		rc_a=$rc
		pids=("$pid_b")
	else
		rc_b=$rc
		pids=("$pid_a")
	fi
	if ((rc != 0 && first_rc == 0)); then
		first_rc=$rc
		if [[ -z $rc_a || -z $rc_b ]]; then
			echo "vm: side $([[ $done_pid == "$pid_a" ]] &&
				echo a || echo b) exited $rc:" \
				"stopping the other" >&2
			kill "${pids[@]}" 2>/dev/null
		fi
	fi
done
pids=()

if [[ -z $outdir ]]; then
	for s in a b; do
		if [[ -s $tmp/$s.stdout ]]; then
			echo "== $s stdout"
			cat "$tmp/$s.stdout"
		fi
		if [[ -s $tmp/$s.stderr ]]; then
			echo "== $s stderr" >&2
			cat "$tmp/$s.stderr" >&2
		fi
	done
fi
if ((rc_a == 77 || rc_b == 77)); then
	exit 77
elif ((first_rc != 0)); then
	echo "vm: side a exited $rc_a, side b $rc_b" >&2
fi
exit "$first_rc"
