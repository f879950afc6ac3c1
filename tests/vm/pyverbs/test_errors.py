# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Error completions (IBTA 10.10.3 / 9.9): remote access and protection
errors, RNR and transport retries, flushes, local length errors.  After an
error the RC QP is in ERR and everything still queued is flushed."""

import errno

import pyverbs.enums as e
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsRDMAError
from pyverbs.qp import QPCap
from pyverbs.wr import SGE, RecvWR, SendWR

from common import (ALL_REMOTE, QKEY, End, VerbsTest, bring_up, modify,
                    pattern, qp_attr_for, status_name)

RESET, RTS, SQE, ERR = (e.IBV_QPS_RESET, e.IBV_QPS_RTS, e.IBV_QPS_SQE,
                        e.IBV_QPS_ERR)


class RemoteAccessTest(VerbsTest):
    def rdma(self, opcode, mr_of, addr_of, length=8,
             status=e.IBV_WC_REM_ACCESS_ERR):
        """An RDMA op from a to the MR mr_of(b) at addr_of(mr) must
        complete with STATUS and leave a in ERR."""
        a, b = self.rc_pair()
        target = mr_of(b)
        local = a.mr(max(length, 64))
        if opcode in (e.IBV_WR_ATOMIC_CMP_AND_SWP,
                      e.IBV_WR_ATOMIC_FETCH_AND_ADD):
            wr = SendWR(opcode=opcode, num_sge=1,
                        sg=[SGE(local.buf, 8, local.lkey)])
            wr.set_wr_atomic(target.rkey, addr_of(target), 1, 2)
            a.qp.post_send(wr)
        else:
            self.send(a.qp, local, length, opcode, rkey=target.rkey,
                      raddr=addr_of(target))
        self.poll_status(a.cq, status)
        self.assertState(a.qp, ERR)
        return a, b, target

    def test_rkey_of_another_pd(self):
        for opcode in (e.IBV_WR_RDMA_WRITE, e.IBV_WR_RDMA_READ):
            with self.subTest(opcode=opcode):
                a, b, target = self.rdma(
                    opcode, lambda b: MR(PD(self.ctx), 4096, ALL_REMOTE),
                    lambda m: m.buf)
                self.assertEqual(target.read(8, 0), b'\0' * 8)

    def test_write_out_of_bounds(self):
        cases = {'past the end': lambda m: m.buf + m.length - 4,
                 'before the start': lambda m: m.buf - 4,
                 'far away': lambda m: m.buf + (1 << 30)}
        for what, addr in cases.items():
            with self.subTest(where=what):
                self.rdma(e.IBV_WR_RDMA_WRITE, lambda b: b.mr(4096), addr)

    def test_read_out_of_bounds(self):
        self.rdma(e.IBV_WR_RDMA_READ, lambda b: b.mr(4096),
                  lambda m: m.buf + m.length - 4)
        self.rdma(e.IBV_WR_RDMA_READ, lambda b: b.mr(4096),
                  lambda m: m.buf, length=4097)

    def test_atomic_out_of_bounds(self):
        self.require(self.has_atomics(), 'the device reports no atomics')
        self.rdma(e.IBV_WR_ATOMIC_FETCH_AND_ADD, lambda b: b.mr(4096),
                  lambda m: m.buf + m.length)

    def test_mr_without_remote_access(self):
        self.rdma(e.IBV_WR_RDMA_WRITE,
                  lambda b: b.mr(4096, e.IBV_ACCESS_LOCAL_WRITE |
                                 e.IBV_ACCESS_REMOTE_READ), lambda m: m.buf)
        self.rdma(e.IBV_WR_RDMA_READ,
                  lambda b: b.mr(4096, e.IBV_ACCESS_LOCAL_WRITE |
                                 e.IBV_ACCESS_REMOTE_WRITE), lambda m: m.buf)
        if self.has_atomics():
            self.rdma(e.IBV_WR_ATOMIC_CMP_AND_SWP,
                      lambda b: b.mr(4096, e.IBV_ACCESS_LOCAL_WRITE |
                                     e.IBV_ACCESS_REMOTE_WRITE |
                                     e.IBV_ACCESS_REMOTE_READ),
                      lambda m: m.buf)

    def test_bad_rkey(self):
        self.rdma(e.IBV_WR_RDMA_WRITE,
                  lambda b: type('K', (), dict(rkey=0xdead00 | 0x5a,
                                               buf=0x10000))(),
                  lambda m: m.buf)

    def test_misaligned_atomic(self):
        self.require(self.has_atomics(), 'the device reports no atomics')
        # IBTA 9.4.5: an atomic's address must be 8-byte aligned.  The
        # provider may refuse it at post time; else the responder NAKs.
        try:
            self.rdma(e.IBV_WR_ATOMIC_CMP_AND_SWP, lambda b: b.mr(4096),
                      lambda m: m.buf + 4, status=e.IBV_WC_REM_INV_REQ_ERR)
        except PyverbsRDMAError as ex:
            self.assertEqual(ex.error_code, errno.EINVAL, str(ex))

    def test_qp_without_remote_write(self):
        # The responder QP does not allow RDMA writes (qp_access_flags).
        a = End(self)
        b = End(self)
        bring_up(self, a, b.qpn)
        bring_up(self, b, a.qpn, qp_access_flags=e.IBV_ACCESS_REMOTE_READ)
        target, local = b.mr(4096), a.mr(64)
        self.send(a.qp, local, 8, e.IBV_WR_RDMA_WRITE, rkey=target.rkey,
                  raddr=target.buf)
        wc = self.poll(a.cq)[0]
        # IBTA calls an operation the QP does not enable an invalid
        # request; some devices report it as an access error.
        self.assertIn(wc.status, (e.IBV_WC_REM_INV_REQ_ERR,
                                  e.IBV_WC_REM_ACCESS_ERR),
                      status_name(wc.status))
        self.assertEqual(target.read(8, 0), b'\0' * 8)

    def test_later_wrs_flushed(self):
        a, b = self.rc_pair()
        target, local = b.mr(4096), a.mr(4096)
        self.send(a.qp, local, 8, e.IBV_WR_RDMA_WRITE, wr_id=1,
                  rkey=target.rkey, raddr=target.buf + 8192)
        for i in range(2, 6):
            self.send(a.qp, local, 8, e.IBV_WR_RDMA_WRITE, wr_id=i,
                      rkey=target.rkey, raddr=target.buf)
        wc = self.poll(a.cq)[0]
        self.assertEqual((wc.wr_id, wc.status),
                         (1, e.IBV_WC_REM_ACCESS_ERR), status_name(wc.status))
        wcs = self.poll_status(a.cq, e.IBV_WC_WR_FLUSH_ERR, 4)
        self.assertEqual([w.wr_id for w in wcs], [2, 3, 4, 5])


class LocalErrorTest(VerbsTest):
    def test_bad_lkey(self):
        a, b = self.rc_pair()
        src = a.mr(4096)
        self.recv(b.qp, b.mr(4096))
        self.send(a.qp, src, 16, lkey=src.lkey ^ 0x5a5a00)
        self.poll_status(a.cq, e.IBV_WC_LOC_PROT_ERR)
        self.assertState(a.qp, ERR)

    def check_no_later_wr_executed(self, make_bad, status=None):
        """Post the WR MAKE_BAD(a, src, next_wr) returns, which fails
        locally, with a WRITE after it in the same list: the QP leaves
        RTS at the failure, the WRITE is flushed and never lands."""
        a, b = self.rc_pair()
        src, target = a.mr(4096), b.mr(4096)
        src.write(pattern(64), 64)
        write = SendWR(wr_id=2, opcode=e.IBV_WR_RDMA_WRITE, num_sge=1,
                       sg=[SGE(src.buf, 64, src.lkey)],
                       send_flags=e.IBV_SEND_SIGNALED)
        write.set_wr_rdma(target.rkey, target.buf)
        a.qp.post_send(make_bad(src, write))
        wc = self.poll(a.cq)[0]
        self.assertEqual(wc.wr_id, 1)
        if status is None:
            self.assertNotEqual(wc.status, e.IBV_WC_SUCCESS)
        else:
            self.assertEqual(wc.status, status, status_name(wc.status))
        wcs = self.poll_status(a.cq, e.IBV_WC_WR_FLUSH_ERR, 1)
        self.assertEqual(wcs[0].wr_id, 2)
        self.assertState(a.qp, ERR)
        self.assertEqual(target.read(64, 0), b'\0' * 64)

    def test_no_later_wr_executed_after_a_local_error(self):
        """A SEND whose gather fails (a bad lkey); the WRITE after it
        used to land, its flush reported when the SEND's turn came."""
        self.check_no_later_wr_executed(
            lambda src, nxt: SendWR(
                wr_id=1, opcode=e.IBV_WR_SEND, num_sge=1,
                sg=[SGE(src.buf, 16, src.lkey ^ 0x5a5a00)],
                send_flags=e.IBV_SEND_SIGNALED, next_wr=nxt),
            e.IBV_WC_LOC_PROT_ERR)

    def test_no_later_wr_executed_after_a_failed_local_operation(self):
        """A LOCAL_INV of a key that names nothing fails with no packet
        of its own; the WRITE after it used to go out and land.
        (imm_data shares its word with invalidate_rkey.)"""
        self.check_no_later_wr_executed(
            lambda src, nxt: SendWR(
                wr_id=1, opcode=e.IBV_WR_LOCAL_INV, num_sge=0,
                imm_data=0x7fff00, send_flags=e.IBV_SEND_SIGNALED,
                next_wr=nxt))

    def test_lkey_of_another_pd(self):
        a, b = self.rc_pair()
        other = MR(PD(self.ctx), 4096, ALL_REMOTE)
        self.recv(b.qp, b.mr(4096))
        self.send(a.qp, other, 16)
        self.poll_status(a.cq, e.IBV_WC_LOC_PROT_ERR)

    def test_sge_past_mr(self):
        a, b = self.rc_pair()
        src = a.mr(4096)
        self.recv(b.qp, b.mr(8192))
        self.send(a.qp, src, 100, offset=4000)
        self.poll_status(a.cq, e.IBV_WC_LOC_PROT_ERR)

    def test_rdma_read_into_read_only_mr(self):
        a, b = self.rc_pair()
        src = b.mr(4096)
        dst = a.mr(4096, e.IBV_ACCESS_REMOTE_READ)
        self.send(a.qp, dst, 64, e.IBV_WR_RDMA_READ, rkey=src.rkey,
                  raddr=src.buf)
        self.poll_status(a.cq, e.IBV_WC_LOC_PROT_ERR)

    def test_recv_bad_lkey(self):
        a, b = self.rc_pair()
        dst = b.mr(4096)
        self.recv(b.qp, dst)
        # The receive's lkey is checked when a message lands in it.
        b.qp.post_recv(RecvWR(wr_id=7, num_sge=1,
                              sg=[SGE(dst.buf, 64, dst.lkey ^ 0x5a5a00)]))
        src = a.mr(64)
        self.send(a.qp, src, 16)
        self.send(a.qp, src, 16)
        self.poll_ok(b.cq)
        wc = self.poll(b.cq)[0]
        self.assertEqual((wc.wr_id, wc.status), (7, e.IBV_WC_LOC_PROT_ERR),
                         status_name(wc.status))
        wcs = self.poll(a.cq, 2)
        self.assertEqual(wcs[0].status, e.IBV_WC_SUCCESS)
        self.assertNotEqual(wcs[1].status, e.IBV_WC_SUCCESS)

    def test_recv_buffer_too_small(self):
        a, b = self.rc_pair()
        src, dst = a.mr(4096), b.mr(4096)
        self.recv(b.qp, dst, 16)
        self.send(a.qp, src, 64)
        self.poll_status(b.cq, e.IBV_WC_LOC_LEN_ERR)
        # The responder NAKs the send as an invalid request.
        self.poll_status(a.cq, e.IBV_WC_REM_INV_REQ_ERR)
        self.assertState(b.qp, ERR)

    def test_ud_recv_buffer_too_small(self):
        a, b = self.ud_pair()
        ah = self.ah(a.pd)
        src, dst = a.mr(4096), b.mr(4096)
        self.recv(b.qp, dst, 40 + 16)
        wr = SendWR(num_sge=1, sg=[SGE(src.buf, 64, src.lkey)])
        wr.set_wr_ud(ah, b.qpn, QKEY)
        a.qp.post_send(wr)
        self.poll_ok(a.cq)
        self.poll_status(b.cq, e.IBV_WC_LOC_LEN_ERR)

    def test_ud_send_error_enters_sqe(self):
        a, b = self.ud_pair()
        ah = self.ah(a.pd)
        src, dst = a.mr(4096), b.mr(4096)
        wr = SendWR(num_sge=1, sg=[SGE(src.buf, 16, src.lkey ^ 0x5a5a00)])
        wr.set_wr_ud(ah, b.qpn, QKEY)
        a.qp.post_send(wr)
        self.poll_status(a.cq, e.IBV_WC_LOC_PROT_ERR)
        # IBTA 10.3.1: a UD send error moves only the send queue to SQE;
        # SQE -> RTS resumes.
        self.assertState(a.qp, SQE)
        a.qp.modify(qp_attr_for(self, e.IBV_QPT_UD, RTS), e.IBV_QP_STATE)
        self.assertState(a.qp, RTS)
        self.recv(b.qp, dst)
        src.write(pattern(16), 16)
        wr = SendWR(num_sge=1, sg=[SGE(src.buf, 16, src.lkey)])
        wr.set_wr_ud(ah, b.qpn, QKEY)
        a.qp.post_send(wr)
        self.poll_ok(a.cq)
        self.poll_ok(b.cq)
        self.assertEqual(dst.read(16, 40), pattern(16))


class RetryTest(VerbsTest):
    def test_rnr_retry_exceeded(self):
        a, b = self.rc_pair(a_over=dict(rnr_retry=0))
        src = a.mr(64)
        # No receive posted at b.
        self.send(a.qp, src, 8)
        self.poll_status(a.cq, e.IBV_WC_RNR_RETRY_EXC_ERR)
        self.assertState(a.qp, ERR)
        # The responder is fine.
        self.assertState(b.qp, RTS)

    def test_rnr_then_receive(self):
        import time
        a, b = self.rc_pair(a_over=dict(rnr_retry=7),
                            b_over=dict(min_rnr_timer=1))
        src, dst = a.mr(64), b.mr(64)
        src.write(pattern(8), 8)
        self.send(a.qp, src, 8)
        time.sleep(0.05)
        self.recv(b.qp, dst)
        self.poll_ok(a.cq)
        self.poll_ok(b.cq)
        self.assertEqual(dst.read(8, 0), pattern(8))

    def test_rnr_wait_longer_than_ack_timeout(self):
        # The RNR NAK's wait (min_rnr_timer 0: 655 ms) outlasts the ACK
        # timeout armed by the send (timeout 12: 17 ms): the retry still
        # comes, after the whole wait.
        import time
        a, b = self.rc_pair(a_over=dict(rnr_retry=7, timeout=12),
                            b_over=dict(min_rnr_timer=0))
        src, dst = a.mr(64), b.mr(64)
        src.write(pattern(8), 8)
        start = time.monotonic()
        self.send(a.qp, src, 8)
        time.sleep(0.05)
        self.recv(b.qp, dst)
        self.poll_ok(a.cq)
        self.assertGreaterEqual(time.monotonic() - start, 0.6)
        self.poll_ok(b.cq)
        self.assertEqual(dst.read(8, 0), pattern(8))

    def test_transport_retry_exceeded(self):
        a = End(self)
        b = End(self)
        # b stays in RESET: a's packets find no QP to answer them.
        bring_up(self, a, b.qpn, timeout=8, retry_cnt=1)
        src = a.mr(64)
        self.send(a.qp, src, 8, e.IBV_WR_RDMA_WRITE, rkey=0, raddr=0)
        self.poll_status(a.cq, e.IBV_WC_RETRY_EXC_ERR)
        self.assertState(a.qp, ERR)


class FlushTest(VerbsTest):
    def test_error_flushes_receives(self):
        a, b = self.rc_pair()
        dst = b.mr(4096)
        for i in range(5):
            self.recv(b.qp, dst, wr_id=i)
        modify(self, b.qp, e.IBV_QPT_RC, 'ERR')
        wcs = self.poll_status(b.cq, e.IBV_WC_WR_FLUSH_ERR, 5)
        self.assertEqual([w.wr_id for w in wcs], list(range(5)))
        self.assertEmpty(b.cq)

    def test_error_flushes_sends(self):
        a = End(self, cap=QPCap(max_send_wr=16, max_recv_wr=16))
        b = End(self)
        # b in RESET and a long timeout: a's sends wait for an ACK.
        bring_up(self, a, b.qpn, timeout=20, retry_cnt=7)
        src = a.mr(64)
        for i in range(6):
            self.send(a.qp, src, 8, e.IBV_WR_RDMA_WRITE, wr_id=i, rkey=0,
                      raddr=0)
        modify(self, a.qp, e.IBV_QPT_RC, 'ERR')
        wcs = self.poll_status(a.cq, e.IBV_WC_WR_FLUSH_ERR, 6)
        self.assertEqual([w.wr_id for w in wcs], list(range(6)))

    def test_post_in_error_state(self):
        a, b = self.rc_pair()
        modify(self, a.qp, e.IBV_QPT_RC, 'ERR')
        mr = a.mr(64)
        # IBTA 10.8.3: WRs posted to a QP in ERR complete with a flush.
        self.send(a.qp, mr, 8, wr_id=11)
        self.recv(a.qp, mr, wr_id=12)
        wcs = self.poll_status(a.cq, e.IBV_WC_WR_FLUSH_ERR, 2)
        self.assertEqual(sorted(w.wr_id for w in wcs), [11, 12])

    def test_reset_discards(self):
        a, b = self.rc_pair()
        dst = b.mr(64)
        for i in range(3):
            self.recv(b.qp, dst, wr_id=i)
        modify(self, b.qp, e.IBV_QPT_RC, 'RESET')
        # RESET empties the queues without completions.
        self.assertEmpty(b.cq)
        self.assertState(b.qp, RESET)
