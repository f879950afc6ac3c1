# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Shared helpers of wookie's pyverbs tests (pyverbs 56.1).

Every test runs on one RDMA device (CONFIG['dev']) and one GID index
(CONFIG['gid'], 1 = the IPv4-mapped RoCEv2 GID), as rdma-core's suite does:
traffic flows between two QPs of that device.  Expectations follow the
IBTA specification and the Linux verbs contract (ib_core's checks), not the
quirks of one device.
"""

import ctypes
import errno
import os
import signal
import time
import unittest

import pyverbs.device as d
import pyverbs.enums as e
from pyverbs.addr import AH, AHAttr, GlobalRoute
from pyverbs.cq import CQ
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsRDMAError
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.wr import SGE, RecvWR, SendWR

CONFIG = {
    'dev': os.environ.get('WOOKIE_PYVERBS_DEV'),
    'gid': int(os.environ.get('WOOKIE_PYVERBS_GID', '1')),
    # Seconds to wait for a completion or an event (TCG is slow).
    'timeout': float(os.environ.get('WOOKIE_PYVERBS_TIMEOUT', '20')),
}

PORT = 1
PSN = 0x1234
QKEY = 0x11111111
ALL_REMOTE = (e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE |
              e.IBV_ACCESS_REMOTE_READ | e.IBV_ACCESS_REMOTE_ATOMIC)

STATE_NAMES = {
    e.IBV_QPS_RESET: 'RESET', e.IBV_QPS_INIT: 'INIT', e.IBV_QPS_RTR: 'RTR',
    e.IBV_QPS_RTS: 'RTS', e.IBV_QPS_SQD: 'SQD', e.IBV_QPS_SQE: 'SQE',
    e.IBV_QPS_ERR: 'ERR',
}

WC_STATUS_NAMES = {
    getattr(e, n): n for n in dir(e)
    if n.startswith('IBV_WC_') and n.endswith('_ERR') or n == 'IBV_WC_SUCCESS'
}


def status_name(status):
    return WC_STATUS_NAMES.get(status, str(status))


# Required attributes of each legal transition (IBTA; ib_modify_qp_is_ok),
# for the three QP types the device supports.
REQUIRED = {
    e.IBV_QPT_RC: {
        'INIT': e.IBV_QP_PKEY_INDEX | e.IBV_QP_PORT | e.IBV_QP_ACCESS_FLAGS,
        'RTR': (e.IBV_QP_AV | e.IBV_QP_PATH_MTU | e.IBV_QP_DEST_QPN |
                e.IBV_QP_RQ_PSN | e.IBV_QP_MAX_DEST_RD_ATOMIC |
                e.IBV_QP_MIN_RNR_TIMER),
        'RTS': (e.IBV_QP_TIMEOUT | e.IBV_QP_RETRY_CNT | e.IBV_QP_RNR_RETRY |
                e.IBV_QP_SQ_PSN | e.IBV_QP_MAX_QP_RD_ATOMIC),
    },
    e.IBV_QPT_UC: {
        'INIT': e.IBV_QP_PKEY_INDEX | e.IBV_QP_PORT | e.IBV_QP_ACCESS_FLAGS,
        'RTR': (e.IBV_QP_AV | e.IBV_QP_PATH_MTU | e.IBV_QP_DEST_QPN |
                e.IBV_QP_RQ_PSN),
        'RTS': e.IBV_QP_SQ_PSN,
    },
    e.IBV_QPT_UD: {
        'INIT': e.IBV_QP_PKEY_INDEX | e.IBV_QP_PORT | e.IBV_QP_QKEY,
        'RTR': 0,
        'RTS': e.IBV_QP_SQ_PSN,
    },
}


class Timeout(Exception):
    pass


class alarm:
    """Bound a blocking call (get_cq_event, get_async_event): SIGALRM
    interrupts its read() and raises Timeout instead of hanging the run."""

    def __init__(self, seconds=None):
        self.seconds = seconds or CONFIG['timeout']

    def _fire(self, signum, frame):
        raise Timeout(f'nothing within {self.seconds} s')

    def __enter__(self):
        self.old = signal.signal(signal.SIGALRM, self._fire)
        signal.setitimer(signal.ITIMER_REAL, self.seconds)
        return self

    def __exit__(self, *exc):
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, self.old)
        return False


def unmapped_address(length=4096):
    """An address range that is not mapped in this process."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                          ctypes.c_int, ctypes.c_int, ctypes.c_long]
    libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    prot_read, map_private_anon = 1, 0x02 | 0x20
    addr = libc.mmap(None, length, prot_read, map_private_anon, -1, 0)
    assert addr not in (None, ctypes.c_void_p(-1).value)
    libc.munmap(addr, length)
    return addr


class End:
    """One end of a connection: PD, CQ(s), a QP and its buffers."""

    def __init__(self, test, qp_type=e.IBV_QPT_RC, cap=None, pd=None,
                 cq_depth=256, srq=None, channel=None, sq_sig_all=0,
                 ctx=None):
        ctx = ctx or test.ctx
        self.test = test
        self.qp_type = qp_type
        self.pd = pd or PD(ctx)
        self.cq = CQ(ctx, cq_depth, None, channel, 0)
        self.cap = cap or QPCap(max_send_wr=64, max_recv_wr=64,
                                max_send_sge=1, max_recv_sge=1)
        init = QPInitAttr(qp_type=qp_type, scq=self.cq, rcq=self.cq,
                          srq=srq, cap=self.cap, sq_sig_all=sq_sig_all)
        self.qp = QP(self.pd, init)
        self.qpn = self.qp.qp_num

    def mr(self, length, access=ALL_REMOTE):
        return MR(self.pd, length, access)


def qp_attr_for(test, qp_type, state, remote_qpn=0, **over):
    """The attributes of the transition into STATE for QP_TYPE, with
    OVER's values (e.g. rnr_retry=0) replacing the defaults."""
    attr = QPAttr(qp_state=state)
    attr.pkey_index = 0
    attr.port_num = PORT
    attr.qp_access_flags = (e.IBV_ACCESS_LOCAL_WRITE |
                            e.IBV_ACCESS_REMOTE_WRITE |
                            e.IBV_ACCESS_REMOTE_READ |
                            e.IBV_ACCESS_REMOTE_ATOMIC)
    attr.qkey = QKEY
    attr.path_mtu = test.path_mtu
    attr.dest_qp_num = remote_qpn
    attr.rq_psn = PSN
    attr.sq_psn = PSN
    attr.max_dest_rd_atomic = test.rd_atomic
    attr.max_rd_atomic = test.rd_atomic
    attr.min_rnr_timer = 1
    attr.timeout = 14
    attr.retry_cnt = 7
    attr.rnr_retry = 7
    gr = GlobalRoute(dgid=test.gid, sgid_index=test.gid_index)
    attr.ah_attr = AHAttr(gr=gr, is_global=1, port_num=PORT)
    for k, v in over.items():
        setattr(attr, k, v)
    return attr


def modify(test, qp, qp_type, state_name, remote_qpn=0, extra_mask=0, **over):
    state = getattr(e, 'IBV_QPS_' + state_name)
    attr = qp_attr_for(test, qp_type, state, remote_qpn, **over)
    mask = e.IBV_QP_STATE | REQUIRED[qp_type].get(state_name, 0) | extra_mask
    qp.modify(attr, mask)


def bring_up(test, end, remote_qpn, to='RTS', **over):
    """RESET -> INIT -> RTR [-> RTS] with the required attributes."""
    for s in ('INIT', 'RTR', 'RTS'):
        modify(test, end.qp, end.qp_type, s, remote_qpn, **over)
        if s == to:
            return


class VerbsTest(unittest.TestCase):
    """Opens the device; tearDown closes everything the test created."""

    def setUp(self):
        if not CONFIG['dev']:
            raise unittest.SkipTest('no device given (--dev)')
        self.ctx = d.Context(name=CONFIG['dev'])
        self.attr = self.ctx.query_device()
        self.port_attr = self.ctx.query_port(PORT)
        self.gid_index = CONFIG['gid']
        self.gid = self.ctx.query_gid(PORT, self.gid_index)
        self.path_mtu = min(self.port_attr.active_mtu, e.IBV_MTU_1024)
        self.mtu_bytes = 128 << self.path_mtu
        self.rd_atomic = max(1, min(4, self.attr.max_qp_rd_atom,
                                    self.attr.max_qp_init_rd_atom))
        self.pd = PD(self.ctx)

    def tearDown(self):
        # Closing the context closes every object made on it, children
        # first.
        self.ctx.close()

    # --- assertions ----------------------------------------------------
    def assertErrno(self, errnos, fn, *args, **kwargs):
        """FN(*ARGS) must fail with one of ERRNOS (an int or a tuple)."""
        if isinstance(errnos, int):
            errnos = (errnos,)
        try:
            ret = fn(*args, **kwargs)
        except PyverbsRDMAError as ex:
            self.assertIn(ex.error_code, errnos,
                          f'{getattr(fn, "__name__", fn)} failed with '
                          f'{errno.errorcode.get(ex.error_code, ex.error_code)}'
                          f', expected '
                          f'{[errno.errorcode[x] for x in errnos]}: {ex}')
            return ex
        self.fail(f'{getattr(fn, "__name__", fn)} succeeded, expected '
                  f'{[errno.errorcode[x] for x in errnos]}')
        return ret

    def qp_state(self, qp):
        attr, _ = qp.query(e.IBV_QP_STATE)
        return attr.qp_state

    def assertState(self, qp, state):
        got = self.qp_state(qp)
        self.assertEqual(got, state, f'QP in {STATE_NAMES.get(got, got)}, '
                         f'expected {STATE_NAMES.get(state, state)}')

    # --- queues ----------------------------------------------------------
    def poll(self, cq, n=1, timeout=None):
        """N completions from CQ, within the timeout."""
        deadline = time.monotonic() + (timeout or CONFIG['timeout'])
        wcs = []
        while len(wcs) < n:
            _, got = cq.poll(n - len(wcs))
            wcs += got
            if not got:
                if time.monotonic() > deadline:
                    got = [(w.wr_id, status_name(w.status)) for w in wcs]
                    self.fail(f'{len(wcs)} of {n} completions within '
                              f'{timeout or CONFIG["timeout"]} s: {got}')
                time.sleep(0.0005)
        return wcs

    def poll_ok(self, cq, n=1, opcode=None):
        wcs = self.poll(cq, n)
        for wc in wcs:
            self.assertEqual(wc.status, e.IBV_WC_SUCCESS,
                             f'wr_id {wc.wr_id}: {status_name(wc.status)}')
            if opcode is not None:
                self.assertEqual(wc.opcode, opcode)
        return wcs

    def poll_status(self, cq, status, n=1):
        wcs = self.poll(cq, n)
        for wc in wcs:
            self.assertEqual(wc.status, status,
                             f'wr_id {wc.wr_id}: {status_name(wc.status)}, '
                             f'expected {status_name(status)}')
        return wcs

    def assertEmpty(self, cq, wait=0.2):
        time.sleep(wait)
        n, wcs = cq.poll(1)
        self.assertEqual(n, 0, f'unexpected completion: '
                         f'{[(w.wr_id, status_name(w.status)) for w in wcs]}')

    # --- work requests ---------------------------------------------------
    @staticmethod
    def recv(qp, mr, length=None, offset=0, wr_id=0):
        sge = SGE(mr.buf + offset, mr.length - offset if length is None
                  else length, mr.lkey)
        qp.post_recv(RecvWR(wr_id=wr_id, num_sge=1, sg=[sge]))

    @staticmethod
    def send(qp, mr, length, opcode=e.IBV_WR_SEND, wr_id=0, offset=0,
             flags=e.IBV_SEND_SIGNALED, imm=0, rkey=None, raddr=None,
             lkey=None):
        sge = SGE(mr.buf + offset, length, mr.lkey if lkey is None else lkey)
        wr = SendWR(wr_id=wr_id, opcode=opcode, num_sge=1, sg=[sge],
                    send_flags=flags, imm_data=imm)
        if rkey is not None:
            wr.set_wr_rdma(rkey, raddr)
        qp.post_send(wr)

    def rc_pair(self, qp_type=e.IBV_QPT_RC, cap=None, a_over=None,
                b_over=None, **kw):
        """Two connected QPs (RTS) of QP_TYPE on this device."""
        a = End(self, qp_type, cap=cap, **kw)
        b = End(self, qp_type, cap=cap, **kw)
        bring_up(self, a, b.qpn, **(a_over or {}))
        bring_up(self, b, a.qpn, **(b_over or {}))
        return a, b

    def ud_pair(self, cap=None, **kw):
        a = End(self, e.IBV_QPT_UD, cap=cap, **kw)
        b = End(self, e.IBV_QPT_UD, cap=cap, **kw)
        for end in (a, b):
            bring_up(self, end, 0)
        return a, b

    def ah(self, pd, sgid_index=None, is_global=1, port=PORT, dgid=None):
        gr = GlobalRoute(dgid=dgid or self.gid,
                         sgid_index=self.gid_index if sgid_index is None
                         else sgid_index)
        return AH(pd, attr=AHAttr(gr=gr, is_global=is_global, port_num=port))

    def require(self, cond, reason):
        if not cond:
            raise unittest.SkipTest(reason)

    def has_atomics(self):
        return self.attr.atomic_caps != e.IBV_ATOMIC_NONE


def pattern(length, seed=0):
    """LENGTH bytes that differ from a shifted copy of themselves."""
    return bytes((i * 7 + seed + (i >> 8)) & 0xff for i in range(length))


__all__ = [n for n in dir() if not n.startswith('_')]
