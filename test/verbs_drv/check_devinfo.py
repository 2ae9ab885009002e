#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The pmrpc authors

"""pmr-devinfo (apps/pmr-devinfo) on the software HCA model: its output
follows the model's configuration (device name, MTU) rather than fixed
text, the automatic GID is the IPv4-mapped one, and a missing device is
an error. DEVINFO names the binary linked with the model."""

import os
import re
import subprocess
import sys


def run(args, **env):
    e = dict(os.environ)
    e.update(env)
    return subprocess.run([os.environ['DEVINFO']] + args, env=e,
                          capture_output=True, text=True, timeout=60)


def check(cond, what, out):
    if not cond:
        print('FAIL:', what)
        print(out)
        sys.exit(1)


def main():
    r = run([])
    out = r.stdout
    check(r.returncode == 0, 'exit status 0', out + r.stderr)
    check(re.search(r'^hca0: 1 port, ', out, re.M), 'device line', out)
    check(re.search(r'^  port 1: ACTIVE, link layer Ethernet, '
                    r'active MTU 1024 \(max 4096\), GID table 16$', out,
                    re.M), 'port line', out)
    check(re.search(r'^    GID +0  fe80::1 +RoCE v2 +link-local$', out,
                    re.M), 'GID 0 link-local RoCE v2', out)
    check(re.search(r'^    GID +1  ::ffff:192\.0\.2\.1 +RoCE v2 +'
                    r'IPv4-mapped$', out, re.M), 'GID 1 IPv4-mapped', out)
    # Empty slots are not listed.
    check(len(re.findall(r'^    GID ', out, re.M)) == 2, 'two GIDs', out)
    check('verbs devargs: dev=hca0,port=1 (automatic GID 1: '
          'IPv4-mapped RoCE v2)' in out, 'automatic choice', out)

    # What the model is configured with, not a fixed text.
    r = run([], PMR_HCA_DEVICE='rxe7', PMR_HCA_MTU='4096')
    check(r.returncode == 0, 'renamed: exit 0', r.stdout + r.stderr)
    check(re.search(r'^rxe7: ', r.stdout, re.M), 'renamed device',
          r.stdout)
    check('active MTU 4096 (max 4096)' in r.stdout, 'MTU 4096', r.stdout)
    check('dev=rxe7,port=1' in r.stdout, 'renamed devargs', r.stdout)

    r = run(['hca0'])
    check(r.returncode == 0 and 'hca0:' in r.stdout, 'named device',
          r.stdout + r.stderr)
    r = run(['nope'])
    check(r.returncode == 1 and "no RDMA device 'nope'" in r.stderr,
          'missing device', r.stdout + r.stderr)
    r = run(['-x'])
    check(r.returncode == 2 and 'usage' in r.stderr, 'usage',
          r.stdout + r.stderr)
    print('ok')


if __name__ == '__main__':
    main()
