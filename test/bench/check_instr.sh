#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The pmrpc authors
#
# devtools/bench-instructions.sh on both drivers, a few RPCs each (meson
# test bench_instructions): it measures (exit 0, no idle poll,
# retransmission or drop in the region), every instruction is in exactly
# one part (engine + driver + model + harness = total, nothing
# unattributed), and the HCA model is its own part on verbs (more than 0)
# and absent on eth. What the figures are is not checked: they are
# doc/benchmarks.md's.
#
#   check_instr.sh BUILD_DIR

set -uo pipefail

build=${1:?usage: check_instr.sh BUILD_DIR}
here=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
bench=$here/../../devtools/bench-instructions.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0

for driver in eth verbs; do
	out=$tmp/$driver
	PMR_INSTR_BUILD=$build PMR_INSTR_NO_BUILD=1 \
		PMR_INSTR_DRIVER=$driver "$bench" 400 >"$out" 2>"$out.err"
	rc=$?
	if ((rc != 0)); then
		echo "FAIL: $driver: exit $rc"
		cat "$out" "$out.err"
		failed=1
		continue
	fi
	python3 - "$driver" "$out" <<'EOF' || { cat "$out"; failed=1; }
import re
import sys

driver, path = sys.argv[1], sys.argv[2]
text = open(path).read()
rows = {}
for line in text.splitlines():
    m = re.match(r'^  (\S.*?)\s+(-?[0-9]+\.[0-9])(\s|$)', line)
    if m:
        rows[m.group(1)] = float(m.group(2))


def row(prefix):
    hits = [v for k, v in rows.items() if k.startswith(prefix)]
    return hits[0] if len(hits) == 1 else None


errors = []
assert 'warning:' not in text, 'not the steady state: ' + text
m = re.search(r'^instr_rpc: rpcs=(\d+) ', text, re.M)
if not m or m.group(1) != '400':
    errors.append('no instr_rpc line with rpcs=400')
total = row('total (measured region')
parts = {'engine': row('engine (client + server)'),
         'driver': row('driver (%s_*' % driver),
         'model': row('HCA model'),
         'harness': row('harness')}
if row('unattributed') is not None:
    errors.append('unattributed instructions')
if total is None or any(parts[k] is None for k in
                        ('engine', 'driver', 'harness')):
    errors.append('rows missing: %s' % parts)
elif driver == 'verbs' and not parts['model']:
    errors.append('verbs: no HCA model row, or 0')
elif driver == 'eth' and parts['model'] is not None:
    errors.append('eth: an HCA model row')
else:
    got = sum(v for v in parts.values() if v is not None)
    # Each row is rounded to 0.1.
    if abs(got - total) > 0.3:
        errors.append('parts %s add up to %.1f, total %.1f'
                      % (parts, got, total))
    if min(v for v in parts.values() if v is not None) <= 0:
        errors.append('a part of 0: %s' % parts)
for e in errors:
    print('FAIL: %s: %s' % (driver, e))
if errors:
    sys.exit(1)
print('%s: total %.1f = engine %.1f + driver %.1f%s + harness %.1f'
      % (driver, total, parts['engine'], parts['driver'],
         ' + model %.1f' % parts['model'] if parts['model'] else '',
         parts['harness']))
EOF
done
((failed == 0)) && echo PASS
exit "$failed"
