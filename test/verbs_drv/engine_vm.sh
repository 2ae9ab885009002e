#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The pmrpc authors
#
# The engine suite on the verbs driver over real Soft-RoCE: run inside the
# VM of devtools/vm/ (one boot for all), each test executable in turn with
# PMR_TEST_SETUP=verbs on rxe0, its wall time printed; exits 1 if any
# failed. Arguments: EXE[:FILTER]... (FILTER a cmocka test filter); an
# argument NAME=VALUE is exported for the executables after it.
set -u
export PMR_TEST_SETUP=verbs PMR_TEST_VERBS_DEV=${PMR_TEST_VERBS_DEV:-rxe0}
fail=0
for t in "$@"; do
	if [[ $t == [A-Z_]*=* ]]; then
		export "${t?}"
		continue
	fi
	exe=${t%%:*}
	filter=
	[[ $t == *:* ]] && filter=${t#*:}
	start=$SECONDS
	"$exe" ${filter:+"$filter"}
	rc=$?
	echo "engine_vm: ${exe##*/}${filter:+ $filter}: exit $rc in" \
		"$((SECONDS - start)) s" >&2
	((rc == 0)) || fail=1
done
exit $fail
