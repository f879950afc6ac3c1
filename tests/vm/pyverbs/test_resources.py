# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""PD, MR, CQ and AH verbs: success and error paths."""

import errno
import itertools
import time

import pyverbs.enums as e
from pyverbs.cq import CQ, CompChannel
from pyverbs.mr import MR
from pyverbs.pd import PD

from common import ALL_REMOTE, VerbsTest, pattern, unmapped_address

ACCESS_BITS = [e.IBV_ACCESS_LOCAL_WRITE, e.IBV_ACCESS_REMOTE_WRITE,
               e.IBV_ACCESS_REMOTE_READ, e.IBV_ACCESS_REMOTE_ATOMIC,
               e.IBV_ACCESS_MW_BIND]


def access_legal(access):
    """Remote write and remote atomic need local write (IBTA 10.6.3.1)."""
    remote_writes = e.IBV_ACCESS_REMOTE_WRITE | e.IBV_ACCESS_REMOTE_ATOMIC
    return not (access & remote_writes) or bool(access &
                                                e.IBV_ACCESS_LOCAL_WRITE)


class PDTest(VerbsTest):
    def test_alloc_dealloc(self):
        pds = [PD(self.ctx) for _ in range(64)]
        handles = {pd.handle for pd in pds}
        self.assertEqual(len(handles), 64, 'PD handles are not unique')
        for pd in pds:
            pd.close()

    def test_pd_per_context(self):
        from pyverbs.device import Context
        from common import CONFIG
        other = Context(name=CONFIG['dev'])
        try:
            PD(other).close()
            pd = PD(other)
            # Objects of one context cannot use another's PD.
            mr = MR(pd, 4096, e.IBV_ACCESS_LOCAL_WRITE)
            mr.close()
        finally:
            other.close()


class MRTest(VerbsTest):
    def test_every_access_combination(self):
        mw = bool(self.attr.device_cap_flags & e.IBV_DEVICE_MEM_WINDOW)
        for n in range(len(ACCESS_BITS) + 1):
            for bits in itertools.combinations(ACCESS_BITS, n):
                access = 0
                for b in bits:
                    access |= b
                if access & e.IBV_ACCESS_MW_BIND and not mw:
                    continue
                with self.subTest(access=hex(access)):
                    if access_legal(access):
                        mr = MR(self.pd, 8192, access)
                        self.assertEqual(mr.length, 8192)
                        mr.close()
                    else:
                        self.assertErrno(errno.EINVAL, MR, self.pd, 8192,
                                         access)

    def test_remote_write_without_local_write(self):
        self.assertErrno(errno.EINVAL, MR, self.pd, 4096,
                         e.IBV_ACCESS_REMOTE_WRITE)
        self.assertErrno(errno.EINVAL, MR, self.pd, 4096,
                         e.IBV_ACCESS_REMOTE_ATOMIC |
                         e.IBV_ACCESS_REMOTE_READ)

    def test_sizes_and_alignment(self):
        for length in (1, 4095, 4096, 4097, 1 << 20, 8 << 20):
            with self.subTest(length=length):
                mr = MR(self.pd, length, ALL_REMOTE)
                self.assertEqual(mr.length, length)
                mr.close()
        # A range that starts and ends inside pages.
        base = MR(self.pd, 3 * 4096, e.IBV_ACCESS_LOCAL_WRITE)
        mr = MR(self.pd, 4096 + 100, ALL_REMOTE, address=base.buf + 17)
        self.assertEqual(mr.length, 4096 + 100)
        mr.close()

    def test_same_memory_twice(self):
        a = MR(self.pd, 4096, ALL_REMOTE)
        b = MR(self.pd, 4096, ALL_REMOTE, address=a.buf)
        self.assertNotEqual(a.lkey, b.lkey)
        b.close()
        a.close()

    def test_unmapped_memory(self):
        self.assertErrno(errno.EFAULT, MR, self.pd, 4096,
                         e.IBV_ACCESS_LOCAL_WRITE,
                         address=unmapped_address())

    def test_keys_unique(self):
        mrs = [MR(self.pd, 4096, ALL_REMOTE) for _ in range(32)]
        lkeys = {mr.lkey for mr in mrs}
        rkeys = {mr.rkey for mr in mrs}
        self.assertEqual(len(lkeys), 32)
        self.assertEqual(len(rkeys), 32)

    def test_rereg_access(self):
        a, b = self.rc_pair()
        mr = b.mr(4096, e.IBV_ACCESS_LOCAL_WRITE)
        src = a.mr(4096)
        src.write(pattern(64), 64)
        # No remote write yet: refused.
        self.send(a.qp, src, 64, e.IBV_WR_RDMA_WRITE, rkey=mr.rkey,
                  raddr=mr.buf)
        self.poll_status(a.cq, e.IBV_WC_REM_ACCESS_ERR)
        a, b = self.rc_pair(pd=None)
        mr = b.mr(4096, e.IBV_ACCESS_LOCAL_WRITE)
        mr.rereg(e.IBV_REREG_MR_CHANGE_ACCESS, b.pd, 0, 0, ALL_REMOTE)
        src = a.mr(4096)
        src.write(pattern(64), 64)
        self.send(a.qp, src, 64, e.IBV_WR_RDMA_WRITE, rkey=mr.rkey,
                  raddr=mr.buf)
        self.poll_ok(a.cq)
        self.assertEqual(mr.read(64, 0), pattern(64))

    def test_rereg_invalid_access(self):
        mr = MR(self.pd, 4096, e.IBV_ACCESS_LOCAL_WRITE)
        self.assertErrno(errno.EINVAL, mr.rereg, e.IBV_REREG_MR_CHANGE_ACCESS,
                         self.pd, 0, 0, e.IBV_ACCESS_REMOTE_WRITE)
        mr.close()

    def test_rereg_pd(self):
        a, b = self.rc_pair()
        other = PD(self.ctx)
        # Registered in another PD: the QP cannot use it...
        src = MR(other, 4096, ALL_REMOTE)
        self.recv(b.qp, b.mr(4096))
        self.send(a.qp, src, 16)
        self.poll_status(a.cq, e.IBV_WC_LOC_PROT_ERR)
        # ...until it moves to the QP's PD.
        a, b = self.rc_pair()
        src = MR(other, 4096, ALL_REMOTE)
        src.rereg(e.IBV_REREG_MR_CHANGE_PD, a.pd, 0, 0, 0)
        src.write(pattern(16), 16)
        dst = b.mr(4096)
        self.recv(b.qp, dst)
        self.send(a.qp, src, 16)
        self.poll_ok(a.cq)
        self.poll_ok(b.cq)
        self.assertEqual(dst.read(16, 0), pattern(16))

    def test_rereg_translation(self):
        a, b = self.rc_pair()
        mr = b.mr(4096)
        new = MR(b.pd, 8192, e.IBV_ACCESS_LOCAL_WRITE)
        new_buf = new.buf
        mr.rereg(e.IBV_REREG_MR_CHANGE_TRANSLATION, b.pd, new_buf + 4096,
                 4096, 0)
        src = a.mr(4096)
        src.write(pattern(100), 100)
        self.send(a.qp, src, 100, e.IBV_WR_RDMA_WRITE, rkey=mr.rkey,
                  raddr=new_buf + 4096)
        self.poll_ok(a.cq)
        self.assertEqual(new.read(100, 4096), pattern(100))

    def test_dereg_then_use(self):
        a, b = self.rc_pair()
        mr = a.mr(4096)
        lkey = mr.lkey
        keep = a.mr(4096)
        mr.close()
        self.recv(b.qp, b.mr(4096))
        self.send(a.qp, keep, 16, lkey=lkey)
        self.poll_status(a.cq, e.IBV_WC_LOC_PROT_ERR)

    def test_dereg_then_remote_use(self):
        a, b = self.rc_pair()
        mr = b.mr(4096)
        rkey, addr = mr.rkey, mr.buf
        keep = b.mr(4096)
        mr.close()
        src = a.mr(4096)
        self.send(a.qp, src, 16, e.IBV_WR_RDMA_WRITE, rkey=rkey, raddr=addr)
        self.poll_status(a.cq, e.IBV_WC_REM_ACCESS_ERR)
        del keep


class CQTest(VerbsTest):
    def test_create_sizes(self):
        for cqe in (1, 2, 16, 1000, self.attr.max_cqe):
            with self.subTest(cqe=cqe):
                cq = CQ(self.ctx, cqe)
                self.assertGreaterEqual(cq.cqe, cqe)
                cq.close()

    def test_bad_sizes(self):
        for cqe in (0, -1, self.attr.max_cqe + 1):
            with self.subTest(cqe=cqe):
                self.assertErrno(errno.EINVAL, CQ, self.ctx, cqe)

    def test_bad_comp_vector(self):
        self.assertErrno(errno.EINVAL, CQ, self.ctx, 16, None, None,
                         self.ctx.num_comp_vectors)

    def test_with_channel(self):
        ch = CompChannel(self.ctx)
        cqs = [CQ(self.ctx, 16, None, ch, 0) for _ in range(4)]
        for cq in cqs:
            cq.close()
        ch.close()

    def test_empty_poll(self):
        cq = CQ(self.ctx, 16)
        n, _ = cq.poll(4)
        self.assertEqual(n, 0)

    def test_resize(self):
        cq = CQ(self.ctx, 16)
        for cqe in (64, 4096, 32):
            with self.subTest(cqe=cqe):
                cq.resize(cqe)
                self.assertGreaterEqual(cq.cqe, cqe)
        self.assertErrno(errno.EINVAL, cq.resize, self.attr.max_cqe + 1)
        self.assertErrno(errno.EINVAL, cq.resize, 0)

    def test_resize_keeps_completions(self):
        # Receive completions wait in b's CQ across the resize.
        a, b = self.rc_pair(cq_depth=16)
        src = a.mr(4096)
        dst = b.mr(4096)
        for i in range(8):
            self.recv(b.qp, dst, 16, i * 16, wr_id=100 + i)
        for i in range(8):
            self.send(a.qp, src, 16, wr_id=i)
        # Acknowledged, so received; the receiver's CQEs are written by
        # then or a moment later.
        self.poll_ok(a.cq, 8, opcode=e.IBV_WC_SEND)
        time.sleep(0.5)
        # Fewer entries than completions waiting: refused.
        self.assertErrno(errno.EINVAL, b.cq.resize, 4)
        b.cq.resize(256)
        self.assertGreaterEqual(b.cq.cqe, 256)
        wcs = self.poll_ok(b.cq, 8, opcode=e.IBV_WC_RECV)
        self.assertEqual([w.wr_id for w in wcs], list(range(100, 108)))
        self.assertEmpty(b.cq, 0)


class AHTest(VerbsTest):
    def test_create(self):
        ahs = [self.ah(self.pd) for _ in range(16)]
        for ah in ahs:
            ah.close()

    def test_gid_index_out_of_table(self):
        n = self.port_attr.gid_tbl_len
        self.require(n <= 255, f'GID table of {n} entries: the last index '
                     'does not fit the verbs field')
        self.assertErrno(errno.EINVAL, self.ah, self.pd, sgid_index=n)

    def test_gid_index_empty_entry(self):
        # vethA has three addresses: fe80::, 10.0.0.1 and fd00::1.
        empty = None
        for i in range(3, min(self.port_attr.gid_tbl_len, 256)):
            try:
                gid = self.ctx.query_gid(1, i)
            except Exception:
                empty = i
                break
            if gid.gid in ('0000:0000:0000:0000:0000:0000:0000:0000', '::'):
                empty = i
                break
        self.require(empty is not None, 'no empty GID table entry')
        self.assertErrno((errno.ENODATA, errno.EINVAL), self.ah, self.pd,
                         sgid_index=empty)

    def test_roce_needs_grh(self):
        from pyverbs.addr import AH, AHAttr
        self.assertErrno(errno.EINVAL, AH, self.pd,
                         attr=AHAttr(is_global=0, port_num=1))

    def test_bad_port(self):
        self.assertErrno(errno.EINVAL, self.ah, self.pd, port=2)
