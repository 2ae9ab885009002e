#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The pmrpc authors
#
# A memif client started before its server (issue 11): rpcperf --connect
# over a net_memif vdev in role=client whose socket nobody listens on.
# It must exit non-zero, the eth driver's log line must say what is wrong
# (no server on that socket: start the server first) rather than DPDK's
# "Operation not permitted", and rpcperf's own last line must say it too.
# One process, no hugepages needed (--no-huge, --no-shconf).
#
#   RPCPERF=path check_memif_no_server.sh
set -u

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
sock=$dir/nobody.sock

timeout 120 "$RPCPERF" -l 0 --no-pci --no-huge -m 256 --no-shconf \
	--file-prefix "pmr_memif_alone_$$" --log-level=lib.eal:error \
	"--vdev=net_memif0,role=client,socket=$sock,id=0" -- \
	--connect=127.0.0.1:1 --devargs=port=0,ip=10.7.0.2 -w latency -n 10 \
	>"$dir/out" 2>"$dir/err"
rc=$?
cat "$dir/err"
fail=0
if [ $rc -eq 0 ] || [ $rc -ge 124 ]; then
	echo "FAIL: exit status $rc, not a failure of rpcperf's own" >&2
	fail=1
fi
want="memif client: no server listening on socket $sock: start the server first"
if ! grep -qF "$want" "$dir/err"; then
	echo "FAIL: no driver line '$want'" >&2
	fail=1
fi
last=$(grep '^rpcperf: ' "$dir/err" | tail -n 1)
case $last in
*"start the server first"*) ;;
*)
	echo "FAIL: rpcperf's last line does not say so: '$last'" >&2
	fail=1
	;;
esac
[ $fail -eq 0 ] && echo "PASS: memif client alone: exit $rc, told why"
exit $fail
