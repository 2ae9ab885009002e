#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The pmrpc authors
"""Write the seed corpus of the worker fuzz target (test/fuzz/fuzz_worker.c).

    test/fuzz/make_worker_corpus.py [DIR]
    test/fuzz/make_worker_corpus.py --crashes [DIR]

DIR defaults to test/fuzz/corpus/worker, or with --crashes to
test/fuzz/crashes-found/worker: the inputs the target found bugs with, one
per finding (test/fuzz/crashes-found/README.md), all fixed and replayed
by meson test (fuzz_worker_findings). An input is a sequence of
operations, each an opcode byte (taken modulo 13) and its argument bytes;
the encoding is the one fuzz_worker.c reads (doc/fuzzing.md has the table).
The seeds are honest sessions, one feature each, and none trips a defect
known today: they run in meson test (fuzz_worker_corpus) on every build.
Inputs that crash go to test/fuzz/crashes-found/, not here.
"""

import os
import sys

# Opcodes.
REQUEST, RESPOND, STALE, INJECT_SRV, INJECT_CLI, WIRE, POLL, COMPLETE, \
    TX_CTL, TIME, SESSION, BURST, REUSE = range(13)

# Request types (OP_REQUEST a, bits 1-2) and size classes (size_of_class()).
ECHO, DEFER, NONE = 0, 1, 2
SZ_0, SZ_1, SZ_11, SZ_12, SZ_100, SZ_P_1, SZ_P, SZ_P1, SZ_2P, SZ_2P1, \
    SZ_5P3, SZ_16P, SZ_MAX, SZ_MAX1, SZ_3000, SZ_40 = range(16)


def request(sess=0, rtype=ECHO, size=SZ_100, resp=SZ_100, handle=False,
            small_buf=False, then_request=False, then_close=False):
    """then_*: what the continuation does (not with a handle)."""
    a = sess | rtype << 1 | int(handle) << 3 | int(small_buf) << 4 | \
        int(then_request) << 5 | (0xc0 if then_close else 0)
    return bytes([REQUEST, a, size, resp])


def respond(which=0, mode=1, size=0):
    """mode: 0-4 an answer (odd: the size asked for, even: size class
    size), 5 an error, 6 too large, 7 twice."""
    return bytes([RESPOND, which, mode | size << 3])


def poll(who=2, n=8):
    """who: 0 server, 1 client, 2 both; n polls (1 to 8) of each."""
    return bytes([POLL, who | (n - 1) << 2])


def wire(client_q, action, pos=0, how=None):
    """action: 0 drop, 1 duplicate, 2 reorder, 3 altered copy (how)."""
    out = bytes([WIRE, int(client_q) | action << 1, pos])
    return out + (bytes([how]) if action == 3 else b'')


def inject(to_srv, f=0, slot=0, sess=0, r=0, p=0, m=0, l=0, seed=0,
           extra=b''):
    """A forged packet: f flags (1 bad token, 2 stranger source, 4 other
    session, bits 3-4 type, 0x20 status, 0x40 request type, 0x80 a
    descriptor: DESC_OWN or DESC_OTHER), r the request number mode, p the
    packet number mode, m the size mode (size_* below), l the payload
    mode (for a descriptor: DESC_GOOD, DESC_RESERVED, DESC_ZERO, or
    desc_len(n)); extra: the bytes the flags and modes read."""
    return bytes([INJECT_SRV if to_srv else INJECT_CLI, f,
                  sess | slot << 1, r, p, m, l, seed]) + extra


# Descriptors (inject f): REQ_DESC to the server, RESP_DESC to the client;
# or the other direction's.
DESC_OWN, DESC_OTHER = 0x80, 0x80 | 1 << 3
# Their payload (inject l): address and key from the seed, the same with a
# reserved byte set, address and key 0; desc_len(n): n bytes, no descriptor.
DESC_GOOD, DESC_RESERVED, DESC_ZERO = 0, 1, 3


def desc_len(n):
    return 2 | n << 2


# inject m, the message size: n bytes (n < 32); n packets; n packets and 1
# byte; the largest message; over it by 1 + n (n < 32); any (extra bytes).
def size_bytes(n):
    return 1 | n << 3


def size_pkts(n):
    return 2 | (n - 1) << 3


def size_pkts_1(n):
    return 3 | n << 3


SIZE_MAX, SIZE_ANY = 4, 6


def size_over(n=0):
    return 5 | n << 3


def complete(client_q, n=0):
    return bytes([COMPLETE, int(client_q), n])


def tx_ctl(client_q, budget=None, flush_completes=True):
    a = int(client_q) | int(budget is None) << 1 | \
        int(flush_completes) << 2
    return bytes([TX_CTL, a, budget or 0])


def time(client=True, req_timeout=False):
    return bytes([TIME, int(client) | int(req_timeout) << 1])


def session_close(sess=0):
    return bytes([SESSION, 0xa0 | sess])


def burst(n=8, sess=0, defer=False, sizes=0):
    return bytes([BURST, (n - 1) | sess << 4 | int(defer) << 5, sizes])


SEEDS = {
    'echo_small': request() + poll(),
    'echo_empty': request(size=SZ_0, resp=SZ_0) + poll(),
    'echo_multi_pkt': request(size=SZ_5P3, resp=SZ_2P1) + poll(n=8) * 4,
    'echo_both_sessions': request(0) + request(1, size=SZ_P1) + poll(),
    'echo_handle': request(handle=True, resp=SZ_3000) + poll(n=8) * 3,
    'echo_handle_small_buf': request(handle=True, small_buf=True,
                                     resp=SZ_3000) + poll(n=8) * 3,
    'echo_too_large': request(size=SZ_MAX1) + poll(),
    'defer_answer': request(rtype=DEFER) + poll() + respond() + poll(),
    'defer_answer_large': request(rtype=DEFER, resp=SZ_16P) + poll() +
    respond(mode=0, size=SZ_16P) + poll(n=8) * 4,
    'defer_error': request(rtype=DEFER) + poll() + respond(mode=5) +
    poll(),
    'defer_too_large': request(rtype=DEFER) + poll() + respond(mode=6) +
    poll(),
    'defer_twice': request(rtype=DEFER) + poll() + respond(mode=7) +
    poll(),
    'stale_after_answer': request(rtype=DEFER) + poll() + respond() +
    poll() + bytes([STALE, 0]),
    'no_handler': request(rtype=NONE) + poll(),
    'burst_over_window': burst(n=16) + poll(n=8) * 4,
    'burst_deferred': burst(n=12, defer=True) + poll() +
    respond(0) + respond(1) + respond(2) + poll(n=8) * 2,
    'wire_drop_request': request() + poll(1, 1) + wire(False, 0) + poll() +
    time(client=True) + poll(),
    'wire_drop_response': request(size=SZ_2P, resp=SZ_5P3) + poll(0) +
    poll(0, 1) + wire(True, 0, 1) + poll() + time() + poll(n=8) * 3,
    'wire_dup_reorder': request(size=SZ_5P3) + poll(1, 1) +
    wire(False, 1, 1) + wire(False, 2, 0) + poll(n=8) * 3,
    'wire_altered_pkt_num': request(size=SZ_5P3) + poll(1, 1) +
    wire(False, 3, 2, 2) + poll(n=8) * 3,
    'tx_queue_full': tx_ctl(True, 1) + request(size=SZ_5P3) + poll(n=8) +
    tx_ctl(True) + time() + poll(n=8) * 3,
    'tx_late_completion': tx_ctl(True, flush_completes=False) +
    tx_ctl(False, flush_completes=False) + request(size=SZ_2P1) +
    poll(n=8) * 2 + complete(True, 1) + complete(False) + poll(n=8),
    'timeout': request(rtype=DEFER) + poll() + time(req_timeout=True) +
    poll() + respond() + poll(),
    'session_close': request(rtype=DEFER) + request(1) + poll() +
    session_close(0) + respond() + poll(),
    'continuation_requests': request(then_request=True) + poll(n=8) * 2,
    'continuation_closes': request(then_close=True) + request(rtype=DEFER) +
    poll() + respond() + poll(),
    # Forged packets with the session's token and source.
    'forged_req_new_num': inject(True, r=1, l=0, m=1 | 20 << 3) + poll(),
    'forged_req_bad_token': inject(True, f=1, r=1, m=1 | 20 << 3,
                                   extra=bytes([7])) + poll(),
    'forged_req_stranger': inject(True, f=2, r=1, m=1 | 20 << 3) + poll(),
    'forged_req_pieces': inject(True, r=1, m=2 | 3 << 3) +
    inject(True, r=1, p=7, m=2 | 3 << 3) +
    inject(True, r=1, p=5 | 2 << 3, m=2 | 3 << 3) +
    inject(True, r=1, p=5 | 3 << 3, m=2 | 3 << 3) + poll(),
    'forged_cr_to_server': inject(True, f=3 << 3) + poll(),
    'forged_resp_to_client': request(rtype=DEFER) + poll() +
    inject(False, r=0, m=1 | 10 << 3, l=3) + poll() + respond() + poll(),
    'forged_cr_to_client': request(size=SZ_5P3, rtype=DEFER) + poll(1, 1) +
    inject(False, f=1 << 3, p=1, m=0) + poll() + respond() + poll(),
    'forged_status': request(rtype=DEFER) + poll() +
    inject(False, f=0x20, m=0, l=0, extra=bytes([4])) + poll() +
    respond() + poll(),
    # Descriptors (version 3) on sessions without an RC QP (fuzzq has
    # none): dropped, nothing allocated, the sessions go on.
    'desc_req_to_server': inject(True, f=DESC_OWN, r=1,
                                 m=size_pkts_1(4)) + poll() +
    request() + poll(),
    'desc_req_sizes': inject(True, f=DESC_OWN, r=1, m=size_pkts(1)) +
    inject(True, f=DESC_OWN, r=1, m=size_bytes(1), seed=1) +
    inject(True, f=DESC_OWN, r=1, m=SIZE_MAX, seed=2) +
    inject(True, f=DESC_OWN, r=1, m=size_over(), seed=3) +
    inject(True, f=DESC_OWN, r=1, m=SIZE_ANY,
           extra=b'\xff\xff\xff\xff') + poll() + request() + poll(),
    'desc_req_copies': inject(True, f=DESC_OWN, r=0, m=size_pkts_1(2)) +
    inject(True, f=DESC_OWN, r=0, m=size_pkts_1(2)) +
    request(rtype=DEFER) + poll() +
    inject(True, f=DESC_OWN, r=5, m=size_pkts_1(2)) + poll() +
    respond() + poll(),
    'desc_req_bad': inject(True, f=DESC_OWN, r=1, m=size_pkts_1(1),
                           l=DESC_RESERVED) +
    inject(True, f=DESC_OWN, r=1, m=size_pkts_1(1), l=desc_len(0)) +
    inject(True, f=DESC_OWN, r=1, m=size_pkts_1(1), l=desc_len(15)) +
    inject(True, f=DESC_OWN, r=1, m=size_pkts_1(1), l=desc_len(17)) +
    inject(True, f=DESC_OWN, r=1, p=7, m=size_pkts_1(1)) +
    inject(True, f=DESC_OWN, r=1, m=size_bytes(0)) +
    inject(True, f=DESC_OWN | 0x20, r=1, m=size_pkts_1(1),
           extra=bytes([2])) +
    inject(True, f=DESC_OWN, r=1, m=size_pkts_1(1), l=DESC_ZERO) +
    poll() + request() + poll(),
    'desc_req_forged': inject(True, f=DESC_OWN | 1, r=1, m=size_pkts_1(1),
                              extra=bytes([9])) +
    inject(True, f=DESC_OWN | 2, r=1, m=size_pkts_1(1)) +
    inject(True, f=DESC_OWN | 4, r=1, m=size_pkts_1(1),
           extra=bytes([2])) + poll() + request() + poll(),
    'desc_resp_to_client': request(rtype=DEFER) + poll() +
    inject(False, f=DESC_OWN, r=0, m=size_pkts_1(4)) + poll() +
    respond() + poll(),
    'desc_resp_sizes': request(rtype=DEFER) + poll() +
    inject(False, f=DESC_OWN, m=size_pkts(1)) +
    inject(False, f=DESC_OWN, m=SIZE_MAX, seed=1) +
    inject(False, f=DESC_OWN, m=size_over(3), seed=2) +
    inject(False, f=DESC_OWN, m=SIZE_ANY, extra=b'\x00\x00\x00\x80') +
    poll() + respond() + poll(),
    'desc_resp_bad': request(rtype=DEFER) + poll() +
    inject(False, f=DESC_OWN, m=size_pkts_1(1), l=DESC_RESERVED) +
    inject(False, f=DESC_OWN, m=size_pkts_1(1), l=desc_len(0)) +
    inject(False, f=DESC_OWN, m=size_pkts_1(1), l=desc_len(17)) +
    inject(False, f=DESC_OWN | 0x20, m=size_pkts_1(1), extra=bytes([3])) +
    inject(False, f=DESC_OWN, r=4, m=size_pkts_1(1)) +
    poll() + respond() + poll(),
    'desc_wrong_direction': request(rtype=DEFER) + poll() +
    inject(True, f=DESC_OTHER, r=1, m=size_pkts_1(1)) +
    inject(False, f=DESC_OTHER, m=size_pkts_1(1)) + poll() +
    respond() + poll(),
    'desc_wire_altered': request(size=SZ_2P) + poll(1, 1) +
    wire(False, 3, 0, 5 | 4 << 3) + wire(False, 3, 1, 5 | 4 << 3) +
    poll(n=8) * 3,
}


# One input per finding of the fuzz target, as short as it gets; each is
# described, with what fixed it, in test/fuzz/crashes-found/README.md.
CRASHES = {
    # A request's msgbuf handed back (continuation) while its packet is
    # still in the worker's TX burst: pmr_session_destroy() fails the
    # request, then flushes the burst, sending from the freed msgbuf.
    'queued_session_destroy': request() + session_close(0),
    # The same, with a handle: the driver holds the msgbuf once done.
    'queued_session_destroy_handle': request(handle=True) +
    session_close(0),
    # The same through the timers: a request times out (or its backlog
    # peers, entering the window in the same scan) before the poll's
    # flush sends its packet.
    'queued_timeout': request() + time(req_timeout=True),
    # The same inside a poll: a request queued by pmr_request() between
    # two polls is answered (a forged response, valid token) in the next
    # one, before that poll's flush sends its packet.
    'queued_between_polls': request() + inject(False) + poll(1, 1),
    # Issue 10, defect 1: a status-only response (no handler), then a
    # request for its response packet 1: NULL pushed to the TX free FIFO,
    # dereferenced by rpc_txfree_poll().
    'defect1_status_rfr': request(rtype=NONE) + poll() +
    inject(True, f=1 << 3, p=3) + poll(0, 1),
    # The same reached by the honest client: one forged response packet 0
    # (valid token) announcing a multi-packet response makes the client
    # ask for packets 1.. of a status-only response.
    'defect1_forged_resp_header': request(rtype=NONE, size=SZ_0) +
    inject(False, m=4, l=1) + poll(n=8),
    # pmr_session_destroy() runs the continuations of the session's
    # requests before marking it closing: one that requests on the same
    # session gets its request accepted, left in the window of a session
    # without a peer (sent later to peer NULL, never completed); one that
    # closes the session frees it twice (its number twice on the free
    # stack, the receive reservation subtracted twice: every later
    # session is refused, -ENOSPC).
    'reentry_request': request(then_request=True) + poll(1, 1) +
    complete(True) + session_close(0),
    'reentry_close': request(then_close=True) + poll(1, 1) +
    complete(True) + session_close(0),
    # Issue 10, defect 7: packet 0 of a 4-packet request (forged, valid
    # token) and nothing more: its slot keeps a 64 KiB msgbuf forever.
    'defect7_partial_request': inject(True, r=1, m=2 | 3 << 3) + poll(),
    # Issue 10, defect 10: the msgbuf of a pending request (deferred by
    # the server) accepted by a second pmr_request().
    'defect10_msgbuf_twice': request(rtype=DEFER) + poll() +
    complete(True) + bytes([REUSE, 0]),
    # Issue 10, defect 10: a handle answered once answers the slot's
    # next request (deferred) when used again.
    'defect10_stale_handle': request(rtype=DEFER) + poll() + respond() +
    poll() + request(rtype=DEFER) + poll() + bytes([STALE, 0]),
    # Issue 12: the FIFO of sent msgbufs drained before the poll's burst
    # was sent: a server's kept response queued again and its slot
    # cleared in the same poll was freed while still in the burst, then
    # sent from its pool (changed under the driver). Found by libFuzzer
    # in CI: 16 echoes on session 0, 16 deferred on session 1, a request
    # of an unregistered type (rtype 3), a forged response to the client.
    'txfree_before_flush': burst(n=16, sizes=0xff) +
    burst(n=16, sess=1, defer=True, sizes=0xff) +
    bytes([REQUEST, 0x07, 0x1e, 0x06]) + inject(False),
}


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    args = sys.argv[1:]
    seeds = SEEDS
    out = os.path.join(here, 'corpus', 'worker')
    if args and args[0] == '--crashes':
        args = args[1:]
        seeds = CRASHES
        out = os.path.join(here, 'crashes-found', 'worker')
    if args:
        out = args[0]
    os.makedirs(out, exist_ok=True)
    for name, data in sorted(seeds.items()):
        with open(os.path.join(out, name + '.bin'), 'wb') as f:
            f.write(data)
    print(f'{len(seeds)} inputs in {out}')


if __name__ == '__main__':
    main()
