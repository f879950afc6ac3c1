# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Device memory (ibv_alloc_dm): what rdma-core's tests do not check.

max_dm_size exactly 1 MiB; copies in and out with their alignment and
bounds errors; a context's 8 MiB limit.  MRs on DM: zero-based, length 0
allowed, past the DM refused, an MR that may take atomics (its own, or a
window's) at an offset not 8-aligned refused.  Traffic with DM MRs at offsets that cross pages: RDMA WRITE into
DM, READ out of it (its responses by reference above 512 bytes), SEND
from DM into DM, atomics on DM; the bytes checked through the copies.
"""

import errno
import unittest

import pyverbs.enums as e
from pyverbs.device import DM, AllocDmAttr
from pyverbs.mr import DMMR
from pyverbs.pyverbs_error import PyverbsRDMAError
from pyverbs.wr import SGE, RecvWR, SendWR

from common import ALL_REMOTE, VerbsTest, pattern

MAX_DM = 1 << 20
ZB = e.IBV_ACCESS_ZERO_BASED


class DmTest(VerbsTest):
    def setUp(self):
        super().setUp()
        self.max = self.ctx.query_device_ex().max_dm_size
        self.require(self.max, 'the device has no device memory')

    def dm(self, length, align=0):
        return DM(self.ctx, AllocDmAttr(length=length, log_align_req=align))

    def test_max_dm_size(self):
        self.assertEqual(self.max, MAX_DM)

    def test_copies(self):
        dm = self.dm(10000, align=6)
        data = pattern(10000, seed=1)
        dm.copy_to_dm(0, data, 10000)
        self.assertEqual(dm.copy_from_dm(0, 10000), data)
        dm.copy_to_dm(4092, b'abcdefgh', 8)
        self.assertEqual(dm.copy_from_dm(4088, 16),
                         data[4088:4092] + b'abcdefgh' + data[4100:4104])
        # Multiples of 4, inside the length asked for (not the page).
        for offset, length in ((2, 4), (4, 6), (10000, 4), (0, 10004),
                               (9996, 8)):
            with self.subTest(offset=offset, length=length):
                with self.assertRaises(PyverbsRDMAError):
                    dm.copy_to_dm(offset, bytes(length), length)
                with self.assertRaises(PyverbsRDMAError):
                    dm.copy_from_dm(offset, length)
        self.assertEqual(dm.copy_from_dm(0, 4), data[:4])

    def test_alloc_errors(self):
        for name, length, align in (('over max_dm_size', MAX_DM + 1, 0),
                                    ('aligned past a page', 64, 13)):
            with self.subTest(name):
                self.assertErrno(errno.EINVAL, self.dm, length, align)
        # 8 MiB per context; what is freed may be taken again.
        dms = [self.dm(MAX_DM) for _ in range(8)]
        self.assertErrno(errno.ENOMEM, self.dm, 4)
        dms.pop().close()
        dms.append(self.dm(MAX_DM))

    def test_mr_errors(self):
        dm = self.dm(100)
        acc = ZB | e.IBV_ACCESS_LOCAL_WRITE
        DMMR(self.pd, 0, acc, dm, 0).close()
        DMMR(self.pd, 96, acc, dm, 4).close()
        for name, length, offset, access in (
                ('past the end', 100, 4, acc),
                ('offset past the end', 4, 104, acc),
                ('not zero based', 8, 0, e.IBV_ACCESS_LOCAL_WRITE),
                ('atomic, unaligned', 8, 4,
                 acc | e.IBV_ACCESS_REMOTE_ATOMIC),
                ('windows, unaligned', 8, 4, acc | e.IBV_ACCESS_MW_BIND),
                ('on demand', 8, 0, acc | e.IBV_ACCESS_ON_DEMAND)):
            with self.subTest(name):
                self.assertErrno((errno.EINVAL, errno.EOPNOTSUPP), DMMR,
                                 self.pd, length, access, dm, offset)
        # (Freeing a DM with an MR on it, EBUSY, is uverbs_probe's: pyverbs
        # closes the DM's MRs first.)
        mr = DMMR(self.pd, 64, acc, dm, 0)
        mr.write(b'x' * 8, 8, 16)
        self.assertEqual(mr.read(8, 16), b'x' * 8)
        mr.close()
        dm.close()

    def test_traffic(self):
        """WRITE into DM at an offset that crosses a page, READ it back
        (responses from DM by reference past 512 bytes), SEND from DM
        into DM, FETCH_AND_ADD on DM."""
        self.require(self.has_atomics(), 'no atomics')
        a, b = self.rc_pair()
        size, off = 6000, 4096 - 1000
        adm, bdm = self.dm(3 * 4096), self.dm(3 * 4096)
        amr = DMMR(a.pd, 3 * 4096, ZB | ALL_REMOTE, adm, 0)
        bmr = DMMR(b.pd, 2 * 4096, ZB | ALL_REMOTE, bdm, 4096)
        data = pattern(size, seed=7)
        adm.copy_to_dm(off, data, size)

        def post(qp, opcode, sge, rkey=None, raddr=0, wr_id=0, atomic=None):
            wr = SendWR(wr_id=wr_id, opcode=opcode, num_sge=1, sg=[sge],
                        send_flags=e.IBV_SEND_SIGNALED)
            if atomic is not None:
                wr.set_wr_atomic(rkey=rkey, addr=raddr, compare_add=atomic,
                                 swap=0)
            elif rkey is not None:
                wr.set_wr_rdma(rkey, raddr)
            qp.post_send(wr)

        # bmr starts 4096 into bdm: its address 8 is bdm's 4104.
        post(a.qp, e.IBV_WR_RDMA_WRITE, SGE(off, size, amr.lkey),
             rkey=bmr.rkey, raddr=8, wr_id=1)
        self.poll_ok(a.cq)
        self.assertEqual(bdm.copy_from_dm(4104, size), data)
        post(a.qp, e.IBV_WR_RDMA_READ, SGE(8000, 4000, amr.lkey),
             rkey=bmr.rkey, raddr=8, wr_id=2)
        self.poll_ok(a.cq)
        self.assertEqual(adm.copy_from_dm(8000, 4000), data[:4000])
        # SEND: DM to DM, into bmr at 2048.
        b.qp.post_recv(RecvWR(wr_id=3, num_sge=1,
                              sg=[SGE(2048, 4096, bmr.lkey)]))
        post(a.qp, e.IBV_WR_SEND, SGE(off, 4096, amr.lkey), wr_id=4)
        self.poll_ok(a.cq)
        self.assertEqual(self.poll_ok(b.cq)[0].byte_len, 4096)
        self.assertEqual(bdm.copy_from_dm(4096 + 2048, 4096), data[:4096])
        # FETCH_AND_ADD on bmr's address 8 (bdm's 4104), result in amr.
        before = int.from_bytes(data[:8], 'little')
        post(a.qp, e.IBV_WR_ATOMIC_FETCH_AND_ADD, SGE(0, 8, amr.lkey),
             rkey=bmr.rkey, raddr=8, wr_id=5, atomic=3)
        self.poll_ok(a.cq)
        self.assertEqual(int.from_bytes(adm.copy_from_dm(0, 8), 'little'),
                         before)
        self.assertEqual(int.from_bytes(bdm.copy_from_dm(4104, 8), 'little'),
                         (before + 3) % (1 << 64))

    def test_remote_access_checked(self):
        """An rkey of a DM MR reaches only its own range and rights."""
        a, b = self.rc_pair()
        src = a.mr(4096)
        bdm = self.dm(8192)
        bdm.copy_to_dm(0, bytes(8192), 8192)
        ro = DMMR(b.pd, 4096, ZB | e.IBV_ACCESS_REMOTE_READ, bdm, 4096)
        self.send(a.qp, src, 64, e.IBV_WR_RDMA_WRITE, rkey=ro.rkey, raddr=0)
        self.poll_status(a.cq, e.IBV_WC_REM_ACCESS_ERR)
        c, d = self.rc_pair()
        rw = DMMR(d.pd, 4096, ZB | ALL_REMOTE, bdm, 0)
        self.send(c.qp, c.mr(4096), 64, e.IBV_WR_RDMA_WRITE, rkey=rw.rkey,
                  raddr=4090)
        self.poll_status(c.cq, e.IBV_WC_REM_ACCESS_ERR)
        self.assertEqual(bdm.copy_from_dm(4096, 64), bytes(64))


if __name__ == '__main__':
    unittest.main()
