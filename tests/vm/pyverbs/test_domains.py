# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Parent domains: a parent domain stands for its protection domain in
QPs, SRQs, MRs and extended CQs (traffic through them checked); its
allocators are never asked for memory (the queues are the kernel's);
a parent domain of a parent domain is refused."""

import errno

import pyverbs.enums as e
from pyverbs.cq import CQEX, CqInitAttrEx
from pyverbs.mr import MR
from pyverbs.pd import ParentDomain, ParentDomainContext, ParentDomainInitAttr
from pyverbs.qp import QP, QPCap, QPInitAttr
from pyverbs.srq import SRQ, SrqAttr, SrqInitAttr
from pyverbs.wr import SGE, RecvWR

from common import End, VerbsTest, bring_up, pattern


class ParentDomainTest(VerbsTest):
    def parent(self, allocators=True):
        self.calls = []
        ctx = None
        if allocators:
            ctx = ParentDomainContext(self.pd, self.alloc, self.free)
        return ParentDomain(self.ctx, ParentDomainInitAttr(self.pd, ctx))

    def alloc(self, pd, context, size, alignment, resource_type):
        self.calls.append(('alloc', size))
        return e._IBV_ALLOCATOR_USE_DEFAULT

    def free(self, pd, context, ptr, resource_type):
        self.calls.append(('free', ptr))
        return e._IBV_ALLOCATOR_USE_DEFAULT

    def check_traffic(self, a, b, a_mr, b_mr):
        """SEND a -> b, RDMA WRITE b -> a's MR, READ a <- b's MR."""
        src = a.mr(256)
        src.write(pattern(200, 1), 200)
        self.recv(b.qp, b_mr, 256, wr_id=7)
        self.send(a.qp, src, 200)
        self.poll_ok(a.cq)
        self.assertEqual(self.poll_ok(b.cq)[0].wr_id, 7)
        self.assertEqual(b_mr.read(200, 0), pattern(200, 1))
        b_src = b.mr(256)
        b_src.write(pattern(100, 2), 100)
        self.send(b.qp, b_src, 100, e.IBV_WR_RDMA_WRITE, rkey=a_mr.rkey,
                  raddr=a_mr.buf + 64)
        self.poll_ok(b.cq)
        self.assertEqual(a_mr.read(100, 64), pattern(100, 2))
        self.send(a.qp, a_mr, 50, e.IBV_WR_RDMA_READ, rkey=b_mr.rkey,
                  raddr=b_mr.buf, offset=512)
        self.poll_ok(a.cq)
        self.assertEqual(a_mr.read(50, 512), pattern(200, 1)[:50])

    def test_traffic_with_allocators(self):
        parent = self.parent()
        a = End(self, pd=parent)
        b = End(self)
        bring_up(self, a, b.qpn)
        bring_up(self, b, a.qpn)
        self.check_traffic(a, b, a.mr(4096), b.mr(4096))
        # No queue is the provider's memory: nothing to allocate.
        self.assertEqual(self.calls, [])

    def test_traffic_without_allocators(self):
        parent = self.parent(allocators=False)
        a = End(self, pd=parent)
        b = End(self, pd=parent)
        bring_up(self, a, b.qpn)
        bring_up(self, b, a.qpn)
        # An MR of the protection domain serves a QP of the parent domain.
        self.check_traffic(a, b, MR(self.pd, 4096, e.IBV_ACCESS_LOCAL_WRITE |
                                    e.IBV_ACCESS_REMOTE_WRITE |
                                    e.IBV_ACCESS_REMOTE_READ),
                           b.mr(4096))

    def test_srq_and_cq_ex(self):
        parent = self.parent()
        cqx = CQEX(self.ctx, CqInitAttrEx(
            cqe=64, wc_flags=e.IBV_WC_STANDARD_FLAGS, parent_domain=parent,
            comp_mask=e.IBV_CQ_INIT_ATTR_MASK_PD))
        srq = SRQ(parent, SrqInitAttr(SrqAttr(16, 1, 0)))
        rx = End(self, pd=parent, srq=srq,
                 cap=QPCap(max_send_wr=4, max_recv_wr=0))
        tx = End(self)
        bring_up(self, rx, tx.qpn)
        bring_up(self, tx, rx.qpn)
        dst = MR(parent, 4096, e.IBV_ACCESS_LOCAL_WRITE)
        srq.post_recv(RecvWR(wr_id=3, num_sge=1,
                             sg=[SGE(dst.buf, 256, dst.lkey)]))
        src = tx.mr(256)
        src.write(pattern(64, 3), 64)
        self.send(tx.qp, src, 64)
        self.poll_ok(tx.cq)
        self.assertEqual(self.poll_ok(rx.cq)[0].wr_id, 3)
        self.assertEqual(dst.read(64, 0), pattern(64, 3))
        # The extended CQ on the parent domain carries a QP's completions.
        qp = QP(parent, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cqx, rcq=cqx,
                                   cap=QPCap(max_send_wr=4, max_recv_wr=4)))
        self.assertGreater(qp.qp_num, 0)
        self.assertEqual(self.calls, [])

    def test_errors(self):
        parent = self.parent()
        # A parent domain of a parent domain.  (An extended CQ naming a
        # protection domain is EINVAL too, but pyverbs cannot ask: it
        # raises before it looks at the result; tests/provider checks it.)
        self.assertErrno(errno.EINVAL, ParentDomain, self.ctx,
                         ParentDomainInitAttr(parent))
