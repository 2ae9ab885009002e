#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The pmrpc authors
"""The API reference of the public headers (doc/Doxyfile.in) builds without
a doxygen warning, and every public function is documented with its thread
rule ("Thread: ..."), as doc/api.md says.

Usage: check_api_doc.py DOXYGEN DOXYFILE API_MD

Doxygen runs on the Doxyfile meson generated (as `ninja doc` does), into
a temporary directory. Then:
  - any warning fails (an undocumented public function is one);
  - each function the headers declare (found in their text, independently
    of doxygen) must appear in the XML with a brief description and a
    "Thread:" sentence, and in the thread table of doc/api.md (API_MD).
"""

import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

# A declaration or an inline definition starts its line with the return
# type (or the name itself, on the line after "static inline ...").
DECL = re.compile(r'^(?!typedef\b|#|\s)(?:[A-Za-z_][\w \*]*?[ \*])?'
                  r'(pmr_\w+)\(')


def declared_functions(headers):
    names = {}
    for h in headers:
        with open(h, encoding='utf-8') as f:
            for line in f:
                m = DECL.match(line)
                if m:
                    names[m.group(1)] = os.path.basename(h)
    return names


def text(elem):
    return '' if elem is None else ''.join(elem.itertext())


def documented_functions(xml_dir):
    funcs = {}
    index = ET.parse(os.path.join(xml_dir, 'index.xml')).getroot()
    for comp in index.findall('compound'):
        if comp.get('kind') != 'file':
            continue
        tree = ET.parse(os.path.join(xml_dir, comp.get('refid') + '.xml'))
        for md in tree.getroot().iter('memberdef'):
            if md.get('kind') != 'function':
                continue
            funcs[md.findtext('name')] = (
                text(md.find('briefdescription')).strip(),
                text(md.find('detaileddescription')))
    return funcs


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    doxygen, doxyfile, api_md = sys.argv[1:]
    with open(api_md, encoding='utf-8') as f:
        table = set(re.findall(r'`(pmr_\w+)\(\)`',
                               ''.join(ln for ln in f
                                       if ln.startswith('| '))))
    if not doxygen:
        print('doxygen not found: install it (devtools/test.sh does)')
        return 1
    with open(doxyfile, encoding='utf-8') as f:
        conf = f.read()
    m = re.search(r'^INPUT\s*=\s*(.*)$', conf, re.M)
    headers = m.group(1).split()
    errors = []
    with tempfile.TemporaryDirectory(prefix='pmr_doxygen_') as out:
        conf += '\nOUTPUT_DIRECTORY = %s\n' % out
        proc = subprocess.run([doxygen, '-'], input=conf, text=True,
                              capture_output=True, check=False)
        warnings = [ln for ln in (proc.stdout + proc.stderr).splitlines()
                    if ln.strip()]
        for ln in warnings:
            errors.append('doxygen: ' + ln)
        if proc.returncode != 0:
            errors.append('doxygen exited with %d' % proc.returncode)
        documented = (documented_functions(os.path.join(out, 'xml'))
                      if os.path.exists(os.path.join(out, 'xml', 'index.xml'))
                      else {})

    declared = declared_functions(headers)
    if len(declared) < 50:
        errors.append('only %d functions found in %s: the pattern is broken'
                      % (len(declared), ' '.join(headers)))
    for name, header in sorted(declared.items()):
        if name not in documented:
            errors.append('%s: %s() has no Doxygen comment' % (header, name))
            continue
        brief, detail = documented[name]
        if not brief and not detail.strip():
            errors.append('%s: %s() has an empty description'
                          % (header, name))
        if name not in table:
            errors.append('%s: %s() is not in the thread table of %s'
                          % (header, name, os.path.basename(api_md)))
        if 'Thread:' not in brief + ' ' + detail:
            errors.append('%s: %s() does not state its thread rule '
                          '("Thread: ...")' % (header, name))
    for e in errors:
        print(e)
    print('%d public functions, %d documented, %d problems'
          % (len(declared), len(documented), len(errors)))
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())
