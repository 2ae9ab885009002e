#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The pmrpc authors
#
# A peer killed with RC QPs up (issue 16), inside the VM of devtools/vm/
# on rxe0: EXE (rc_kill.c) as a server process and as a client process;
# once the client has its RC QPs up and has READ through them it writes
# FILE.ready, and the server is killed with SIGKILL. The client checks the
# rest (reset, release, its other session, nothing left) and its exit is
# the script's. Argument: EXE.
set -u
exe=$1
export PMR_TEST_SETUP=verbs PMR_TEST_VERBS_DEV=${PMR_TEST_VERBS_DEV:-rxe0}
dir=$(mktemp -d)
export RC_KILL_FILE=$dir/server
start=$SECONDS
"$exe" test_rc_kill_server &
server=$!
"$exe" test_rc_kill_client &
client=$!
# The client's wait for the file and its own waits bound this one.
while [ ! -e "$RC_KILL_FILE.ready" ]; do
	if ! kill -0 "$client" 2>/dev/null; then
		echo "rc_kill_vm: client ended before it was ready" >&2
		kill -KILL "$server"
		wait "$client"
		exit 1
	fi
	if ! kill -0 "$server" 2>/dev/null; then
		echo "rc_kill_vm: server ended before the kill" >&2
		kill -KILL "$client"
		exit 1
	fi
	sleep 0.2
done
echo "rc_kill_vm: ready after $((SECONDS - start)) s, server killed" >&2
kill -KILL "$server"
wait "$server" 2>/dev/null
wait "$client"
rc=$?
echo "rc_kill_vm: client exit $rc in $((SECONDS - start)) s" >&2
rm -rf "$dir"
exit $rc
