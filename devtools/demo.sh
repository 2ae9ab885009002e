#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The pmrpc authors
#
# Install what is missing, build build/release, and run pmrpc's benchmark:
# rpcperf with a server worker and a client worker on two lcores over an
# in-process ring pair, printing RPC latency percentiles and rate next to a
# raw rte_ring ping-pong between the same two lcores, measured in the same
# run.
#
# Arguments are passed to rpcperf after its defaults (see rpcperf --help),
# e.g. ./devtools/demo.sh -s 256 -n 200000.
#
# Environment:
#   PMR_DEMO_EAL_ARGS  EAL arguments instead of the automatic choice

set -euo pipefail

cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.."

# shellcheck source=devtools/common.sh
source devtools/common.sh

install_packages
huge_note=$(hugepages_setup)

dir=build/release
if [[ ! -f $dir/build.ninja ]]; then
	rm -rf "$dir"
	meson setup "$dir" -Dwerror=true >/dev/null
fi
ninja -C "$dir" >/dev/null

if [[ -n ${PMR_DEMO_EAL_ARGS:-} ]]; then
	read -r -a eal <<<"$PMR_DEMO_EAL_ARGS"
elif [[ -z $huge_note ]]; then
	eal=(-l 0-1 --no-pci --in-memory --log-level=lib.eal:warning)
else
	say "$huge_note"
	eal=(-l 0-1 --no-pci --no-huge -m 512 --no-shconf
		--log-level=lib.eal:warning)
fi

say "rpcperf ${eal[*]} -- $*"
exec "$dir/apps/rpcperf/rpcperf" "${eal[@]}" -- "$@"
