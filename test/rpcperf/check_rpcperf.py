#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The pmrpc authors
"""Run rpcperf itself and check what it says, never how fast.

    check_rpcperf.py MODE      (RPCPERF: the binary)

MODE:
  args       bad arguments: exit status 2 and a message naming the value
  json       --json of a short run parsed against doc/rpcperf.md's schema;
             the deadline options said in it, a peer timeout the nexus
             refuses failing the run with a message
  workloads  each workload --help lists, a short run each: it completes,
             reports the iters asked for, and its --histogram CSV adds up
  progress   a run of over a second prints progress lines; -q none
  lcores     several client and server lcores: a row per client lcore,
             and a total that adds them up
  placement  --server and --connect in two processes over net_memif, two
             workers each: the server handled every request sent
  churn      short --connect runs one after the other against one
             --server over four net_memif pairs: the server lives
             through each client going, and handled every request
  interactive  -i fed commands: start, show stats, stop prints a table,
             settings refused while running, quit
  signal     SIGTERM or SIGINT mid-run: the run stops with what it did
             (round trips done on stderr and in the JSON, exit 1, later
             workloads not run); a second signal ends the process
  faults     a bad --faults refused with exit status 2 before anything
             runs, in-process, --server and --connect; a good one runs
  remote_worker  a --connect with --remote-worker=1 against a --server
             of two workers over net_memif: worker 1 handled every request
  memif_alone  a --connect over a net_memif client with no server
             listening: exit status 2 and a message saying so
  plot       devtools/plot-histogram.py draws PNGs of a --histogram
             rpcperf wrote (matplotlib, MPLBACKEND=Agg)
  verbs      --driver=verbs in-process on the software HCA model
             (PMR_HCA_LIB preloaded): latency, rate, multi-packet
             bandwidth and drv-latency (inline and zero-copy) complete
             with every round trip counted and no drop; the model
             carried the packets; bad --driver, --driver-args and the
             eth-only ring refused with exit 2
  rdv        --rdv-threshold on the model (PMR_HCA_LIB), with memory
             windows and without: bandwidth at 64 KiB with 1 has every
             request read (reads, bytes, no fallback, no error), with off
             none; bad values refused with exit 2; rate at 64 KiB by READ
             both ways with --verify: no payload differs
  verify     --verify (RPCPERF_CORRUPT_BIN: rpcperf_corrupt, rpcperf with
             the tests' hook): every RPC workload at sizes from 0 to
             multi-packet checks every payload, none differs, its count
             in the JSON and the table (per lcore too); one byte changed
             in one echo, or in one request (echo and sink), is caught:
             counted once, said on stderr, exit 1; the same binary with
             nothing changed passes; --verify with --server refused

EAL arguments: PMR_TEST_EAL_ARGS if set (as the cmocka tests take it),
else "-l 0-1 --no-pci --no-huge -m 512 --no-shconf"; every rpcperf
process gets a runtime directory of its own (--file-prefix, removed at
exit), so that concurrent processes never see each other's sockets.
"""

import atexit
import csv
import glob
import itertools
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

RPCPERF = os.environ.get('RPCPERF', 'rpcperf')
EAL = os.environ.get('PMR_TEST_EAL_ARGS',
                     '-l 0-1 --no-pci --no-huge -m 512 --no-shconf').split()
ITERS = 2000
WARMUP = 100
failures = []

PREFIX = 'pmrpy%d' % os.getpid()
RUNTIME_BASE = ('/var/run/dpdk' if os.getuid() == 0 else
                os.path.join(os.environ.get('XDG_RUNTIME_DIR', '/tmp'),
                             'dpdk'))
_prefixes = itertools.count()


def own_prefix():
    """--file-prefix for one rpcperf process: a runtime directory of its
    own. A shared one makes each process starting connect to the others'
    telemetry sockets (DPDK's in-use check), starting threads in them."""
    return '--file-prefix=%s-%d' % (PREFIX, next(_prefixes))


@atexit.register
def _remove_runtime_dirs():
    for d in glob.glob(os.path.join(RUNTIME_BASE, PREFIX + '-*')):
        shutil.rmtree(d, ignore_errors=True)


def check(cond, what):
    if not cond:
        failures.append(what)
        print('FAIL: ' + what)
    return cond


def run(args, eal=True, timeout=300):
    cmd = ([RPCPERF] + (EAL + [own_prefix()] if eal else []) + ['--'] +
           args)
    start = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True,
                       timeout=timeout)
    p.seconds = time.monotonic() - start
    p.cmd = ' '.join(cmd)
    # A sanitizer build: its reports fail the test whatever the status.
    check(not re.search(r'Sanitizer|runtime error:', p.stderr),
          '%s: sanitizer report: %s' % (p.cmd, p.stderr[-3000:]))
    return p


def help_text():
    p = run(['--help'], eal=False)
    check(p.returncode == 0, '--help: exit status %d' % p.returncode)
    check(p.stderr == '', '--help: wrote to stderr: ' + p.stderr)
    return p.stdout


def help_section(text, title):
    """The lines of --help from "title:" to the next blank line."""
    lines = text.split('\n')
    start = lines.index(title + ':') + 1
    end = lines.index('', start)
    return lines[start:end]


def long_options(text):
    opts = []
    for line in help_section(text, 'Options'):
        m = re.match(r'^\s+(?:-\w, )?--([a-z][a-z-]*)', line)
        if m:
            opts.append(m.group(1))
    return opts


def workload_names(text):
    return [line.split()[0] for line in help_section(text, 'Workloads')
            if re.match(r'^  \S', line)]


def mode_args():
    text = help_text()
    check('Usage:' in text, '--help: no usage line')
    opts = long_options(text)
    check(len(opts) >= 15, '--help lists %d options' % len(opts))
    # "rpcperf --help", before any "--": rpcperf's usage, not EAL's.
    p = subprocess.run([RPCPERF, '--help'], capture_output=True, text=True,
                       timeout=60)
    check(p.returncode == 0 and p.stdout == text,
          'rpcperf --help (no "--"): exit %d, not the usage'
          % p.returncode)
    p = run(['-q', '-h'])
    check(p.returncode == 0 and 'Usage:' in p.stdout,
          '-h after other options: exit %d' % p.returncode)
    bad = [
        (['--size=abc'], 'rpcperf: --size=abc: expected a number from 0'),
        (['-n', '0'], 'rpcperf: --iters=0: expected a number from 1'),
        (['-c', '5000'], '--concurrency=5000: expected a number'),
        (['--credits=x'], '--credits=x: expected a number'),
        (['-w', 'ring,nosuch'], "unknown workload 'nosuch'"),
        (['--bogus'], 'unknown option --bogus'),
        (['--json=yes'], 'option --json takes no value'),
        (['--histogram='], '--histogram: needs a file name'),
        (['--iters'], 'option --iters needs a value'),
        (['-q', 'extra'], "unexpected argument 'extra'"),
        (['--histogram=/nonexistent/dir/h.csv', '-n', '1'],
         '--histogram=/nonexistent/dir/h.csv: No such file or directory'),
        (['--server-lcores=0', '-n', '1'], 'not the main lcore 0'),
        (['--server-lcores=1', '--client-lcores=1', '-n', '1'],
         'lcore 1 is in both --server-lcores and --client-lcores'),
        (['--client-lcores=7', '-n', '1'],
         '--client-lcores: lcore 7 is not one of EAL'),
        (['-i'], '-i needs a client lcore besides the main one'),
        (['-i', '--client-lcores=0'],
         '-i: the main lcore 0 runs the prompt, not a client'),
        (['--client-lcores=1', '-n', '1'], 'needs a server lcore'),
        (['--connect=127.0.0.1:9', '--devargs=port=0',
          '--client-lcores=0,1', '-w', 'latency'],
         '--connect: 1 --devargs for 2 client lcores: one each'),
        (['--server', '--devargs=port=0', '--server-lcores=0,1'],
         '2 server lcores for 1 workers'),
        (['--connect=127.0.0.1:9', '-w', 'ring'], 'needs --devargs'),
        # The in-process ring baseline asked for by name with --connect.
        (['--connect=127.0.0.1:9', '--devargs=port=7', '-w', 'ring'],
         'rpcperf: ring is an in-process baseline: not with --connect'),
        (['--connect=127.0.0.1:9', '--devargs=port=7',
          '--remote-worker=1x'],
         'rpcperf: --remote-worker=1x: expected worker ids from 0 to 1023'),
        (['--connect=127.0.0.1:9', '--devargs=port=7',
          '--remote-worker=1024'], '--remote-worker=1024: expected'),
        (['--connect=127.0.0.1:9', '--devargs=port=7',
          '--remote-worker=0,'], '--remote-worker=0,: expected'),
        (['--connect=127.0.0.1:9', '--devargs=port=7',
          '--remote-workers=2', '--remote-worker=2'],
         'rpcperf: --remote-worker: worker 2 is not one of '
         '--remote-workers=2'),
        (['--connect=127.0.0.1:9', '--devargs=port=7',
          '--remote-worker=0,1'],
         'rpcperf: --remote-worker: 2 worker ids for 1 client lcores'),
        (['--remote-worker=0', '-n', '1'],
         'rpcperf: --remote-worker goes with --connect'),
        (['--driver=nosuch', '-n', '1'],
         'rpcperf: --driver=nosuch: no such driver; this build has: eth'),
        # No -w: --connect's default list leaves ring out and goes on
        # to the port (issue 11).
        (['--connect=127.0.0.1:9', '--devargs=port=7'],
         "rpcperf: eth worker 0 on 'port=7': No such device"),
        (['--server', '--devargs=port=7'],
         "rpcperf: eth worker 0 on 'port=7': No such device"),
        (['--connect=127.0.0.1:9', '--devargs=port=7', '-w', 'latency'],
         "rpcperf: eth worker 0 on 'port=7': No such device"),
    ]
    for args, msg in bad:
        p = run(args)
        check(p.returncode == 2, '%s: exit status %d, not 2'
              % (' '.join(args), p.returncode))
        check(msg in p.stderr, '%s: stderr lacks "%s": %s'
              % (' '.join(args), msg, p.stderr[-500:]))
        check(p.stdout == '', '%s: wrote to stdout: %s'
              % (' '.join(args), p.stdout))

    # A bad EAL option: EAL's reason and rpcperf's line on stderr, not
    # EAL's ~80 lines of usage on stdout (issue 11).
    p = subprocess.run([RPCPERF] + EAL + [own_prefix(),
                        '--no-such-eal-option', '--',
                                          '-n', '1'],
                       capture_output=True, text=True, timeout=60)
    check(p.returncode == 2, 'bad EAL option: exit %d' % p.returncode)
    check(p.stdout == '', 'bad EAL option: stdout: %s' % p.stdout[:500])
    lines = p.stderr.splitlines()
    check(len(lines) <= 10 and 'rpcperf: EAL init failed' in p.stderr and
          'no-such-eal-option' in p.stderr,
          'bad EAL option: %d lines on stderr: %s'
          % (len(lines), p.stderr[-2000:]))


RESULT_KEYS = {'workload', 'bytes', 'iters', 'min_us', 'p50_us', 'p90_us',
               'p99_us', 'p999_us', 'max_us', 'mean_us', 'mrps', 'gbps',
               'retransmissions', 'drops', 'done', 'timeouts',
               'sessions_reset', 'verify_errors'}
LCORE_KEYS = RESULT_KEYS - {'workload'} | {'lcore'}
RESULT_KEYS = RESULT_KEYS | {'lcores', 'nexus'}
# The RPC workloads' counters: integers, null for the baselines.
RPC_KEYS = ('done', 'timeouts', 'sessions_reset')
BASELINES = ('ring', 'memcpy', 'drv-latency')
NEXUS_KEYS = {'peers_dead', 'sessions_reset', 'alive_by_data'}
PATH_KEYS = {'reads', 'read_bytes', 'read_errors', 'descs_sent',
             'fallbacks', 'copied_bytes'}
RATIO_KEYS = {'workload', 'baseline', 'p50', 'p99'}
# Options that are not config keys of the same name.
CONFIG_NAME = {'workload': 'workloads', 'server': 'mode'}


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def is_num(v):
    return (isinstance(v, (int, float)) and not isinstance(v, bool))


def check_doc(d, args, opts, where):
    """d against the schema; args: the options of the run."""
    check(set(d) == {'version', 'tool', 'config', 'results', 'ratios'},
          where + ': top-level keys ' + str(sorted(d)))
    check(d.get('version') == 2, where + ': version')
    check(d.get('tool') == 'rpcperf', where + ': tool')
    cfg = d['config']
    # Every option of --help, but --help, under its name with _ for -.
    want = {CONFIG_NAME.get(o, o.replace('-', '_'))
            for o in opts if o != 'help'}
    check(set(cfg) == want, where + ': config keys %s, options %s'
          % (sorted(cfg), sorted(want)))
    for k in ('size', 'iters', 'warmup', 'concurrency', 'sessions',
              'credits', 'rto_us', 'req_timeout_ms', 'peer_timeout_ms',
              'remote_workers', 'duration'):
        check(is_int(cfg.get(k)), where + ': config.%s not an int' % k)
    for k in ('server_lcores', 'client_lcores'):
        # --connect: the server's lcores are elsewhere.
        empty_ok = k == 'server_lcores' and cfg.get('mode') == 'client'
        check(isinstance(cfg.get(k), list) and
              (empty_ok or len(cfg[k]) >= 1) and
              all(is_int(x) for x in cfg[k]),
              where + ': config.%s: %s' % (k, cfg.get(k)))
    check(cfg.get('mode') in ('in-process', 'client'), where + ': mode')
    check(isinstance(cfg.get('devargs'), list), where + ': devargs')
    for k in ('quiet', 'json', 'interactive', 'verify'):
        check(isinstance(cfg.get(k), bool), where + ': config.%s' % k)
    for k in ('faults', 'histogram', 'nexus', 'connect'):
        check(cfg.get(k) is None or isinstance(cfg.get(k), str),
              where + ': config.%s' % k)
    for k in ('driver', 'driver_args', 'eth_args'):
        check(isinstance(cfg.get(k), str), where + ': config.' + k)
    check(cfg.get('workloads') == args['workloads'],
          where + ': config.workloads %s' % cfg.get('workloads'))
    check(cfg.get('iters') == args['iters'], where + ': config.iters')
    check(cfg.get('warmup') == args['warmup'], where + ': config.warmup')
    check(cfg.get('json') is True, where + ': config.json')

    res = d['results']
    check([r.get('workload') for r in res] == args['workloads'],
          where + ': results in the order asked')
    for r in res:
        w = '%s: %s' % (where, r.get('workload'))
        # RPC workloads say the path their large messages took.
        want = RESULT_KEYS | ({'path'} if r.get('workload') not in
                              BASELINES else set())
        check(set(r) == want, w + ': keys ' + str(sorted(r)))
        if 'path' in want:
            check(set(r['path']) == PATH_KEYS and
                  all(is_int(v) for v in r['path'].values()),
                  w + ': path ' + str(r['path']))
        check(is_int(r['bytes']) and is_int(r['iters']) and
              is_int(r['retransmissions']) and is_int(r['drops']),
              w + ': integer fields')
        # RPC workloads' counters; --verify's errors only with it.
        rpc = r.get('workload') not in BASELINES
        for x in [r] + r.get('lcores', []):
            check(all(is_int(x[k]) if rpc else x[k] is None
                      for k in RPC_KEYS),
                  w + ': %s' % {k: x[k] for k in RPC_KEYS})
            check(is_int(x['verify_errors']) if rpc and cfg['verify']
                  else x['verify_errors'] is None,
                  w + ': verify_errors %s' % x['verify_errors'])
        if rpc:
            check(isinstance(r['nexus'], dict) and
                  set(r['nexus']) == NEXUS_KEYS and
                  all(is_int(v) for v in r['nexus'].values()),
                  w + ': nexus %s' % r['nexus'])
            check(r['iters'] == 0 or
                  r['done'] == (args['iters'] + args['warmup']) *
                  len(r['lcores']),
                  w + ': done %d' % r['done'])
        else:
            check(r['nexus'] is None, w + ': nexus %s' % r['nexus'])
        nums = [r[k] for k in ('min_us', 'p50_us', 'p90_us', 'p99_us',
                               'p999_us', 'max_us')]
        if not check(all(is_num(v) for v in nums + [r['mean_us'],
                                                    r['mrps'], r['gbps']]),
                     w + ': number fields'):
            continue
        if r['iters'] == 0:		# a workload that failed
            continue
        check(nums == sorted(nums), w + ': percentiles out of order %s'
              % nums)
        check(nums[0] <= r['mean_us'] <= nums[-1], w + ': mean')
        check(r['mrps'] > 0 and r['gbps'] >= 0, w + ': rate')
        # A row per client lcore: as many as there are client lcores.
        rows = r['lcores']
        check(len(rows) in (1, len(cfg['client_lcores'])),
              w + ': %d lcore rows' % len(rows))
        for x in rows:
            check(set(x) == LCORE_KEYS, w + ': lcore row keys '
                  + str(sorted(x)))
        if len(rows) == 1:
            check(rows[0]['iters'] == r['iters'] and
                  rows[0]['p50_us'] == r['p50_us'],
                  w + ': the one lcore row is not the total')
    return res


def mode_json():
    opts = long_options(help_text())
    wls = ['ring', 'latency', 'rate', 'memcpy']
    p = run(['--json', '-n', str(ITERS), '--warmup', str(WARMUP), '-w',
             ','.join(wls)])
    check(p.returncode == 0, 'json run: exit %d: %s'
          % (p.returncode, p.stderr[-2000:]))
    try:
        d = json.loads(p.stdout)	# all of stdout: nothing else there
    except ValueError as e:
        check(False, 'json run: stdout is not JSON (%s): %s'
              % (e, p.stdout[:2000]))
        return
    res = check_doc(d, {'workloads': wls, 'iters': ITERS,
                        'warmup': WARMUP}, opts, 'json run')
    for r in res:
        check(r['iters'] == ITERS, '%s: iters %d, asked %d'
              % (r['workload'], r['iters'], ITERS))
        check(r['bytes'] == 32, '%s: bytes' % r['workload'])
    by = {r['workload']: r for r in res}
    # Ratios: the one-at-a-time RPC workloads to ring; here latency only.
    check([x.get('workload') for x in d['ratios']] == ['latency'],
          'ratios: %s' % d['ratios'])
    for x in d['ratios']:
        check(set(x) == RATIO_KEYS, 'ratio keys ' + str(sorted(x)))
        check(x['baseline'] == 'ring', 'ratio baseline')
        for k in ('p50', 'p99'):
            want = by[x['workload']][k + '_us'] / by['ring'][k + '_us']
            check(abs(x[k] - want) <= 1e-6 * want,
                  'ratio %s %s: %s, want %s' % (x['workload'], k, x[k],
                                                want))
    print('json run: %d results, %d ratios' % (len(res), len(d['ratios'])))

    # A workload that fails: exit 1, still one JSON document, iters 0.
    # (A --histogram name with a quote and a backslash: JSON escapes.)
    tmp = tempfile.mkdtemp(prefix='rpcperf-json.')
    hist = os.path.join(tmp, 'a"b\\c.csv')
    p = run(['--json', '-q', '-n', '100', '--warmup', '0', '-s', '100000',
             '-w', 'ring,drv-latency', '--histogram=' + hist])
    shutil.rmtree(tmp, ignore_errors=True)
    check(p.returncode == 1, 'failing run: exit %d' % p.returncode)
    try:
        d = json.loads(p.stdout)
        res = check_doc(d, {'workloads': ['ring', 'drv-latency'],
                            'iters': 100, 'warmup': 0}, opts,
                        'failing run')
        check([r['iters'] for r in res] == [100, 0],
              'failing run: iters %s' % [r['iters'] for r in res])
        check(d['config']['histogram'] == hist, 'failing run: histogram')
        check(d['ratios'] == [], 'failing run: ratios %s' % d['ratios'])
    except ValueError as e:
        check(False, 'failing run: not JSON (%s): %s' % (e, p.stdout))

    # The deadlines reach the workers and the nexus: a run with them
    # completes and says them; a peer timeout the nexus refuses (not
    # over its heartbeat interval) fails the run, saying why.
    p = run(['--json', '-q', '-n', '100', '--warmup', '0', '-w', 'latency',
             '--req-timeout-ms=3000', '--timeout-per-mib-ms=off',
             '--peer-timeout-ms=2000'])
    check(p.returncode == 0, 'deadlines run: exit %d: %s'
          % (p.returncode, p.stderr[-2000:]))
    try:
        c = json.loads(p.stdout)['config']
        check((c['req_timeout_ms'], c['timeout_per_mib_ms'],
               c['peer_timeout_ms']) == (3000, 'off', 2000),
              'deadlines run: config %s' % c)
    except (ValueError, KeyError) as e:
        check(False, 'deadlines run: not JSON (%s): %s' % (e, p.stdout))
    p = run(['-q', '-n', '100', '--warmup', '0', '-w', 'latency',
             '--peer-timeout-ms=100'])
    check(p.returncode == 1 and '--peer-timeout-ms=100: the nexus wants '
          'more than its heartbeat interval' in p.stderr,
          'peer timeout refused: exit %d: %s' % (p.returncode,
                                                 p.stderr[-2000:]))


def check_csv(path, wl, p50):
    with open(path, newline='') as f:
        rows = list(csv.reader(f))
    check(rows[0] == ['workload', 'percentile', 'latency_us'],
          path + ': header %s' % rows[0])
    rows = [r for r in rows[1:] if r[0] == wl]
    # ITERS samples: 0 to 100 in 0.1 steps, no tail points (under 10^4).
    check(len(rows) == 1001, '%s: %d rows for %s' % (path, len(rows), wl))
    pct = [float(r[1]) for r in rows]
    lat = [float(r[2]) for r in rows]
    check(pct[0] == 0 and pct[-1] == 100 and pct == sorted(pct),
          path + ': percentiles')
    check(lat == sorted(lat), path + ': latencies not ascending')
    check(dict(zip(pct, lat)).get(50.0) == p50,
          '%s: p50 %s, JSON says %s' % (path, dict(zip(pct, lat)).get(50.0),
                                        p50))


def mode_workloads():
    text = help_text()
    opts = long_options(text)
    wls = workload_names(text)
    check(len(wls) >= 5, '--help lists %d workloads' % len(wls))
    with tempfile.TemporaryDirectory() as tmp:
        for wl in wls:
            hist = os.path.join(tmp, wl + '.csv')
            p = run(['--json', '-q', '-n', str(ITERS), '--warmup',
                     str(WARMUP), '-w', wl, '--histogram=' + hist])
            if not check(p.returncode == 0, '%s: exit %d: %s'
                         % (wl, p.returncode, p.stderr[-2000:])):
                continue
            try:
                d = json.loads(p.stdout)
            except ValueError as e:
                check(False, '%s: not JSON (%s)' % (wl, e))
                continue
            res = check_doc(d, {'workloads': [wl], 'iters': ITERS,
                                'warmup': WARMUP}, opts, wl)
            check(len(res) == 1 and res[0]['iters'] == ITERS,
                  '%s: iters %s, asked %d'
                  % (wl, [r['iters'] for r in res], ITERS))
            check(not re.search(r'^rpcperf: \S+ \d+/\d+ ', p.stderr, re.M),
                  '%s: progress line with -q' % wl)
            check_csv(hist, wl, res[0]['p50_us'])
            with open(os.path.join(tmp, wl + '.rate.csv')) as f:
                check(f.readline() == 'workload,time_s,done,mrps\n',
                      wl + ': rate CSV header')
            print('%s: %d round trips, %.1f s' % (wl, res[0]['iters'],
                                                 p.seconds))


def mode_progress():
    line = re.compile(r'^rpcperf: latency (\d+)/(\d+) \((\d+)%\), '
                      r'[0-9.]+ [Mk]?/s$', re.M)
    n = 50000
    for attempt in range(3):
        p = run(['-w', 'latency', '-n', str(n), '--warmup', '0'])
        check(p.returncode == 0, 'progress run: exit %d' % p.returncode)
        lines = line.findall(p.stderr)
        # Over 2.5 s there must be lines. Too short to tell: aim at 3.5 s.
        if lines or p.seconds > 2.5:
            break
        n = int(n * 3.5 / max(p.seconds, 0.1))
    if p.seconds > 2.5:
        check(lines, 'no progress line in %.1f s: %s'
              % (p.seconds, p.stderr[-2000:]))
    done = [int(x[0]) for x in lines]
    check(done == sorted(done), 'progress not increasing: %s' % done)
    check(all(int(x[1]) == n and int(x[0]) <= n for x in lines),
          'progress totals: %s' % lines)
    print('progress: %d lines in %.1f s' % (len(lines), p.seconds))
    p = run(['-q', '-w', 'latency', '-n', str(n), '--warmup', '0'])
    check(p.returncode == 0, 'quiet run: exit %d' % p.returncode)
    check(not line.search(p.stderr), 'progress line with -q')
    check('rpcperf: running' not in p.stderr, 'banner with -q')


def running(extra):
    """rpcperf with EAL's args and extra, once its first progress line says
    the latency workload runs; None (and a failure) if it never does."""
    cmd = [RPCPERF] + EAL + [own_prefix(), '--'] + extra
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    killer = threading.Timer(120, p.kill)
    killer.start()
    seen = []
    for line in p.stderr:
        seen.append(line)
        if re.match(r'^rpcperf: latency \d+/', line):
            break
    killer.cancel()
    if check(p.poll() is None, '%s: not running: %s'
             % (' '.join(cmd), ''.join(seen)[-2000:])):
        return p
    p.communicate()
    return None


def mode_signal():
    """SIGTERM or SIGINT mid-run: the clients stop, the run ends with what
    it did (its JSON with the round trips done, stderr says how many, exit
    1) and the workloads after it do not run. A second signal ends it."""
    n = 100000000
    total = n + WARMUP
    for sig in (signal.SIGTERM, signal.SIGINT):
        p = running(['-w', 'latency,rate', '-n', str(n), '--warmup',
                     str(WARMUP), '--json'])
        if p is None:
            continue
        time.sleep(0.5)
        p.send_signal(sig)
        try:
            out, err = p.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            p.kill()
            out, err = p.communicate()
            check(False, '%s: still running 120 s after it' % sig.name)
            continue
        check(p.returncode == 1, '%s: exit %d, not 1: %s'
              % (sig.name, p.returncode, err[-2000:]))
        m = re.search(r'^rpcperf: latency: stopped by a signal after (\d+) '
                      r'of (\d+) round trips$', err, re.M)
        if not check(m, '%s: no "stopped" line: %s'
                     % (sig.name, err[-2000:])):
            continue
        done = int(m.group(1))
        check(0 < done < total and int(m.group(2)) == total,
              '%s: %s' % (sig.name, m.group(0)))
        try:
            results = json.loads(out)['results']
        except (ValueError, KeyError) as e:
            check(False, '%s: JSON: %s: %s' % (sig.name, e, out[-2000:]))
            continue
        check([r['workload'] for r in results] == ['latency'],
              '%s: workloads in the JSON: %s'
              % (sig.name, [r['workload'] for r in results]))
        check(results[0]['done'] == done,
              '%s: JSON done %s, stderr %d'
              % (sig.name, results[0]['done'], done))
        print('%s: stopped after %d of %d round trips'
              % (sig.name, done, total))
    # Two signals at once: the second ends the process as it would have.
    p = running(['-w', 'latency', '-n', str(n), '--json'])
    if p is not None:
        p.send_signal(signal.SIGINT)
        p.send_signal(signal.SIGTERM)
        p.communicate(timeout=120)
        check(p.returncode in (-signal.SIGINT, -signal.SIGTERM),
              'two signals: exit %d, not by the signal' % p.returncode)


def eal_lcores(spec):
    """EAL's arguments with --lcores=spec for its lcore options."""
    out, skip = [], False
    for a in EAL:
        if skip:
            skip = False
        elif a in ('-l', '-c', '--lcores'):
            skip = True
        elif not a.startswith(('-l', '--lcores=')):
            out.append(a)
    return out + ['--lcores=' + spec]


def mode_lcores():
    opts = long_options(help_text())
    # Four lcores on whatever CPUs there are: idle pollers yield.
    eal = eal_lcores('(0-3)@(0-1)')
    cases = [
        (['latency', 'rate', 'sessions'], '0,2', '1,3', [0, 2]),
        (['rate', 'mixed'], '0,2-3', '1', [0, 2, 3]),
    ]
    for wls, cl, sl, ids in cases:
        args = ['--json', '-q', '-n', str(ITERS), '--warmup', str(WARMUP),
                '-w', ','.join(wls), '--client-lcores=' + cl,
                '--server-lcores=' + sl, '-c', '8', '--sessions', '4']
        cmd = [RPCPERF, own_prefix()] + eal + ['--'] + args
        p = subprocess.run(cmd, capture_output=True, text=True,
                           timeout=300)
        where = 'clients %s, servers %s' % (cl, sl)
        check(not re.search(r'Sanitizer|runtime error:', p.stderr),
              where + ': sanitizer report: ' + p.stderr[-3000:])
        if not check(p.returncode == 0, '%s: exit %d: %s'
                     % (where, p.returncode, p.stderr[-2000:])):
            continue
        d = json.loads(p.stdout)
        res = check_doc(d, {'workloads': wls, 'iters': ITERS,
                            'warmup': WARMUP}, opts, where)
        check(d['config']['client_lcores'] == ids,
              where + ': client_lcores %s' % d['config']['client_lcores'])
        for r in res:
            w = '%s: %s' % (where, r['workload'])
            rows = r['lcores']
            check([x['lcore'] for x in rows] == ids,
                  w + ': rows of lcores %s' % [x['lcore'] for x in rows])
            check(all(x['iters'] == ITERS for x in rows),
                  w + ': row iters %s' % [x['iters'] for x in rows])
            check(r['iters'] == ITERS * len(ids), w + ': total iters %d'
                  % r['iters'])
            for k in ('mrps', 'gbps'):
                total = sum(x[k] for x in rows)
                check(abs(r[k] - total) <= 1e-6 * total,
                      w + ': %s %s, rows add to %s' % (k, r[k], total))
            for k in ('retransmissions', 'drops'):
                check(r[k] == sum(x[k] for x in rows), w + ': ' + k)
            check(r['min_us'] == min(x['min_us'] for x in rows) and
                  r['max_us'] == max(x['max_us'] for x in rows),
                  w + ': min and max of the rows')
        # The table: a row per lcore, then the total, for each workload.
        p = subprocess.run([RPCPERF, own_prefix()] + eal + ['--'] +
                           [a for a in args if a != '--json'],
                           capture_output=True, text=True, timeout=300)
        # Not the histograms' lines, nor bandwidth's and mixed's path
        # counters ("mixed path: reads ...").
        names = [line.split()[0] for line in p.stdout.splitlines()[1:]
                 if line and not line.startswith(('latency/', 'rate/'))
                 and line.split()[1:2] != ['path:']]
        want = []
        for wl in wls:
            want += ['%s@%d' % (wl, i) for i in ids] + [wl]
        check(p.returncode == 0 and names == want,
              where + ': table rows %s, want %s' % (names, want))
        print('%s: %s' % (where, ', '.join('%s %d' % (r['workload'],
                                                      r['iters'])
                                            for r in res)))


def have_hugepages():
    try:
        with open('/proc/sys/vm/nr_hugepages') as f:
            return int(f.read()) > 0
    except (OSError, ValueError):
        return False


def mode_placement():
    """A --server process and a --connect process over two memif pairs."""
    if not have_hugepages():
        # memif between processes needs shared hugepage memory.
        if os.environ.get('PMR_REQUIRE_NETNS') == '1':
            check(False, 'placement: no hugepages')
            return
        print('SKIP: placement needs hugepages')
        sys.exit(77)
    opts = long_options(help_text())
    tmp = tempfile.mkdtemp(prefix='rpcperf-mp.')
    eal = ['--no-pci', '--in-memory', '--log-level=lib.eal:error']
    vdevs = lambda role: [
        '--vdev=net_memif%d,role=%s,socket=%s/m%d.sock,id=0'
        % (i, role, tmp, i) for i in range(2)]
    srv_log = open(os.path.join(tmp, 'server.log'), 'w+')
    srv = subprocess.Popen(
        [RPCPERF, '-l', '0', own_prefix()] + eal + vdevs('server') +
        ['--', '--server', '--nexus=127.0.0.1:0',
         '--devargs=port=0,ip=10.7.0.1', '--devargs=port=1,ip=10.7.1.1'],
        stdout=subprocess.PIPE, stderr=srv_log, text=True)
    try:
        # Port 0: the kernel picks one, the ready line says which.
        ready = srv.stdout.readline()
        m = re.match(r'^ready: nexus 127\.0\.0\.1:(\d+), 2 workers on 1 '
                     r'lcores$', ready)
        if not check(m is not None, 'server: %r' % ready):
            return
        port = int(m.group(1))
        wls = ['latency', 'rate', 'bandwidth', 'mixed', 'memcpy']
        cmd = ([RPCPERF, '--lcores=(0-1)@1', own_prefix()] + eal +
               vdevs('client') +
               ['--', '--json', '-q', '--connect=127.0.0.1:%d' % port,
                '--devargs=port=0,ip=10.7.0.2',
                '--devargs=port=1,ip=10.7.1.2', '--client-lcores=0,1',
                '--remote-workers=2', '-w', ','.join(wls), '-n',
                str(ITERS), '--warmup', str(WARMUP), '-s', '2000',
                '-c', '8'])
        p = subprocess.run(cmd, capture_output=True, text=True,
                           timeout=300)
        check(not re.search(r'Sanitizer|runtime error:', p.stderr),
              'client: sanitizer report: ' + p.stderr[-3000:])
        if check(p.returncode == 0, 'client: exit %d: %s'
                 % (p.returncode, p.stderr[-2000:])):
            d = json.loads(p.stdout)
            res = check_doc(d, {'workloads': wls, 'iters': ITERS,
                                'warmup': WARMUP}, opts, 'client')
            check(d['config']['mode'] == 'client', 'client: mode')
            for r in res[:-1]:
                check(r['iters'] == 2 * ITERS and
                      [x['lcore'] for x in r['lcores']] == [0, 1],
                      'client: %s: iters %d, rows %s'
                      % (r['workload'], r['iters'], r['lcores']))
        srv.send_signal(signal.SIGINT)
        out, _ = srv.communicate(timeout=60)
        check(srv.returncode == 0, 'server: exit %d' % srv.returncode)
        # Each RPC workload sent warmup + iters per client lcore, to
        # worker 0 from lcore 0 and worker 1 from lcore 1, each at most
        # once (retransmissions are answered from the kept response).
        want = (len(wls) - 1) * (ITERS + WARMUP)
        rows = {line.split()[0]: line.split() for line in out.splitlines()
                if re.match(r'^(\d+|total) ', line)}
        for w in ('0', '1'):
            check(w in rows and int(rows[w][2]) == want,
                  'server worker %s: handled %s, want %d'
                  % (w, rows.get(w, ['?'] * 3)[2], want))
        check('total' in rows and int(rows['total'][1]) == 2 * want,
              'server total: %s' % rows.get('total'))
        print('placement: server handled %s requests' %
              rows.get('total', ['?', '?'])[1])

        # --duration: a server that stops by itself, its table all zero.
        p = subprocess.run(
            [RPCPERF, '-l', '0', own_prefix()] + eal +
            ['--vdev=net_memif9,role=server,socket=%s/d.sock' % tmp, '--',
             '--server', '--nexus=127.0.0.1:0', '--duration=1',
             '--devargs=port=0,ip=10.7.9.1'],
            capture_output=True, text=True, timeout=60)
        check(p.returncode == 0 and
              re.search(r'^total +0 +0 ', p.stdout, re.M) and
              'ready: nexus 127.0.0.1:' in p.stdout,
              '--duration=1: exit %d: %s %s' % (p.returncode, p.stdout,
                                                p.stderr[-1000:]))
    finally:
        if srv.poll() is None:
            srv.kill()
            srv.wait()
        srv_log.seek(0)
        log = srv_log.read()
        srv_log.close()
        check(not re.search(r'Sanitizer|runtime error:', log),
              'server: sanitizer report: ' + log[-3000:])
        if failures:
            print('--- server stderr\n' + log[-3000:])
        shutil.rmtree(tmp, ignore_errors=True)


def mode_remote_worker():
    """--remote-worker=1: the sessions of a --connect go to worker 1."""
    if not have_hugepages():
        print('SKIP: memif needs hugepages')
        sys.exit(77)
    opts = long_options(help_text())
    tmp = tempfile.mkdtemp(prefix='rpcperf-rw.')
    eal = ['--no-pci', '--in-memory', '--log-level=lib.eal:error']
    vdevs = lambda role, n: [
        '--vdev=net_memif%d,role=%s,socket=%s/m%d.sock,id=0'
        % (i, role, tmp, i) for i in range(n)]
    srv_log = open(os.path.join(tmp, 'server.log'), 'w+')
    srv = subprocess.Popen(
        [RPCPERF, '-l', '0', own_prefix()] +
        eal + vdevs('server', 2) +
        ['--', '--server', '--nexus=127.0.0.1:0',
         '--devargs=port=0,ip=10.7.0.1', '--devargs=port=1,ip=10.7.1.1'],
        stdout=subprocess.PIPE, stderr=srv_log, text=True)
    try:
        ready = srv.stdout.readline()
        m = re.match(r'^ready: nexus 127\.0\.0\.1:(\d+), 2 workers', ready)
        if not check(m is not None, 'server: %r' % ready):
            return
        # One client lcore, its port the memif pair of the server's
        # worker 1 (the vdev net_memif1 is the client's port 0).
        def client_run(port):
            return subprocess.run(
                # CPU 1: not sharing the server's polling CPU 0.
                [RPCPERF, '-l', '1',
                 own_prefix()] + eal +
                ['--vdev=net_memif1,role=client,socket=%s/m1.sock,id=0'
                 % tmp] +
                ['--', '--json', '-q', '--connect=127.0.0.1:%s' % port,
                 '--devargs=port=0,ip=10.7.1.2', '--remote-workers=2',
                 '--remote-worker=1', '-w', 'latency', '-n', str(ITERS),
                 '--warmup', str(WARMUP)],
                capture_output=True, text=True, timeout=300)

        # A client whose session found no data path (memif's link still
        # coming up: "Network is unreachable") sent no request: run it
        # again, at most three times; the counts below stay exact.
        for attempt in range(3):
            p = client_run(m.group(1))
            if (p.returncode == 0 or
                    'Network is unreachable' not in p.stderr):
                break
            print('client attempt %d: no data path yet' % attempt)
        check(not re.search(r'Sanitizer|runtime error:', p.stderr),
              'client: sanitizer report: ' + p.stderr[-3000:])
        if check(p.returncode == 0, 'client: exit %d: %s'
                 % (p.returncode, p.stderr[-2000:])):
            d = json.loads(p.stdout)
            check_doc(d, {'workloads': ['latency'], 'iters': ITERS,
                          'warmup': WARMUP}, opts, 'client')
            check(d['config']['remote_worker'] == [1],
                  'client: config.remote_worker %s'
                  % d['config'].get('remote_worker'))
        srv.send_signal(signal.SIGINT)
        out, _ = srv.communicate(timeout=60)
        check(srv.returncode == 0, 'server: exit %d' % srv.returncode)
        rows = {line.split()[0]: line.split() for line in out.splitlines()
                if re.match(r'^(\d+|total) ', line)}
        want = {'0': 0, '1': ITERS + WARMUP}
        for w in ('0', '1'):
            check(w in rows and int(rows[w][2]) == want[w],
                  'server worker %s: handled %s, want %d'
                  % (w, rows.get(w, ['?'] * 3)[2], want[w]))
    finally:
        if srv.poll() is None:
            srv.kill()
            srv.wait()
        srv_log.seek(0)
        log = srv_log.read()
        srv_log.close()
        check(not re.search(r'Sanitizer|runtime error:', log),
              'server: sanitizer report: ' + log[-3000:])
        if failures:
            print('--- server stderr\n' + log[-3000:])
        shutil.rmtree(tmp, ignore_errors=True)


def mode_memif_alone():
    """A --connect over a net_memif client with no server: it says so."""
    if not have_hugepages():
        print('SKIP: memif needs hugepages')
        sys.exit(77)
    tmp = tempfile.mkdtemp(prefix='rpcperf-memif.')
    try:
        sock = os.path.join(tmp, 'm0.sock')
        p = subprocess.run(
            [RPCPERF, '-l', '0', '--no-pci', '--in-memory',
             own_prefix(),
             '--log-level=lib.eal:error',
             '--vdev=net_memif0,role=client,socket=%s,id=0' % sock, '--',
             '-q', '--connect=127.0.0.1:9', '--devargs=port=0,ip=10.7.0.2'],
            capture_output=True, text=True, timeout=120)
        check(not re.search(r'Sanitizer|runtime error:', p.stderr),
              'memif alone: sanitizer report: ' + p.stderr[-3000:])
        check(p.returncode == 2, 'memif alone: exit %d' % p.returncode)
        check('memif client: no server listening on socket ' + sock in
              p.stderr and 'start the server first' in p.stderr,
              'memif alone: stderr: %s' % p.stderr[-2000:])
        check("rpcperf: eth worker 0 on 'port=0,ip=10.7.0.2': Connection "
              "refused (no server on its port's memif socket: start the "
              "server first)" in p.stderr,
              'memif alone: no rpcperf line: %s' % p.stderr[-2000:])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def mode_plot():
    """devtools/plot-histogram.py draws a PNG of rpcperf's --histogram."""
    # The script falls back on /usr/bin/python3 (Debian's matplotlib)
    # when the python3 first in PATH lacks it; so does this check.
    if not any(subprocess.run([py, '-c', 'import matplotlib'],
                              capture_output=True).returncode == 0
               for py in (sys.executable, '/usr/bin/python3')
               if os.access(py, os.X_OK)):
        print('SKIP: no python3-matplotlib')
        sys.exit(77)
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                          '..', '..', 'devtools', 'plot-histogram.py')
    tmp = tempfile.mkdtemp(prefix='rpcperf-plot.')
    try:
        hist = os.path.join(tmp, 'h.csv')
        p = run(['-q', '-w', 'ring,latency', '-n', str(ITERS),
                 '--warmup', str(WARMUP), '--histogram=' + hist])
        if not check(p.returncode == 0, 'rpcperf --histogram: exit %d: %s'
                     % (p.returncode, p.stderr[-2000:])):
            return
        env = dict(os.environ, MPLBACKEND='Agg')
        for extra, out in (([], os.path.join(tmp, 'h.png')),
                           (['--tail', '-o', os.path.join(tmp, 't.png')],
                            os.path.join(tmp, 't.png'))):
            q = subprocess.run([script, hist] + extra,
                               capture_output=True, text=True, env=env,
                               timeout=300)
            check(q.returncode == 0 and q.stdout.strip() == out,
                  'plot-histogram.py %s: exit %d: %s %s'
                  % (' '.join(extra), q.returncode, q.stdout,
                     q.stderr[-2000:]))
            try:
                with open(out, 'rb') as f:
                    magic = f.read(8)
            except OSError:
                magic = b''
            check(magic == b'\x89PNG\r\n\x1a\n',
                  '%s: not a PNG: %r' % (out, magic))
        # Not an rpcperf CSV: one line on stderr, ending in a newline.
        bad = os.path.join(tmp, 'bad.csv')
        with open(bad, 'w') as f:
            f.write('a,b\n1,2\n')
        q = subprocess.run([script, bad],
                           capture_output=True, text=True, env=env,
                           timeout=300)
        check(q.returncode != 0 and q.stderr.endswith('\n') and
              'not an rpcperf CSV' in q.stderr,
              'plot-histogram.py bad.csv: exit %d: %r'
              % (q.returncode, q.stderr))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def mode_churn():
    """Clients come and go; the server polls on through their goings."""
    if not have_hugepages():
        if os.environ.get('PMR_REQUIRE_NETNS') == '1':
            check(False, 'churn: no hugepages')
            return
        print('SKIP: churn needs hugepages')
        sys.exit(77)
    # A client going unmaps its memory from the server in the server's
    # EAL interrupt thread (net_memif's disconnect). With the server, its
    # threads and the clients all on one CPU, the client's exit wakes
    # that thread, which preempts the poller wherever it is: inside an rx
    # burst, it unmapped the ring the burst was reading (what gate.c now
    # keeps apart). Without the gate, 8 clients killed the server in each
    # of 11 runs on a 2-CPU machine, most often the first client.
    cpus = sorted(os.sched_getaffinity(0))
    srv_cpu = cpus[-1]
    nb_ports, nb_clients, iters = 4, 8, 100
    tmp = tempfile.mkdtemp(prefix='rpcperf-churn.')
    eal = ['--no-pci', '--in-memory', '--log-level=lib.eal:error']
    vdevs = lambda role: [
        '--vdev=net_memif%d,role=%s,socket=%s/m%d.sock,id=0'
        % (i, role, tmp, i) for i in range(nb_ports)]
    srv_log = open(os.path.join(tmp, 'server.log'), 'w+')
    srv = subprocess.Popen(
        [RPCPERF, '--lcores=0@%d' % srv_cpu, own_prefix()] + eal +
        vdevs('server') +
        ['--', '--server', '-q', '--nexus=127.0.0.1:0'] +
        ['--devargs=port=%d,ip=10.8.%d.1' % (i, i)
         for i in range(nb_ports)],
        stdout=subprocess.PIPE, stderr=srv_log, text=True,
        preexec_fn=lambda: os.sched_setaffinity(0, {srv_cpu}))
    try:
        ready = srv.stdout.readline()
        m = re.match(r'^ready: nexus 127\.0\.0\.1:(\d+), %d workers on 1 '
                     r'lcores$' % nb_ports, ready)
        if not check(m is not None, 'churn: server: %r' % ready):
            return
        cmd = ([RPCPERF, '--lcores=(0-%d)@%d' % (nb_ports - 1, srv_cpu),
                own_prefix()] +
               eal + vdevs('client') +
               ['--', '-q', '--connect=127.0.0.1:%s' % m.group(1),
                '--client-lcores=0-%d' % (nb_ports - 1),
                '--remote-workers=%d' % nb_ports, '-w', 'latency',
                '-n', str(iters), '--warmup', '0'] +
               ['--devargs=port=%d,ip=10.8.%d.2' % (i, i)
                for i in range(nb_ports)])
        start = time.monotonic()
        for k in range(nb_clients):
            p = subprocess.run(cmd, capture_output=True, text=True,
                               timeout=120)
            check(not re.search(r'Sanitizer|runtime error:', p.stderr),
                  'churn: client %d: sanitizer report: %s'
                  % (k, p.stderr[-3000:]))
            if not check(p.returncode == 0, 'churn: client %d: exit %d: %s'
                         % (k, p.returncode, p.stderr[-2000:])):
                break
            time.sleep(0.05)	# the server's side of the disconnect
            if not check(srv.poll() is None, 'churn: server died (%s) '
                         'after client %d' % (srv.returncode, k)):
                break
        secs = time.monotonic() - start
        if srv.poll() is None:
            srv.send_signal(signal.SIGINT)
        out, _ = srv.communicate(timeout=60)
        check(srv.returncode == 0, 'churn: server: exit %d'
              % srv.returncode)
        if not failures:
            want = nb_clients * nb_ports * iters
            total = re.search(r'^total +(\d+) ', out, re.M)
            check(total is not None and int(total.group(1)) == want,
                  'churn: server handled %s requests, want %d'
                  % (total and total.group(1), want))
        print('churn: %d clients of %d ports in %.1f s, server on CPU %d'
              % (nb_clients, nb_ports, secs, srv_cpu))
    finally:
        if srv.poll() is None:
            srv.kill()
            srv.wait()
        srv_log.seek(0)
        log = srv_log.read()
        srv_log.close()
        check(not re.search(r'Sanitizer|runtime error:', log),
              'churn: server: sanitizer report: ' + log[-3000:])
        if failures:
            print('--- server stderr\n' + log[-3000:])
        shutil.rmtree(tmp, ignore_errors=True)


def mode_interactive():
    # The prompt on lcore 0, the server on 1, the client on 2.
    eal = eal_lcores('0@0,1@1,2@0')
    # No warmup: the short runs below measure from their first round
    # trip, however slow the machine (a sanitizer build, other load).
    p = subprocess.Popen([RPCPERF, own_prefix()] + eal +
                         ['--', '-i', '-n', '10000',
                                            '--warmup', '0'],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    steps = [
        ('show stats', 0), ('stop', 0), ('set size 64', 0),
        ('set size 70000000', 0), ('set concurrency 0', 0),
        ('set concurrency 8', 0), ('set workload memcpy', 0),
        ('set workload nosuch', 0), ('set workload rate', 0),
        ('start', 1.5), ('start', 0), ('set size 1', 0),
        ('show stats', 0), ('clear stats', 0.5), ('show stats', 0),
        ('stop', 0), ('show stats', 0), ('set workload latency', 0),
        ('start', 0.5), ('quit', 0),
    ]
    try:
        for cmd, pause in steps:
            p.stdin.write(cmd + '\n')
            p.stdin.flush()
            time.sleep(pause + 0.1)
        out, err = p.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        check(False, 'interactive: no exit after quit')
    check(p.returncode == 0, 'interactive: exit %d: %s'
          % (p.returncode, err[-2000:]))
    check(not re.search(r'Sanitizer|runtime error:', err),
          'interactive: sanitizer report: ' + err[-3000:])
    for want in ['no results: "start" a run',
                 'nothing is running',
                 'size 64', 'size: at most 67108864 bytes',
                 'concurrency: 1 to 4096', 'concurrency 8',
                 'memcpy is a baseline: run it without -i',
                 "no workload 'nosuch'", 'workload rate',
                 'rate started: 64-byte payload, 8 outstanding',
                 'rate is running: stop it first',
                 'statistics cleared', 'rate stopped',
                 'workload latency', 'latency started', 'latency stopped']:
        check(want in out, 'interactive: no "%s" in: %s'
              % (want, out[-3000:]))
    running = re.findall(r'rate running: (\d+) round trips in ([0-9.]+) s',
                         out)
    check(len(running) == 2 and int(running[0][0]) > 0,
          'interactive: show stats while running: %s' % running)
    rows = re.findall(r'^(rate|latency) +64 +(\d+) ', out, re.M)
    # The table at stop, again at "show stats"; latency at quit.
    check([r[0] for r in rows] == ['rate', 'rate', 'latency'] and
          all(int(r[1]) > 0 for r in rows),
          'interactive: tables %s' % rows)
    print('interactive: %d tables, %s' % (len(rows), running))


def mode_faults():
    """A bad --faults: exit 2 before anything runs (doc/rpcperf.md)."""
    bad = ['drop_tx=2', 'bogus=1', 'drop_tx=0.1,drop_tx=0.2', 'a"b\\c',
           'seed=-1', 'drop_rx=']
    for spec in bad:
        for mode in ([], ['--server', '--devargs=port=0'],
                     ['--connect=127.0.0.1:9', '--devargs=port=0',
                      '-w', 'latency']):
            args = mode + ['-n', '100', '--faults=' + spec]
            p = run(args)
            where = ' '.join(args)
            check(p.returncode == 2, '%s: exit status %d, not 2'
                  % (where, p.returncode))
            msg = 'rpcperf: --faults=%s: ' % spec
            check(msg in p.stderr, '%s: stderr lacks "%s": %s'
                  % (where, msg, p.stderr[-1000:]))
            # Refused before any run, worker or port was set up.
            check('rpcperf: running' not in p.stderr and
                  'No such device' not in p.stderr,
                  '%s: went on: %s' % (where, p.stderr[-1000:]))
            check(p.stdout == '', '%s: wrote to stdout: %s'
                  % (where, p.stdout))
    p = run(['-q', '-w', 'latency', '-n', '200', '--warmup', '0',
             '--faults=drop_tx=0.01,drop_rx=0.01,seed=3'])
    check(p.returncode == 0, 'good --faults: exit %d: %s'
          % (p.returncode, p.stderr[-1000:]))
    print('faults: %d bad specifications refused' % len(bad))


def mode_verbs():
    """rpcperf on the verbs driver over the model, in-process."""
    lib = os.environ.get('PMR_HCA_LIB')
    if not check(lib and os.path.exists(lib), 'PMR_HCA_LIB: %s' % lib):
        return
    env = dict(os.environ, LD_PRELOAD=lib)
    opts = long_options(help_text())

    def vrun(args, eal=()):
        cmd = [RPCPERF, own_prefix()] + EAL + list(eal) + ['--'] + args
        p = subprocess.run(cmd, capture_output=True, text=True,
                           timeout=300, env=env)
        p.cmd = ' '.join(args)
        return p

    wls = ['latency', 'rate']
    for size, wl in [(32, wls + ['drv-latency']), (5000, ['bandwidth']),
                     (1000, ['drv-latency'])]:
        p = vrun(['--driver=verbs', '--driver-args=dev=hca0', '--json',
                  '-n', str(ITERS), '--warmup', str(WARMUP), '-s',
                  str(size), '-w', ','.join(wl)],
                 eal=['--log-level=pmr.verbs:info'])
        if not check(p.returncode == 0, '%s: exit %d: %s'
                     % (p.cmd, p.returncode, p.stderr[-2000:])):
            continue
        # The driver logged its queues: the model's device, not eth's.
        check('pmr.verbs: hca0: port 1' in p.stderr,
              '%s: no verbs queue on hca0 in the log: %s'
              % (p.cmd, p.stderr[-1000:]))
        d = json.loads(p.stdout)
        res = check_doc(d, {'workloads': wl, 'iters': ITERS,
                            'warmup': WARMUP}, opts, p.cmd)
        check(d['config']['driver'] == 'verbs' and
              d['config']['driver_args'] == 'dev=hca0' and
              d['config']['eth_args'] == '', p.cmd + ': config driver')
        for r in res:
            check(r['iters'] == ITERS and r['mrps'] > 0 and
                  r['bytes'] == size,
                  '%s: %s: iters %d, mrps %s' % (p.cmd, r['workload'],
                                                 r['iters'], r['mrps']))
            # No loss on the model: the driver's self flushes are not
            # drops. A loaded host may still delay a poll past the RTO:
            # a retransmission then makes stale duplicates, and only
            # those.
            check(r['drops'] == 0 or r['retransmissions'] > 0,
                  '%s: %s: %d drops, %d retransmissions: %s'
                  % (p.cmd, r['workload'], r['drops'],
                     r['retransmissions'], p.stderr[-1000:]))
            print('verbs %s: %d B, %d round trips, p50 %.1f us, '
                  '%.3f Mrps' % (r['workload'], size, r['iters'],
                                 r['p50_us'], r['mrps']))
        reasons = re.findall(r'dropped \d+ packets:(.*)', p.stderr)
        check(all(re.fullmatch(r'( stale \d+)+', x) for x in reasons),
              '%s: drops other than stale duplicates: %s'
              % (p.cmd, reasons))
        check('driver dropped' not in p.stderr,
              '%s: the driver dropped frames: %s'
              % (p.cmd, p.stderr[-1000:]))
    # Not the model: the same run without it has no device (the host
    # kernel has no RDMA), said before any run.
    bad = [
        (['--driver=verbs', '--driver-args=dev=nosuch', '-w', 'latency'],
         "rpcperf: --driver=verbs --driver-args='dev=nosuch': no queue: "
         "No such device"),
        (['--driver=verbs', '--driver-args=bogus=1', '-w', 'latency'],
         "rpcperf: --driver=verbs --driver-args='bogus=1': no queue: "
         "Invalid argument"),
        (['--driver=verbs', '-w', 'ring'],
         'rpcperf: ring is a baseline of the eth ring-pair setup: not '
         'with --driver=verbs'),
        (['--driver=verbs', '--eth-args=rxd=64'],
         'rpcperf: --eth-args is for --driver=eth: use --driver-args'),
        (['--driver=verbz'],
         'rpcperf: --driver=verbz: no such driver; this build has: eth, '
         'verbs'),
    ]
    for args, msg in bad:
        p = vrun(args)
        check(p.returncode == 2, '%s: exit status %d, not 2'
              % (p.cmd, p.returncode))
        check(msg in p.stderr, '%s: stderr lacks "%s": %s'
              % (p.cmd, msg, p.stderr[-500:]))
        check('rpcperf: running' not in p.stderr,
              '%s: a workload ran: %s' % (p.cmd, p.stderr[-500:]))
    print('verbs: %d bad settings refused' % len(bad))


def mode_rdv():
    """--rdv-threshold on the model: READs, or datagrams when off."""
    lib = os.environ.get('PMR_HCA_LIB')
    if not check(lib and os.path.exists(lib), 'PMR_HCA_LIB: %s' % lib):
        return
    opts = long_options(help_text())
    size = 65536
    # With exact windows (mw=1) and without (copied once into regions).
    for hca in ('dev=hca0,mw=1', 'dev=hca0'):
        env = dict(os.environ, LD_PRELOAD=lib, PMR_HCA_CONFIG=hca)
        for thr in ('1', 'off'):
            args = ['--driver=verbs', '--driver-args=dev=hca0', '--json',
                    '-q', '-n', str(ITERS), '--warmup', str(WARMUP),
                    '-s', str(size), '-w', 'bandwidth',
                    '--rdv-threshold=' + thr]
            where = '%s --rdv-threshold=%s' % (hca, thr)
            p = subprocess.run([RPCPERF, own_prefix()] + EAL + ['--'] + args,
                               capture_output=True, text=True,
                               timeout=300, env=env)
            if not check(p.returncode == 0, '%s: exit %d: %s'
                         % (where, p.returncode, p.stderr[-2000:])):
                continue
            d = json.loads(p.stdout)
            res = check_doc(d, {'workloads': ['bandwidth'],
                                'iters': ITERS, 'warmup': WARMUP},
                            opts, where)
            check(d['config']['rdv_threshold'] ==
                  (1 if thr == '1' else 'off'),
                  where + ': config.rdv_threshold %s'
                  % d['config']['rdv_threshold'])
            path = res[0]['path']
            msgs = ITERS + WARMUP
            if thr == '1':
                # Every request read by the server, whole, none lost
                # (a descriptor is counted each time it is sent).
                check(path['reads'] == msgs and
                      path['descs_sent'] >= msgs and
                      path['read_bytes'] == msgs * size and
                      path['read_errors'] == 0 and
                      path['fallbacks'] == 0,
                      where + ': path ' + str(path))
                # Exact windows: nothing copied; else each once, into
                # its pair's region.
                check(path['copied_bytes'] ==
                      (0 if 'mw=1' in hca else msgs * size),
                      where + ': copied_bytes ' + str(path))
            else:
                # Datagrams: reassembled, so copied, never read.
                check(path['reads'] == 0 and path['descs_sent'] == 0 and
                      path['fallbacks'] == 0 and
                      path['copied_bytes'] >= msgs * size,
                      where + ': path ' + str(path))
            print('rdv %s: %s' % (where, path))
    # Requests and echoes by READ (rate), requests by READ (bandwidth),
    # both checked byte for byte with --verify (issue 26).
    env = dict(os.environ, LD_PRELOAD=lib, PMR_HCA_CONFIG='dev=hca0')
    args = ['--driver=verbs', '--driver-args=dev=hca0', '--json', '-q',
            '-n', '500', '--warmup', '10', '-s', str(size), '-c', '4',
            '-w', 'rate,bandwidth', '--verify', '--rdv-threshold=1']
    p = subprocess.run([RPCPERF, own_prefix()] + EAL + ['--'] + args,
                       capture_output=True, text=True, timeout=300, env=env)
    if check(p.returncode == 0, '--verify by READ: exit %d: %s'
             % (p.returncode, p.stderr[-2000:])):
        d = json.loads(p.stdout)
        res = check_doc(d, {'workloads': ['rate', 'bandwidth'],
                            'iters': 500, 'warmup': 10}, opts,
                        '--verify by READ')
        # rate: requests and echoes read; bandwidth: requests.
        check([r['verify_errors'] for r in res] == [0, 0] and
              [r['path']['reads'] for r in res] == [1020, 510] and
              all(r['path']['read_errors'] == 0 and
                  r['path']['fallbacks'] == 0 for r in res),
              '--verify by READ: %s' % [(r['verify_errors'],
                                         r.get('path')) for r in res])
        print('rdv --verify: %s' % [(r['workload'], r['verify_errors'])
                                    for r in res])
    # The option's bad values are refused before anything runs.
    for bad in ('0', 'on', '4294967295', '-1'):
        p = run(['--rdv-threshold=' + bad, '-w', 'latency'])
        check(p.returncode == 2 and 'rdv-threshold' in p.stderr,
              '--rdv-threshold=%s: exit %d: %s'
              % (bad, p.returncode, p.stderr[-500:]))


def mode_verify():
    """--verify: payloads checked, and a changed byte caught."""
    corrupt = os.environ.get('RPCPERF_CORRUPT_BIN')
    if not check(corrupt and os.path.exists(corrupt),
                 'RPCPERF_CORRUPT_BIN: %s' % corrupt):
        return
    text = help_text()
    opts = long_options(text)
    check('verify' in opts, '--help does not list --verify')
    rpc_wls = [w for w in workload_names(text) if w not in BASELINES]
    n = 500

    def vrun(prog, args, env=None):
        cmd = [prog] + EAL + [own_prefix(), '--log-level=lib.eal:error',
                              '--'] + args
        p = subprocess.run(cmd, capture_output=True, text=True,
                           timeout=300, env=dict(os.environ, **(env or {})))
        p.cmd = ' '.join(args) + (' %s' % env if env else '')
        check(not re.search(r'Sanitizer|runtime error:', p.stderr),
              '%s: sanitizer report: %s' % (p.cmd, p.stderr[-3000:]))
        return p

    def doc(p, wls):
        try:
            d = json.loads(p.stdout)
        except ValueError as e:
            check(False, '%s: not JSON (%s): %s' % (p.cmd, e,
                                                   p.stderr[-1000:]))
            return None
        check_doc(d, {'workloads': wls, 'iters': n, 'warmup': 10}, opts,
                  p.cmd)
        check(d['config']['verify'] is True, p.cmd + ': config.verify')
        return d

    # Every RPC workload, nothing changed: every payload as sent. Sizes
    # under a word (the seed cut), one packet, several packets.
    for size in (0, 5, 1000, 20000):
        args = ['--json', '-q', '--verify', '-n', str(n), '--warmup',
                '10', '-s', str(size), '-c', '8', '-w',
                ','.join(rpc_wls + ['memcpy'])]
        for prog in (RPCPERF, corrupt):
            p = vrun(prog, args)
            if not check(p.returncode == 0, '%s: exit %d: %s'
                         % (p.cmd, p.returncode, p.stderr[-2000:])):
                continue
            d = doc(p, rpc_wls + ['memcpy'])
            for r in d['results'] if d else []:
                want = None if r['workload'] == 'memcpy' else 0
                check(r['verify_errors'] == want and r['iters'] == n,
                      '%s: %s: verify_errors %s, iters %d'
                      % (p.cmd, r['workload'], r['verify_errors'],
                         r['iters']))
            check('--verify' not in p.stderr, '%s: said %s'
                  % (p.cmd, p.stderr[-1000:]))
    print('verify: %s at 0 to 20000 bytes, none differs' % rpc_wls)

    # One byte changed: in the 100th echo (rate), in the 100th request
    # (rate: the server sees it, the echo brings it back; bandwidth: the
    # server's sink answers where it differed). Each caught once.
    size = 3000
    cases = [
        ('resp:100', 'rate', ['the echo of request 99 (3000 bytes) '
                              'differs from its pattern at byte 1500']),
        ('req:100', 'rate', ['server worker 0: request of 3000 bytes '
                             '(its seed: client lcore 0, request 99) '
                             'differs from its pattern at byte 1500',
                             'the echo of request 99']),
        ('req:100', 'bandwidth', ['request 99 (3000 bytes) reached the '
                                  'server differing from its pattern at '
                                  'byte 1500']),
        ('resp:1', 'latency', ['the echo of request 0 (3000 bytes) '
                               'differs from its pattern at byte 1500']),
    ]
    for spec, wl, msgs in cases:
        p = vrun(corrupt, ['--json', '-q', '--verify', '-n', str(n),
                           '--warmup', '10', '-s', str(size), '-c', '8',
                           '-w', wl], {'RPCPERF_CORRUPT': spec})
        where = '%s %s' % (spec, wl)
        check(p.returncode == 1, '%s: exit %d, not 1: %s'
              % (where, p.returncode, p.stderr[-2000:]))
        check('rpcperf_corrupt: %s: byte 1500 of 3000 changed'
              % spec.replace(':', ' ') in p.stderr,
              '%s: nothing was changed: %s' % (where, p.stderr[-1000:]))
        for m in msgs + ['rpcperf: %s: --verify: 1 RPCs failed their '
                         'check' % wl]:
            check(m in p.stderr, '%s: stderr lacks "%s": %s'
                  % (where, m, p.stderr[-2000:]))
        d = doc(p, [wl])
        if d:
            r = d['results'][0]
            check(r['verify_errors'] == 1 and r['iters'] == n and
                  [x['verify_errors'] for x in r['lcores']] == [1],
                  '%s: verify_errors %s (lcores %s), iters %d'
                  % (where, r['verify_errors'],
                     [x['verify_errors'] for x in r['lcores']],
                     r['iters']))
        print('verify: %s caught' % where)

    # Two client lcores, one echo changed: a row each, the column in the
    # table, the count in its lcore's row and the total.
    eal = eal_lcores('(0-2)@(0-1)')
    p = subprocess.run(
        [corrupt, own_prefix()] + eal + ['--log-level=lib.eal:error',
                                         '--', '-q', '--verify', '-n',
                                         str(n), '--warmup', '10', '-s',
                                         '3000', '-c', '4', '-w',
                                         'memcpy,rate',
                                         '--client-lcores=0,2',
                                         '--server-lcores=1'],
        capture_output=True, text=True, timeout=300,
        env=dict(os.environ, RPCPERF_CORRUPT='resp:300'))
    check(p.returncode == 1, 'two lcores: exit %d: %s'
          % (p.returncode, p.stderr[-2000:]))
    lines = p.stdout.splitlines()
    check(lines and lines[0].split()[-1] == 'verify_err',
          'two lcores: header %s' % lines[:1])
    rows = {x.split()[0]: x.split()[-1] for x in lines[1:] if x}
    check(rows.get('memcpy') == '-' and rows.get('rate') == '1' and
          sorted([rows.get('rate@0'), rows.get('rate@2')]) == ['0', '1'],
          'two lcores: verify column %s' % rows)

    # Not the server's option: it checks what --verify clients send.
    p = run(['--server', '--devargs=port=0', '--verify'])
    check(p.returncode == 2 and '--verify goes with the client' in
          p.stderr, '--server --verify: exit %d: %s'
          % (p.returncode, p.stderr[-500:]))


def main():
    modes = {'args': mode_args, 'json': mode_json, 'faults': mode_faults,
             'signal': mode_signal,
             'workloads': mode_workloads, 'progress': mode_progress,
             'lcores': mode_lcores, 'placement': mode_placement,
             'churn': mode_churn, 'interactive': mode_interactive,
             'memif_alone': mode_memif_alone, 'plot': mode_plot,
             'remote_worker': mode_remote_worker, 'verbs': mode_verbs,
             'rdv': mode_rdv, 'verify': mode_verify}
    if len(sys.argv) != 2 or sys.argv[1] not in modes:
        sys.exit('usage: check_rpcperf.py ' + '|'.join(modes))
    modes[sys.argv[1]]()
    if failures:
        print('%d check(s) failed' % len(failures))
        sys.exit(1)
    print('PASS')


if __name__ == '__main__':
    main()
