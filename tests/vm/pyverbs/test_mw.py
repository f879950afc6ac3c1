# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Memory windows (IBTA 10.6.7): type 1 bound with ibv_bind_mw, type 2
bound with a BIND_MW work request; remote access through the window,
outside it, after unbinding, after local and remote invalidation."""

import errno

import pyverbs.enums as e
from pyverbs.mr import MR, MW, MWBind, MWBindInfo
from pyverbs.pyverbs_error import PyverbsRDMAError
from pyverbs.wr import SGE, RecvWR, SendWR

from common import VerbsTest, pattern, status_name

MW_MR_ACCESS = (e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE |
                e.IBV_ACCESS_REMOTE_READ | e.IBV_ACCESS_MW_BIND)
RW = e.IBV_ACCESS_REMOTE_WRITE | e.IBV_ACCESS_REMOTE_READ


class MWTest(VerbsTest):
    def setUp(self):
        super().setUp()
        caps = self.attr.device_cap_flags
        self.require(caps & e.IBV_DEVICE_MEM_WINDOW,
                     'the device does not report memory windows')
        self.type2 = bool(caps & (e.IBV_DEVICE_MEM_WINDOW_TYPE_2A |
                                  e.IBV_DEVICE_MEM_WINDOW_TYPE_2B))
        self.mws = []

    def tearDown(self):
        # Windows first: an MR with bound windows may refuse to go.
        for mw in self.mws:
            mw.close()
        super().tearDown()

    def mw(self, pd, mw_type):
        mw = MW(pd, mw_type)
        self.mws.append(mw)
        return mw

    def pair(self):
        return self.rc_pair(b_over=dict(
            qp_access_flags=e.IBV_ACCESS_LOCAL_WRITE |
            e.IBV_ACCESS_REMOTE_WRITE | e.IBV_ACCESS_REMOTE_READ |
            e.IBV_ACCESS_MW_BIND))

    def write_through(self, a, rkey, addr, data, status=e.IBV_WC_SUCCESS):
        src = a.mr(max(len(data), 64))
        src.write(data, len(data))
        self.send(a.qp, src, len(data), e.IBV_WR_RDMA_WRITE, rkey=rkey,
                  raddr=addr)
        wc = self.poll(a.cq)[0]
        self.assertEqual(wc.status, status, status_name(wc.status))

    def bind1(self, end, mw, mr, addr, length, access=RW):
        bind = MWBind(MWBindInfo(mr, addr, length, access),
                      e.IBV_SEND_SIGNALED, wr_id=0xb1)
        end.qp.bind_mw(mw, bind)
        wc = self.poll(end.cq)[0]
        return wc

    def bind2(self, end, mw, mr, addr, length, access=RW):
        wr = SendWR(wr_id=0xb2, opcode=e.IBV_WR_BIND_MW)
        wr.set_bind_wr(mw, MWBindInfo(mr, addr, length, access))
        end.qp.post_send(wr)
        return wr.rkey, self.poll(end.cq)[0]

    def test_alloc_dealloc(self):
        mws = [self.mw(self.pd, e.IBV_MW_TYPE_1) for _ in range(8)]
        if self.type2:
            mws += [self.mw(self.pd, e.IBV_MW_TYPE_2) for _ in range(8)]
        self.assertEqual(len({m.rkey for m in mws if m.rkey}),
                         len([m for m in mws if m.rkey]))
        for m in mws:
            m.close()

    def test_type1_bind_use_unbind(self):
        a, b = self.pair()
        mr = MR(b.pd, 16384, MW_MR_ACCESS)
        mw = self.mw(b.pd, e.IBV_MW_TYPE_1)
        wc = self.bind1(b, mw, mr, mr.buf + 4096, 4096)
        self.assertEqual(wc.status, e.IBV_WC_SUCCESS, status_name(wc.status))
        self.assertEqual(wc.opcode, e.IBV_WC_BIND_MW)
        self.assertEqual(wc.wr_id, 0xb1)
        self.write_through(a, mw.rkey, mr.buf + 4096, pattern(4096))
        self.assertEqual(mr.read(4096, 4096), pattern(4096))
        self.assertEqual(mr.read(1, 4095), b'\0')
        # Rebinding with length 0 unbinds: the old rkey no longer works.
        old = mw.rkey
        wc = self.bind1(b, mw, mr, mr.buf, 0, 0)
        self.assertEqual(wc.status, e.IBV_WC_SUCCESS, status_name(wc.status))
        self.write_through(a, old, mr.buf + 4096, b'x' * 8,
                           e.IBV_WC_REM_ACCESS_ERR)

    def test_type1_outside_window(self):
        a, b = self.pair()
        mr = MR(b.pd, 16384, MW_MR_ACCESS)
        mw = self.mw(b.pd, e.IBV_MW_TYPE_1)
        self.bind1(b, mw, mr, mr.buf + 4096, 4096)
        # Inside the MR, outside the window.
        self.write_through(a, mw.rkey, mr.buf + 8192 - 4, b'y' * 8,
                           e.IBV_WC_REM_ACCESS_ERR)
        self.assertEqual(mr.read(8, 8192 - 4), b'\0' * 8)

    def test_type1_read_only_window(self):
        a, b = self.pair()
        mr = MR(b.pd, 4096, MW_MR_ACCESS)
        mw = self.mw(b.pd, e.IBV_MW_TYPE_1)
        self.bind1(b, mw, mr, mr.buf, 4096, e.IBV_ACCESS_REMOTE_READ)
        self.write_through(a, mw.rkey, mr.buf, b'z' * 8,
                           e.IBV_WC_REM_ACCESS_ERR)

    def test_bind_needs_mw_bind_access(self):
        a, b = self.pair()
        mr = MR(b.pd, 4096, e.IBV_ACCESS_LOCAL_WRITE |
                e.IBV_ACCESS_REMOTE_WRITE)
        mw = self.mw(b.pd, e.IBV_MW_TYPE_1)
        # Refused by the provider or completed in error (IBTA C10-72).
        try:
            wc = self.bind1(b, mw, mr, mr.buf, 4096)
        except PyverbsRDMAError as ex:
            self.assertEqual(ex.error_code, errno.EINVAL)
            return
        self.assertEqual(wc.status, e.IBV_WC_MW_BIND_ERR,
                         status_name(wc.status))

    def test_type2_bind_use_local_invalidate(self):
        self.require(self.type2, 'the device does not report type 2 MWs')
        a, b = self.pair()
        mr = MR(b.pd, 8192, MW_MR_ACCESS)
        mw = self.mw(b.pd, e.IBV_MW_TYPE_2)
        rkey, wc = self.bind2(b, mw, mr, mr.buf, 8192)
        self.assertEqual(wc.status, e.IBV_WC_SUCCESS, status_name(wc.status))
        self.assertEqual(wc.opcode, e.IBV_WC_BIND_MW)
        self.write_through(a, rkey, mr.buf + 100, pattern(1000))
        self.assertEqual(mr.read(1000, 100), pattern(1000))
        # Read back through the window.
        dst = a.mr(1000)
        self.send(a.qp, dst, 1000, e.IBV_WR_RDMA_READ, rkey=rkey,
                  raddr=mr.buf + 100)
        self.poll_ok(a.cq)
        self.assertEqual(dst.read(1000, 0), pattern(1000))
        # Local invalidate (the rkey travels in the imm_data union).
        inv = SendWR(wr_id=0x1a, opcode=e.IBV_WR_LOCAL_INV)
        inv.imm_data = rkey
        b.qp.post_send(inv)
        wc = self.poll_ok(b.cq)[0]
        self.assertEqual(wc.opcode, e.IBV_WC_LOCAL_INV)
        self.write_through(a, rkey, mr.buf, b'q' * 8,
                           e.IBV_WC_REM_ACCESS_ERR)

    def test_type2_remote_invalidate(self):
        self.require(self.type2, 'the device does not report type 2 MWs')
        a, b = self.pair()
        mr = MR(b.pd, 4096, MW_MR_ACCESS)
        mw = self.mw(b.pd, e.IBV_MW_TYPE_2)
        rkey, wc = self.bind2(b, mw, mr, mr.buf, 4096)
        self.assertEqual(wc.status, e.IBV_WC_SUCCESS, status_name(wc.status))
        rq = b.mr(64)
        b.qp.post_recv(RecvWR(wr_id=5, num_sge=1,
                              sg=[SGE(rq.buf, 64, rq.lkey)]))
        src = a.mr(64)
        src.write(pattern(16), 16)
        wr = SendWR(opcode=e.IBV_WR_SEND_WITH_INV, num_sge=1,
                    sg=[SGE(src.buf, 16, src.lkey)])
        wr.imm_data = rkey
        a.qp.post_send(wr)
        self.poll_ok(a.cq)
        wc = self.poll_ok(b.cq, opcode=e.IBV_WC_RECV)[0]
        self.assertTrue(wc.wc_flags & e.IBV_WC_WITH_INV)
        self.assertEqual(wc.imm_data, rkey)
        self.assertEqual(rq.read(16, 0), pattern(16))
        self.write_through(a, rkey, mr.buf, b'r' * 8,
                           e.IBV_WC_REM_ACCESS_ERR)

    def test_type2_bind_in_other_pd(self):
        self.require(self.type2, 'the device does not report type 2 MWs')
        from pyverbs.pd import PD
        a, b = self.pair()
        other = PD(self.ctx)
        mr = MR(other, 4096, MW_MR_ACCESS)
        mw = self.mw(other, e.IBV_MW_TYPE_2)
        # The MW, the MR and the QP must share a PD.
        try:
            _, wc = self.bind2(b, mw, mr, mr.buf, 4096)
        except PyverbsRDMAError as ex:
            self.assertEqual(ex.error_code, errno.EINVAL)
            return
        self.assertEqual(wc.status, e.IBV_WC_MW_BIND_ERR,
                         status_name(wc.status))

    def test_type2_window_past_mr(self):
        self.require(self.type2, 'the device does not report type 2 MWs')
        a, b = self.pair()
        mr = MR(b.pd, 4096, MW_MR_ACCESS)
        mw = self.mw(b.pd, e.IBV_MW_TYPE_2)
        try:
            _, wc = self.bind2(b, mw, mr, mr.buf + 2048, 4096)
        except PyverbsRDMAError as ex:
            self.assertEqual(ex.error_code, errno.EINVAL)
            return
        self.assertEqual(wc.status, e.IBV_WC_MW_BIND_ERR,
                         status_name(wc.status))
