#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The pmrpc authors
"""Run apps/hello and check what it says and its exit status.

    check_hello.py       (HELLO: the binary)

A name answered whole at any length (one packet or many), unknown options
and extra arguments refused with exit status 2 and a message, EAL errors
told as such (exit 2), --help. EAL arguments: PMR_TEST_EAL_ARGS if set,
else "-l 0-1 --no-pci --no-huge -m 256 --no-shconf".
"""

import os
import re
import subprocess
import sys

HELLO = os.environ.get('HELLO', 'hello')
EAL = os.environ.get('PMR_TEST_EAL_ARGS',
                     '-l 0-1 --no-pci --no-huge -m 256 --no-shconf').split()
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print('FAIL: ' + what)
    return cond


def run(args, eal=None):
    cmd = [HELLO] + (EAL if eal is None else eal) + args
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    where = ' '.join(cmd)[:200]
    check(not re.search(r'Sanitizer|runtime error:', p.stderr),
          '%s: sanitizer report: %s' % (where, p.stderr[-3000:]))
    p.where = where
    return p


def expect(p, status, out=None, err=None):
    check(p.returncode == status, '%s: exit status %d, not %d: %s'
          % (p.where, p.returncode, status, p.stderr[-1000:]))
    if out is not None:
        check(p.stdout == out, '%s: stdout %r, not %r'
              % (p.where, p.stdout[:300], out[:300]))
    if err is not None:
        check(err in p.stderr, '%s: stderr lacks %r: %s'
              % (p.where, err, p.stderr[-1000:]))


def main():
    # Answers, from one packet to many: the whole name back.
    for n in (0, 5, 1400, 1441, 1500, 5000, 70000):
        name = ''.join(chr(ord('a') + i % 26) for i in range(n))
        if n == 5:
            name = 'world'
        p = run(['--', name] if n != 0 else ['--'])
        want = 'OK: hello, %s\n' % (name if n != 0 else 'world')
        expect(p, 0, out=want)
    # Usage: on stdout with -h/--help, before or after "--", exit 0.
    for args, eal in ((['--', '-h'], None), (['--', '--help'], None),
                      (['--help'], [])):
        p = run(args, eal)
        expect(p, 0)
        check(p.stdout.startswith('Usage: '), '%s: no usage on stdout: %r'
              % (p.where, p.stdout[:300]))
    # Bad arguments: exit 2, a message naming them, nothing on stdout.
    for args, msg in ((['--', '--bogus'], "hello: unknown option '--bogus'"),
                      (['--', '-x', 'world'], "hello: unknown option '-x'"),
                      (['--', 'a', 'b'], "hello: unexpected argument 'b'")):
        p = run(args)
        expect(p, 2, out='', err=msg)
    # EAL's own errors are not "2 lcores".
    p = run(['--no-such-eal-option', '--', 'world'])
    expect(p, 2, err='hello: EAL init failed: ')	# EAL's usage on stdout
    check('2 lcores' not in p.stderr, '%s: says 2 lcores: %s'
          % (p.where, p.stderr))
    one = [a if a != '0-1' else '0' for a in EAL]
    p = run(['--', 'world'], one)
    expect(p, 2, out='', err='hello: needs 2 lcores, EAL has 1')
    if failures:
        print('%d check(s) failed' % len(failures))
        sys.exit(1)
    print('PASS')


if __name__ == '__main__':
    main()
