# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""QP creation limits, every state transition (IBTA 10.3.1 / the table
ib_modify_qp_is_ok enforces) and query_qp."""

import errno

import pyverbs.enums as e
from pyverbs.cq import CQ
from pyverbs.qp import QP, QPCap, QPInitAttr

from common import (REQUIRED, End, VerbsTest, bring_up, modify,
                    qp_attr_for)

RESET, INIT, RTR, RTS, SQD, ERR = (e.IBV_QPS_RESET, e.IBV_QPS_INIT,
                                   e.IBV_QPS_RTR, e.IBV_QPS_RTS,
                                   e.IBV_QPS_SQD, e.IBV_QPS_ERR)
NAME = {v: k for k, v in
        dict(RESET=RESET, INIT=INIT, RTR=RTR, RTS=RTS, SQD=SQD,
             ERR=ERR).items()}
LEGAL = {
    RESET: {RESET, INIT},
    INIT: {RESET, INIT, RTR, ERR},
    RTR: {RESET, RTS, ERR},
    RTS: {RESET, RTS, SQD, ERR},
    SQD: {RESET, RTS, SQD, ERR},
    ERR: {RESET, ERR},
}
# How a new QP reaches each state.
PATH = {
    RESET: [], INIT: ['INIT'], RTR: ['INIT', 'RTR'],
    RTS: ['INIT', 'RTR', 'RTS'], SQD: ['INIT', 'RTR', 'RTS', 'SQD'],
    ERR: ['INIT', 'ERR'],
}
TYPES = {e.IBV_QPT_RC: 'RC', e.IBV_QPT_UC: 'UC', e.IBV_QPT_UD: 'UD'}


def required(qp_type, cur, new):
    """The attribute mask of the CUR -> NEW transition: what it requires
    when legal; for an illegal one, what the natural way into NEW
    requires (so only the state pair is wrong)."""
    natural = {(RESET, INIT): 'INIT', (INIT, RTR): 'RTR', (RTR, RTS): 'RTS'}
    if (cur, new) in natural:
        return REQUIRED[qp_type][natural[(cur, new)]]
    if new in LEGAL[cur]:
        return 0
    return REQUIRED[qp_type].get(NAME[new], 0)


class QPCreateTest(VerbsTest):
    def create(self, qp_type=e.IBV_QPT_RC, **cap):
        caps = dict(max_send_wr=16, max_recv_wr=16, max_send_sge=1,
                    max_recv_sge=1, max_inline_data=0)
        caps.update(cap)
        cq = CQ(self.ctx, 64)
        init = QPInitAttr(qp_type=qp_type, scq=cq, rcq=cq,
                          cap=QPCap(**caps))
        return QP(self.pd, init)

    def test_create_each_type(self):
        for t, name in TYPES.items():
            with self.subTest(type=name):
                qp = self.create(t)
                self.assertEqual(qp.qp_type, t)
                self.assertState(qp, RESET)
                qp.close()

    def test_qp_numbers_unique(self):
        qps = [self.create() for _ in range(32)]
        self.assertEqual(len({q.qp_num for q in qps}), 32)
        # QP 0 and 1 are the special QPs.
        self.assertTrue(all(q.qp_num > 1 for q in qps))

    def test_caps_at_limits(self):
        a = self.attr
        qp = self.create(max_send_sge=a.max_sge, max_recv_sge=a.max_sge)
        _, init = qp.query(e.IBV_QP_CAP)
        self.assertGreaterEqual(init.cap.max_send_sge, a.max_sge)
        self.assertGreaterEqual(init.cap.max_recv_sge, a.max_sge)
        if a.max_qp_wr <= 65536:
            qp = self.create(max_send_wr=a.max_qp_wr, max_recv_wr=a.max_qp_wr)
            _, init = qp.query(e.IBV_QP_CAP)
            self.assertGreaterEqual(init.cap.max_send_wr, a.max_qp_wr)

    def test_reported_caps(self):
        qp = self.create(max_send_wr=10, max_recv_wr=20, max_send_sge=2,
                         max_recv_sge=3, max_inline_data=32)
        _, init = qp.query(e.IBV_QP_CAP)
        self.assertGreaterEqual(init.cap.max_send_wr, 10)
        self.assertGreaterEqual(init.cap.max_recv_wr, 20)
        self.assertGreaterEqual(init.cap.max_send_sge, 2)
        self.assertGreaterEqual(init.cap.max_recv_sge, 3)
        self.assertGreaterEqual(init.cap.max_inline_data, 32)

    def test_too_many_wrs(self):
        n = self.attr.max_qp_wr + 1
        for t, name in TYPES.items():
            with self.subTest(type=name, queue='send'):
                self.assertErrno(errno.EINVAL, self.create, t, max_send_wr=n)
            with self.subTest(type=name, queue='recv'):
                self.assertErrno(errno.EINVAL, self.create, t, max_recv_wr=n)

    def test_too_many_sges(self):
        n = self.attr.max_sge + 1
        for t, name in TYPES.items():
            with self.subTest(type=name, queue='send'):
                self.assertErrno(errno.EINVAL, self.create, t, max_send_sge=n)
            with self.subTest(type=name, queue='recv'):
                self.assertErrno(errno.EINVAL, self.create, t, max_recv_sge=n)

    def test_too_much_inline(self):
        for t, name in TYPES.items():
            with self.subTest(type=name):
                self.assertErrno(errno.EINVAL, self.create, t,
                                 max_inline_data=1 << 20)

    def test_unsupported_type(self):
        # Raw packet QPs are for NICs; the device must refuse them.
        cq = CQ(self.ctx, 16)
        init = QPInitAttr(qp_type=e.IBV_QPT_RAW_PACKET, scq=cq, rcq=cq,
                          cap=QPCap())
        self.assertErrno((errno.EOPNOTSUPP, errno.EINVAL, errno.EPERM), QP,
                         self.pd, init)


class QPStateTest(VerbsTest):
    def fresh(self, qp_type, state):
        end = End(self, qp_type, cap=QPCap(max_send_wr=4, max_recv_wr=4))
        # Connected types talk to themselves: any QPN will do.
        for s in PATH[state]:
            modify(self, end.qp, qp_type, s, remote_qpn=end.qpn)
        self.assertState(end.qp, state)
        return end

    def check_all(self, qp_type):
        for cur in PATH:
            for new in PATH:
                with self.subTest(type=TYPES[qp_type],
                                  transition=f'{NAME[cur]}->{NAME[new]}'):
                    end = self.fresh(qp_type, cur)
                    mask = required(qp_type, cur, new)
                    attr = qp_attr_for(self, qp_type, new, end.qpn)
                    if new in LEGAL[cur]:
                        end.qp.modify(attr, e.IBV_QP_STATE | mask)
                        self.assertState(end.qp, new)
                    else:
                        self.assertErrno(errno.EINVAL, end.qp.modify, attr,
                                         e.IBV_QP_STATE | mask)
                        self.assertState(end.qp, cur)
                    end.qp.close()
                    end.cq.close()
                    end.pd.close()

    def test_rc_transitions(self):
        self.check_all(e.IBV_QPT_RC)

    def test_uc_transitions(self):
        self.check_all(e.IBV_QPT_UC)

    def test_ud_transitions(self):
        self.check_all(e.IBV_QPT_UD)

    def test_missing_required_attribute(self):
        steps = [(RESET, 'INIT'), (INIT, 'RTR'), (RTR, 'RTS')]
        for t, tname in TYPES.items():
            for cur, new in steps:
                req = REQUIRED[t][new]
                bit = 1
                while bit <= req:
                    if req & bit:
                        with self.subTest(type=tname,
                                          transition=f'{NAME[cur]}->{new}',
                                          missing=hex(bit)):
                            end = self.fresh(t, cur)
                            attr = qp_attr_for(self, t,
                                               getattr(e, 'IBV_QPS_' + new),
                                               end.qpn)
                            self.assertErrno(errno.EINVAL, end.qp.modify,
                                             attr, (e.IBV_QP_STATE | req) &
                                             ~bit)
                            self.assertState(end.qp, cur)
                    bit <<= 1

    def test_attribute_not_allowed(self):
        # RESET->INIT may not set the path; RTS->RTS may not change the
        # destination QP; UD has no access flags.
        cases = [
            (e.IBV_QPT_RC, RESET, INIT, e.IBV_QP_DEST_QPN),
            (e.IBV_QPT_RC, RTS, RTS, e.IBV_QP_DEST_QPN),
            (e.IBV_QPT_RC, INIT, RTR, e.IBV_QP_SQ_PSN),
            (e.IBV_QPT_UC, RTR, RTS, e.IBV_QP_MAX_QP_RD_ATOMIC),
            (e.IBV_QPT_UD, RESET, INIT, e.IBV_QP_ACCESS_FLAGS),
        ]
        for t, cur, new, extra in cases:
            with self.subTest(type=TYPES[t],
                              transition=f'{NAME[cur]}->{NAME[new]}',
                              extra=hex(extra)):
                end = self.fresh(t, cur)
                attr = qp_attr_for(self, t, new, end.qpn)
                mask = e.IBV_QP_STATE | required(t, cur, new) | extra
                self.assertErrno(errno.EINVAL, end.qp.modify, attr, mask)
                self.assertState(end.qp, cur)

    def test_bad_values(self):
        # A port that does not exist, a P_Key index past the table, an
        # MTU above the port's.
        cases = [('port_num', 2, RESET, 'INIT'),
                 ('pkey_index', self.port_attr.pkey_tbl_len, RESET, 'INIT'),
                 ('path_mtu', 7, INIT, 'RTR')]
        for field, value, cur, new in cases:
            with self.subTest(field=field, value=value):
                end = self.fresh(e.IBV_QPT_RC, cur)
                attr = qp_attr_for(self, e.IBV_QPT_RC,
                                   getattr(e, 'IBV_QPS_' + new), end.qpn,
                                   **{field: value})
                self.assertErrno(errno.EINVAL, end.qp.modify, attr,
                                 e.IBV_QP_STATE | REQUIRED[e.IBV_QPT_RC][new])
                self.assertState(end.qp, cur)

    def test_rd_atomic_above_device_limit(self):
        self.require(self.attr.max_qp_init_rd_atom < 255,
                     'max_qp_init_rd_atom 255: no larger 8-bit value')
        end = self.fresh(e.IBV_QPT_RC, RTR)
        attr = qp_attr_for(self, e.IBV_QPT_RC, RTS, end.qpn,
                           max_rd_atomic=self.attr.max_qp_init_rd_atom + 1)
        self.assertErrno(errno.EINVAL, end.qp.modify, attr,
                         e.IBV_QP_STATE | REQUIRED[e.IBV_QPT_RC]['RTS'])
        self.assertState(end.qp, RTR)


class QPQueryTest(VerbsTest):
    def test_query_rc(self):
        a, b = self.rc_pair(a_over=dict(timeout=12, retry_cnt=5, rnr_retry=3,
                                        min_rnr_timer=9, sq_psn=0x42,
                                        rq_psn=0x77))
        mask = (e.IBV_QP_STATE | e.IBV_QP_PKEY_INDEX | e.IBV_QP_PORT |
                e.IBV_QP_ACCESS_FLAGS | e.IBV_QP_AV | e.IBV_QP_PATH_MTU |
                e.IBV_QP_DEST_QPN | e.IBV_QP_RQ_PSN |
                e.IBV_QP_MAX_DEST_RD_ATOMIC | e.IBV_QP_MIN_RNR_TIMER |
                e.IBV_QP_TIMEOUT | e.IBV_QP_RETRY_CNT | e.IBV_QP_RNR_RETRY |
                e.IBV_QP_SQ_PSN | e.IBV_QP_MAX_QP_RD_ATOMIC | e.IBV_QP_CAP)
        attr, init = a.qp.query(mask)
        self.assertEqual(attr.qp_state, RTS)
        self.assertEqual(attr.dest_qp_num, b.qpn)
        self.assertEqual(attr.path_mtu, self.path_mtu)
        self.assertEqual(attr.sq_psn, 0x42)
        self.assertEqual(attr.rq_psn, 0x77)
        self.assertEqual(attr.timeout, 12)
        self.assertEqual(attr.retry_cnt, 5)
        self.assertEqual(attr.rnr_retry, 3)
        self.assertEqual(attr.min_rnr_timer, 9)
        self.assertEqual(attr.max_rd_atomic, self.rd_atomic)
        self.assertEqual(attr.max_dest_rd_atomic, self.rd_atomic)
        self.assertEqual(attr.port_num, 1)
        self.assertEqual(attr.pkey_index, 0)
        # Local write means nothing for a QP: only the remote bits count.
        remote = (e.IBV_ACCESS_REMOTE_WRITE | e.IBV_ACCESS_REMOTE_READ |
                  e.IBV_ACCESS_REMOTE_ATOMIC)
        self.assertEqual(attr.qp_access_flags & remote, remote)
        ah = attr.ah_attr
        self.assertEqual(ah.is_global, 1)
        self.assertEqual(ah.sgid_index, self.gid_index)
        self.assertEqual(ah.dgid, self.gid.gid)
        self.assertEqual(init.qp_type, e.IBV_QPT_RC)
        self.assertGreaterEqual(init.cap.max_send_wr, 64)
        self.assertGreaterEqual(init.cap.max_recv_wr, 64)

    def test_query_ud(self):
        end = End(self, e.IBV_QPT_UD)
        modify(self, end.qp, e.IBV_QPT_UD, 'INIT', qkey=0x1234567)
        modify(self, end.qp, e.IBV_QPT_UD, 'RTR')
        modify(self, end.qp, e.IBV_QPT_UD, 'RTS', sq_psn=0x99)
        attr, _ = end.qp.query(e.IBV_QP_STATE | e.IBV_QP_QKEY |
                               e.IBV_QP_SQ_PSN | e.IBV_QP_PORT)
        self.assertEqual(attr.qp_state, RTS)
        self.assertEqual(attr.qkey, 0x1234567)
        self.assertEqual(attr.sq_psn, 0x99)
        self.assertEqual(attr.port_num, 1)

    def test_modify_rts_attributes(self):
        a, _ = self.rc_pair()
        attr = qp_attr_for(self, e.IBV_QPT_RC, RTS, min_rnr_timer=20,
                           qp_access_flags=e.IBV_ACCESS_REMOTE_READ)
        a.qp.modify(attr, e.IBV_QP_STATE | e.IBV_QP_MIN_RNR_TIMER |
                    e.IBV_QP_ACCESS_FLAGS)
        got, _ = a.qp.query(e.IBV_QP_MIN_RNR_TIMER | e.IBV_QP_ACCESS_FLAGS)
        self.assertEqual(got.min_rnr_timer, 20)
        self.assertEqual(got.qp_access_flags, e.IBV_ACCESS_REMOTE_READ)

    def test_sqd_and_back(self):
        a, b = self.rc_pair()
        modify(self, a.qp, e.IBV_QPT_RC, 'SQD')
        self.assertState(a.qp, SQD)
        # SQD -> RTS takes no required attribute.
        a.qp.modify(qp_attr_for(self, e.IBV_QPT_RC, RTS), e.IBV_QP_STATE)
        self.assertState(a.qp, RTS)
        # Still works.
        src, dst = a.mr(64), b.mr(64)
        self.recv(b.qp, dst)
        self.send(a.qp, src, 8)
        self.poll_ok(a.cq)
        self.poll_ok(b.cq)

    def test_reset_and_reuse(self):
        a, b = self.rc_pair()
        src, dst = a.mr(64), b.mr(64)
        for _ in range(2):
            self.recv(b.qp, dst)
            self.send(a.qp, src, 8)
            self.poll_ok(a.cq)
            self.poll_ok(b.cq)
            for end in (a, b):
                modify(self, end.qp, e.IBV_QPT_RC, 'RESET')
                self.assertState(end.qp, RESET)
            bring_up(self, a, b.qpn)
            bring_up(self, b, a.qpn)
