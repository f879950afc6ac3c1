# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""ibv_import_device, ibv_import_pd, ibv_import_mr, ibv_import_dm: a
second context over a duplicate of the first's uverbs file sees the same
kernel objects.

The imported MR has the original's keys and length; QPs made on the
imported PD carry traffic into the original MR; the imported DM reads
what the original wrote, and the other way.  Unimporting leaves the
objects working for their owner.  Handles that name nothing, or an object
of another kind, are refused at import.
"""

import errno
import os
import unittest

import pyverbs.enums as e
from pyverbs.device import DM, AllocDmAttr, Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsRDMAError

from common import ALL_REMOTE, End, VerbsTest, bring_up, pattern


class ImportTest(VerbsTest):
    def setUp(self):
        super().setUp()
        self.fd = os.dup(self.ctx.cmd_fd)
        try:
            self.ctx2 = Context(cmd_fd=self.fd)
        except PyverbsRDMAError:
            os.close(self.fd)
            raise

    def tearDown(self):
        # The imported context goes first: the file stays the original's.
        self.ctx2.close()
        super().tearDown()

    def test_pd_and_mr(self):
        size = 8192
        mr = MR(self.pd, size, ALL_REMOTE)
        pd2 = PD(self.ctx2, handle=self.pd.handle)
        mr2 = MR(pd2, handle=mr.handle, address=mr.buf)
        self.assertEqual((mr2.lkey, mr2.rkey, mr2.length),
                         (mr.lkey, mr.rkey, size))
        # Two QPs of the imported context, on the imported PD: a WRITE
        # from the original MR into itself, through the imported keys.
        a = End(self, pd=pd2, ctx=self.ctx2)
        b = End(self, pd=pd2, ctx=self.ctx2)
        bring_up(self, a, b.qpn)
        bring_up(self, b, a.qpn)
        data = pattern(4096, seed=9)
        mr.write(data, 4096, 0)
        self.send(a.qp, mr2, 4096, e.IBV_WR_RDMA_WRITE, rkey=mr2.rkey,
                  raddr=mr.buf + 4096)
        self.poll_ok(a.cq)
        self.assertEqual(mr.read(4096, 4096), data)
        for end in (a, b):
            end.qp.close()
            end.cq.close()
        mr2.unimport()
        pd2.unimport()
        # Still the original's.
        self.assertEqual(mr.read(8, 4096), data[:8])
        mr.close()

    def test_dm(self):
        self.require(self.ctx.query_device_ex().max_dm_size, 'no DM')
        dm = DM(self.ctx, AllocDmAttr(length=1000))
        dm2 = DM(self.ctx2, handle=dm.handle)
        dm.copy_to_dm(0, b'\x5a' * 1000, 1000)
        self.assertEqual(dm2.copy_from_dm(0, 1000), b'\x5a' * 1000)
        dm2.copy_to_dm(996, b'wxyz', 4)
        self.assertEqual(dm.copy_from_dm(992, 8), b'\x5a' * 4 + b'wxyz')
        # Its length is the original's: the same bounds.
        with self.assertRaises(PyverbsRDMAError):
            dm2.copy_from_dm(1000, 4)
        dm2.unimport()
        self.assertEqual(dm.copy_from_dm(996, 4), b'wxyz')
        dm.close()

    def test_bad_handles(self):
        mr = MR(self.pd, 4096, ALL_REMOTE)
        pd2 = PD(self.ctx2, handle=self.pd.handle)
        for name, fn in (
                ('PD: no such handle', lambda: PD(self.ctx2, handle=0xfffff)),
                ('PD: an MR handle', lambda: PD(self.ctx2,
                                                handle=mr.handle)),
                ('MR: no such handle', lambda: MR(pd2, handle=0xfffff)),
                ('DM: no such handle', lambda: DM(self.ctx2,
                                                  handle=0xfffff))):
            with self.subTest(name):
                self.assertErrno((errno.EINVAL, errno.ENOENT), fn)
        pd2.unimport()


if __name__ == '__main__':
    unittest.main()
