#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The pmrpc authors
#
# A peer killed mid-READ (issue 17), inside the VM of devtools/vm/ on
# rxe0: EXE (rdv_kill.c) as two processes per case, one boot. Reader
# killed: the server, READing an 8 MiB request, is killed; offerer
# killed: the client, its 8 MiB request offered, is killed. The process
# to be killed writes FILE.ready; the script kills it with SIGKILL, then
# writes FILE.killed; the survivor checks the rest and its exit is the
# case's. Arguments: EXE [CASE...] (reader, offerer; default both).
set -u
exe=$1
export PMR_TEST_SETUP=verbs PMR_TEST_VERBS_DEV=${PMR_TEST_VERBS_DEV:-rxe0}

# run_case NAME VICTIM: NAME_server and NAME_client, VICTIM (server or
# client) killed; returns the other's exit status.
run_case() {
	local name=$1 victim=$2 dir start server client kill survivor rc
	dir=$(mktemp -d)
	export RDV_KILL_FILE=$dir/server
	start=$SECONDS
	"$exe" "test_rdv_kill_${name}_server" &
	server=$!
	"$exe" "test_rdv_kill_${name}_client" &
	client=$!
	if [ "$victim" = server ]; then
		kill=$server survivor=$client
	else
		kill=$client survivor=$server
	fi
	# The processes' own waits bound this one.
	while [ ! -e "$RDV_KILL_FILE.ready" ]; do
		if ! kill -0 "$server" 2>/dev/null ||
		   ! kill -0 "$client" 2>/dev/null; then
			echo "rdv_kill_vm: $name: a process ended before" \
				"it was ready" >&2
			kill -KILL "$server" "$client" 2>/dev/null
			wait "$server" "$client"
			rm -rf "$dir"
			return 1
		fi
		sleep 0.2
	done
	echo "rdv_kill_vm: $name: ready after $((SECONDS - start)) s," \
		"$victim killed" >&2
	kill -KILL "$kill"
	# Reaped: its QPs destroyed and its memory unpinned, so that nothing
	# of it answers a READ any more. (rxe takes about 50 s under TCG to
	# destroy a QP with a window still bound on it, the offerer's.)
	wait "$kill" 2>/dev/null
	echo "rdv_kill_vm: $name: $victim reaped after" \
		"$((SECONDS - start)) s" >&2
	touch "$RDV_KILL_FILE.killed"
	wait "$survivor"
	rc=$?
	echo "rdv_kill_vm: $name: survivor exit $rc in" \
		"$((SECONDS - start)) s" >&2
	rm -rf "$dir"
	return $rc
}

shift
[ $# -gt 0 ] || set -- reader offerer
rc=0
for c in "$@"; do
	case $c in
	reader) run_case reader server || rc=1 ;;
	offerer) run_case offerer client || rc=1 ;;
	*) echo "rdv_kill_vm: no case $c" >&2; exit 2 ;;
	esac
done
exit $rc
