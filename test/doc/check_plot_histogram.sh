#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The pmrpc authors
#
# devtools/plot-histogram.py, headless, on a tiny file in the format
# rpcperf --histogram writes (doc/rpcperf.md, "CSV"), with a rate file:
# the PNG it names must exist and start with the PNG signature.
#
#   check_plot_histogram.sh PLOT_HISTOGRAM_PY
set -eu

plot=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export MPLBACKEND=Agg MPLCONFIGDIR="$dir/mpl"

{
	echo 'workload,percentile,latency_us'
	for p in 0 10 50 90 99 99.9 100; do
		echo "ring,$p,0.$((${p%.*} + 100))"
		echo "latency,$p,1.$((${p%.*} + 100))"
	done
} >"$dir/h.csv"
printf 'workload,time_s,done,mrps\nring,0.100,41664,0.416587\n%s\n' \
	'ring,0.203,75584,0.330000' >"$dir/h.rate.csv"

for tail in '' --tail; do
	out=$("$plot" "$dir/h.csv" -o "$dir/out.png" $tail)
	if [ "$out" != "$dir/out.png" ]; then
		echo "plot-histogram.py printed '$out', not $dir/out.png" >&2
		exit 1
	fi
	sig=$(od -An -tx1 -N8 "$dir/out.png" | tr -d ' \n')
	if [ "$sig" != 89504e470d0a1a0a ]; then
		echo "$dir/out.png $tail: not a PNG (starts $sig)" >&2
		exit 1
	fi
	rm -f "$dir/out.png"
done
# The default name: FILE's .csv replaced by .png.
"$plot" "$dir/h.csv" >/dev/null
test -s "$dir/h.png"
echo "plot-histogram.py: PNGs written"
