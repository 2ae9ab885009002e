#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The pmrpc authors
"""The module layering of libpmrpc holds (meson test layering).

Each module of lib/ and each driver is its own static library whose include
path holds its own directory, config/ and those of the modules it depends
on (lib/meson.build, drivers/transport/meson.build). This checks, with each
module's real compile command from compile_commands.json, that:

  1. every header of a module it depends on (or of itself) compiles when
     included alone: the allowed part of the graph is reachable;
  2. every header of any other module fails with "No such file": a module
     that includes a header of a module it does not depend on does not
     compile;
  3. no source or header of a module includes with a path ("../rpc/x.h",
     "rpc/x.h"), which would get round the include path, and every quoted
     include names a file of the module, of a dependency, or of config/.

Usage: check_layering.py BUILD_ROOT SOURCE_ROOT MODULE...
  MODULE: name:dir:target:dep,dep,... as meson.build's pmr_layering lists
  them (dir relative to SOURCE_ROOT, target the static library's name).
"""

import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.MULTILINE)


def parse_modules(specs):
    """{name: {'dir', 'target', 'deps'}} in the order given."""
    mods = {}
    for spec in specs:
        name, mdir, target, deps = spec.split(':')
        mods[name] = {'dir': mdir, 'target': target,
                      'deps': [d for d in deps.split(',') if d]}
    return mods


def closure(mods, name):
    """The modules name may include from: itself and its deps, transitively."""
    seen = {name}
    todo = [name]
    while todo:
        for dep in mods[todo.pop()]['deps']:
            if dep not in mods:
                raise SystemExit(f'{name}: unknown dep {dep}')
            if dep not in seen:
                seen.add(dep)
                todo.append(dep)
    return seen


def probe_command(entry):
    """The entry's compile command as an argv without its input, output
    and dependency-file arguments."""
    argv = entry['arguments'] if 'arguments' in entry else \
        shlex.split(entry['command'])
    out = []
    skip = 0
    for arg in argv:
        if skip:
            skip -= 1
            continue
        if arg in ('-o', '-MQ', '-MF', '-MT'):
            skip = 1
            continue
        if arg in ('-c', '-MD', '-MMD') or arg == entry['file']:
            continue
        out.append(arg)
    return out


def main():
    if len(sys.argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    build, src = sys.argv[1], sys.argv[2]
    mods = parse_modules(sys.argv[3:])
    with open(os.path.join(build, 'compile_commands.json'),
              encoding='utf-8') as f:
        commands = json.load(f)

    headers = {}
    for name, mod in mods.items():
        mdir = os.path.join(src, mod['dir'])
        headers[name] = sorted(h for h in os.listdir(mdir)
                               if h.endswith('.h'))

    failed = 0
    checked = 0

    def bad(msg):
        nonlocal failed
        print('FAIL: ' + msg)
        failed += 1

    with tempfile.TemporaryDirectory(prefix='pmr_layering.') as tmp:
        for name, mod in mods.items():
            objdir = 'lib' + mod['target'] + '.a.p'
            entry = next((e for e in commands
                          if objdir in e['output'].split('/')), None)
            if entry is None:
                bad(f'{name}: no compile command of {mod["target"]} in '
                    'compile_commands.json')
                continue
            argv = probe_command(entry)
            allowed = closure(mods, name)
            probe = os.path.join(tmp, name + '_probe.c')
            for other in mods:
                for hdr in headers[other]:
                    with open(probe, 'w', encoding='utf-8') as f:
                        f.write(f'#include "{hdr}"\n')
                    res = subprocess.run(
                        argv + ['-fsyntax-only', probe],
                        cwd=entry['directory'], capture_output=True,
                        text=True, check=False)
                    checked += 1
                    if other in allowed:
                        if res.returncode != 0:
                            bad(f'{name} may include {other}\'s {hdr}, '
                                f'which does not compile alone:\n'
                                f'{res.stderr}')
                    elif res.returncode == 0:
                        bad(f'{name} does not depend on {other}, yet '
                            f'compiles #include "{hdr}"')
                    elif f'{hdr}: No such file' not in res.stderr:
                        bad(f'{name}: #include "{hdr}" fails for another '
                            f'reason than a missing file:\n{res.stderr}')

            # The includes the sources actually write.
            dirs = [os.path.join(src, mods[m]['dir']) for m in allowed]
            dirs += [os.path.join(build, mods[m]['dir']) for m in allowed]
            dirs += [os.path.join(src, 'config'),
                     os.path.join(build, 'config')]
            mdir = os.path.join(src, mod['dir'])
            for fname in sorted(os.listdir(mdir)):
                if not fname.endswith(('.c', '.h')):
                    continue
                with open(os.path.join(mdir, fname),
                          encoding='utf-8') as f:
                    text = f.read()
                for inc in INCLUDE_RE.findall(text):
                    checked += 1
                    if '/' in inc:
                        bad(f'{mod["dir"]}/{fname}: #include "{inc}" '
                            'names a path')
                    elif not any(os.path.exists(os.path.join(d, inc))
                                 for d in dirs):
                        bad(f'{mod["dir"]}/{fname}: #include "{inc}" '
                            f'is not in {name} or what it depends on '
                            f'({", ".join(sorted(allowed - {name}))})')

    if failed:
        print(f'{failed} of {checked} checks failed')
        return 1
    print(f'OK: {checked} checks, modules {", ".join(mods)}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
