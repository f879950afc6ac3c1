# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""IBTA 1.5's ATOMIC WRITE and FLUSH through the ibv_qp_ex wr_* API
(wr_atomic_write, wr_flush) between two RC QPs of one device.

ATOMIC WRITE: 8 bytes land at an aligned address exactly, neighbours
untouched, with RDMA WRITE's rights (QP and MR); it completes as
IBV_WC_ATOMIC_WRITE, in order with the READs and WRITEs around it.  A
misaligned address, a QP without remote write, an MR without it or a
range outside the MR fail with the remote error IBTA names.

FLUSH to global visibility: of a range and of the whole MR (address and
length then mean nothing), after WRITEs whose data a READ behind it sees;
IBV_WC_FLUSH.  A placement type the MR or the QP does not grant, a range
outside the MR: remote errors.  No memory is persistent: an MR asking for
IBV_ACCESS_FLUSH_PERSISTENT is refused (EOPNOTSUPP), and the device
reports FLUSH_GLOBAL and ATOMIC_WRITE but not FLUSH_PERSISTENT.  6.1's
ib_core refuses an MR with any FLUSH right (EINVAL): the FLUSH tests check
that there and stop.

Bad wr_flush arguments (no or an unknown placement type, an unknown
level) fail wr_complete with EINVAL and post nothing; UC and UD QPs offer
neither operation.
"""

import errno
import os
import types

import pyverbs.enums as e
from pyverbs.cq import CQ
from pyverbs.mr import MR
from pyverbs.qp import QPCap, QPEx, QPInitAttrEx
from pyverbs.wr import SGE

from common import ALL_REMOTE, VerbsTest, bring_up, pattern, status_name

# ibv_device_attr_ex.device_cap_flags_ex bits (the kernel's uAPI values;
# rdma-core 56.1 names none of them).
CAP_FLUSH_GLOBAL = 1 << 38
CAP_FLUSH_PERSISTENT = 1 << 39
CAP_ATOMIC_WRITE = 1 << 40

QP_ACCESS = (e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE |
             e.IBV_ACCESS_REMOTE_READ | e.IBV_ACCESS_REMOTE_ATOMIC |
             e.IBV_ACCESS_FLUSH_GLOBAL | e.IBV_ACCESS_FLUSH_PERSISTENT)
SEND_OPS = (e.IBV_QP_EX_WITH_ATOMIC_WRITE | e.IBV_QP_EX_WITH_FLUSH |
            e.IBV_QP_EX_WITH_RDMA_WRITE | e.IBV_QP_EX_WITH_RDMA_READ)


def kernel_has_flush():
    """ib_core takes IB_ACCESS_FLUSH_* from 6.2 on."""
    major, minor = (int(x) for x in os.uname().release.split('.')[:2])
    return (major, minor) >= (6, 2)


class IBTA15Test(VerbsTest):

    def setUp(self):
        super().setUp()
        self.cq = CQ(self.ctx, 64, None, None, 0)

    def qpex(self, qp_type=e.IBV_QPT_RC, send_ops=SEND_OPS):
        init = QPInitAttrEx(
            qp_type=qp_type, pd=self.pd, scq=self.cq, rcq=self.cq,
            cap=QPCap(max_send_wr=16, max_recv_wr=16, max_send_sge=1,
                      max_recv_sge=1),
            comp_mask=(e.IBV_QP_INIT_ATTR_PD |
                       e.IBV_QP_INIT_ATTR_SEND_OPS_FLAGS),
            send_ops_flags=send_ops)
        return QPEx(self.ctx, init)

    def pair(self, b_access=QP_ACCESS):
        """A requester and a responder; B's QP grants B_ACCESS."""
        a = types.SimpleNamespace(qp=self.qpex(), qp_type=e.IBV_QPT_RC)
        b = types.SimpleNamespace(qp=self.qpex(), qp_type=e.IBV_QPT_RC)
        bring_up(self, a, b.qp.qp_num, qp_access_flags=QP_ACCESS)
        bring_up(self, b, a.qp.qp_num, qp_access_flags=b_access)
        return a.qp, b.qp

    def post(self, qp, build, wr_id=1):
        qp.wr_start()
        qp.wr_id = wr_id
        qp.wr_flags = e.IBV_SEND_SIGNALED
        build(qp)
        qp.wr_complete()

    def atomic_write(self, qp, rkey, addr, data, wr_id=1):
        self.post(qp, lambda q: q.wr_atomic_write(rkey, addr, data), wr_id)

    def flush(self, qp, rkey, addr, length, ptype=e.IBV_FLUSH_GLOBAL,
              level=e.IBV_FLUSH_RANGE, wr_id=1):
        self.post(qp, lambda q: q.wr_flush(rkey, addr, length, ptype, level),
                  wr_id)

    def flush_mr(self, length=8192, access=None):
        access = (e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE |
                  e.IBV_ACCESS_REMOTE_READ | e.IBV_ACCESS_FLUSH_GLOBAL
                  if access is None else access)
        if not kernel_has_flush():
            self.assertErrno(errno.EINVAL, MR, self.pd, length, access)
            self.skipTest('6.1: ib_core refuses FLUSH rights (checked)')
        return MR(self.pd, length, access)

    def expect_error(self, status, wr_id=1):
        wc = self.poll(self.cq)[0]
        self.assertEqual(wc.wr_id, wr_id)
        self.assertEqual(wc.status, status, f'{status_name(wc.status)}, '
                         f'expected {status_name(status)}')

    # --- capabilities ----------------------------------------------------
    def test_caps(self):
        caps = self.ctx.query_device_ex().device_cap_flags_ex
        self.assertTrue(caps & CAP_ATOMIC_WRITE)
        self.assertEqual(bool(caps & CAP_FLUSH_GLOBAL), kernel_has_flush())
        self.assertFalse(caps & CAP_FLUSH_PERSISTENT)

    def test_other_qp_types(self):
        for qpt in (e.IBV_QPT_UC, e.IBV_QPT_UD):
            for op in (e.IBV_QP_EX_WITH_ATOMIC_WRITE, e.IBV_QP_EX_WITH_FLUSH):
                self.assertErrno(errno.EOPNOTSUPP, self.qpex, qpt,
                                 e.IBV_QP_EX_WITH_SEND | op)

    # --- ATOMIC WRITE ----------------------------------------------------
    def test_atomic_write(self):
        a, b = self.pair()
        dst = MR(self.pd, 8192, ALL_REMOTE)
        back = MR(self.pd, 64, ALL_REMOTE)
        dst.write(b'\x55' * 8192, 8192)
        # The first word, one at a page's end, the last; a READ behind
        # each sees it (requests execute in order).
        for n, off in enumerate((0, 4088, 8184)):
            data = bytes(range(0x10 + n, 0x18 + n))
            self.atomic_write(a, dst.rkey, dst.buf + off, data, wr_id=n)
            wc = self.poll_ok(self.cq, opcode=e.IBV_WC_ATOMIC_WRITE)[0]
            self.assertEqual(wc.wr_id, n)
            self.post(a, lambda q: (q.wr_rdma_read(dst.rkey, dst.buf + off),
                                    q.wr_set_sge(SGE(back.buf, 8,
                                                     back.lkey))), wr_id=9)
            self.poll_ok(self.cq, opcode=e.IBV_WC_RDMA_READ)
            self.assertEqual(back.read(8, 0), data)
            self.assertEqual(dst.read(8, off), data)
        self.assertEqual(dst.read(8, 8), b'\x55' * 8)
        self.assertEqual(dst.read(8, 4080), b'\x55' * 8)
        self.assertEqual(dst.read(8, 8176), b'\x55' * 8)

    def test_atomic_write_train(self):
        """More ATOMIC WRITEs than READ credits, between WRITEs: each
        waits for its turn, all land in order."""
        a, b = self.pair()
        dst = MR(self.pd, 4096, ALL_REMOTE)
        src = MR(self.pd, 4096, ALL_REMOTE)
        src.write(pattern(4096, 3), 4096)
        a.wr_start()
        a.wr_flags = e.IBV_SEND_SIGNALED
        for i in range(12):
            a.wr_id = i
            if i % 3 == 2:
                a.wr_rdma_write(dst.rkey, dst.buf + 1024)
                a.wr_set_sge(SGE(src.buf, 1024, src.lkey))
            else:
                a.wr_atomic_write(dst.rkey, dst.buf + 8 * i,
                                  bytes([i]) * 8)
        a.wr_complete()
        wcs = self.poll_ok(self.cq, 12)
        self.assertEqual([wc.wr_id for wc in wcs], list(range(12)))
        for i in range(12):
            if i % 3 != 2:
                self.assertEqual(dst.read(8, 8 * i), bytes([i]) * 8)
        self.assertEqual(dst.read(1024, 1024), pattern(1024, 3))

    def test_atomic_write_misaligned(self):
        a, b = self.pair()
        dst = MR(self.pd, 4096, ALL_REMOTE)
        dst.write(b'\x00' * 64, 64)
        self.atomic_write(a, dst.rkey, dst.buf + 4, b'x' * 8)
        self.expect_error(e.IBV_WC_REM_INV_REQ_ERR)
        self.assertEqual(dst.read(64, 0), b'\x00' * 64)

    def test_atomic_write_rights(self):
        """The MR must grant remote write (remote atomic is not enough),
        over the 8 bytes; the responder's QP must grant remote write."""
        cases = (
            (e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_ATOMIC |
             e.IBV_ACCESS_REMOTE_READ, 0, QP_ACCESS,
             e.IBV_WC_REM_ACCESS_ERR),
            (ALL_REMOTE, 4096, QP_ACCESS, e.IBV_WC_REM_ACCESS_ERR),
            (ALL_REMOTE, -8, QP_ACCESS, e.IBV_WC_REM_ACCESS_ERR),
            (ALL_REMOTE, 0, QP_ACCESS & ~e.IBV_ACCESS_REMOTE_WRITE,
             e.IBV_WC_REM_INV_REQ_ERR),
        )
        for access, off, qp_access, status in cases:
            with self.subTest(access=access, off=off, qp_access=qp_access):
                a, b = self.pair(b_access=qp_access)
                dst = MR(self.pd, 4096, access)
                self.atomic_write(a, dst.rkey, dst.buf + off, b'y' * 8)
                self.expect_error(status)
                if 0 <= off < 4096:
                    self.assertNotEqual(dst.read(8, off), b'y' * 8)

    # --- FLUSH -----------------------------------------------------------
    def test_flush(self):
        dst = self.flush_mr()
        a, b = self.pair()
        src = MR(self.pd, 4096, ALL_REMOTE)
        back = MR(self.pd, 4096, ALL_REMOTE)
        src.write(pattern(4096, 5), 4096)
        self.post(a, lambda q: (q.wr_rdma_write(dst.rkey, dst.buf + 100),
                                q.wr_set_sge(SGE(src.buf, 4096, src.lkey))))
        self.poll_ok(self.cq, opcode=e.IBV_WC_RDMA_WRITE)
        cases = ((dst.buf + 100, 4096, e.IBV_FLUSH_RANGE),
                 (dst.buf, 0, e.IBV_FLUSH_RANGE),
                 (dst.buf + 8192, 0, e.IBV_FLUSH_RANGE),
                 (dst.buf, 8192, e.IBV_FLUSH_RANGE),
                 # The whole MR: address and length mean nothing.
                 (0, 0, e.IBV_FLUSH_MR),
                 (0xdead0000, 1 << 40, e.IBV_FLUSH_MR))
        for n, (addr, length, level) in enumerate(cases):
            self.flush(a, dst.rkey, addr, length, level=level, wr_id=n)
            wc = self.poll_ok(self.cq, opcode=e.IBV_WC_FLUSH)[0]
            self.assertEqual(wc.wr_id, n)
        self.post(a, lambda q: (q.wr_rdma_read(dst.rkey, dst.buf + 100),
                                q.wr_set_sge(SGE(back.buf, 4096,
                                                 back.lkey))))
        self.poll_ok(self.cq, opcode=e.IBV_WC_RDMA_READ)
        self.assertEqual(back.read(4096, 0), pattern(4096, 5))

    def test_flush_write_train(self):
        """WRITE, FLUSH, WRITE, FLUSH... in one post: completions in
        order, every FLUSH after the WRITE before it."""
        dst = self.flush_mr()
        a, b = self.pair()
        src = MR(self.pd, 8192, ALL_REMOTE)
        src.write(pattern(8192, 9), 8192)
        a.wr_start()
        a.wr_flags = e.IBV_SEND_SIGNALED
        for i in range(10):
            a.wr_id = i
            if i % 2:
                a.wr_flush(dst.rkey, dst.buf + 512 * (i - 1), 512,
                           e.IBV_FLUSH_GLOBAL, e.IBV_FLUSH_RANGE)
            else:
                a.wr_rdma_write(dst.rkey, dst.buf + 512 * i)
                a.wr_set_sge(SGE(src.buf + 512 * i, 512, src.lkey))
        a.wr_complete()
        wcs = self.poll_ok(self.cq, 10)
        self.assertEqual([wc.wr_id for wc in wcs], list(range(10)))
        self.assertEqual([wc.opcode for wc in wcs],
                         [e.IBV_WC_RDMA_WRITE, e.IBV_WC_FLUSH] * 5)
        for i in range(0, 10, 2):
            self.assertEqual(dst.read(512, 512 * i),
                             pattern(8192, 9)[512 * i:512 * (i + 1)])

    def test_flush_no_rights(self):
        """An MR without FLUSH rights (every MR on 6.1): a remote access
        error, of a range or of the whole MR."""
        for level in (e.IBV_FLUSH_RANGE, e.IBV_FLUSH_MR):
            with self.subTest(level=level):
                dst = MR(self.pd, 4096, ALL_REMOTE)
                a, b = self.pair()
                self.flush(a, dst.rkey, dst.buf, 8, level=level)
                self.expect_error(e.IBV_WC_REM_ACCESS_ERR)

    def test_flush_denied(self):
        """A placement type the MR or the responder's QP does not grant,
        a range outside the MR."""
        self.flush_mr()
        cases = (
            # Persistence: no MR has it.
            (None, QP_ACCESS, 0, 8, e.IBV_FLUSH_PERSISTENT,
             e.IBV_FLUSH_RANGE, e.IBV_WC_REM_ACCESS_ERR),
            (None, QP_ACCESS, 0, 8,
             e.IBV_FLUSH_GLOBAL | e.IBV_FLUSH_PERSISTENT,
             e.IBV_FLUSH_MR, e.IBV_WC_REM_ACCESS_ERR),
            # Outside the MR.
            (None, QP_ACCESS, 8000, 200, e.IBV_FLUSH_GLOBAL,
             e.IBV_FLUSH_RANGE, e.IBV_WC_REM_ACCESS_ERR),
            (None, QP_ACCESS, -8, 8, e.IBV_FLUSH_GLOBAL,
             e.IBV_FLUSH_RANGE, e.IBV_WC_REM_ACCESS_ERR),
            # The responder's QP does not allow FLUSH.
            (None, QP_ACCESS & ~e.IBV_ACCESS_FLUSH_GLOBAL, 0, 8,
             e.IBV_FLUSH_GLOBAL, e.IBV_FLUSH_RANGE,
             e.IBV_WC_REM_INV_REQ_ERR),
        )
        for access, qp_access, off, length, ptype, level, status in cases:
            with self.subTest(access=access, qp_access=qp_access, off=off,
                              ptype=ptype, level=level):
                dst = self.flush_mr(access=access)
                a, b = self.pair(b_access=qp_access)
                self.flush(a, dst.rkey, dst.buf + off, length, ptype, level)
                self.expect_error(status)

    def test_flush_persistent_mr_refused(self):
        self.flush_mr()
        self.assertErrno(errno.EOPNOTSUPP, MR, self.pd, 4096,
                         e.IBV_ACCESS_LOCAL_WRITE |
                         e.IBV_ACCESS_FLUSH_PERSISTENT)

    def test_wr_flush_arguments(self):
        """Refused by wr_complete, nothing posted; the QP goes on."""
        dst = MR(self.pd, 4096, ALL_REMOTE)
        a, b = self.pair()
        for ptype, level in ((0, e.IBV_FLUSH_RANGE), (4, e.IBV_FLUSH_RANGE),
                             (0xff, e.IBV_FLUSH_MR),
                             (e.IBV_FLUSH_GLOBAL, 2),
                             (e.IBV_FLUSH_GLOBAL, 0xff)):
            with self.subTest(ptype=ptype, level=level):
                a.wr_start()
                a.wr_flush(dst.rkey, dst.buf, 8, ptype, level)
                self.assertErrno(errno.EINVAL, a.wr_complete)
        self.assertEmpty(self.cq)
        self.post(a, lambda q: (q.wr_rdma_write(dst.rkey, dst.buf),
                                q.wr_set_sge(SGE(dst.buf + 64, 8,
                                                 dst.lkey))))
        self.poll_ok(self.cq, opcode=e.IBV_WC_RDMA_WRITE)
