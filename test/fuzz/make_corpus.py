#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The pmrpc authors
"""Write the seed corpora of the fuzz targets (doc/fuzzing.md).

    test/fuzz/make_corpus.py [--check] [OUTDIR]

Writes OUTDIR/rx/*.bin, OUTDIR/nexus/*.bin and OUTDIR/nexus_seq/*.bin
(OUTDIR defaults to
test/fuzz/corpus beside this script): valid inputs of each type and a few
near misses, each rejected by one check only. The layouts are written out
here by hand from the headers (eth_hdr.h, pmr_pkthdr.h, nexus_wire.h), not
by the code under test. Files of other names (regression inputs) are left
alone. With --check, writes nothing and exits 1 if a file differs.

An rx input is one byte of PMR_ETH_PARSE_* flags (bit 0: IP checksum good,
bit 1: L4 checksum good), then an Ethernet frame to the local endpoint of
fuzz_rx.c: LOCAL_MAC, LOCAL_IP, LOCAL_PORT below. A nexus input is one
datagram between nexuses. A nexus_seq input is a sequence of operations
(datagrams, clock advances, worker messages) for fuzz_nexus_seq.c: seeds
for a server and a client handshake, a refusal and retry, a flood of
requests, the per-source cap, a client restart, raw datagrams.
"""

import os
import struct
import sys

# fuzz_rx.c: local endpoint.
LOCAL_MAC = bytes([0x02, 0, 0, 0, 0, 0x01])
LOCAL_IP = bytes([10, 0, 0, 1])
LOCAL_PORT = 31850
PEER_MAC = bytes([0x02, 0, 0, 0, 0, 0x02])
PEER_IP = bytes([10, 0, 0, 2])
PEER_PORT = 31851

# eth_hdr.h
PARSE_IP_CKSUM_GOOD = 1
PARSE_L4_CKSUM_GOOD = 2
ETHERTYPE_IPV4 = 0x0800
IPPROTO_UDP = 17
IP_DF = 0x4000
IP_MF = 0x2000

# pmr_pkthdr.h
PKTHDR_MAGIC = 0xa7
PKTHDR_VERSION = 3
PKT_REQ, PKT_RESP, PKT_CR, PKT_RFR, PKT_TOKEN = 1, 2, 3, 4, 5
PKT_REQ_DESC, PKT_RESP_DESC = 6, 7
PKT_TOKEN_LEN = 16
PKT_DESC_LEN = 16

# nexus_wire.h
NEXUS_MAGIC = 0x4e524d50
NEXUS_VERSION = 5
CONNECT_REQ, ACCEPT, REFUSE, DISCONNECT, HEARTBEAT, COOKIE = 1, 2, 3, 4, 5, 6
RC_REQ, RC_ACK = 7, 8
CLIENT_BOOT_ID = 0x1111222233334444
SERVER_BOOT_ID = 0x5555666677778888
NAME_MAX = 16  # PMR_TRANSPORT_NAME_MAX
ADDR_MAX = 32  # PMR_TRANSPORT_ADDR_MAX
# enum pmr_sm_status: the refusal reasons
SM_E_NO_WORKER, SM_E_NO_RESOURCES, SM_E_TIMEOUT, SM_E_BAD_REQUEST = 1, 2, 3, 4
SM_E_PEER_DEAD, SM_E_REFUSED, SM_E_MSG_SIZE, SM_E_FAMILY = 7, 8, 9, 10
PKT_SIZE_MIN, PKT_SIZE_MAX = 512, 65535  # NEXUS_WIRE_PKT_SIZE_*


def cksum(data):
    """Internet checksum (RFC 1071) of data."""
    if len(data) % 2:
        data += b'\0'
    s = sum(struct.unpack('!%dH' % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def pkthdr(pkt_type, msg_size, pkt_num=0, status=0, req_type=7,
           dest_session=3, token=0x5eed1234c0ffee01, req_num=42,
           magic=PKTHDR_MAGIC, version=PKTHDR_VERSION, reserved=0):
    """The 32-byte RPC packet header, little-endian."""
    return struct.pack('<BBBBHHIIQQ', magic, version, pkt_type, req_type,
                       dest_session, pkt_num, msg_size, reserved, token,
                       req_num | (status << 56))


def token_pkt(hs_id=0x0123456789abcdef, server_session=9, credits=8,
              **kw):
    """A TOKEN packet: header, then hs_id, session, credits, reserved."""
    kw.setdefault('req_type', 0)
    kw.setdefault('req_num', 0)
    return (pkthdr(PKT_TOKEN, PKT_TOKEN_LEN, **kw) +
            struct.pack('<QHHI', hs_id, server_session, credits, 0))


def desc_pkt(pkt_type=PKT_REQ_DESC, msg_size=1 << 20,
             addr=0x00007f0012345000, rkey=0xdeadbeef, reserved=0, **kw):
    """A descriptor packet (version 3): header, then addr, rkey,
    reserved."""
    return (pkthdr(pkt_type, msg_size, **kw) +
            struct.pack('<QII', addr, rkey, reserved))


def frame(payload, flags=0, udp_cksum=False, ip_options=b'', frag=IP_DF,
          ip_len_delta=0, pad_to=0, bad_ip_cksum=False, bad_udp_cksum=False):
    """Flag byte and a frame from PEER to LOCAL carrying payload."""
    udp_len = 8 + len(payload)
    ihl = 20 + len(ip_options)
    ip_len = ihl + udp_len + ip_len_delta
    ip = struct.pack('!BBHHHBBH4s4s', 0x40 | (ihl // 4), 0, ip_len, 1, frag,
                     64, IPPROTO_UDP, 0, PEER_IP, LOCAL_IP) + ip_options
    c = cksum(ip) ^ (0x0100 if bad_ip_cksum else 0)
    ip = ip[:10] + struct.pack('!H', c) + ip[12:]
    udp = struct.pack('!HHHH', PEER_PORT, LOCAL_PORT, udp_len, 0) + payload
    if udp_cksum:
        pseudo = PEER_IP + LOCAL_IP + struct.pack('!BBH', 0, IPPROTO_UDP,
                                                  udp_len)
        c = cksum(pseudo + udp) or 0xffff
        if bad_udp_cksum:
            c ^= 0x0001
        udp = udp[:6] + struct.pack('!H', c) + udp[8:]
    eth = LOCAL_MAC + PEER_MAC + struct.pack('!H', ETHERTYPE_IPV4)
    f = eth + ip + udp
    if len(f) < pad_to:
        f += bytes(pad_to - len(f))
    return bytes([flags]) + f


def data(n):
    return bytes((i * 7 + 1) & 0xff for i in range(n))


def rx_corpus():
    return {
        # Accepted, each packet type.
        'req_small.bin': frame(pkthdr(PKT_REQ, 16) + data(16)),
        'req_udp_cksum.bin': frame(pkthdr(PKT_REQ, 100) + data(100),
                                   udp_cksum=True),
        'req_multi_pkt.bin': frame(pkthdr(PKT_REQ, 3000, pkt_num=2) +
                                   data(64), udp_cksum=True),
        'req_empty.bin': frame(pkthdr(PKT_REQ, 0)),
        'resp_status.bin': frame(pkthdr(PKT_RESP, 8, status=3) + data(8),
                                 udp_cksum=True),
        'cr_padded.bin': frame(pkthdr(PKT_CR, 5000, pkt_num=1), pad_to=80),
        'rfr_ip_options.bin': frame(pkthdr(PKT_RFR, 5000, pkt_num=4),
                                    ip_options=bytes([1, 1, 1, 0])),
        'token.bin': frame(token_pkt(), udp_cksum=True),
        'req_desc.bin': frame(desc_pkt(), udp_cksum=True),
        'resp_desc.bin': frame(desc_pkt(PKT_RESP_DESC, 0x30000,
                                        addr=0x00007f00abcd0040, rkey=0x11)),
        'desc_msg_size_1.bin': frame(desc_pkt(msg_size=1, addr=0, rkey=0)),
        # Accepted only thanks to the NIC's checksum flags.
        'offload_bad_cksums.bin': frame(
            pkthdr(PKT_REQ, 32) + data(32), udp_cksum=True,
            bad_ip_cksum=True, bad_udp_cksum=True,
            flags=PARSE_IP_CKSUM_GOOD | PARSE_L4_CKSUM_GOOD),
        # Near misses: one check fails.
        'miss_udp_cksum.bin': frame(pkthdr(PKT_REQ, 16) + data(16),
                                    udp_cksum=True, bad_udp_cksum=True),
        'miss_ip_frag.bin': frame(pkthdr(PKT_REQ, 16) + data(16),
                                  frag=IP_MF),
        'miss_ip_len.bin': frame(pkthdr(PKT_REQ, 16) + data(16),
                                 ip_len_delta=1),
        'miss_pkthdr_version.bin': frame(pkthdr(PKT_REQ, 16, version=1) +
                                         data(16)),
        'miss_pkthdr_reserved.bin': frame(pkthdr(PKT_REQ, 16, reserved=1) +
                                          data(16)),
        'miss_token_size.bin': frame(token_pkt()[:-1]),
        'miss_token_credits.bin': frame(token_pkt(credits=0)),
        'miss_pkt_num.bin': frame(pkthdr(PKT_RESP, 16, pkt_num=1) +
                                  data(16)),
        # A version-2 peer (before descriptors).
        'miss_pkthdr_version2.bin': frame(pkthdr(PKT_REQ, 16, version=2) +
                                          data(16)),
        # Descriptors, one rule broken each (doc/rendezvous.md, "Wire").
        'miss_desc_empty.bin': frame(desc_pkt()[:32]),
        'miss_desc_empty_size0.bin': frame(
            pkthdr(PKT_RESP_DESC, 0)),
        'miss_desc_len15.bin': frame(desc_pkt()[:-1]),
        'miss_desc_len17.bin': frame(desc_pkt() + b'\0'),
        'miss_desc_reserved.bin': frame(desc_pkt(reserved=1)),
        'miss_desc_pkt_num.bin': frame(desc_pkt(pkt_num=1)),
        'miss_desc_msg_size0.bin': frame(desc_pkt(msg_size=0)),
        'miss_desc_status.bin': frame(desc_pkt(PKT_RESP_DESC, status=1)),
        'miss_desc_hdr_reserved.bin': frame(
            pkthdr(PKT_REQ_DESC, 4096, reserved=1) +
            struct.pack('<QII', 0x1000, 7, 0)),
    }


def nexus_hdr(msg_type, hs_id=0x0123456789abcdef, version=NEXUS_VERSION):
    return struct.pack('<IHHQ', NEXUS_MAGIC, version, msg_type, hs_id)


def eth_addr(mac=PEER_MAC, ip=PEER_IP, port=PEER_PORT):
    """An eth queue address: MAC, IPv4 and UDP port, network order."""
    return mac + ip + struct.pack('!H', port)


def addr_field(addr):
    return bytes([len(addr)]) + addr


SECRET = bytes(range(0x20, 0x30))


def connect_req(driver=b'eth', addr=None, credits=32, name=None,
                boot_id=CLIENT_BOOT_ID, cookie=0, pkt_size=1440):
    if addr is None:
        addr = eth_addr()
    if name is None:
        name = driver.ljust(NAME_MAX, b'\0')
    return (nexus_hdr(CONNECT_REQ) + struct.pack('<HHH', 1, 5, 0) + name +
            struct.pack('<HIQQ', credits, pkt_size, boot_id, cookie) +
            SECRET +
            addr_field(addr))


def accept(addr=None, boot_id=SERVER_BOOT_ID, credits=8, pkt_size=4064):
    if addr is None:
        addr = eth_addr(LOCAL_MAC, LOCAL_IP, LOCAL_PORT)
    # No token: the server worker sends it on the data path.
    return (nexus_hdr(ACCEPT) +
            struct.pack('<HHHHHIQ', 1, 5, 0, 9, credits, pkt_size, boot_id) +
            SECRET +
            addr_field(addr))


def refuse(status):
    return nexus_hdr(REFUSE) + struct.pack('<HHHH', 1, 5, 0, status)


def disconnect():
    return nexus_hdr(DISCONNECT) + struct.pack('<HHHH', 0, 9, 1, 5)


def heartbeat(hs_id=0, counter=1, mac=0x0123456789abcdef):
    return nexus_hdr(HEARTBEAT, hs_id=hs_id) + struct.pack(
        '<QQQQ', CLIENT_BOOT_ID, SERVER_BOOT_ID, counter, mac)


def cookie(value=0x0c0c0c0c0c0c0c0c):
    return nexus_hdr(COOKIE) + struct.pack('<HHQ', 1, 5, value)


RC_GID = bytes(range(0xf0, 0x100))


def rc_msg(msg_type=RC_REQ, status=0, generation=1, hs_id=0,
           boot_id=CLIENT_BOOT_ID, peer_boot_id=SERVER_BOOT_ID,
           qpn=0x000123, psn=0x00abcd, gid=RC_GID, mtu=1024, rd_credits=16,
           max_rd_atomic=16, max_msg_size=1 << 30, mac=0x0123456789abcdef):
    """RC_REQ or RC_ACK: workers, status, generation, boot ids, the QP's
    attributes (struct pmr_transport_rc_attr) and the MAC."""
    return (nexus_hdr(msg_type, hs_id=hs_id) +
            struct.pack('<HHHIQQII', 1, 0, status, generation, boot_id,
                        peer_boot_id, qpn, psn) + gid +
            struct.pack('<IBBIQ', mtu, rd_credits, max_rd_atomic,
                        max_msg_size, mac))


def rc_refused(status):
    return rc_msg(RC_ACK, status=status, qpn=0, psn=0, gid=bytes(16), mtu=0,
                  rd_credits=0, max_rd_atomic=0, max_msg_size=0)


def nexus_corpus():
    return {
        # Accepted, each type.
        'connect_req_eth.bin': connect_req(),
        'connect_req_verbs.bin': connect_req(b'ib', addr=data(ADDR_MAX),
                                             pkt_size=PKT_SIZE_MIN),
        'connect_req_pkt_max.bin': connect_req(pkt_size=PKT_SIZE_MAX),
        'connect_req_no_addr.bin': connect_req(addr=b'', credits=1),
        'connect_req_cookie.bin': connect_req(cookie=0x0c0c0c0c0c0c0c0c),
        'accept_eth.bin': accept(),
        'refuse_no_worker.bin': refuse(SM_E_NO_WORKER),
        'refuse_bad_request.bin': refuse(SM_E_BAD_REQUEST),
        'refuse_refused.bin': refuse(SM_E_REFUSED),
        'refuse_msg_size.bin': refuse(SM_E_MSG_SIZE),
        'refuse_family.bin': refuse(SM_E_FAMILY),
        'disconnect.bin': disconnect(),
        'heartbeat.bin': heartbeat(),
        'cookie.bin': cookie(),
        'rc_req.bin': rc_msg(),
        'rc_ack.bin': rc_msg(RC_ACK, boot_id=SERVER_BOOT_ID,
                             peer_boot_id=CLIENT_BOOT_ID, qpn=0xffffff,
                             mtu=4096, rd_credits=1, max_msg_size=0),
        'rc_ack_no_resources.bin': rc_refused(SM_E_NO_RESOURCES),
        'rc_ack_family.bin': rc_refused(SM_E_FAMILY),
        # Near misses: one check fails.
        'miss_name_unpadded.bin': connect_req(
            name=b'eth\0x'.ljust(NAME_MAX, b'\0')),
        'miss_addr_too_long.bin': accept(addr=data(ADDR_MAX + 1)),
        'miss_accept_trailing.bin': accept() + b'\0',
        'miss_accept_boot_id.bin': accept(boot_id=0),
        'miss_refuse_status.bin': refuse(SM_E_TIMEOUT),
        'miss_refuse_status_new.bin': refuse(SM_E_FAMILY + 1),
        'miss_connect_req_pkt_size.bin': connect_req(pkt_size=0),
        'miss_connect_req_pkt_small.bin': connect_req(
            pkt_size=PKT_SIZE_MIN - 1),
        'miss_accept_pkt_size.bin': accept(pkt_size=PKT_SIZE_MAX + 1),
        'miss_heartbeat_hs_id.bin': heartbeat(hs_id=1),
        'miss_connect_req_credits.bin': connect_req(credits=0),
        'miss_accept_credits.bin': accept(credits=0),
        'miss_accept_token.bin': accept() + bytes(8),
        'miss_heartbeat_counter.bin': heartbeat(counter=0),
        'miss_cookie_zero.bin': cookie(0),
        'miss_rc_hs_id.bin': rc_msg(hs_id=1),
        'miss_rc_generation.bin': rc_msg(generation=0),
        'miss_rc_boot_id.bin': rc_msg(peer_boot_id=0),
        'miss_rc_req_status.bin': rc_msg(status=SM_E_NO_RESOURCES),
        'miss_rc_ack_status.bin': rc_refused(SM_E_REFUSED),
        'miss_rc_ack_attr.bin': rc_msg(RC_ACK, status=SM_E_NO_WORKER),
        'miss_rc_qpn.bin': rc_msg(qpn=1 << 24),
        'miss_rc_mtu.bin': rc_msg(mtu=1500),
        'miss_rc_rd_credits.bin': rc_msg(rd_credits=0),
        'miss_rc_max_msg.bin': rc_msg(max_msg_size=4095),
        'miss_rc_trailing.bin': rc_msg() + b'\0',
        'miss_version.bin': nexus_hdr(DISCONNECT, version=NEXUS_VERSION + 1) +
        disconnect()[16:],
    }


# fuzz_nexus_seq.c: an input is a sequence of operations, each an opcode
# byte (taken modulo 11) and its fields.
OP_REQ, OP_ACCEPT, OP_REFUSE, OP_DISC, OP_COOKIE, OP_HB, OP_RAW, OP_TIME, \
    OP_WSTEP, OP_WCONNECT, OP_WCLOSE = range(11)
HB_GOOD = 0x24  # boot id 0, next counter, good MAC, right peer boot id


def seq_req(src, hs, cookie, b=0, sess=1, credits=8, addr=0):
    """CONNECT_REQ; cookie 0 none, 1 the one the nexus sent, 2 a wrong one;
    b: server worker b % 3, boot id b // 3 % 3, family "ib" if b & 0x80."""
    return bytes([OP_REQ, src, hs, cookie, b, sess]) + \
        struct.pack('<H', credits) + bytes([addr])


def seq_accept(src, hs_sel=0, b=1, ss=3, credits=4, addr=0):
    return bytes([OP_ACCEPT, src, hs_sel, b, ss]) + \
        struct.pack('<H', credits) + bytes([addr])


def seq_hb(src, b=HB_GOOD):
    return bytes([OP_HB, src, b])


def seq_time(ms):
    return bytes([OP_TIME, ms // 10])


def seq_wstep(w=0, b=0, c=4):
    return bytes([OP_WSTEP, w, b, c])


def nexus_seq_corpus():
    server = (seq_req(0, 0, 0) + seq_req(0, 0, 1) + seq_wstep() +
              seq_hb(0) + seq_time(300) + seq_hb(0) + seq_time(300) +
              seq_hb(0, 0x25) + seq_time(1000) + seq_wstep())
    client = (bytes([OP_WCONNECT, 0, 0, 8]) + seq_accept(0) + seq_wstep() +
              seq_hb(0) + seq_time(200) + seq_hb(0) + seq_hb(0, 0x27) +
              bytes([OP_WCLOSE, 0, 8]) + seq_time(100))
    refused = (bytes([OP_WCONNECT, 1, 3, 9]) +
               bytes([OP_REFUSE, 1, 0, 1, 1]) + seq_time(150) +
               bytes([OP_COOKIE, 1, 0, 5, 6]) + seq_time(2000))
    # A server worker's callback refuses (b & 0xa0: REFUSE, REFUSED); the
    # client's repeat gets the same answer. A client refused so: final.
    worker_refused = (seq_req(0, 0, 0) + seq_req(0, 0, 1) +
                      seq_wstep(b=0xa0) + seq_time(100) + seq_req(0, 0, 1) +
                      seq_time(2000))
    refused_final = (bytes([OP_WCONNECT, 1, 3, 9]) +
                     bytes([OP_REFUSE, 1, 0, 1, 3]) + seq_time(150) +
                     seq_time(2000))
    flood = b''
    for i in range(24):
        flood += seq_req(1 + i % 3, i % 4, i % 3, sess=i % 4)
    cap = b''
    for i in range(4):
        cap += seq_req(i % 2, i, 0, sess=i) + seq_req(i % 2, i, 1, sess=i)
    cap += seq_wstep() * 4 + bytes([OP_DISC, 0, 0, 0, 0]) + seq_time(500)
    restart = (seq_req(2, 0, 0) + seq_req(2, 0, 1) + seq_wstep() +
               seq_req(2, 1, 0, b=3) + seq_req(2, 1, 1, b=3) +
               seq_wstep(c=5) + seq_hb(2, 0x01) + seq_time(600) +
               seq_wstep() * 2)
    raw = bytes([OP_RAW, 3, len(heartbeat())]) + heartbeat() + \
        bytes([OP_RAW, 0, len(cookie())]) + cookie()
    return {
        'server_handshake.bin': server,
        'client_handshake.bin': client,
        'refused_retry.bin': refused,
        'refused_by_worker.bin': worker_refused,
        'refused_final.bin': refused_final,
        'flood.bin': flood,
        'per_source_cap.bin': cap,
        'restart.bin': restart,
        'raw.bin': raw,
    }


def main(argv):
    check = '--check' in argv[1:]
    args = [a for a in argv[1:] if a != '--check']
    if len(args) > 1 or any(a.startswith('-') for a in args):
        sys.stderr.write(__doc__)
        return 2
    out = args[0] if args else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), 'corpus')
    differ = 0
    for target, files in (('rx', rx_corpus()), ('nexus', nexus_corpus()),
                          ('nexus_seq', nexus_seq_corpus())):
        d = os.path.join(out, target)
        if not check:
            os.makedirs(d, exist_ok=True)
        for name, content in sorted(files.items()):
            path = os.path.join(d, name)
            if check:
                try:
                    with open(path, 'rb') as f:
                        same = f.read() == content
                except OSError:
                    same = False
                if not same:
                    print('differs: %s' % path)
                    differ += 1
                continue
            with open(path, 'wb') as f:
                f.write(content)
    if check:
        return 1 if differ else 0
    print('wrote the seed corpora in %s' % out)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
