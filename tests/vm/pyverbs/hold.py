#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""hold.py DEV [GID]: for tests that kill -9 a verbs user.

Creates one of every object kind on DEV (two contexts, PDs, MRs, bound
type 1 and type 2 MWs, device memory with an MR on it, CQs with a
completion channel armed, RC, UC and UD QPs, an SRQ with receives, an AH),
leaves work in flight (receives posted, sends retrying to a QP that never
answers), then keeps RDMA writes and reads going between two RC QPs (and
writes into the device memory), prints "holding" once it has completed
some, and runs until killed.
"""

import sys
import threading
import time

import pyverbs.enums as e
from pyverbs.cq import CompChannel
from pyverbs.device import DM, AllocDmAttr, Context
from pyverbs.mr import DMMR, MR, MW, MWBind, MWBindInfo
from pyverbs.pd import PD
from pyverbs.qp import QPCap
from pyverbs.srq import SRQ, SrqAttr, SrqInitAttr
from pyverbs.wr import SGE, RecvWR, SendWR

import common
from common import End, VerbsTest, bring_up

ACCESS = common.ALL_REMOTE | e.IBV_ACCESS_MW_BIND


class Holder(VerbsTest):
    def runTest(self):
        pass


def main():
    common.CONFIG['dev'] = sys.argv[1]
    if len(sys.argv) > 2:
        common.CONFIG['gid'] = int(sys.argv[2])
    h = Holder()
    h.setUp()
    keep = []

    other = Context(name=common.CONFIG['dev'])
    keep += [other, PD(other)]

    ch = CompChannel(h.ctx)
    a, b = h.rc_pair(channel=ch)
    for end in (a, b):
        end.cq.req_notify()
    src, dst = a.mr(1 << 20), MR(b.pd, 1 << 20, ACCESS)
    rq = b.mr(4096)
    for i in range(16):
        h.recv(b.qp, rq, 256, 256 * (i % 16), wr_id=i)
    keep += [ch, a, b, src, dst, rq]

    caps = h.attr.device_cap_flags
    if caps & e.IBV_DEVICE_MEM_WINDOW:
        mw1 = MW(b.pd, e.IBV_MW_TYPE_1)
        b.qp.bind_mw(mw1, MWBind(MWBindInfo(dst, dst.buf, 4096,
                                            e.IBV_ACCESS_REMOTE_READ),
                                 e.IBV_SEND_SIGNALED))
        h.poll(b.cq)
        keep.append(mw1)
        if caps & (e.IBV_DEVICE_MEM_WINDOW_TYPE_2A |
                   e.IBV_DEVICE_MEM_WINDOW_TYPE_2B):
            mw2 = MW(b.pd, e.IBV_MW_TYPE_2)
            wr = SendWR(opcode=e.IBV_WR_BIND_MW)
            wr.set_bind_wr(mw2, MWBindInfo(dst, dst.buf + 4096, 4096,
                                           e.IBV_ACCESS_REMOTE_WRITE))
            b.qp.post_send(wr)
            h.poll(b.cq)
            keep.append(mw2)

    # Sends that keep retrying: the peer stays in RESET.
    lost = End(h, cap=QPCap(max_send_wr=16, max_recv_wr=16))
    deaf = End(h)
    bring_up(h, lost, deaf.qpn, timeout=16, retry_cnt=7)
    lm = lost.mr(4096)
    for i in range(8):
        h.send(lost.qp, lm, 64, wr_id=i)
    keep += [lost, deaf, lm]

    uc = h.rc_pair(e.IBV_QPT_UC)
    ud = h.ud_pair()
    ah = h.ah(ud[0].pd)
    um = ud[1].mr(8192)
    h.recv(ud[1].qp, um)
    keep += [uc, ud, ah, um]

    srq = SRQ(h.pd, SrqInitAttr(SrqAttr(64, 1, 0)))
    sm = MR(h.pd, 64 * 256, e.IBV_ACCESS_LOCAL_WRITE)
    for i in range(32):
        srq.post_recv(RecvWR(wr_id=i, num_sge=1,
                             sg=[SGE(sm.buf + 256 * i, 256, sm.lkey)]))
    srx = End(h, pd=h.pd, srq=srq, cap=QPCap(max_send_wr=4, max_recv_wr=0))
    bring_up(h, srx, a.qpn, to='RTR')
    keep += [srq, sm, srx]

    dmmr = None
    if h.ctx.query_device_ex().max_dm_size >= 65536:
        dm = DM(h.ctx, AllocDmAttr(length=65536))
        dmmr = DMMR(b.pd, 65536, e.IBV_ACCESS_ZERO_BASED | ACCESS, dm, 0)
        keep += [dm, dmmr]

    done = [0]

    def traffic():
        while True:
            if dmmr:
                h.send(a.qp, src, 65536, e.IBV_WR_RDMA_WRITE,
                       rkey=dmmr.rkey, raddr=0, flags=0)
            h.send(a.qp, src, 65536, e.IBV_WR_RDMA_WRITE, rkey=dst.rkey,
                   raddr=dst.buf + 65536)
            h.send(a.qp, src, 65536, e.IBV_WR_RDMA_READ, rkey=dst.rkey,
                   raddr=dst.buf + 131072)
            h.poll(a.cq, 2)
            done[0] += 1

    threading.Thread(target=traffic, daemon=True).start()
    while done[0] < 3:
        time.sleep(0.05)
    print('holding', flush=True)
    while True:
        time.sleep(60)


if __name__ == '__main__':
    main()
