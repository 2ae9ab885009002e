#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The pmrpc authors
"""The C excerpts of apps/hello/hello.c in the documents stay true to it.

    check_hello_excerpts.py HELLO_C DOC.md...

Every ```c block of each DOC is an excerpt: its lines, blank ones and
lines of just "..." (an elision) aside, must be lines of HELLO_C,
character for character, in the order they come there. Fails naming the
first line that is not.
"""

import sys


def c_blocks(path):
    """[(line number, [lines])] of the ```c blocks of a Markdown file."""
    blocks, cur, start = [], None, 0
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip('\n')
            if cur is None:
                if line.strip() == '```c':
                    cur, start = [], n + 1
            elif line.strip() == '```':
                blocks.append((start, cur))
                cur = None
            else:
                cur.append(line)
    return blocks


def main():
    if len(sys.argv) < 3:
        sys.exit('usage: check_hello_excerpts.py HELLO_C DOC.md...')
    with open(sys.argv[1]) as f:
        src = [line.rstrip('\n') for line in f]
    bad = 0
    for doc in sys.argv[2:]:
        blocks = c_blocks(doc)
        if not blocks:
            print('%s: no ```c excerpt of hello.c' % doc)
            bad += 1
        for start, lines in blocks:
            pos = 0
            for i, line in enumerate(lines):
                if line.strip() in ('', '...'):
                    continue
                try:
                    pos = src.index(line, pos) + 1
                except ValueError:
                    print('%s:%d: not in %s (or out of order): %r'
                          % (doc, start + i, sys.argv[1], line))
                    bad += 1
                    break
    if bad:
        sys.exit(1)
    print('%d documents: every excerpt is in %s'
          % (len(sys.argv) - 2, sys.argv[1]))


if __name__ == '__main__':
    main()
