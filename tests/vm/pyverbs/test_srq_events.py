# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Shared receive queues (create, limits, modify, query, the limit event,
traffic of several QPs through one SRQ) and completion events (completion
channel, req_notify, get_cq_event, solicited-only notification)."""

import errno

import pyverbs.enums as e
from pyverbs.cq import CompChannel
from pyverbs.mr import MR
from pyverbs.qp import QPCap
from pyverbs.srq import SRQ, SrqAttr, SrqInitAttr
from pyverbs.wr import SGE, RecvWR

from common import End, VerbsTest, alarm, bring_up, pattern


class SRQTest(VerbsTest):
    def srq(self, max_wr=64, max_sge=1, limit=0):
        return SRQ(self.pd, SrqInitAttr(SrqAttr(max_wr, max_sge, limit)))

    def post(self, srq, mr, n, size=256, first=0):
        for i in range(n):
            srq.post_recv(RecvWR(wr_id=first + i, num_sge=1,
                                 sg=[SGE(mr.buf + (first + i) * size, size,
                                         mr.lkey)]))

    def test_create_query(self):
        srq = self.srq(100, min(4, self.attr.max_srq_sge))
        attr = srq.query()
        self.assertGreaterEqual(attr.max_wr, 100)
        self.assertGreaterEqual(attr.max_sge, min(4, self.attr.max_srq_sge))
        self.assertEqual(attr.srq_limit, 0)

    def test_create_at_limits(self):
        srq = self.srq(min(self.attr.max_srq_wr, 16384),
                       self.attr.max_srq_sge)
        srq.close()

    def test_bad_caps(self):
        self.assertErrno(errno.EINVAL, self.srq, self.attr.max_srq_wr + 1)
        self.assertErrno(errno.EINVAL, self.srq, 16,
                         self.attr.max_srq_sge + 1)
        self.assertErrno(errno.EINVAL, self.srq, 0)

    def test_modify_limit(self):
        srq = self.srq(64)
        srq.modify(SrqAttr(srq_limit=10), e.IBV_SRQ_LIMIT)
        self.assertEqual(srq.query().srq_limit, 10)
        attr = srq.query()
        self.assertErrno(errno.EINVAL, srq.modify,
                         SrqAttr(srq_limit=attr.max_wr + 1), e.IBV_SRQ_LIMIT)
        self.assertEqual(srq.query().srq_limit, 10)

    def require_resize(self):
        self.require(self.attr.device_cap_flags & e.IBV_DEVICE_SRQ_RESIZE,
                     'the device does not report SRQ resize')

    def test_resize(self):
        self.require_resize()
        srq = self.srq(32)
        mr = MR(self.pd, 256 * 64, e.IBV_ACCESS_LOCAL_WRITE)
        self.post(srq, mr, 16)
        srq.modify(SrqAttr(max_wr=64), e.IBV_SRQ_MAX_WR)
        self.assertGreaterEqual(srq.query().max_wr, 64)
        # Posted receives survive; the new room is usable.
        self.post(srq, mr, 40, first=16)

    def srq_pair(self, srq):
        rx = End(self, pd=self.pd, srq=srq,
                 cap=QPCap(max_send_wr=4, max_recv_wr=0))
        tx = End(self)
        bring_up(self, rx, tx.qpn)
        bring_up(self, tx, rx.qpn)
        return rx, tx

    def send_and_check(self, rx, tx, mr, wr_ids, seed):
        src = tx.mr(256)
        got = {}
        for n, _ in enumerate(wr_ids):
            src.write(pattern(200, seed + n), 200)
            self.send(tx.qp, src, 200)
            self.poll_ok(tx.cq)
            wc = self.poll_ok(rx.cq, opcode=e.IBV_WC_RECV)[0]
            got[wc.wr_id] = mr.read(200, wc.wr_id * 256)
        # In posting order, each into the buffer its WQE named.
        self.assertEqual(list(got), list(wr_ids))
        self.assertEqual(list(got.values()),
                         [pattern(200, seed + n) for n in range(len(wr_ids))])

    def test_resize_under_traffic(self):
        self.require_resize()
        srq = self.srq(16)
        rx, tx = self.srq_pair(srq)
        mr = MR(self.pd, 256 * 256, e.IBV_ACCESS_LOCAL_WRITE)
        depth = srq.query().max_wr
        # Fill it, take a few, grow it: the rest move to the new ring at
        # the indices they had, and the indices go on past the old size.
        self.post(srq, mr, depth)
        self.send_and_check(rx, tx, mr, range(5), 0)
        srq.modify(SrqAttr(max_wr=4 * depth), e.IBV_SRQ_MAX_WR)
        grown = srq.query().max_wr
        self.assertGreaterEqual(grown, 4 * depth)
        self.post(srq, mr, grown - (depth - 5), first=depth)
        self.assertErrno(errno.ENOMEM, self.post, srq, mr, 1, first=255)
        self.send_and_check(rx, tx, mr, range(5, 3 * depth), 100)
        # Shrink below the size, above what is posted.
        left = grown - (3 * depth - 5)
        srq.modify(SrqAttr(max_wr=left), e.IBV_SRQ_MAX_WR)
        self.assertLess(srq.query().max_wr, grown)
        self.send_and_check(rx, tx, mr, range(3 * depth, 3 * depth + 4), 200)

    def test_resize_errors(self):
        self.require_resize()
        srq = self.srq(64)
        mr = MR(self.pd, 256 * 64, e.IBV_ACCESS_LOCAL_WRITE)
        self.post(srq, mr, 20)
        depth = srq.query().max_wr
        # Fewer WRs than are posted, zero, more than the device has.
        for wr in (16, 0, self.attr.max_srq_wr + 1):
            self.assertErrno(errno.EINVAL, srq.modify, SrqAttr(max_wr=wr),
                             e.IBV_SRQ_MAX_WR)
        # A limit past the new size, with it or armed before it.
        self.assertErrno(errno.EINVAL, srq.modify,
                         SrqAttr(max_wr=128, srq_limit=1000),
                         e.IBV_SRQ_MAX_WR | e.IBV_SRQ_LIMIT)
        srq.modify(SrqAttr(srq_limit=60), e.IBV_SRQ_LIMIT)
        self.assertErrno(errno.EINVAL, srq.modify, SrqAttr(max_wr=30),
                         e.IBV_SRQ_MAX_WR)
        # Nothing changed by the failures.
        attr = srq.query()
        self.assertEqual((attr.max_wr, attr.srq_limit), (depth, 60))
        # Both at once: the limit is checked against the new size.
        srq.modify(SrqAttr(max_wr=24, srq_limit=8),
                   e.IBV_SRQ_MAX_WR | e.IBV_SRQ_LIMIT)
        attr = srq.query()
        self.assertGreaterEqual(attr.max_wr, 24)
        self.assertLess(attr.max_wr, depth)
        self.assertEqual(attr.srq_limit, 8)
        self.post(srq, mr, attr.max_wr - 20, first=20)
        self.assertErrno(errno.ENOMEM, self.post, srq, mr, 1)

    def test_post_too_many(self):
        srq = self.srq(16)
        mr = MR(self.pd, 256 * 2048, e.IBV_ACCESS_LOCAL_WRITE)
        depth = srq.query().max_wr
        self.post(srq, mr, depth)
        self.assertErrno(errno.ENOMEM, self.post, srq, mr, 1, first=depth)

    def test_traffic_through_srq(self):
        srq = self.srq(64)
        cap = QPCap(max_send_wr=16, max_recv_wr=0)
        rx = [End(self, pd=self.pd, srq=srq, cap=cap) for _ in range(3)]
        tx = [End(self) for _ in range(3)]
        for r, t in zip(rx, tx):
            bring_up(self, r, t.qpn)
            bring_up(self, t, r.qpn)
        mr = MR(self.pd, 256 * 64, e.IBV_ACCESS_LOCAL_WRITE)
        self.post(srq, mr, 12)
        for n in range(4):
            for i, t in enumerate(tx):
                src = t.mr(256)
                src.write(pattern(200, 10 * i + n), 200)
                self.send(t.qp, src, 200)
                self.poll_ok(t.cq)
        got = {}
        for i, r in enumerate(rx):
            for wc in self.poll_ok(r.cq, 4, opcode=e.IBV_WC_RECV):
                self.assertEqual(wc.qp_num, r.qpn)
                self.assertEqual(wc.byte_len, 200)
                got.setdefault(i, []).append(mr.read(200, wc.wr_id * 256))
        for i in range(3):
            self.assertEqual(sorted(got[i]),
                             sorted(pattern(200, 10 * i + n)
                                    for n in range(4)))

    def test_limit_event(self):
        srq = self.srq(64)
        rx = End(self, pd=self.pd, srq=srq,
                 cap=QPCap(max_send_wr=4, max_recv_wr=0))
        tx = End(self)
        bring_up(self, rx, tx.qpn)
        bring_up(self, tx, rx.qpn)
        mr = rx.mr(256 * 64)
        self.post(srq, mr, 8)
        srq.modify(SrqAttr(srq_limit=6), e.IBV_SRQ_LIMIT)
        src = tx.mr(64)
        for _ in range(3):
            self.send(tx.qp, src, 8)
        self.poll_ok(tx.cq, 3)
        self.poll_ok(rx.cq, 3)
        # Fewer than 6 receives left: IBV_EVENT_SRQ_LIMIT_REACHED, once,
        # and the limit is disarmed.
        seen = []
        with alarm():
            while e.IBV_EVENT_SRQ_LIMIT_REACHED not in seen:
                ev = self.ctx.get_async_event()
                ev.ack()
                seen.append(ev.event_type)
        # Port and GID events may come first; nothing else.
        self.assertTrue(set(seen) <= {e.IBV_EVENT_SRQ_LIMIT_REACHED,
                                      e.IBV_EVENT_PORT_ACTIVE,
                                      e.IBV_EVENT_GID_CHANGE}, seen)
        self.assertEqual(srq.query().srq_limit, 0)


class EventTest(VerbsTest):
    def test_req_notify_get_event(self):
        ch = CompChannel(self.ctx)
        a = End(self)
        b = End(self, channel=ch)
        bring_up(self, a, b.qpn)
        bring_up(self, b, a.qpn)
        src, dst = a.mr(64), b.mr(64 * 4)
        for round in range(3):
            self.recv(b.qp, dst, 64, 64 * round, wr_id=round)
            b.cq.req_notify()
            self.send(a.qp, src, 8)
            self.poll_ok(a.cq)
            with alarm():
                ch.get_cq_event(b.cq)
            b.cq.ack_events(1)
            wc = self.poll_ok(b.cq)[0]
            self.assertEqual(wc.wr_id, round)

    def test_send_cq_event(self):
        ch = CompChannel(self.ctx)
        a = End(self, channel=ch)
        b = End(self)
        bring_up(self, a, b.qpn)
        bring_up(self, b, a.qpn)
        src, dst = a.mr(64), b.mr(64)
        a.cq.req_notify()
        self.send(a.qp, src, 8, e.IBV_WR_RDMA_WRITE, rkey=dst.rkey,
                  raddr=dst.buf)
        with alarm():
            ch.get_cq_event(a.cq)
        a.cq.ack_events(1)
        self.poll_ok(a.cq)

    def test_solicited_only(self):
        ch = CompChannel(self.ctx)
        a = End(self)
        b = End(self, channel=ch)
        bring_up(self, a, b.qpn)
        bring_up(self, b, a.qpn)
        src, dst = a.mr(64), b.mr(64 * 2)
        self.recv(b.qp, dst, 64, 0, wr_id=1)
        self.recv(b.qp, dst, 64, 64, wr_id=2)
        b.cq.req_notify(solicited_only=True)
        self.send(a.qp, src, 8, wr_id=1)
        self.send(a.qp, src, 8, wr_id=2,
                  flags=e.IBV_SEND_SIGNALED | e.IBV_SEND_SOLICITED)
        self.poll_ok(a.cq, 2)
        with alarm():
            ch.get_cq_event(b.cq)
        b.cq.ack_events(1)
        self.assertEqual([w.wr_id for w in self.poll_ok(b.cq, 2)], [1, 2])

    def test_event_for_error_completion(self):
        ch = CompChannel(self.ctx)
        a = End(self, channel=ch)
        b = End(self)
        bring_up(self, a, b.qpn)
        bring_up(self, b, a.qpn)
        src = a.mr(64)
        a.cq.req_notify(solicited_only=True)
        # An error completion notifies even a solicited-only arm.
        self.send(a.qp, src, 8, e.IBV_WR_RDMA_WRITE, rkey=0x5a5a00,
                  raddr=0x1000)
        with alarm():
            ch.get_cq_event(a.cq)
        a.cq.ack_events(1)
        self.poll_status(a.cq, e.IBV_WC_REM_ACCESS_ERR)

    def test_many_cqs_one_channel(self):
        ch = CompChannel(self.ctx)
        ends = []
        for _ in range(3):
            a = End(self)
            b = End(self, channel=ch)
            bring_up(self, a, b.qpn)
            bring_up(self, b, a.qpn)
            ends.append((a, b))
        a, b = ends[1]
        dst = b.mr(64)
        self.recv(b.qp, dst)
        for _, rb in ends:
            rb.cq.req_notify()
        self.send(a.qp, a.mr(64), 8)
        with alarm():
            # Fails if the event names another CQ.
            ch.get_cq_event(b.cq)
        b.cq.ack_events(1)
        self.poll_ok(b.cq)
