#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The pmrpc authors
#
# The installed library as a user gets it (meson test install_external):
# stage an install of the build into a temporary DESTDIR, check that only
# the public headers are there, then build test/install/consumer.c (copied
# out of the tree) with pkg-config alone, PKG_CONFIG_PATH pointing into
# the staged tree, twice:
#   shared: `pkg-config --cflags --libs libpmrpc`; it must need
#     libpmrpc.so.0 and resolve it from the staged tree (LD_LIBRARY_PATH);
#   static: `pkg-config --static --cflags --libs libpmrpc`; it must need
#     no libpmrpc.so nor any DPDK shared library;
# and run each: an echo RPC over a net_ring vdev, pools full at the end.
#
# Usage: [CC=compiler] check_install.sh BUILD_DIR CONSUMER_C [SANITIZE]
#   SANITIZE: meson's b_sanitize ("none", "address,undefined"): a consumer
#   of a sanitized library is built with the same -fsanitize.

set -euo pipefail

build=$(readlink -f "$1")
consumer_c=$(readlink -f "$2")
read -ra cc <<<"${CC:-cc}"
sanitize=${3:-none}
src=$(readlink -f "$(dirname "$0")/../..")

failed=0
fail() {
	echo "FAIL: $*" >&2
	exit 1
}
# A failed check that does not stop the others.
bad() {
	echo "FAIL: $*" >&2
	failed=1
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/pmr_install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
stage=$tmp/stage

echo "# meson install --destdir $stage"
meson install -C "$build" --destdir "$stage" --no-rebuild --quiet \
	>"$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; fail "install"; }

pc=$(find "$stage" -name libpmrpc.pc)
[[ -n $pc ]] || fail "no libpmrpc.pc installed"
# Relocatable, so that PKG_CONFIG_PATH alone makes the staged tree usable
# (pkg-config --define-prefix would also move Debian's libdpdk.pc).
# shellcheck disable=SC2016
grep -q '^prefix=${pcfiledir}/' "$pc" ||
	bad "$pc: prefix is not relative to \${pcfiledir}; a build dir set" \
		"up before pkgconfig.relocatable became the project's default" \
		"keeps false: meson configure -Dpkgconfig.relocatable=true"
grep -q '^Description: .*RDMA' "$pc" &&
	bad "$pc: its description promises RDMA, which is not there yet"

# Only the public headers, and the generated pmr_config.h they include.
want="pmr_config.h pmr_msgbuf.h pmr_nexus.h pmr_rpc.h pmr_rpc_handler.h pmr_rpc_stats.h pmr_transport.h"
incdir=$(dirname "$(find "$stage" -name pmr_rpc.h)")
got=$(find "$incdir" -mindepth 1 -printf '%f\n' | sort | tr '\n' ' ')
got=${got% }
[[ $got == "$want" ]] ||
	bad "installed headers in $incdir: '$got', want '$want'"

export PKG_CONFIG_PATH
PKG_CONFIG_PATH=$(dirname "$pc")
libdir=$(dirname "$(find "$stage" -name 'libpmrpc.so.0')")

flags_shared=$(pkg-config --cflags --libs libpmrpc)
flags_static=$(pkg-config --static --cflags --libs libpmrpc)
for f in $flags_shared $flags_static; do
	case $f in
	*"$src"* | *"$build"*)
		bad "pkg-config gives a path of the source or build tree: $f"
		;;
	esac
done

cp "$consumer_c" "$tmp/consumer.c"
cflags=(-Wall -Wextra -Werror)
if [[ $sanitize != none ]]; then
	cflags+=("-fsanitize=$sanitize")
fi
eal=(-l 0 --no-pci --no-huge -m 256 --no-shconf --vdev=net_ring0
	--log-level=lib.eal:warning)

echo "# shared: ${cc[*]} ${cflags[*]} consumer.c $flags_shared"
# shellcheck disable=SC2086
(cd "$tmp" && "${cc[@]}" "${cflags[@]}" -o consumer_shared consumer.c \
	$flags_shared) || fail "shared build"
readelf -d "$tmp/consumer_shared" | grep -q 'NEEDED.*\[libpmrpc\.so\.0\]' ||
	bad "the shared consumer does not need libpmrpc.so.0"
resolved=$(LD_LIBRARY_PATH=$libdir ldd "$tmp/consumer_shared" |
	awk '$1 == "libpmrpc.so.0" { print $3 }')
[[ $(readlink -f "$resolved") == "$(readlink -f "$libdir")"/* ]] ||
	fail "libpmrpc.so.0 resolves to '$resolved', not into $libdir"
echo "# libpmrpc.so.0 => $resolved"
LD_LIBRARY_PATH=$libdir "$tmp/consumer_shared" "${eal[@]}" ||
	fail "the shared consumer failed"

echo "# static: ${cc[*]} ${cflags[*]} consumer.c $flags_static"
# shellcheck disable=SC2086
(cd "$tmp" && "${cc[@]}" "${cflags[@]}" -o consumer_static consumer.c \
	$flags_static) || fail "static build"
if readelf -d "$tmp/consumer_static" | grep -E 'NEEDED.*\[(libpmrpc|librte_)'
then
	bad "the static consumer needs the shared libraries above"
fi
"$tmp/consumer_static" "${eal[@]}" || fail "the static consumer failed"
((failed == 0)) || exit 1
echo "OK: built and ran against the staged install, shared and static"
