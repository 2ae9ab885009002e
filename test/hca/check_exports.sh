#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The pmrpc authors
#
# usage: check_exports.sh NM LIBIBVERBS LIBPMR_HCA
# Fails when libibverbs exports a function (any version, public or
# private) that the software HCA model does not define: a program calling
# it would run rdma-core's code on the model's objects.
set -eu
nm=$1
verbs=$2
model=$3
[ -r "$verbs" ] || { echo "check_exports: $verbs not readable" >&2; exit 1; }
funcs() {
	"$nm" -D --defined-only "$1" | awk '$2 == "T" || $2 == "W" ||
		$2 == "i" { sub(/@.*/, "", $3); print $3 }' | sort -u
}
want=$(mktemp)
have=$(mktemp)
trap 'rm -f "$want" "$have"' EXIT
funcs "$verbs" >"$want"
funcs "$model" >"$have"
n=$(wc -l <"$want")
[ "$n" -gt 0 ] || { echo "check_exports: no functions in $verbs" >&2; exit 1; }
missing=$(comm -23 "$want" "$have")
if [ -n "$missing" ]; then
	echo "check_exports: libibverbs functions the model does not define:"
	echo "$missing"
	exit 1
fi
echo "check_exports: all $n functions of $verbs are defined by the model"
