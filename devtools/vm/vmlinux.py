#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The pmrpc authors
"""Unpack the XZ-compressed ELF vmlinux from Debian's bzImage (vmlinuz).

qemu boots an ELF vmlinux through PVH, skipping the decompressor: about
2 s less per boot under TCG.  usage: vmlinux.py VMLINUZ VMLINUX
"""
import lzma
import os
import sys

src, dst = sys.argv[1], sys.argv[2]
with open(src, 'rb') as f:
    data = f.read()
off = data.find(b'\xfd7zXZ\x00')
if off < 0:
    sys.exit('vmlinux.py: no xz payload in ' + src)
# The payload is followed by the decompressor's trailer: decompress the
# first stream only.
out = lzma.LZMADecompressor(format=lzma.FORMAT_XZ).decompress(data[off:])
if out[:4] != b'\x7fELF':
    sys.exit('vmlinux.py: the payload of ' + src + ' is not ELF')
with open(dst + '.tmp', 'wb') as f:
    f.write(out)
os.replace(dst + '.tmp', dst)
