# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The pmrpc authors
#
# Shared by the multi-process tests: run pmr_peer servers and clients,
# clean up whatever happens, skip (exit 77) or fail as PMR_REQUIRE_NETNS says.

set -u

PEER=${PMR_PEER:?PMR_PEER must name the pmr_peer binary}
TMP=$(mktemp -d /tmp/pmr-mp.XXXXXX)
PIDS=()
NETNS=()

# Each process gets a runtime directory of its own (EAL's --file-prefix):
# with a shared one, every process starting connects to the telemetry
# sockets of those already running (DPDK's in-use check), which starts
# threads in them while they may still be mapping memory. cleanup removes
# the directories, which EAL leaves behind.
PREFIX=pmrmp$$
if [ "$(id -u)" = 0 ]; then
	RUNTIME_BASE=/var/run/dpdk
else
	RUNTIME_BASE=${XDG_RUNTIME_DIR:-/tmp}/dpdk
fi

# EAL arguments of one process: lcores $1, no PCI, private memory, the
# runtime directory $PREFIX-$2 (a name unique in the test).
eal() {
	echo "-l $1 --no-pci --in-memory --file-prefix=$PREFIX-${2:?eal: no name}" \
		"--log-level=lib.eal:error"
}

cleanup() {
	local p ns

	for p in "${PIDS[@]}"; do
		kill -TERM "$p" 2>/dev/null
	done
	sleep 0.5
	for p in "${PIDS[@]}"; do
		kill -KILL "$p" 2>/dev/null
	done
	for ns in "${NETNS[@]}"; do
		ip netns del "$ns" 2>/dev/null
	done
	rm -rf "$TMP" "$RUNTIME_BASE/$PREFIX"-*
}
trap cleanup EXIT

fail() {
	echo "FAIL: $*"
	for f in "$TMP"/*.log; do
		[ -e "$f" ] && { echo "--- $f"; tail -20 "$f"; }
	done
	exit 1
}

# Skip, or fail where the environment must support the test (CI).
skip_or_fail() {
	if [ "${PMR_REQUIRE_NETNS:-0}" = 1 ]; then
		fail "$* (PMR_REQUIRE_NETNS=1)"
	fi
	echo "SKIP: $*"
	exit 77
}

# start_server NAME LCORE EAL-EXTRA -- PEER-ARGS: run in the background,
# wait for its "ready" line.
start_server() {
	local name=$1 lcore=$2 extra=$3 i
	shift 3
	# shellcheck disable=SC2046,SC2086
	${NS_EXEC:-} "$PEER" $(eal "$lcore" "$name") $extra -- --server "$@" \
		>"$TMP/$name.log" 2>&1 &
	PIDS+=($!)
	LAST_PID=$!
	for i in $(seq 100); do
		grep -q '^ready' "$TMP/$name.log" && return 0
		kill -0 "$LAST_PID" 2>/dev/null || fail "$name exited"
		sleep 0.1
	done
	fail "$name not ready after 10 s"
}

# run_client NAME LCORE EAL-EXTRA -- PEER-ARGS: in the foreground.
run_client() {
	local name=$1 lcore=$2 extra=$3
	shift 3
	# shellcheck disable=SC2046,SC2086
	timeout 300 ${NS_EXEC:-} "$PEER" $(eal "$lcore" "$name") $extra -- --client \
		"$@" >"$TMP/$name.log" 2>&1
}

# stop PID: SIGTERM and wait for the exit status.
stop() {
	kill -TERM "$1" 2>/dev/null
	wait "$1"
}

# netns_pair: two namespaces NS_A and NS_B (made here, removed on exit)
# joined by a veth pair pd1/pd2 for the data path, left without kernel
# addresses (or the kernel would answer every packet with ICMP), and a
# pair pc1/pc2 with 10.99.0.1 and 10.99.0.2 for the nexuses' kernel UDP.
netns_pair() {
	NS_A=pmr-a-$$
	NS_B=pmr-b-$$
	if ! ip netns add "$NS_A" 2>"$TMP/netns.err"; then
		skip_or_fail "cannot create network namespaces:" \
			"$(cat "$TMP/netns.err")"
	fi
	NETNS+=("$NS_A")
	ip netns add "$NS_B" || fail "ip netns add $NS_B"
	NETNS+=("$NS_B")
	ip link add pd1 netns "$NS_A" type veth peer name pd2 netns "$NS_B" &&
	ip link add pc1 netns "$NS_A" type veth peer name pc2 netns "$NS_B" ||
		fail "cannot create veth pairs"
	for ns in "$NS_A" "$NS_B"; do
		ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
		ip netns exec "$ns" sysctl -qw \
			net.ipv6.conf.default.disable_ipv6=1
		ip -n "$ns" link set lo up
	done
	ip -n "$NS_A" link set pd1 up && ip -n "$NS_B" link set pd2 up &&
	ip -n "$NS_A" link set pc1 up && ip -n "$NS_B" link set pc2 up &&
	ip -n "$NS_A" addr add 10.99.0.1/24 dev pc1 &&
	ip -n "$NS_B" addr add 10.99.0.2/24 dev pc2 ||
		fail "cannot configure links"
}
