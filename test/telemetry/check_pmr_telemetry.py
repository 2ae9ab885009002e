#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The pmrpc authors
"""devtools/pmr-telemetry.py against real processes.

    check_pmr_telemetry.py   (RPCPERF: the rpcperf binary, PMR_TELEMETRY:
                              the script)

Two in-process rpcperf runs (a server and a client worker each) share a
file prefix of their own, so that their sockets are dpdk_telemetry.v2 and
dpdk_telemetry.v2:1. Through the script: -l lists both with their pids;
/pmrpc/workers, /pmrpc/worker,<id> and /pmrpc/nexus of each instance
parse as JSON and say what the process does (worker ids, requests sent
by the client and handled by the server, the nexus's URI and workers);
commands from stdin; a bad worker id gives a null reply and exit status
1; an instance or a prefix that does not exist, and a process that has
exited, exit 2 with a message saying so.

EAL arguments: PMR_TEST_EAL_ARGS if set (as the cmocka tests take it),
else "-l 0-1 --no-pci --no-huge -m 512 --no-shconf".
"""

import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

RPCPERF = os.environ.get('RPCPERF', 'rpcperf')
SCRIPT = os.environ.get('PMR_TELEMETRY', 'devtools/pmr-telemetry.py')
EAL = os.environ.get('PMR_TEST_EAL_ARGS',
                     '-l 0-1 --no-pci --no-huge -m 512 --no-shconf').split()
PREFIX = 'pmrtel%d' % os.getpid()
WAIT = 120      # seconds, for a loaded machine
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print('FAIL: ' + what)
    return cond


def tel(*args, stdin=None):
    """Run the script: (exit status, stdout, stderr)."""
    p = subprocess.run([sys.executable, SCRIPT] + list(args),
                       input=stdin, capture_output=True, text=True,
                       timeout=60)
    return p.returncode, p.stdout, p.stderr


def replies(out):
    return [json.loads(line) for line in out.splitlines() if line]


def start_rpcperf():
    cmd = [RPCPERF] + EAL + ['--file-prefix=' + PREFIX, '--',
                             '-w', 'rate', '-n', '1000000000', '-q']
    return subprocess.Popen(cmd, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)


def wait_for(what, fn):
    """Poll fn() until it returns something true; that, or None."""
    end = time.monotonic() + WAIT
    while time.monotonic() < end:
        v = fn()
        if v:
            return v
        time.sleep(0.2)
    check(False, 'timed out waiting for ' + what)
    return None


def stats(inst, worker):
    rc, out, _ = tel('-f', PREFIX, '-i', str(inst),
                     '/pmrpc/worker,%d' % worker)
    return replies(out)[0]['/pmrpc/worker'] if rc == 0 else None


def check_instance(inst, proc):
    # The process is up, with its two workers, and they are working.
    def workers():
        rc, out, _ = tel('-f', PREFIX, '-i', str(inst), '/pmrpc/workers')
        return rc == 0 and replies(out)[0]['/pmrpc/workers'] == [0, 1]

    if not wait_for('instance %d\'s workers 0 and 1' % inst, workers):
        return
    wait_for('instance %d\'s client to complete requests' % inst,
             lambda: (stats(inst, 1) or {}).get('reqs_completed', 0) > 0)

    rc, out, err = tel('-f', PREFIX, '-i', str(inst), '/pmrpc/workers',
                       '/pmrpc/worker,0', '/pmrpc/worker,1', '/pmrpc/nexus',
                       '/info')
    check(rc == 0, 'instance %d: exit status %d: %s' % (inst, rc, err))
    r = replies(out)
    if not check(len(r) == 5, 'instance %d: %d replies, not 5: %s'
                 % (inst, len(r), out)):
        return
    srv, cli = r[1]['/pmrpc/worker'], r[2]['/pmrpc/worker']
    nx, info = r[3]['/pmrpc/nexus'], r[4]['/info']
    check(r[0] == {'/pmrpc/workers': [0, 1]}, 'instance %d: %r'
          % (inst, r[0]))
    check(srv['worker_id'] == 0 and cli['worker_id'] == 1,
          'instance %d: worker ids %r %r' % (inst, srv['worker_id'],
                                             cli['worker_id']))
    check(cli['reqs_sent'] > 0 and cli['reqs_completed'] > 0,
          'instance %d: the client sent %d, completed %d' % (
              inst, cli['reqs_sent'], cli['reqs_completed']))
    check(srv['reqs_handled'] > 0, 'instance %d: the server handled %d'
          % (inst, srv['reqs_handled']))
    check(cli['sessions_in_use'] > 0, 'instance %d: no session in use'
          % inst)
    check(nx['uri'] == cli['nexus'] == srv['nexus'],
          'instance %d: nexus %r, the workers say %r %r' % (
              inst, nx['uri'], srv['nexus'], cli['nexus']))
    check(nx['workers'] == [0, 1] and nx['sessions_accepted'] > 0,
          'instance %d: /pmrpc/nexus %r' % (inst, nx))
    check(info['pid'] == proc.pid, 'instance %d: pid %r, not %d'
          % (inst, info['pid'], proc.pid))

    # Commands from stdin, one reply a line; a bad worker id fails.
    rc, out, err = tel('-f', PREFIX, '-i', str(inst),
                       stdin='/pmrpc/workers\n\n/pmrpc/worker,999\n')
    check(rc == 1, 'instance %d, a bad worker id: exit status %d'
          % (inst, rc))
    check(replies(out) == [{'/pmrpc/workers': [0, 1]},
                           {'/pmrpc/worker': None}],
          'instance %d, stdin: %r' % (inst, out))
    check('/pmrpc/worker,999' in err, 'instance %d, a bad worker id: '
          'stderr %r' % (inst, err))


def main():
    procs = []
    try:
        procs.append(start_rpcperf())
        # The second with the same prefix gets the socket ...v2:1; start
        # it once the first has its socket.
        wait_for('the first process\'s socket', lambda: tel(
            '-f', PREFIX, '/info')[0] == 0)
        procs.append(start_rpcperf())
        wait_for('the second process\'s socket', lambda: tel(
            '-f', PREFIX, '-i', '1', '/info')[0] == 0)
        for inst, p in enumerate(procs):
            check(p.poll() is None, 'rpcperf %d exited early: %s'
                  % (inst, p.stderr.read() if p.poll() is not None
                     else ''))
            check_instance(inst, p)

        rc, out, _ = tel('-l')
        check(rc == 0, '-l: exit status %d' % rc)
        for inst, p in enumerate(procs):
            check(re.search(r'^%s +%d +%d ' % (PREFIX, inst, p.pid), out,
                            re.M) is not None,
                  '-l: no line for instance %d (pid %d): %s'
                  % (inst, p.pid, out))

        rc, _, err = tel('-f', PREFIX, '-i', '2', '/pmrpc/workers')
        check(rc == 2 and 'instances 0, 1, not 2' in err,
              '-i 2: exit status %d, %r' % (rc, err))
        rc, _, err = tel('-f', PREFIX + 'x', '/pmrpc/workers')
        check(rc == 2 and 'no pmrpc/DPDK process with file prefix %sx is '
              'running' % PREFIX in err, 'a prefix nobody uses: exit '
              'status %d, %r' % (rc, err))
    finally:
        for p in procs:
            if p.poll() is None:
                p.send_signal(signal.SIGKILL)
            p.wait()

    # Gone: the socket files stay, nobody answers.
    rc, _, err = tel('-f', PREFIX, '/pmrpc/workers')
    check(rc == 2 and 'no pmrpc/DPDK process with file prefix %s is '
          'running' % PREFIX in err, 'after exit: exit status %d, %r'
          % (rc, err))
    rc, out, _ = tel('-l')
    check(re.search(r'^%s +0 +- +\(stale\)' % PREFIX, out, re.M)
          is not None, '-l after exit: %s' % out)

    for d in glob.glob('/var/run/dpdk/%s' % PREFIX) + \
            glob.glob('/tmp/dpdk/%s' % PREFIX) + \
            glob.glob('/run/user/*/dpdk/%s' % PREFIX):
        shutil.rmtree(d, ignore_errors=True)
    if failures:
        print('%d failure(s)' % len(failures))
        return 1
    print('ok')
    return 0


if __name__ == '__main__':
    sys.exit(main())
