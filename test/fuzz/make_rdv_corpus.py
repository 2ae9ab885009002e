#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The pmrpc authors
"""Write the seed corpus of the worker_rdv fuzz target (fuzz_worker_rdv.c).

    make_rdv_corpus.py DIR

Each seed is a sequence of operations, written with the helpers below so
that it reads as what it does; doc/fuzzing.md has the encoding.
"""

import os
import struct
import sys

OP_REQUEST, OP_FORGE_REQ, OP_FORGE_RESP, OP_POLL, OP_TIME, OP_ANSWER, \
    OP_FAULT, OP_CLOSE = range(8)

# Size classes (size_of()): the header alone, 100, plen - 1, plen,
# plen + 1, 2 plen + 3, 16 KiB, 64 KiB, 64 KiB + 1, 300000, the largest - 1,
# the largest; forged descriptors also 12: 0, 13: 1, 14: the largest + 1,
# 15: 4 GiB - 1.
HDR, S100, PLEN_M1, PLEN, PLEN_P1, TWO_PLEN, K16, K64, K64_P1, K300, \
    MAX_M1, MAX = range(12)
ZERO, ONE, OVER_MAX, HUGE = 12, 13, 14, 15

# Key modes: random, 0, the sender's own local-only registration; address
# modes: random, 0, that registration's buffer.
KEY_RANDOM, KEY_ZERO, KEY_LOCAL = range(3)
ADDR_RANDOM, ADDR_ZERO, ADDR_LOCAL = range(3)
# Request number modes of a forged REQ_DESC (low 2 bits; slot << 2).
NUM_NEXT, NUM_LAST, NUM_ANY = 0, 2, 3


def u32(v):
    return struct.pack('<I', v & 0xffffffff)


def request(pair, size, resp, hold=False):
    return bytes([OP_REQUEST, pair, size, resp, 1 if hold else 0])


def forge_key_tail(addr, r=0x12345678, a=(0xdead, 0xbeef)):
    out = u32(r)
    if addr == ADDR_RANDOM:
        out += u32(a[0]) + u32(a[1])
    return out


def forge_req(pair, size, key, addr, num=NUM_NEXT, slot=0, any_num=0):
    out = bytes([OP_FORGE_REQ, pair, size, key, addr, (slot << 2) | num])
    out += forge_key_tail(addr)
    if num == NUM_ANY:
        out += u32(any_num)
    return out


def forge_resp(pair, size, key, addr, slot=0, any_num=None):
    which = slot if any_num is None else 0x80
    out = bytes([OP_FORGE_RESP, pair, size, key, addr, which])
    out += forge_key_tail(addr)
    if any_num is not None:
        out += u32(any_num)
    return out


def poll(n=16, who=0, pair=0):
    """who: 0 both, 1 the client only, 2 the server only."""
    return bytes([OP_POLL, (pair << 2) | who, n - 1])


def time(pair, server=False, timeouts=False):
    return bytes([OP_TIME, (pair << 1) | int(server), int(timeouts)])


def answer(which=0, fail=False):
    return bytes([OP_ANSWER, which, int(fail)])


def fault(drop=0, dup=0, fail=0):
    return bytes([OP_FAULT, drop, dup, fail])


def close(pair):
    return bytes([OP_CLOSE, 0xa0 | pair])


def seeds():
    s = {}
    sizes = [HDR, PLEN, PLEN_P1, TWO_PLEN, K16, K64_P1, K300, MAX]
    s['sizes'] = b''.join(request(p, sz, sizes[-1 - i])
                          for p in (0, 1) for i, sz in enumerate(sizes))
    s['held'] = (request(0, K300, K64, hold=True) +
                 request(1, K300, MAX, hold=True) + poll(16) +
                 answer(0) + poll(8) + answer(0, fail=True))
    for k in (KEY_RANDOM, KEY_ZERO, KEY_LOCAL):
        for a in (ADDR_RANDOM, ADDR_ZERO, ADDR_LOCAL):
            s['forge_req_k%d_a%d' % (k, a)] = (
                request(0, K300, PLEN) + forge_req(0, K64, k, a) +
                forge_req(1, MAX, k, a) + poll(16) + request(0, K16, K16) +
                request(1, K16, K300))
    s['forge_req_sizes'] = b''.join(
        forge_req(p, sz, KEY_RANDOM, ADDR_LOCAL, slot=sz % 8)
        for p in (0, 1) for sz in (ZERO, ONE, PLEN, PLEN_P1, OVER_MAX,
                                   HUGE)) + request(0, K300, K300)
    s['forge_req_copy'] = (request(0, K300, K300) + poll(2) +
                           forge_req(0, K300, KEY_LOCAL, ADDR_LOCAL,
                                     num=NUM_LAST) + poll(16))
    s['forge_req_far'] = (forge_req(0, K300, KEY_RANDOM, ADDR_RANDOM,
                                    num=NUM_ANY, any_num=1 << 20) +
                          request(0, K300, K300))
    s['forge_resp'] = (request(0, K300, K300, hold=True) +
                       request(1, K64_P1, PLEN, hold=True) + poll(4) +
                       forge_resp(0, K300, KEY_RANDOM, ADDR_ZERO) +
                       forge_resp(1, MAX, KEY_LOCAL, ADDR_LOCAL) +
                       forge_resp(1, HUGE, KEY_ZERO, ADDR_RANDOM,
                                  any_num=7) + poll(8) + answer(0) +
                       answer(0))
    s['reader_never_done'] = (request(0, K300, MAX) + request(1, MAX, K300) +
                              poll(4, who=2, pair=0) +
                              poll(4, who=2, pair=1) +
                              time(0, server=True, timeouts=True) +
                              time(1, server=True, timeouts=True) +
                              time(0, timeouts=True) + time(1, timeouts=True))
    s['client_never_reads'] = (request(0, HDR, MAX) + request(1, HDR, MAX) +
                               poll(8, who=2) + poll(8, who=2, pair=1) +
                               time(0, server=True, timeouts=True) +
                               time(1, server=True, timeouts=True) + poll(8))
    s['rto'] = (request(0, K300, K300) + poll(1, who=1) + time(0) +
                poll(1, who=1) + time(0) + poll(16))
    s['faults'] = (fault(drop=2, dup=1) + request(0, K300, K300) +
                   request(1, K64_P1, K64_P1) + poll(16) + fault(fail=1) +
                   request(0, MAX, HDR) + request(1, HDR, MAX) + poll(16))
    s['close_mid_read'] = (request(0, MAX, MAX) + poll(1) + close(0) +
                           request(1, K300, K300, hold=True) + poll(2) +
                           close(1) + request(0, K300, K300) +
                           request(1, K300, K300))
    # A server session reset while its slot offers a copy the region's
    # key exposes (pair 1, no windows), the client never having read it:
    # the pair fails, which resets the pair's sessions, this one inside
    # its own reset (freed twice before the fix).
    s['reset_offer_unread'] = (request(1, HDR, PLEN_P1) +
                               poll(8, who=2, pair=1) + close(1) +
                               request(1, HDR, PLEN_P1) + poll(8))
    return s


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, data in sorted(seeds().items()):
        with open(os.path.join(out, name), 'wb') as f:
            f.write(data)
    return 0


if __name__ == '__main__':
    sys.exit(main())
