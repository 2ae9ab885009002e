#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The pmrpc authors
"""Read a running pmrpc (or any DPDK 22.11) process's telemetry.

DPDK's own client, dpdk-telemetry.py, is not in Debian 12's packages: this
is one with the standard library only. It connects to the process's
telemetry socket, sends commands and prints each JSON reply on a line.

    pmr-telemetry.py [-f PREFIX] [-i N] [COMMAND...]   commands, in turn
    pmr-telemetry.py [-f PREFIX] [-i N] < FILE          one per line
    pmr-telemetry.py [-f PREFIX] [-i N]                 interactive (a tty)
    pmr-telemetry.py -l                                 processes found

Commands: /pmrpc/workers, /pmrpc/worker,<id>, /pmrpc/nexus[,<id>] (see
doc/telemetry.md), DPDK's own (/, /info, /help,<command>, /ethdev/list...).

Where the socket is (DPDK 22.11, eal_create_runtime_dir() and the
telemetry library): <runtime dir>/dpdk/<file prefix>/dpdk_telemetry.v2,
where the runtime dir is /var/run for root, else $XDG_RUNTIME_DIR or, if
that is unset, /tmp; the file prefix is EAL's --file-prefix (default
"rte"), the same with --in-memory and --no-shconf. A second process with
the same prefix gets dpdk_telemetry.v2:1, the next :2 (-i 1, -i 2). This
looks in all of those places, its own user's first.

Exit status: 0; 1 if a command's reply is null (an unknown command or a
bad parameter) or no reply came; 2 for bad arguments or no such process.
"""

import argparse
import glob
import json
import os
import socket
import sys

SOCKET_NAME = 'dpdk_telemetry.v2'
DEFAULT_PREFIX = 'rte'


def say(msg):
    print('pmr-telemetry: ' + msg, file=sys.stderr)


def runtime_bases():
    """The dpdk/ directories a DPDK process may use, ours first."""
    bases = []
    if os.getuid() == 0:
        bases.append('/var/run/dpdk')
    xdg = os.environ.get('XDG_RUNTIME_DIR')
    if xdg:
        bases.append(os.path.join(xdg, 'dpdk'))
    bases += ['/tmp/dpdk', '/var/run/dpdk']
    bases += sorted(glob.glob('/run/user/*/dpdk'))
    seen, out = set(), []
    for b in bases:
        real = os.path.realpath(b)
        if real not in seen:
            seen.add(real)
            out.append(b)
    return out


def instance_of(path):
    """0 for dpdk_telemetry.v2, N for dpdk_telemetry.v2:N, else None."""
    name = os.path.basename(path)
    if name == SOCKET_NAME:
        return 0
    if name.startswith(SOCKET_NAME + ':'):
        try:
            return int(name[len(SOCKET_NAME) + 1:])
        except ValueError:
            return None
    return None


def sockets_of(prefix):
    """(instance, path) of every telemetry socket file of prefix."""
    found = {}
    for base in runtime_bases():
        for path in glob.glob(os.path.join(glob.escape(base),
                                           glob.escape(prefix),
                                           SOCKET_NAME + '*')):
            inst = instance_of(path)
            if inst is not None and inst not in found:
                found[inst] = path
    return sorted(found.items())


class Telemetry:
    """A connection to one process's telemetry socket."""

    def __init__(self, path):
        self.path = path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            self.sock.connect(path)
            # {"version":..., "pid":..., "max_output_len":...}
            self.info = json.loads(self.sock.recv(1024).decode())
        except BaseException:
            self.sock.close()
            raise
        self.bufsize = max(int(self.info.get('max_output_len', 16384)),
                           16384)

    def command(self, cmd):
        """The JSON reply to cmd (a parsed object)."""
        self.sock.send(cmd.encode())
        data = self.sock.recv(self.bufsize)
        if not data:
            raise ConnectionError('the process closed the connection')
        return json.loads(data.decode())

    def close(self):
        self.sock.close()


def probe(path):
    """The process behind a socket file: its hello message, or None."""
    try:
        t = Telemetry(path)
    except (OSError, ValueError):
        return None
    t.close()
    return t.info


def list_processes():
    rows = []
    for base in runtime_bases():
        for path in sorted(glob.glob(os.path.join(glob.escape(base), '*',
                                                  SOCKET_NAME + '*'))):
            inst = instance_of(path)
            if inst is None:
                continue
            prefix = os.path.basename(os.path.dirname(path))
            info = probe(path)
            rows.append((prefix, inst, info, path))
    if not rows:
        print('no DPDK process with a telemetry socket found in ' +
              ', '.join(runtime_bases()))
        return 0
    print('%-20s %-8s %-8s %-10s %s' % ('file-prefix', 'instance', 'pid',
                                        'version', 'socket'))
    for prefix, inst, info, path in rows:
        if info is None:
            print('%-20s %-8d %-8s %-10s %s' % (prefix, inst, '-',
                                                '(stale)', path))
        else:
            print('%-20s %-8d %-8s %-10s %s' % (
                prefix, inst, info.get('pid', '?'),
                info.get('version', '?').replace('DPDK ', ''), path))
    return 0


def connect(args):
    """A Telemetry for the arguments, or exit 2 saying why not."""
    if args.socket:
        paths = [(args.instance, args.socket)]
    else:
        paths = sockets_of(args.file_prefix)
    if not paths:
        say('no pmrpc/DPDK process with file prefix %s is running (no %s '
            'under %s; -l lists the processes found, -f picks a prefix)'
            % (args.file_prefix, SOCKET_NAME,
               ', '.join(os.path.join(b, args.file_prefix)
                         for b in runtime_bases())))
        sys.exit(2)
    path = dict(paths).get(args.instance)
    if path is None:
        say('the processes with file prefix %s are instances %s, not %d'
            % (args.file_prefix, ', '.join(str(i) for i, _ in paths),
               args.instance))
        sys.exit(2)
    try:
        return Telemetry(path)
    except PermissionError:
        say('%s: permission denied: run as the user of the process (or '
            'root)' % path)
    except (ConnectionRefusedError, FileNotFoundError):
        say('no pmrpc/DPDK process with file prefix %s%s is running (%s '
            'is left from one that exited)' % (
                args.file_prefix,
                ' instance %d' % args.instance if args.instance else '',
                path))
    except OSError as e:
        say('%s: %s' % (path, e.strerror or e))
    except ValueError:
        say('%s: not a DPDK telemetry socket (no JSON hello)' % path)
    sys.exit(2)


def run_command(t, cmd, pretty):
    """Send cmd, print its reply; False if it failed (null)."""
    reply = t.command(cmd)
    print(json.dumps(reply, indent=2 if pretty else None))
    sys.stdout.flush()
    if isinstance(reply, dict) and len(reply) == 1 and \
            next(iter(reply.values())) is None:
        say('%s: failed (unknown command or bad parameter)' % cmd)
        return False
    return True


def interactive(t, pretty):
    print('Connected to %s, pid %s (%s). Commands start with /; "/" lists '
          'them, "/help,<command>" explains one; quit with ^D.' % (
              t.path, t.info.get('pid', '?'), t.info.get('version', '?')))
    while True:
        try:
            line = input('--> ').strip()
        except EOFError:
            print()
            return 0
        if line in ('quit', 'exit'):
            return 0
        if line:
            run_command(t, line, pretty)


def main():
    ap = argparse.ArgumentParser(
        description='Send telemetry commands to a running pmrpc or DPDK '
        'process and print the JSON replies, one a line. With no '
        'command: the commands read from stdin, or a prompt on a '
        'terminal.')
    ap.add_argument('-f', '--file-prefix', default=DEFAULT_PREFIX,
                    help="the process's EAL --file-prefix (default rte)")
    ap.add_argument('-i', '--instance', type=int, default=0,
                    help='which process of those sharing the prefix: '
                    '0 the first (default), N the socket ...v2:N')
    ap.add_argument('-s', '--socket',
                    help='the socket path itself, instead of -f and -i')
    ap.add_argument('-l', '--list', action='store_true',
                    help='list the processes with a telemetry socket')
    ap.add_argument('-p', '--pretty', action='store_true',
                    help='indent the JSON')
    ap.add_argument('commands', nargs='*', metavar='COMMAND',
                    help='e.g. /pmrpc/workers /pmrpc/worker,1 /pmrpc/nexus')
    args = ap.parse_args()
    if args.instance < 0:
        ap.error('-i: an instance is 0 or more')
    if args.list:
        return list_processes()

    t = connect(args)
    try:
        if args.commands:
            cmds = args.commands
        elif sys.stdin.isatty():
            return interactive(t, args.pretty)
        else:
            cmds = [line.strip() for line in sys.stdin if line.strip()]
        ok = True
        for cmd in cmds:
            ok = run_command(t, cmd, args.pretty) and ok
        return 0 if ok else 1
    except (OSError, ValueError) as e:
        say('%s: %s' % (t.path, e))
        return 1
    finally:
        t.close()


if __name__ == '__main__':
    sys.exit(main())
