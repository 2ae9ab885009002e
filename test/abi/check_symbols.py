#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The pmrpc authors
"""The exported symbols of libpmrpc.so against lib/pmrpc.map.

Usage: check_symbols.py MAP SHARED_LIB STATIC_LIB HEADER...

Fails (exit 1, saying which names and why) if:
  1. the shared library exports a symbol the map does not list (an
     accidental export), or the map lists one it does not export (a
     public function removed or renamed);
  2. the map lists a name that no public header declares (an internal
     function made public);
  3. a function that a public header declares and the library defines
     is not in the map (a new public function not exported).
Functions declared but defined nowhere in the library (declared ahead of
their implementation) are named, not failed: no build can export them.
"""

import re
import subprocess
import sys


def map_names(path):
    """Version nodes and global names of a GNU ld version script."""
    with open(path, encoding='utf-8') as f:
        text = re.sub(r'#[^\n]*', '', f.read())
    nodes = set(re.findall(r'(\w+)\s*\{', text))
    names = set()
    for body in re.findall(r'\{(.*?)\}', text, flags=re.S):
        scope = None
        for tok in re.findall(r'(\w+)\s*:|([\w*]+)\s*;', body):
            if tok[0]:
                scope = tok[0]
            elif scope == 'global':
                names.add(tok[1])
    return nodes, names


def nm_defined(args):
    """Names of the defined external symbols nm lists, versions cut."""
    out = subprocess.run(['nm', '--defined-only'] + args, check=True,
                         capture_output=True, text=True).stdout
    names = {}
    for line in out.splitlines():
        fields = line.split()
        if len(fields) == 3:
            names[fields[2].split('@')[0]] = fields[1]
    return names


def header_functions(paths):
    """Functions declared (not static inline) by the public headers."""
    names = set()
    for path in paths:
        with open(path, encoding='utf-8') as f:
            text = f.read()
        text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
        text = re.sub(r'//[^\n]*', ' ', text)
        text = re.sub(r'#ifdef __cplusplus.*?#endif', ' ', text,
                      flags=re.S)
        text = re.sub(r'^[ \t]*#(?:[^\n]*\\\n)*[^\n]*', ' ', text,
                      flags=re.M)
        # Bodies (of inline functions, structs, enums) end a statement
        # and are dropped: what is left are top-level declarations.
        flat = []
        depth = 0
        for ch in text:
            if ch == '{':
                depth += 1
                flat.append(';')
            elif ch == '}':
                depth -= 1
                flat.append(';')
            elif depth == 0:
                flat.append(ch)
        for stmt in ''.join(flat).split(';'):
            if re.search(r'\b(typedef|static)\b', stmt):
                continue
            m = re.search(r'\b([A-Za-z_]\w*)\s*\(', stmt)
            if m is not None:
                names.add(m.group(1))
    return names


def report(title, names):
    print(f'{title}:')
    for n in sorted(names):
        print(f'\t{n}')


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    map_path, shared, static, headers = (sys.argv[1], sys.argv[2],
                                         sys.argv[3], sys.argv[4:])
    nodes, listed = map_names(map_path)
    exported = set(nm_defined(['-D', shared])) - nodes
    defined = {n for n, t in nm_defined(['-g', static]).items()
               if t in 'TDBR'}
    declared = header_functions(headers)
    print(f'{len(exported)} symbols exported by {shared}, '
          f'{len(listed)} listed in {map_path}, '
          f'{len(declared)} functions declared by the public headers')

    failed = False
    checks = [
        (exported - listed, 'exported but not in the map (an internal '
         'symbol leaked: make it static or keep it out of the map)'),
        (listed - exported, 'in the map but not exported (removed or '
         'renamed: the ABI lost it)'),
        (listed - declared, 'in the map but declared by no public header '
         '(internal: drop it from the map)'),
        ((declared & defined) - listed, 'declared by a public header and '
         'defined, but not in the map (add it, sorted)'),
    ]
    for names, title in checks:
        if names:
            report(title, names)
            failed = True
    pending = declared - defined - listed
    if pending:
        report('declared by a public header, defined nowhere yet (not '
               'checked)', pending)
    if failed:
        sys.exit(1)
    print('OK: the exported set is the map, the map is the public API')


if __name__ == '__main__':
    main()
