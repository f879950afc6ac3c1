# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Traffic between two QPs of one device: RC send/receive, immediates,
RDMA write/read, atomics, inline, scatter/gather, multi-packet messages,
queue limits, the local path's packets by reference; UC and UD sends.
Every payload is checked."""

import errno
import os

import pyverbs.enums as e
from pyverbs.qp import QPCap
from pyverbs.wr import SGE, RecvWR, SendWR

from common import (CONFIG, PORT, QKEY, End, VerbsTest, bring_up, modify,
                    pattern, qp_attr_for)

SIZES = (0, 1, 63, 1024, 1025, 4096, 65536, 1 << 20)


def u64(mr, offset=0):
    return int.from_bytes(mr.read(8, offset), 'little')


def put_u64(mr, value, offset=0):
    mr.write(value.to_bytes(8, 'little'), 8, offset)


class RCTest(VerbsTest):
    def test_send_recv_sizes(self):
        a, b = self.rc_pair()
        src = a.mr(1 << 20)
        dst = b.mr(1 << 20)
        for i, size in enumerate(SIZES):
            with self.subTest(size=size):
                data = pattern(size, seed=i)
                src.write(data, size)
                self.recv(b.qp, dst, wr_id=1000 + i)
                self.send(a.qp, src, size, wr_id=i)
                wc = self.poll_ok(a.cq, opcode=e.IBV_WC_SEND)[0]
                self.assertEqual(wc.wr_id, i)
                wc = self.poll_ok(b.cq, opcode=e.IBV_WC_RECV)[0]
                self.assertEqual(wc.wr_id, 1000 + i)
                self.assertEqual(wc.byte_len, size)
                self.assertEqual(wc.qp_num, b.qpn)
                self.assertFalse(wc.wc_flags & e.IBV_WC_WITH_IMM)
                self.assertEqual(dst.read(size, 0), data)

    def test_both_directions(self):
        a, b = self.rc_pair()
        am, bm = a.mr(8192), b.mr(8192)
        am.write(pattern(4096, 1), 4096)
        bm.write(pattern(4096, 2), 4096)
        self.recv(a.qp, am, 4096, 4096)
        self.recv(b.qp, bm, 4096, 4096)
        self.send(a.qp, am, 4096)
        self.send(b.qp, bm, 4096)
        self.poll_ok(a.cq, 2)
        self.poll_ok(b.cq, 2)
        self.assertEqual(bm.read(4096, 4096), pattern(4096, 1))
        self.assertEqual(am.read(4096, 4096), pattern(4096, 2))

    def test_messages_in_order(self):
        a, b = self.rc_pair()
        src, dst = a.mr(64 * 64), b.mr(64 * 64)
        for i in range(64):
            src.write(bytes([i]) * 64, 64, i * 64)
            self.recv(b.qp, dst, 64, i * 64, wr_id=i)
        for i in range(64):
            self.send(a.qp, src, 64, offset=i * 64, wr_id=i)
        self.assertEqual([w.wr_id for w in self.poll_ok(a.cq, 64)],
                         list(range(64)))
        self.assertEqual([w.wr_id for w in self.poll_ok(b.cq, 64)],
                         list(range(64)))
        for i in range(64):
            self.assertEqual(dst.read(64, i * 64), bytes([i]) * 64)

    def test_send_with_imm(self):
        a, b = self.rc_pair()
        src, dst = a.mr(4096), b.mr(4096)
        src.write(pattern(100), 100)
        self.recv(b.qp, dst)
        self.send(a.qp, src, 100, e.IBV_WR_SEND_WITH_IMM, imm=0x12345678)
        self.poll_ok(a.cq, opcode=e.IBV_WC_SEND)
        wc = self.poll_ok(b.cq, opcode=e.IBV_WC_RECV)[0]
        self.assertTrue(wc.wc_flags & e.IBV_WC_WITH_IMM)
        self.assertEqual(wc.imm_data, 0x12345678)
        self.assertEqual(wc.byte_len, 100)
        self.assertEqual(dst.read(100, 0), pattern(100))

    def test_rdma_write(self):
        a, b = self.rc_pair()
        src, dst = a.mr(1 << 20), b.mr(1 << 20)
        for i, size in enumerate(SIZES):
            with self.subTest(size=size):
                data = pattern(size, seed=i + 3)
                src.write(data, size)
                self.send(a.qp, src, size, e.IBV_WR_RDMA_WRITE, rkey=dst.rkey,
                          raddr=dst.buf)
                self.poll_ok(a.cq, opcode=e.IBV_WC_RDMA_WRITE)
                self.assertEqual(dst.read(size, 0), data)
        # No receive is consumed.
        self.assertEmpty(b.cq, 0)

    def test_rdma_write_unaligned(self):
        a, b = self.rc_pair()
        src, dst = a.mr(16384), b.mr(16384)
        data = pattern(5000, 9)
        src.write(data, 5000, 3)
        self.send(a.qp, src, 5000, e.IBV_WR_RDMA_WRITE, offset=3,
                  rkey=dst.rkey, raddr=dst.buf + 4093)
        self.poll_ok(a.cq)
        self.assertEqual(dst.read(5000, 4093), data)
        self.assertEqual(dst.read(1, 4092), b'\0')
        self.assertEqual(dst.read(1, 9093), b'\0')

    def test_rdma_write_with_imm(self):
        a, b = self.rc_pair()
        src, dst = a.mr(65536), b.mr(65536)
        rq = b.mr(64)
        for size in (0, 8, 65536):
            with self.subTest(size=size):
                src.write(pattern(size, 5), size)
                self.recv(b.qp, rq)
                self.send(a.qp, src, size, e.IBV_WR_RDMA_WRITE_WITH_IMM,
                          imm=0xa5a5f00d, rkey=dst.rkey, raddr=dst.buf)
                self.poll_ok(a.cq, opcode=e.IBV_WC_RDMA_WRITE)
                wc = self.poll_ok(b.cq,
                                  opcode=e.IBV_WC_RECV_RDMA_WITH_IMM)[0]
                self.assertTrue(wc.wc_flags & e.IBV_WC_WITH_IMM)
                self.assertEqual(wc.imm_data, 0xa5a5f00d)
                self.assertEqual(wc.byte_len, size)
                self.assertEqual(dst.read(size, 0), pattern(size, 5))

    def test_rdma_read(self):
        a, b = self.rc_pair()
        src, dst = b.mr(1 << 20), a.mr(1 << 20)
        for i, size in enumerate(SIZES):
            with self.subTest(size=size):
                data = pattern(size, seed=i + 7)
                src.write(data, size)
                self.send(a.qp, dst, size, e.IBV_WR_RDMA_READ, rkey=src.rkey,
                          raddr=src.buf)
                wc = self.poll_ok(a.cq, opcode=e.IBV_WC_RDMA_READ)[0]
                if size:
                    self.assertEqual(wc.byte_len, size)
                self.assertEqual(dst.read(size, 0), data)

    def test_reads_outstanding(self):
        a, b = self.rc_pair()
        src, dst = b.mr(16 * 4096), a.mr(16 * 4096)
        src.write(pattern(16 * 4096, 11), 16 * 4096)
        for i in range(16):
            self.send(a.qp, dst, 4096, e.IBV_WR_RDMA_READ, wr_id=i,
                      offset=i * 4096, rkey=src.rkey, raddr=src.buf + i * 4096)
        wcs = self.poll_ok(a.cq, 16, opcode=e.IBV_WC_RDMA_READ)
        self.assertEqual([w.wr_id for w in wcs], list(range(16)))
        self.assertEqual(dst.read(16 * 4096, 0), pattern(16 * 4096, 11))

    def atomic(self, qp, local, rkey, raddr, opcode, compare_add, swap=0):
        sge = SGE(local.buf, 8, local.lkey)
        wr = SendWR(opcode=opcode, num_sge=1, sg=[sge])
        wr.set_wr_atomic(rkey, raddr, compare_add, swap)
        qp.post_send(wr)

    def test_atomic_cmp_swp(self):
        self.require(self.has_atomics(), 'the device reports no atomics')
        a, b = self.rc_pair()
        target, res = b.mr(64), a.mr(64)
        put_u64(target, 0x1122334455667788, 8)
        # Equal: swapped, the old value returned.
        self.atomic(a.qp, res, target.rkey, target.buf + 8,
                    e.IBV_WR_ATOMIC_CMP_AND_SWP, 0x1122334455667788,
                    0xdeadbeefcafef00d)
        wc = self.poll_ok(a.cq, opcode=e.IBV_WC_COMP_SWAP)[0]
        self.assertEqual(wc.byte_len, 8)
        self.assertEqual(u64(res), 0x1122334455667788)
        self.assertEqual(u64(target, 8), 0xdeadbeefcafef00d)
        # Not equal: unchanged, the current value returned.
        self.atomic(a.qp, res, target.rkey, target.buf + 8,
                    e.IBV_WR_ATOMIC_CMP_AND_SWP, 1, 2)
        self.poll_ok(a.cq, opcode=e.IBV_WC_COMP_SWAP)
        self.assertEqual(u64(res), 0xdeadbeefcafef00d)
        self.assertEqual(u64(target, 8), 0xdeadbeefcafef00d)
        # Neighbours untouched.
        self.assertEqual(u64(target, 0), 0)
        self.assertEqual(u64(target, 16), 0)

    def test_atomic_fetch_add(self):
        self.require(self.has_atomics(), 'the device reports no atomics')
        a, b = self.rc_pair()
        target, res = b.mr(64), a.mr(64)
        put_u64(target, 100, 16)
        self.atomic(a.qp, res, target.rkey, target.buf + 16,
                    e.IBV_WR_ATOMIC_FETCH_AND_ADD, 23)
        self.poll_ok(a.cq, opcode=e.IBV_WC_FETCH_ADD)
        self.assertEqual(u64(res), 100)
        self.assertEqual(u64(target, 16), 123)
        # Wraps around at 2^64.
        put_u64(target, 0xffffffffffffffff, 16)
        self.atomic(a.qp, res, target.rkey, target.buf + 16,
                    e.IBV_WR_ATOMIC_FETCH_AND_ADD, 2)
        self.poll_ok(a.cq, opcode=e.IBV_WC_FETCH_ADD)
        self.assertEqual(u64(res), 0xffffffffffffffff)
        self.assertEqual(u64(target, 16), 1)

    def test_atomics_in_a_row(self):
        self.require(self.has_atomics(), 'the device reports no atomics')
        a, b = self.rc_pair()
        target, res = b.mr(64), a.mr(8 * 32)
        for i in range(32):
            sge = SGE(res.buf + 8 * i, 8, res.lkey)
            wr = SendWR(wr_id=i, opcode=e.IBV_WR_ATOMIC_FETCH_AND_ADD,
                        num_sge=1, sg=[sge])
            wr.set_wr_atomic(target.rkey, target.buf, 1, 0)
            a.qp.post_send(wr)
        self.poll_ok(a.cq, 32)
        self.assertEqual(u64(target), 32)
        self.assertEqual(sorted(u64(res, 8 * i) for i in range(32)),
                         list(range(32)))

    def test_inline(self):
        cap = QPCap(max_send_wr=16, max_recv_wr=16, max_inline_data=64)
        a, b = self.rc_pair(cap=cap)
        _, init = a.qp.query(e.IBV_QP_CAP)
        self.assertGreaterEqual(init.cap.max_inline_data, 64)
        src, dst = a.mr(4096), b.mr(4096)
        src.write(pattern(64, 4), 64)
        self.recv(b.qp, dst)
        # Inline data is copied at post time: the lkey is not used and the
        # buffer may change right after.
        self.send(a.qp, src, 64, flags=e.IBV_SEND_SIGNALED |
                  e.IBV_SEND_INLINE, lkey=0xdeadbeef)
        src.write(b'\xff' * 64, 64)
        self.poll_ok(a.cq)
        self.poll_ok(b.cq)
        self.assertEqual(dst.read(64, 0), pattern(64, 4))
        # Inline RDMA write too.
        src.write(pattern(48, 8), 48)
        self.send(a.qp, src, 48, e.IBV_WR_RDMA_WRITE,
                  flags=e.IBV_SEND_SIGNALED | e.IBV_SEND_INLINE,
                  rkey=dst.rkey, raddr=dst.buf + 100)
        self.poll_ok(a.cq)
        self.assertEqual(dst.read(48, 100), pattern(48, 8))

    def test_inline_too_long(self):
        cap = QPCap(max_send_wr=16, max_recv_wr=16, max_inline_data=64)
        a, b = self.rc_pair(cap=cap)
        _, init = a.qp.query(e.IBV_QP_CAP)
        n = init.cap.max_inline_data + 1
        src = a.mr(n)
        self.assertErrno((errno.EINVAL, errno.ENOMEM), self.send, a.qp, src,
                         n, flags=e.IBV_SEND_SIGNALED | e.IBV_SEND_INLINE)

    def test_32_sges(self):
        self.require(self.attr.max_sge >= 32,
                     f'the device has max_sge {self.attr.max_sge} < 32')
        cap = QPCap(max_send_wr=16, max_recv_wr=16, max_send_sge=32,
                    max_recv_sge=32)
        a, b = self.rc_pair(cap=cap)
        # 32 pieces of different lengths from two MRs, gathered into one
        # message and scattered into 32 other pieces.
        src = [a.mr(16384), a.mr(16384)]
        dst = b.mr(65536)
        wire = b''
        sges = []
        for i in range(32):
            mr = src[i % 2]
            off, length = (i // 2) * 512 + i, 100 + 13 * i
            data = pattern(length, i)
            mr.write(data, length, off)
            sges.append(SGE(mr.buf + off, length, mr.lkey))
            wire += data
        rsges, spans, off = [], [], 0
        for i in range(32):
            length = len(wire) // 32 + (len(wire) % 32 if i == 31 else 0)
            roff = i * 2048 + 5
            rsges.append(SGE(dst.buf + roff, length, dst.lkey))
            spans.append((roff, off, length))
            off += length
        b.qp.post_recv(RecvWR(num_sge=32, sg=rsges))
        a.qp.post_send(SendWR(num_sge=32, sg=sges))
        self.poll_ok(a.cq)
        wc = self.poll_ok(b.cq)[0]
        self.assertEqual(wc.byte_len, len(wire))
        for roff, woff, length in spans:
            self.assertEqual(dst.read(length, roff), wire[woff:woff + length])
        # And an RDMA write gathered from the same 32 pieces.
        target = b.mr(len(wire))
        wr = SendWR(opcode=e.IBV_WR_RDMA_WRITE, num_sge=32, sg=sges)
        wr.set_wr_rdma(target.rkey, target.buf)
        a.qp.post_send(wr)
        self.poll_ok(a.cq)
        self.assertEqual(target.read(len(wire), 0), wire)

    def test_too_many_sges_in_wr(self):
        cap = QPCap(max_send_wr=16, max_recv_wr=16, max_send_sge=2,
                    max_recv_sge=2)
        a, b = self.rc_pair(cap=cap)
        _, init = a.qp.query(e.IBV_QP_CAP)
        n = init.cap.max_send_sge + 1
        mr = a.mr(4096)
        sges = [SGE(mr.buf, 8, mr.lkey) for _ in range(n)]
        self.assertErrno(errno.EINVAL, a.qp.post_send,
                         SendWR(num_sge=n, sg=sges))
        n = init.cap.max_recv_sge + 1
        sges = [SGE(mr.buf, 8, mr.lkey) for _ in range(n)]
        self.assertErrno(errno.EINVAL, a.qp.post_recv,
                         RecvWR(num_sge=n, sg=sges))

    def test_send_queue_full(self):
        # The peer stays in RESET and the timeout is long: no send
        # completes, each keeps its slot (IBTA 10.8.3.1: until its
        # completion is generated).
        a = End(self, cap=QPCap(max_send_wr=8, max_recv_wr=8))
        b = End(self)
        bring_up(self, a, b.qpn, timeout=20, retry_cnt=7)
        _, init = a.qp.query(e.IBV_QP_CAP)
        depth = init.cap.max_send_wr
        src = a.mr(4096)
        for i in range(depth):
            self.send(a.qp, src, 8, e.IBV_WR_RDMA_WRITE, wr_id=i, rkey=0,
                      raddr=0)
        self.assertErrno(errno.ENOMEM, self.send, a.qp, src, 8,
                         e.IBV_WR_RDMA_WRITE, rkey=0, raddr=0)
        modify(self, a.qp, e.IBV_QPT_RC, 'ERR')
        self.poll_status(a.cq, e.IBV_WC_WR_FLUSH_ERR, depth)

    def test_recv_queue_full(self):
        cap = QPCap(max_send_wr=8, max_recv_wr=8)
        a, _ = self.rc_pair(cap=cap)
        _, init = a.qp.query(e.IBV_QP_CAP)
        mr = a.mr(4096)
        for _ in range(init.cap.max_recv_wr):
            self.recv(a.qp, mr)
        self.assertErrno(errno.ENOMEM, self.recv, a.qp, mr)

    def test_unsignaled(self):
        a, b = self.rc_pair()
        src, dst = a.mr(4096), b.mr(4096)
        for i in range(10):
            self.recv(b.qp, dst, wr_id=i)
        # Only every fifth send asks for a completion.
        for i in range(10):
            flags = e.IBV_SEND_SIGNALED if i % 5 == 4 else 0
            self.send(a.qp, src, 16, wr_id=i, flags=flags)
        self.assertEqual([w.wr_id for w in self.poll_ok(a.cq, 2)], [4, 9])
        self.poll_ok(b.cq, 10)
        self.assertEmpty(a.cq)

    def test_sq_sig_all(self):
        a = End(self, sq_sig_all=1)
        b = End(self)
        bring_up(self, a, b.qpn)
        bring_up(self, b, a.qpn)
        src, dst = a.mr(64), b.mr(64)
        self.recv(b.qp, dst)
        self.send(a.qp, src, 8, flags=0)
        self.poll_ok(a.cq)

    def test_post_list(self):
        a, b = self.rc_pair()
        src, dst = a.mr(4096), b.mr(4096)
        # Chained WRs point at each other: keep them all alive.
        rwrs, swrs = [], []
        for i in reversed(range(4)):
            sge = SGE(dst.buf + 64 * i, 64, dst.lkey)
            rwrs.insert(0, RecvWR(wr_id=i, num_sge=1, sg=[sge],
                                  next_wr=rwrs[0] if rwrs else None))
        b.qp.post_recv(rwrs[0])
        for i in reversed(range(4)):
            src.write(bytes([i + 1]) * 64, 64, 64 * i)
            sge = SGE(src.buf + 64 * i, 64, src.lkey)
            swrs.insert(0, SendWR(wr_id=i, num_sge=1, sg=[sge],
                                  next_wr=swrs[0] if swrs else None))
        a.qp.post_send(swrs[0])
        self.assertEqual([w.wr_id for w in self.poll_ok(a.cq, 4)],
                         [0, 1, 2, 3])
        self.assertEqual([w.wr_id for w in self.poll_ok(b.cq, 4)],
                         [0, 1, 2, 3])
        self.assertEqual(dst.read(256, 0), src.read(256, 0))

    def test_post_send_before_rts(self):
        a = End(self)
        bring_up(self, a, a.qpn, to='RTR')
        mr = a.mr(64)
        # Receives may be posted from INIT on; sends need RTS.
        self.recv(a.qp, mr)
        self.assertErrno(errno.EINVAL, self.send, a.qp, mr, 8)


def counter(test, name):
    """A port counter of the device under test (rdma statistic's)."""
    path = (f'/sys/class/infiniband/{CONFIG["dev"]}/ports/{PORT}'
            f'/hw_counters/{name}')
    with open(path) as f:
        return int(f.read())


def local_path_on():
    with open('/sys/module/wookie/parameters/local_path') as f:
        return f.read().strip() == 'Y'


class LocalPathTest(VerbsTest):
    """RC between QPs of one device: 64 KiB packets whose payload the
    receiver copies from the sender's MR (architecture.rst)."""

    def setUp(self):
        super().setUp()
        self.require(os.path.exists('/sys/module/wookie/parameters/local_path'),
                     'not a wookie device')

    def test_packets_of_64k(self):
        a, b = self.rc_pair()
        size = 1 << 20
        src, dst = a.mr(size), b.mr(size)
        src.write(pattern(size, 21), size)
        before = counter(self, 'sent_pkts')
        self.send(a.qp, src, size, e.IBV_WR_RDMA_WRITE, rkey=dst.rkey,
                  raddr=dst.buf)
        self.poll_ok(a.cq, opcode=e.IBV_WC_RDMA_WRITE)
        sent = counter(self, 'sent_pkts') - before
        self.assertEqual(dst.read(size, 0), pattern(size, 21))
        # 16 data packets and their ACKs, or a packet per MTU.
        if local_path_on():
            self.assertLessEqual(sent, 40)
        else:
            self.assertGreaterEqual(sent, size // self.mtu_bytes)

    def test_read_of_64k_packets(self):
        a, b = self.rc_pair()
        size = (1 << 20) + 4097
        src, dst = b.mr(size), a.mr(size)
        src.write(pattern(size, 22), size)
        before = counter(self, 'sent_pkts')
        self.send(a.qp, dst, size, e.IBV_WR_RDMA_READ, rkey=src.rkey,
                  raddr=src.buf)
        wc = self.poll_ok(a.cq, opcode=e.IBV_WC_RDMA_READ)[0]
        self.assertEqual(wc.byte_len, size)
        self.assertEqual(dst.read(size, 0), pattern(size, 22))
        if local_path_on():
            self.assertLessEqual(counter(self, 'sent_pkts') - before, 40)

    def test_small_and_large_in_order(self):
        # Copied (up to 512 bytes) and referenced payloads interleaved.
        a, b = self.rc_pair()
        sizes = [7, 513, 512, 70000, 1, 65536, 65537, 300]
        total = sum(sizes)
        src, dst = a.mr(total), b.mr(total)
        off = 0
        for i, size in enumerate(sizes):
            src.write(pattern(size, 30 + i), size, off)
            self.recv(b.qp, dst, size, off, wr_id=i)
            off += size
        off = 0
        for i, size in enumerate(sizes):
            self.send(a.qp, src, size, offset=off, wr_id=i)
            off += size
        self.assertEqual([w.wr_id for w in self.poll_ok(a.cq, len(sizes))],
                         list(range(len(sizes))))
        wcs = self.poll_ok(b.cq, len(sizes))
        self.assertEqual([w.byte_len for w in wcs], sizes)
        off = 0
        for i, size in enumerate(sizes):
            self.assertEqual(dst.read(size, off), pattern(size, 30 + i))
            off += size

    def test_dereg_source_in_flight(self):
        # The receiver may still hold references to the source MR: its
        # deregistration waits for them, then returns; nothing breaks.
        a, b = self.rc_pair()
        size = 4 << 20
        src, dst = a.mr(size), b.mr(size)
        src.write(pattern(4096, 23), 4096)
        for i in range(4):
            self.send(a.qp, src, size, e.IBV_WR_RDMA_WRITE, wr_id=i,
                      rkey=dst.rkey, raddr=dst.buf)
        src.close()
        for wc in self.poll(a.cq, 4):
            self.assertIn(wc.status, (e.IBV_WC_SUCCESS,
                                      e.IBV_WC_LOC_PROT_ERR,
                                      e.IBV_WC_WR_FLUSH_ERR))

    def test_destroy_receiver_in_flight(self):
        # Packets queued on a QP that goes away release their references:
        # the sender's MR can be deregistered afterwards.
        a, b = self.rc_pair()
        size = 4 << 20
        src, dst = a.mr(size), b.mr(size)
        for i in range(4):
            self.send(a.qp, src, size, e.IBV_WR_RDMA_WRITE, wr_id=i,
                      rkey=dst.rkey, raddr=dst.buf)
        b.qp.close()
        src.close()
        a.qp.close()

    def test_local_path_changed_between_the_ends(self):
        # The second end follows the first whatever local_path says by
        # then: both send packets of the same size, both ways.
        param = '/sys/module/wookie/parameters/local_path'
        was = local_path_on()
        size = (1 << 20) + 3
        try:
            for first, second in (('1', '0'), ('0', '1')):
                with self.subTest(first=first, second=second):
                    a, b = End(self), End(self)
                    with open(param, 'w') as f:
                        f.write(first)
                    bring_up(self, a, b.qpn)
                    with open(param, 'w') as f:
                        f.write(second)
                    bring_up(self, b, a.qpn)
                    for i, (x, y) in enumerate(((a, b), (b, a))):
                        src, dst = x.mr(size), y.mr(size)
                        src.write(pattern(size, 40 + i), size)
                        self.recv(y.qp, dst, size)
                        self.send(x.qp, src, size)
                        self.poll_ok(x.cq, opcode=e.IBV_WC_SEND)
                        wc = self.poll_ok(y.cq, opcode=e.IBV_WC_RECV)[0]
                        self.assertEqual(wc.byte_len, size)
                        self.assertEqual(dst.read(size, 0),
                                         pattern(size, 40 + i))
        finally:
            with open(param, 'w') as f:
                f.write('1' if was else '0')


class UCTest(VerbsTest):
    def test_send_recv(self):
        a, b = self.rc_pair(e.IBV_QPT_UC)
        src, dst = a.mr(65536), b.mr(65536)
        for i, size in enumerate((0, 1, 1024, 4096, 65536)):
            with self.subTest(size=size):
                src.write(pattern(size, i), size)
                self.recv(b.qp, dst)
                self.send(a.qp, src, size, e.IBV_WR_SEND_WITH_IMM, imm=i + 1)
                self.poll_ok(a.cq, opcode=e.IBV_WC_SEND)
                wc = self.poll_ok(b.cq, opcode=e.IBV_WC_RECV)[0]
                self.assertEqual(wc.byte_len, size)
                self.assertEqual(wc.imm_data, i + 1)
                self.assertEqual(dst.read(size, 0), pattern(size, i))

    def test_rdma_write(self):
        a, b = self.rc_pair(e.IBV_QPT_UC)
        src, dst = a.mr(65536), b.mr(65536)
        rq = b.mr(64)
        src.write(pattern(65536, 3), 65536)
        self.send(a.qp, src, 65536, e.IBV_WR_RDMA_WRITE, rkey=dst.rkey,
                  raddr=dst.buf)
        self.poll_ok(a.cq, opcode=e.IBV_WC_RDMA_WRITE)
        self.recv(b.qp, rq)
        self.send(a.qp, src, 100, e.IBV_WR_RDMA_WRITE_WITH_IMM, imm=77,
                  rkey=dst.rkey, raddr=dst.buf + 100)
        self.poll_ok(a.cq)
        wc = self.poll_ok(b.cq, opcode=e.IBV_WC_RECV_RDMA_WITH_IMM)[0]
        self.assertEqual(wc.imm_data, 77)
        self.assertEqual(dst.read(65536, 0)[:100], pattern(65536, 3)[:100])
        self.assertEqual(dst.read(100, 100), pattern(65536, 3)[:100])

    def test_no_rdma_read(self):
        a, b = self.rc_pair(e.IBV_QPT_UC)
        src, dst = b.mr(64), a.mr(64)
        # UC has no RDMA read (IBTA 9.4, table 39): refused at post time or
        # completed in error, never executed.
        try:
            self.send(a.qp, dst, 8, e.IBV_WR_RDMA_READ, rkey=src.rkey,
                      raddr=src.buf)
        except Exception as ex:
            self.assertEqual(getattr(ex, 'error_code', None), errno.EINVAL)
            return
        wc = self.poll(a.cq)[0]
        self.assertNotEqual(wc.status, e.IBV_WC_SUCCESS)


class UDTest(VerbsTest):
    GRH = 40

    def test_send_recv(self):
        a, b = self.ud_pair()
        ah = self.ah(a.pd)
        src, dst = a.mr(8192), b.mr(8192)
        for i, size in enumerate((0, 1, 100, self.mtu_bytes)):
            with self.subTest(size=size):
                src.write(pattern(size, i), size)
                self.recv(b.qp, dst, self.GRH + size, wr_id=i)
                sge = SGE(src.buf, size, src.lkey)
                wr = SendWR(wr_id=i, opcode=e.IBV_WR_SEND_WITH_IMM, num_sge=1,
                            sg=[sge], imm_data=0x1000 + i)
                wr.set_wr_ud(ah, b.qpn, QKEY)
                a.qp.post_send(wr)
                self.poll_ok(a.cq, opcode=e.IBV_WC_SEND)
                wc = self.poll_ok(b.cq, opcode=e.IBV_WC_RECV)[0]
                self.assertEqual(wc.byte_len, self.GRH + size)
                self.assertEqual(wc.src_qp, a.qpn)
                self.assertTrue(wc.wc_flags & e.IBV_WC_GRH)
                self.assertTrue(wc.wc_flags & e.IBV_WC_WITH_IMM)
                self.assertEqual(wc.imm_data, 0x1000 + i)
                self.assertEqual(dst.read(size, self.GRH), pattern(size, i))

    def test_many_to_one(self):
        a, b = self.ud_pair()
        c, _ = self.ud_pair()
        ah = self.ah(a.pd)
        ah_c = self.ah(c.pd)
        dst = b.mr(4096)
        for i in range(4):
            self.recv(b.qp, dst, 1024, i * 1024, wr_id=i)
        for n, (end, h) in enumerate(((a, ah), (c, ah_c), (a, ah),
                                      (c, ah_c))):
            src = end.mr(64)
            src.write(bytes([n]) * 64, 64)
            wr = SendWR(num_sge=1, sg=[SGE(src.buf, 64, src.lkey)])
            wr.set_wr_ud(h, b.qpn, QKEY)
            end.qp.post_send(wr)
            self.poll_ok(end.cq)
        wcs = self.poll_ok(b.cq, 4)
        self.assertEqual([w.src_qp for w in wcs],
                         [a.qpn, c.qpn, a.qpn, c.qpn])

    def test_wrong_qkey_dropped(self):
        a, b = self.ud_pair()
        ah = self.ah(a.pd)
        src, dst = a.mr(64), b.mr(4096)
        self.recv(b.qp, dst)
        wr = SendWR(num_sge=1, sg=[SGE(src.buf, 8, src.lkey)])
        wr.set_wr_ud(ah, b.qpn, QKEY ^ 1)
        a.qp.post_send(wr)
        # The sender completes; the receiver silently drops it.
        self.poll_ok(a.cq)
        self.assertEmpty(b.cq, 1.0)

    def test_wrong_qpn_dropped(self):
        a, b = self.ud_pair()
        ah = self.ah(a.pd)
        src, dst = a.mr(64), b.mr(4096)
        self.recv(b.qp, dst)
        wr = SendWR(num_sge=1, sg=[SGE(src.buf, 8, src.lkey)])
        wr.set_wr_ud(ah, 0xfffff0, QKEY)
        a.qp.post_send(wr)
        self.poll_ok(a.cq)
        self.assertEmpty(b.cq, 1.0)

    def test_larger_than_mtu(self):
        a, b = self.ud_pair()
        ah = self.ah(a.pd)
        src, dst = a.mr(8192), b.mr(8192)
        self.recv(b.qp, dst)
        size = self.mtu_bytes + 1
        wr = SendWR(num_sge=1, sg=[SGE(src.buf, size, src.lkey)])
        wr.set_wr_ud(ah, b.qpn, QKEY)
        # A UD message is one packet: refused at post time or completed in
        # error, never delivered.
        try:
            a.qp.post_send(wr)
        except Exception as ex:
            self.assertEqual(getattr(ex, 'error_code', None), errno.EINVAL)
        else:
            wc = self.poll(a.cq)[0]
            self.assertNotEqual(wc.status, e.IBV_WC_SUCCESS)
        self.assertEmpty(b.cq, 0.5)

    def test_modify_qkey_in_rts(self):
        a, b = self.ud_pair()
        # RTS -> RTS: the Q_Key is one of the few attributes it may change.
        b.qp.modify(qp_attr_for(self, e.IBV_QPT_UD, e.IBV_QPS_RTS,
                                qkey=0x5555),
                    e.IBV_QP_STATE | e.IBV_QP_QKEY)
        ah = self.ah(a.pd)
        src, dst = a.mr(64), b.mr(4096)
        self.recv(b.qp, dst)
        wr = SendWR(num_sge=1, sg=[SGE(src.buf, 8, src.lkey)])
        wr.set_wr_ud(ah, b.qpn, 0x5555)
        a.qp.post_send(wr)
        self.poll_ok(a.cq)
        self.poll_ok(b.cq)

    def ud_post_in_sqd(self, n, flags=e.IBV_SEND_SIGNALED):
        """A UD pair with N sends of 64 bytes posted on A in SQD, where
        nothing is started, and N receives of 256 bytes on B.  Returns
        the ends, the AH the sends name and the receive buffer."""
        cap = QPCap(max_send_wr=n, max_recv_wr=n, max_send_sge=1,
                    max_recv_sge=1)
        a, b = self.ud_pair(cap=cap, cq_depth=max(256, n))
        modify(self, a.qp, e.IBV_QPT_UD, 'SQD')
        ah = self.ah(a.pd)
        src, dst = a.mr(64 * n), b.mr(256 * n)
        for i in range(n):
            self.recv(b.qp, dst, 256, 256 * i, wr_id=i)
        src.write(b''.join(pattern(64, i) for i in range(n)), 64 * n)
        # Chained WRs point at each other: keep them all alive.
        wrs = []
        for i in reversed(range(n)):
            wr = SendWR(wr_id=i, num_sge=1, send_flags=flags,
                        sg=[SGE(src.buf + 64 * i, 64, src.lkey)],
                        next_wr=wrs[0] if wrs else None)
            wr.set_wr_ud(ah, b.qpn, QKEY)
            wrs.insert(0, wr)
        a.qp.post_send(wrs[0])
        self.assertEmpty(a.cq, 0.1)
        # Alive until the test ends: the WRs, and the MR they gather from.
        self.keep = (wrs, src)
        return a, b, ah, dst

    def assertFromOwnGid(self, dst, off):
        """The network header a UD receive at OFF starts with came from
        the GID under test (the senders here all use it)."""
        gid = bytes.fromhex(str(self.gid).replace(':', ''))
        if gid[:12] == bytes(10) + b'\xff\xff':
            # RoCEv2 over IPv4: the IPv4 header in the GRH's last 20
            # bytes, its source address 12 bytes in.
            self.assertEqual(dst.read(1, off + 20)[0], 0x45)
            self.assertEqual(dst.read(4, off + 32), gid[12:])
        else:
            self.assertEqual(dst.read(1, off)[0] >> 4, 6)
            self.assertEqual(dst.read(16, off + 8), gid)

    def assertUDReceived(self, b, dst, n):
        for wc in self.poll_ok(b.cq, n, opcode=e.IBV_WC_RECV):
            self.assertEqual(wc.byte_len, self.GRH + 64)
            off = 256 * wc.wr_id
            self.assertFromOwnGid(dst, off)
            self.assertEqual(dst.read(64, off + self.GRH),
                             pattern(64, wc.wr_id))

    def test_ah_destroyed_after_post(self):
        # A NIC reads the AH when the WQE is posted: destroying it after
        # the post changes nothing for the WQE, and neither does an AH
        # created next (which here takes the freed number) to another
        # GID of the device.
        n = 8
        a, b, ah, dst = self.ud_post_in_sqd(n)
        ah.close()
        index = 0 if self.gid_index else 1
        other = self.ah(a.pd, sgid_index=index,
                        dgid=self.ctx.query_gid(PORT, index))
        a.qp.modify(qp_attr_for(self, e.IBV_QPT_UD, e.IBV_QPS_RTS),
                    e.IBV_QP_STATE)
        self.assertEqual([w.wr_id for w in self.poll_ok(a.cq, n)],
                         list(range(n)))
        self.assertUDReceived(b, dst, n)
        other.close()

    def test_destroy_after_unsignaled_posts(self):
        # rdma-core's mckey: unsignaled UD sends, then the AH and the QP
        # destroyed at once.  UD waits for no acknowledgement, and a NIC
        # has read its SQ before a destroy command reaches it: every
        # message arrives.  Back in RTS the engine starts from its work
        # item; a thousand sends outlast its time slice, and the AH and
        # QP are destroyed while it works through them.
        n = 1024
        a, b, ah, dst = self.ud_post_in_sqd(n, flags=0)
        a.qp.modify(qp_attr_for(self, e.IBV_QPT_UD, e.IBV_QPS_RTS),
                    e.IBV_QP_STATE)
        ah.close()
        a.qp.close()
        self.assertUDReceived(b, dst, n)

