# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""XRC: XRC domains (shared through a file), XRC SRQs and their numbers,
XRC_SEND QPs (ibv_create_qp, and ibv_create_qp_ex with the wr_* API),
XRC_RECV QPs (created in a domain, and opened with ibv_open_qp from a
second context on the same file).

Traffic of two XRC_SEND/XRC_RECV pairs of one device, each work request
naming the XRC SRQ it is for: SEND, SEND with immediate, RDMA WRITE (with
immediate), READ and fetch-and-add, data checked; receives complete on
the XRC SRQ's CQ with the XRC_RECV QP's number.  A request naming an XRC
SRQ that does not exist (or no longer), one of another domain, or a basic
SRQ fails with a remote error, moves the XRC_RECV QP to the error state
and consumes no receive.  Create, post and close errors.

pyverbs has no ibv_open_qp and cannot hand out its C pointers: the second
context is driven through ctypes (RawContext), on the libibverbs that
pyverbs loaded, calling the provider's operations as verbs.h's inline
wrappers do.
"""

import ctypes
import errno
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import unittest

import pyverbs.device  # noqa: F401  (libibverbs loaded before ctypes)
import pyverbs.enums as e
from pyverbs.cq import CQ
from pyverbs.mr import MR
from pyverbs.pyverbs_error import PyverbsRDMAError
from pyverbs.qp import QP, QPCap, QPEx, QPInitAttr, QPInitAttrEx
from pyverbs.srq import SRQ, SrqAttr, SrqInitAttr, SrqInitAttrEx
from pyverbs.wr import SGE, RecvWR, SendWR
from pyverbs.xrcd import XRCD, XRCDInitAttr

from common import (ALL_REMOTE, CONFIG, STATE_NAMES, VerbsTest, pattern,
                    qp_attr_for, status_name)

XRC_SEND, XRC_RECV = e.IBV_QPT_XRC_SEND, e.IBV_QPT_XRC_RECV
SRQ_XRC_MASK = (e.IBV_SRQ_INIT_ATTR_TYPE | e.IBV_SRQ_INIT_ATTR_PD |
                e.IBV_SRQ_INIT_ATTR_XRCD | e.IBV_SRQ_INIT_ATTR_CQ)
XRCD_MASK = e.IBV_XRCD_INIT_ATTR_FD | e.IBV_XRCD_INIT_ATTR_OFLAGS
# enum ibv_qp_open_attr_mask, which pyverbs does not export.
QP_OPEN_ATTR_NUM, QP_OPEN_ATTR_XRCD, QP_OPEN_ATTR_TYPE = 1 << 0, 1 << 1, 1 << 3
# The remote errors an XRC request naming an unusable SRQ may get.
XRC_REMOTE_ERRORS = (e.IBV_WC_REM_INV_REQ_ERR, e.IBV_WC_REM_ACCESS_ERR)

# Required attributes of each transition (ib_modify_qp_is_ok).
XRC_REQUIRED = {
    XRC_SEND: {
        'INIT': e.IBV_QP_PKEY_INDEX | e.IBV_QP_PORT | e.IBV_QP_ACCESS_FLAGS,
        'RTR': (e.IBV_QP_AV | e.IBV_QP_PATH_MTU | e.IBV_QP_DEST_QPN |
                e.IBV_QP_RQ_PSN),
        'RTS': (e.IBV_QP_TIMEOUT | e.IBV_QP_RETRY_CNT | e.IBV_QP_RNR_RETRY |
                e.IBV_QP_SQ_PSN | e.IBV_QP_MAX_QP_RD_ATOMIC),
    },
    XRC_RECV: {
        'INIT': e.IBV_QP_PKEY_INDEX | e.IBV_QP_PORT | e.IBV_QP_ACCESS_FLAGS,
        'RTR': (e.IBV_QP_AV | e.IBV_QP_PATH_MTU | e.IBV_QP_DEST_QPN |
                e.IBV_QP_RQ_PSN | e.IBV_QP_MAX_DEST_RD_ATOMIC |
                e.IBV_QP_MIN_RNR_TIMER),
        'RTS': e.IBV_QP_TIMEOUT | e.IBV_QP_SQ_PSN,
    },
}


# --- a second context through ctypes ----------------------------------------
def _libibverbs():
    """The libibverbs mapped in this process (pyverbs'), not a second copy."""
    with open('/proc/self/maps') as maps:
        for line in maps:
            path = line.split()[-1]
            if os.path.basename(path).startswith('libibverbs.so'):
                return ctypes.CDLL(path, use_errno=True)
    return ctypes.CDLL('libibverbs.so.1', use_errno=True)


class _XrcdInitAttr(ctypes.Structure):
    _fields_ = [('comp_mask', ctypes.c_uint32), ('fd', ctypes.c_int),
                ('oflags', ctypes.c_int)]


class _QpOpenAttr(ctypes.Structure):
    _fields_ = [('comp_mask', ctypes.c_uint32), ('qp_num', ctypes.c_uint32),
                ('xrcd', ctypes.c_void_p), ('qp_context', ctypes.c_void_p),
                ('qp_type', ctypes.c_int)]


class _Qp(ctypes.Structure):
    """The leading members of struct ibv_qp."""
    _fields_ = [('context', ctypes.c_void_p), ('qp_context', ctypes.c_void_p),
                ('pd', ctypes.c_void_p), ('send_cq', ctypes.c_void_p),
                ('recv_cq', ctypes.c_void_p), ('srq', ctypes.c_void_p),
                ('handle', ctypes.c_uint32), ('qp_num', ctypes.c_uint32),
                ('state', ctypes.c_int), ('qp_type', ctypes.c_int)]


class _SrqAttr(ctypes.Structure):
    _fields_ = [('max_wr', ctypes.c_uint32), ('max_sge', ctypes.c_uint32),
                ('srq_limit', ctypes.c_uint32)]


class _SrqInitAttrEx(ctypes.Structure):
    _fields_ = [('srq_context', ctypes.c_void_p), ('attr', _SrqAttr),
                ('comp_mask', ctypes.c_uint32), ('srq_type', ctypes.c_int),
                ('pd', ctypes.c_void_p), ('xrcd', ctypes.c_void_p),
                ('cq', ctypes.c_void_p), ('max_num_tags', ctypes.c_uint32),
                ('max_ops', ctypes.c_uint32)]


# struct verbs_context's operations sit at fixed distances before its
# struct ibv_context (the ABI grows it downwards), and ibv_post_send and
# ibv_post_recv call ibv_context.ops (x86_64 offsets, rdma-core 44 to 56.1).
_VCTX_OP = {'open_qp': 64, 'create_srq_ex': 40, 'open_xrcd': 32,
            'close_xrcd': 24}
_VCTX_SZ = 8
_CTX_SIZE = 328
_CTX_ABI_COMPAT = 320
_CTX_POST_SEND, _CTX_POST_RECV = 208, 216

_OPEN_XRCD = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p,
                              ctypes.POINTER(_XrcdInitAttr), use_errno=True)
_CLOSE_XRCD = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p)
_OPEN_QP = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p,
                            ctypes.POINTER(_QpOpenAttr), use_errno=True)
_CREATE_SRQ_EX = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p,
                                  ctypes.POINTER(_SrqInitAttrEx),
                                  use_errno=True)
_POST = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p,
                         ctypes.POINTER(ctypes.c_void_p))


class RawContext:
    """A context of the device through libibverbs' C API; verbs.h's inline
    verbs (ibv_open_xrcd, ibv_open_qp, ...) are called as verbs.h does.
    Errors raise PyverbsRDMAError, as pyverbs' do; close() destroys what
    is left, newest first."""

    def __init__(self, name):
        if ctypes.sizeof(ctypes.c_void_p) != 8 or sys.byteorder != 'little':
            raise unittest.SkipTest('RawContext knows x86_64 layouts only')
        vp, lib = ctypes.c_void_p, _libibverbs()
        self.lib = lib
        lib.ibv_get_device_list.restype = ctypes.POINTER(vp)
        lib.ibv_get_device_list.argtypes = [ctypes.POINTER(ctypes.c_int)]
        lib.ibv_get_device_name.restype = ctypes.c_char_p
        lib.ibv_get_device_name.argtypes = [vp]
        lib.ibv_free_device_list.argtypes = [ctypes.POINTER(vp)]
        lib.ibv_open_device.restype = vp
        lib.ibv_open_device.argtypes = [vp]
        lib.ibv_close_device.argtypes = [vp]
        lib.ibv_alloc_pd.restype = vp
        lib.ibv_alloc_pd.argtypes = [vp]
        lib.ibv_dealloc_pd.argtypes = [vp]
        lib.ibv_create_cq.restype = vp
        lib.ibv_create_cq.argtypes = [vp, ctypes.c_int, vp, vp, ctypes.c_int]
        lib.ibv_destroy_cq.argtypes = [vp]
        lib.ibv_destroy_srq.argtypes = [vp]
        lib.ibv_destroy_qp.argtypes = [vp]
        lib.ibv_query_qp.argtypes = [vp, vp, ctypes.c_int, vp]
        self.objects = []
        self.ctx = None
        n = ctypes.c_int()
        devs = lib.ibv_get_device_list(ctypes.byref(n))
        if not devs:
            raise PyverbsRDMAError('ibv_get_device_list failed',
                                   ctypes.get_errno())
        try:
            for i in range(n.value):
                if lib.ibv_get_device_name(devs[i]).decode() == name:
                    self.ctx = lib.ibv_open_device(devs[i])
        finally:
            lib.ibv_free_device_list(devs)
        if not self.ctx:
            raise PyverbsRDMAError(f'ibv_open_device({name}) failed',
                                   ctypes.get_errno())
        abi = ctypes.c_void_p.from_address(self.ctx + _CTX_ABI_COMPAT).value
        if abi != (1 << 64) - 1:
            self.close()
            raise unittest.SkipTest('not an extended verbs context')

    def _op(self, name, proto):
        """verbs_get_ctx_op(): the operation, if the library has it."""
        sz = ctypes.c_size_t.from_address(self.ctx - _VCTX_SZ).value
        fn = ctypes.c_void_p.from_address(self.ctx - _VCTX_OP[name]).value
        if sz < _VCTX_OP[name] + _CTX_SIZE or not fn:
            raise PyverbsRDMAError(f'no {name}', errno.EOPNOTSUPP)
        return proto(fn)

    @staticmethod
    def _ptr(p, what):
        if not p:
            raise PyverbsRDMAError(f'{what} failed', ctypes.get_errno())
        return p

    def _add(self, destroy, obj):
        self.objects.append((destroy, obj))
        return obj

    def _destroy(self, destroy, obj, what):
        rc = destroy(obj)
        if rc:
            raise PyverbsRDMAError(f'{what} failed', rc)
        self.objects.remove((destroy, obj))

    def open_xrcd(self, fd, oflags=0):
        attr = _XrcdInitAttr(XRCD_MASK, fd, oflags)
        xrcd = self._op('open_xrcd', _OPEN_XRCD)(self.ctx, ctypes.byref(attr))
        return self._add(self._close_xrcd,
                         self._ptr(xrcd, 'ibv_open_xrcd'))

    def _close_xrcd(self, xrcd):
        return self._op('close_xrcd', _CLOSE_XRCD)(xrcd)

    def close_xrcd(self, xrcd):
        self._destroy(self._close_xrcd, xrcd, 'ibv_close_xrcd')

    def open_qp(self, xrcd, qp_num, qp_type=XRC_RECV):
        attr = _QpOpenAttr(QP_OPEN_ATTR_XRCD | QP_OPEN_ATTR_NUM |
                           QP_OPEN_ATTR_TYPE, qp_num, xrcd, None, qp_type)
        qp = self._op('open_qp', _OPEN_QP)(self.ctx, ctypes.byref(attr))
        return self._add(self.lib.ibv_destroy_qp,
                         self._ptr(qp, 'ibv_open_qp'))

    def destroy_qp(self, qp):
        self._destroy(self.lib.ibv_destroy_qp, qp, 'ibv_destroy_qp')

    @staticmethod
    def qp(qp):
        return _Qp.from_address(qp)

    def qp_state(self, qp):
        attr = ctypes.create_string_buffer(512)
        init = ctypes.create_string_buffer(512)
        rc = self.lib.ibv_query_qp(qp, attr, e.IBV_QP_STATE, init)
        if rc:
            raise PyverbsRDMAError('ibv_query_qp failed', rc)
        # qp_state is the first member of struct ibv_qp_attr.
        return ctypes.c_int.from_buffer(attr).value

    def post(self, qp, offset):
        """ibv_post_send (offset _CTX_POST_SEND) or ibv_post_recv of one
        zeroed work request: (return value, whether bad_wr names it)."""
        fn = _POST(ctypes.c_void_p.from_address(self.ctx + offset).value)
        wr = ctypes.create_string_buffer(256)
        bad = ctypes.c_void_p()
        rc = fn(qp, ctypes.addressof(wr), ctypes.byref(bad))
        return rc, bad.value == ctypes.addressof(wr)

    def alloc_pd(self):
        return self._add(self.lib.ibv_dealloc_pd,
                         self._ptr(self.lib.ibv_alloc_pd(self.ctx),
                                   'ibv_alloc_pd'))

    def create_cq(self, cqe=16):
        cq = self.lib.ibv_create_cq(self.ctx, cqe, None, None, 0)
        return self._add(self.lib.ibv_destroy_cq,
                         self._ptr(cq, 'ibv_create_cq'))

    def create_xrc_srq(self, pd, xrcd, cq):
        attr = _SrqInitAttrEx()
        attr.attr.max_wr = 16
        attr.attr.max_sge = 1
        attr.comp_mask = SRQ_XRC_MASK
        attr.srq_type = e.IBV_SRQT_XRC
        attr.pd, attr.xrcd, attr.cq = pd, xrcd, cq
        srq = self._op('create_srq_ex', _CREATE_SRQ_EX)(self.ctx,
                                                        ctypes.byref(attr))
        return self._add(self.lib.ibv_destroy_srq,
                         self._ptr(srq, 'ibv_create_srq_ex'))

    def destroy_srq(self, srq):
        self._destroy(self.lib.ibv_destroy_srq, srq, 'ibv_destroy_srq')

    def close(self):
        for destroy, obj in reversed(self.objects):
            destroy(obj)
        self.objects = []
        if self.ctx:
            self.lib.ibv_close_device(self.ctx)
            self.ctx = None


# --- the tests ---------------------------------------------------------------
class XRCTest(VerbsTest):
    def setUp(self):
        super().setUp()
        if not self.attr.device_cap_flags & e.IBV_DEVICE_XRC:
            self.ctx.close()
            raise unittest.SkipTest('the device does not report '
                                    'IBV_DEVICE_XRC')
        # The file that names the XRC domain of a test.
        tmp = tempfile.NamedTemporaryFile(prefix='wookie-xrcd-')
        self.addCleanup(tmp.close)
        self.xrcd_fd = os.open(tmp.name, os.O_RDONLY)
        self.addCleanup(os.close, self.xrcd_fd)

    # --- objects -------------------------------------------------------------
    def xrcd(self, fd=None, oflags=os.O_CREAT):
        """The domain of the test's file, or with FD -1 a domain of its
        own."""
        return XRCD(self.ctx, XRCDInitAttr(
            XRCD_MASK, oflags, self.xrcd_fd if fd is None else fd))

    def xrc_srq_attr(self, xrcd, cq, max_wr=64):
        attr = SrqInitAttrEx(max_wr=max_wr, max_sge=1)
        attr.srq_type = e.IBV_SRQT_XRC
        attr.pd = self.pd
        if xrcd is not None:
            attr.xrcd = xrcd
        if cq is not None:
            attr.cq = cq
        attr.comp_mask = SRQ_XRC_MASK
        return attr

    def xrc_srq(self, xrcd, cq, max_wr=64):
        return SRQ(self.ctx, self.xrc_srq_attr(xrcd, cq, max_wr))

    def recv_qp(self, xrcd):
        return QP(self.ctx, QPInitAttrEx(qp_type=XRC_RECV, xrcd=xrcd,
                                         comp_mask=e.IBV_QP_INIT_ATTR_XRCD))

    @staticmethod
    def send_cap():
        return QPCap(max_send_wr=64, max_recv_wr=0, max_send_sge=1,
                     max_recv_sge=0)

    def send_qp(self, cq, send_ops=0):
        """Through ibv_create_qp, or with SEND_OPS through
        ibv_create_qp_ex as an extended QP."""
        if send_ops:
            return QPEx(self.ctx, QPInitAttrEx(
                qp_type=XRC_SEND, pd=self.pd, scq=cq, cap=self.send_cap(),
                send_ops_flags=send_ops,
                comp_mask=(e.IBV_QP_INIT_ATTR_PD |
                           e.IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)))
        # No receive CQ, no SRQ.
        return QP(self.pd, QPInitAttr(qp_type=XRC_SEND, scq=cq,
                                      cap=self.send_cap(), sq_sig_all=0))

    def bring_up(self, qp, qp_type, remote_qpn):
        for s in ('INIT', 'RTR', 'RTS'):
            attr = qp_attr_for(self, qp_type, getattr(e, 'IBV_QPS_' + s),
                               remote_qpn)
            qp.modify(attr, e.IBV_QP_STATE | XRC_REQUIRED[qp_type][s])

    def pair(self, xrcd, scq, send_ops=0):
        """An XRC_SEND QP and an XRC_RECV QP of XRCD, connected, RTS."""
        recv = self.recv_qp(xrcd)
        send = self.send_qp(scq, send_ops)
        self.bring_up(recv, XRC_RECV, send.qp_num)
        self.bring_up(send, XRC_SEND, recv.qp_num)
        return send, recv

    # --- work requests -------------------------------------------------------
    @staticmethod
    def post(qp, srqn, mr, length, opcode=e.IBV_WR_SEND, wr_id=0, offset=0,
             imm=0, rkey=None, raddr=None, add=None):
        sge = SGE(mr.buf + offset, length, mr.lkey)
        wr = SendWR(wr_id=wr_id, opcode=opcode, num_sge=1, sg=[sge],
                    send_flags=e.IBV_SEND_SIGNALED, imm_data=imm)
        wr.set_qp_type_xrc(srqn)
        if add is not None:
            wr.set_wr_atomic(rkey, raddr, add, 0)
        elif rkey is not None:
            wr.set_wr_rdma(rkey, raddr)
        qp.post_send(wr)

    @staticmethod
    def srq_recv(srq, mr, wr_ids, size=256):
        for i in wr_ids:
            srq.post_recv(RecvWR(wr_id=i, num_sge=1,
                                 sg=[SGE(mr.buf + i * size, size, mr.lkey)]))

    def wait_state(self, qp, state):
        deadline = time.monotonic() + CONFIG['timeout']
        while True:
            got = self.qp_state(qp)
            if got == state:
                return
            if time.monotonic() > deadline:
                self.fail(f'QP {qp.qp_num:#x} in '
                          f'{STATE_NAMES.get(got, got)}, expected '
                          f'{STATE_NAMES.get(state, state)}')
            time.sleep(0.01)

    def check_recv(self, wc, wr_id, recv, opcode=e.IBV_WC_RECV, length=None):
        self.assertEqual(wc.status, e.IBV_WC_SUCCESS, status_name(wc.status))
        self.assertEqual((wc.wr_id, wc.opcode), (wr_id, opcode))
        # The XRC_RECV QP the request came through, not the sender.
        self.assertEqual(wc.qp_num, recv.qp_num,
                         f'qp_num {wc.qp_num:#x}, XRC_RECV QP '
                         f'{recv.qp_num:#x}')
        if length is not None:
            self.assertEqual(wc.byte_len, length)

    # --- traffic -------------------------------------------------------------
    def test_send_two_pairs(self):
        """Two pairs, two XRC SRQs of one domain; each pair sends into the
        other pair's SRQ: the WQE, not the QP, picks the SRQ."""
        xrcd = self.xrcd()
        scq = CQ(self.ctx, 256, None, None, 0)
        rcq = [CQ(self.ctx, 256, None, None, 0) for _ in range(2)]
        srq = [self.xrc_srq(xrcd, rcq[i]) for i in range(2)]
        srqn = [s.get_srq_num() for s in srq]
        self.assertNotEqual(srqn[0], srqn[1])
        for n in srqn:
            self.assertTrue(0 < n < 1 << 24, f'SRQ number {n:#x}')
        pairs = [self.pair(xrcd, scq) for _ in range(2)]
        src = MR(self.pd, 4096, ALL_REMOTE)
        dst = [MR(self.pd, 64 * 256, e.IBV_ACCESS_LOCAL_WRITE)
               for _ in range(2)]
        for i in range(2):
            self.srq_recv(srq[i], dst[i], range(4))
        for i, (send, recv) in enumerate(pairs):
            t = 1 - i
            src.write(pattern(200, i), 200)
            self.post(send, srqn[t], src, 200, wr_id=10 + i)
            self.assertEqual(self.poll_ok(scq)[0].wr_id, 10 + i)
            self.check_recv(self.poll(rcq[t])[0], 0, recv, length=200)
            self.assertEqual(dst[t].read(200, 0), pattern(200, i))
            src.write(pattern(100, 10 + i), 100)
            self.post(send, srqn[t], src, 100, e.IBV_WR_SEND_WITH_IMM,
                      wr_id=20 + i, imm=0x1000 + i)
            self.poll_ok(scq)
            wc = self.poll(rcq[t])[0]
            self.check_recv(wc, 1, recv, length=100)
            self.assertTrue(wc.wc_flags & e.IBV_WC_WITH_IMM)
            self.assertEqual(wc.imm_data, 0x1000 + i)
            self.assertEqual(dst[t].read(100, 256), pattern(100, 10 + i))
        # Nothing went to the SRQ a pair's own XRC_RECV QP did not name.
        for cq in rcq:
            self.assertEmpty(cq)

    def test_rdma_write_read(self):
        xrcd = self.xrcd()
        scq = CQ(self.ctx, 64, None, None, 0)
        rcq = CQ(self.ctx, 64, None, None, 0)
        srq = self.xrc_srq(xrcd, rcq)
        srqn = srq.get_srq_num()
        send, recv = self.pair(xrcd, scq)
        src = MR(self.pd, 4096, ALL_REMOTE)
        target = MR(self.pd, 4096, ALL_REMOTE)
        # A plain WRITE consumes no receive; WRITE with immediate does.
        self.srq_recv(srq, target, [7], size=64)
        src.write(pattern(300, 3), 300)
        self.post(send, srqn, src, 300, e.IBV_WR_RDMA_WRITE, wr_id=1,
                  rkey=target.rkey, raddr=target.buf + 100)
        self.poll_ok(scq, opcode=e.IBV_WC_RDMA_WRITE)
        self.assertEqual(target.read(300, 100), pattern(300, 3))
        self.assertEmpty(rcq)
        self.post(send, srqn, src, 50, e.IBV_WR_RDMA_WRITE_WITH_IMM,
                  wr_id=2, imm=0xfeed, rkey=target.rkey,
                  raddr=target.buf + 1000)
        self.poll_ok(scq)
        wc = self.poll(rcq)[0]
        self.check_recv(wc, 7, recv, e.IBV_WC_RECV_RDMA_WITH_IMM, 50)
        self.assertEqual(wc.imm_data, 0xfeed)
        self.assertEqual(target.read(50, 1000), pattern(50, 3))
        target.write(pattern(500, 9), 500, 2000)
        self.post(send, srqn, src, 500, e.IBV_WR_RDMA_READ, wr_id=3,
                  offset=2048, rkey=target.rkey, raddr=target.buf + 2000)
        wc = self.poll_ok(scq, opcode=e.IBV_WC_RDMA_READ)[0]
        self.assertEqual(wc.byte_len, 500)
        self.assertEqual(src.read(500, 2048), pattern(500, 9))

    def test_fetch_add(self):
        self.require(self.has_atomics(), 'the device has no atomics')
        xrcd = self.xrcd()
        scq = CQ(self.ctx, 64, None, None, 0)
        rcq = CQ(self.ctx, 64, None, None, 0)
        srq = self.xrc_srq(xrcd, rcq)
        srqn = srq.get_srq_num()
        send, recv = self.pair(xrcd, scq)
        local = MR(self.pd, 64, ALL_REMOTE)
        target = MR(self.pd, 64, ALL_REMOTE)
        target.write((1000).to_bytes(8, sys.byteorder), 8, 8)
        for i, add in enumerate((5, 37)):
            self.post(send, srqn, local, 8, e.IBV_WR_ATOMIC_FETCH_AND_ADD,
                      wr_id=i, offset=8 * i, rkey=target.rkey,
                      raddr=target.buf + 8, add=add)
            self.poll_ok(scq, opcode=e.IBV_WC_FETCH_ADD)
        self.assertEqual(int.from_bytes(local.read(8, 0), sys.byteorder),
                         1000)
        self.assertEqual(int.from_bytes(local.read(8, 8), sys.byteorder),
                         1005)
        self.assertEqual(int.from_bytes(target.read(8, 8), sys.byteorder),
                         1042)
        self.assertEmpty(rcq)

    def test_qp_ex(self):
        """An XRC_SEND QP through ibv_create_qp_ex: wr_set_xrc_srqn names
        the SRQ of each WQE; a number beyond 24 bits is refused."""
        xrcd = self.xrcd()
        scq = CQ(self.ctx, 64, None, None, 0)
        rcq = CQ(self.ctx, 64, None, None, 0)
        srq = self.xrc_srq(xrcd, rcq)
        srqn = srq.get_srq_num()
        send, recv = self.pair(xrcd, scq, send_ops=(
            e.IBV_QP_EX_WITH_SEND | e.IBV_QP_EX_WITH_SEND_WITH_IMM |
            e.IBV_QP_EX_WITH_RDMA_WRITE | e.IBV_QP_EX_WITH_RDMA_READ))
        src = MR(self.pd, 4096, ALL_REMOTE)
        dst = MR(self.pd, 4096, ALL_REMOTE)
        self.srq_recv(srq, dst, [0, 1])
        src.write(pattern(64, 1), 64)
        send.wr_start()
        send.wr_id = 1
        send.wr_flags = e.IBV_SEND_SIGNALED
        send.wr_send()
        send.wr_set_xrc_srqn(srqn)
        send.wr_set_sge(SGE(src.buf, 64, src.lkey))
        send.wr_id = 2
        send.wr_rdma_write(dst.rkey, dst.buf + 2048)
        send.wr_set_xrc_srqn(srqn)
        send.wr_set_sge(SGE(src.buf, 64, src.lkey))
        send.wr_id = 3
        send.wr_send_imm(0x77)
        send.wr_set_xrc_srqn(srqn)
        send.wr_set_sge(SGE(src.buf, 32, src.lkey))
        send.wr_complete()
        self.assertEqual([wc.wr_id for wc in self.poll_ok(scq, 3)], [1, 2, 3])
        wcs = self.poll(rcq, 2)
        self.check_recv(wcs[0], 0, recv, length=64)
        self.check_recv(wcs[1], 1, recv, length=32)
        # wr_send_imm() takes it in host order, the WC has it as sent.
        self.assertEqual(wcs[1].imm_data, socket.htonl(0x77))
        self.assertEqual(dst.read(64, 0), pattern(64, 1))
        self.assertEqual(dst.read(64, 2048), pattern(64, 1))
        send.wr_start()
        send.wr_send()
        send.wr_set_xrc_srqn(1 << 24)
        send.wr_set_sge(SGE(src.buf, 8, src.lkey))
        self.assertErrno(errno.EINVAL, send.wr_complete)
        self.assertEmpty(scq)

    def test_posts_refused(self):
        """No receive queue on either XRC QP; no send queue on XRC_RECV;
        no SRQ number beyond 24 bits."""
        xrcd = self.xrcd()
        scq = CQ(self.ctx, 64, None, None, 0)
        rcq = CQ(self.ctx, 64, None, None, 0)
        srq = self.xrc_srq(xrcd, rcq)
        srqn = srq.get_srq_num()
        send, recv = self.pair(xrcd, scq)
        mr = MR(self.pd, 4096, ALL_REMOTE)
        for qp in (send, recv):
            self.assertErrno(errno.EINVAL, self.recv, qp, mr, 64)
        self.assertErrno(errno.EINVAL, self.post, recv, srqn, mr, 64)
        self.assertErrno(errno.EINVAL, self.post, send, 1 << 24, mr, 64)
        self.assertEmpty(scq)
        # Still usable.
        self.post(send, srqn, mr, 8, e.IBV_WR_RDMA_WRITE, rkey=mr.rkey,
                  raddr=mr.buf + 1024)
        self.poll_ok(scq)

    # --- requests naming an unusable SRQ -------------------------------------
    def basic_srq_numbers(self, srq_count):
        """The numbers rdma resource gives this process' basic SRQs (a
        basic SRQ has none of its own: ibv_get_srq_num refuses it)."""
        rdma = shutil.which('rdma')
        if not rdma:
            return None
        out = subprocess.run([rdma, '-j', 'resource', 'show', 'srq', 'dev',
                              CONFIG['dev']], capture_output=True,
                             text=True, timeout=30)
        try:
            entries = json.loads(out.stdout) if not out.returncode else None
        except ValueError:
            entries = None
        if not isinstance(entries, list):
            return None
        numbers = []
        for entry in entries:
            if (entry.get('pid') == os.getpid() and
                    entry.get('type') == 'BASIC' and 'srqn' in entry):
                numbers.append(entry['srqn'])
        return numbers if len(numbers) == srq_count else None

    def check_refused(self, xrcd, srqn, rcqs):
        """A SEND naming SRQN from a fresh pair of XRCD fails remotely,
        moves the XRC_RECV QP to ERR and consumes no receive."""
        scq = CQ(self.ctx, 16, None, None, 0)
        send, recv = self.pair(xrcd, scq)
        mr = MR(self.pd, 4096, ALL_REMOTE)
        self.post(send, srqn, mr, 64, wr_id=5)
        wc = self.poll(scq)[0]
        self.assertIn(wc.status, XRC_REMOTE_ERRORS,
                      f'SRQ number {srqn:#x}: {status_name(wc.status)}')
        self.wait_state(recv, e.IBV_QPS_ERR)
        for cq in rcqs:
            self.assertEmpty(cq, wait=0.05)
        send.close()
        recv.close()

    def test_unusable_srq(self):
        xrcd = self.xrcd()
        other = self.xrcd(fd=-1, oflags=0)
        rcq = CQ(self.ctx, 64, None, None, 0)
        other_cq = CQ(self.ctx, 64, None, None, 0)
        mr = MR(self.pd, 64 * 256, e.IBV_ACCESS_LOCAL_WRITE)
        srq = self.xrc_srq(xrcd, rcq)
        other_srq = self.xrc_srq(other, other_cq)
        self.srq_recv(srq, mr, range(4))
        self.srq_recv(other_srq, mr, range(4, 8))
        good = srq.get_srq_num()
        other_srqn = other_srq.get_srq_num()
        gone = self.xrc_srq(xrcd, rcq)
        gone_srqn = gone.get_srq_num()
        gone.close()
        used = {good, other_srqn}
        unused = next(n for n in range(0xabcde, 1 << 24) if n not in used)
        cases = {
            'no such SRQ': unused,
            'SRQ number 0': 0,
            'a destroyed SRQ': gone_srqn,
            'an SRQ of another XRC domain': other_srqn,
        }
        for what, srqn in cases.items():
            with self.subTest(what):
                if srqn == good:
                    self.skipTest(f'{what}: number {srqn:#x} reused')
                self.check_refused(xrcd, srqn, (rcq, other_cq))
        # The SRQs are intact: the domain's own still receives.
        scq = CQ(self.ctx, 16, None, None, 0)
        send, recv = self.pair(xrcd, scq)
        self.post(send, good, mr, 64, wr_id=9)
        self.poll_ok(scq)
        self.check_recv(self.poll(rcq)[0], 0, recv, length=64)

    def test_basic_srq_number(self):
        xrcd = self.xrcd()
        rcq = CQ(self.ctx, 64, None, None, 0)
        mr = MR(self.pd, 64 * 256, e.IBV_ACCESS_LOCAL_WRITE)
        basic = SRQ(self.pd, SrqInitAttr(SrqAttr(16, 1, 0)))
        self.srq_recv(basic, mr, range(4))
        self.assertErrno(errno.EINVAL, basic.get_srq_num)
        numbers = self.basic_srq_numbers(1)
        self.require(numbers is not None,
                     'no `rdma resource show srq` number for the basic SRQ')
        # XRC SRQs are numbered apart from ib_core's ids: one of the
        # domain may take the basic SRQ's; the next one will not.
        srq = self.xrc_srq(xrcd, rcq)
        if srq.get_srq_num() == numbers[0]:
            srq.close()
            srq = self.xrc_srq(xrcd, rcq)
        self.assertNotEqual(srq.get_srq_num(), numbers[0])
        self.srq_recv(srq, mr, range(4, 8))
        self.check_refused(xrcd, numbers[0], (rcq,))

    # --- ibv_open_qp ---------------------------------------------------------
    def raw_context(self):
        raw = RawContext(CONFIG['dev'])
        self.addCleanup(raw.close)
        return raw

    def test_open_qp(self):
        """A second context opens the domain by its file and the XRC_RECV
        QP by its number; the QP lives on while a handle is open."""
        xrcd = self.xrcd()
        scq = CQ(self.ctx, 64, None, None, 0)
        rcq = CQ(self.ctx, 64, None, None, 0)
        srq = self.xrc_srq(xrcd, rcq)
        srqn = srq.get_srq_num()
        send, recv = self.pair(xrcd, scq)
        qpn = recv.qp_num
        raw = self.raw_context()
        xrcd2 = raw.open_xrcd(self.xrcd_fd)
        self.assertErrno(errno.EINVAL, raw.open_qp, xrcd2, send.qp_num)
        opened = raw.open_qp(xrcd2, qpn)
        qp = raw.qp(opened)
        self.assertEqual((qp.qp_num, qp.qp_type, qp.context),
                         (qpn, XRC_RECV, raw.ctx))
        self.assertEqual(raw.qp_state(opened), e.IBV_QPS_RTS)
        for what, offset in (('post_send', _CTX_POST_SEND),
                             ('post_recv', _CTX_POST_RECV)):
            self.assertEqual(raw.post(opened, offset), (errno.EINVAL, True),
                             f'{what} on the opened QP')
        self.assertErrno(errno.EBUSY, raw.close_xrcd, xrcd2)
        # The creator's handle goes; the opened one keeps the QP.
        mr = MR(self.pd, 4096, ALL_REMOTE)
        self.srq_recv(srq, mr, [0, 1], size=1024)
        recv.close()
        self.assertEqual(raw.qp_state(opened), e.IBV_QPS_RTS)
        mr.write(pattern(64, 5), 64, 3072)
        self.post(send, srqn, mr, 64, wr_id=3, offset=3072)
        self.poll_ok(scq)
        wc = self.poll(rcq)[0]
        self.assertEqual((wc.status, wc.qp_num), (e.IBV_WC_SUCCESS, qpn))
        self.assertEqual(mr.read(64, 0), pattern(64, 5))
        raw.destroy_qp(opened)
        raw.close_xrcd(xrcd2)

    def test_open_qp_errors(self):
        xrcd = self.xrcd()
        recv = self.recv_qp(xrcd)
        raw = self.raw_context()
        # A domain without the QP: another file's, or none's.
        with tempfile.NamedTemporaryFile(prefix='wookie-xrcd-') as f:
            fd = os.open(f.name, os.O_RDONLY)
            try:
                other = raw.open_xrcd(fd, os.O_CREAT)
                self.assertErrno(errno.EINVAL, raw.open_qp, other,
                                 recv.qp_num)
                raw.close_xrcd(other)
            finally:
                os.close(fd)
        anon = raw.open_xrcd(-1)
        self.assertErrno(errno.EINVAL, raw.open_qp, anon, recv.qp_num)
        raw.close_xrcd(anon)
        # Without O_CREAT, a file that names no domain yet (ib_core).
        with tempfile.NamedTemporaryFile(prefix='wookie-xrcd-') as f:
            fd = os.open(f.name, os.O_RDONLY)
            try:
                self.assertErrno(errno.EAGAIN, raw.open_xrcd, fd, 0)
            finally:
                os.close(fd)

    # --- create and close errors ---------------------------------------------
    def test_create_errors(self):
        xrcd = self.xrcd()
        cq = CQ(self.ctx, 16, None, None, 0)
        cap = self.send_cap()
        # XRC_SEND: a PD and a send CQ.
        self.assertErrno(errno.EINVAL, QP, self.ctx, QPInitAttrEx(
            qp_type=XRC_SEND, scq=cq, cap=cap, comp_mask=0))
        self.assertErrno(errno.EINVAL, QP, self.pd, QPInitAttr(
            qp_type=XRC_SEND, cap=cap, sq_sig_all=0))
        self.assertErrno(errno.EINVAL, QP, self.ctx, QPInitAttrEx(
            qp_type=XRC_SEND, pd=self.pd, cap=cap,
            comp_mask=e.IBV_QP_INIT_ATTR_PD))
        # XRC_RECV: an XRC domain (a PD and CQs are no substitute).
        self.assertErrno(errno.EINVAL, QP, self.ctx, QPInitAttrEx(
            qp_type=XRC_RECV, comp_mask=0))
        self.assertErrno(errno.EINVAL, QP, self.ctx, QPInitAttrEx(
            qp_type=XRC_RECV, pd=self.pd, scq=cq, rcq=cq,
            cap=QPCap(max_send_wr=4, max_recv_wr=4),
            comp_mask=e.IBV_QP_INIT_ATTR_PD))
        # XRC SRQs: a domain and a CQ; tag matching is not offered.
        attr = self.xrc_srq_attr(None, cq)
        attr.comp_mask &= ~e.IBV_SRQ_INIT_ATTR_XRCD
        self.assertErrno(errno.EINVAL, SRQ, self.ctx, attr)
        attr = self.xrc_srq_attr(xrcd, None)
        attr.comp_mask &= ~e.IBV_SRQ_INIT_ATTR_CQ
        self.assertErrno(errno.EINVAL, SRQ, self.ctx, attr)
        attr = self.xrc_srq_attr(xrcd, cq)
        attr.srq_type = e.IBV_SRQT_TM
        attr.max_num_tags = 16
        attr.comp_mask = (e.IBV_SRQ_INIT_ATTR_TYPE | e.IBV_SRQ_INIT_ATTR_PD |
                          e.IBV_SRQ_INIT_ATTR_CQ | e.IBV_SRQ_INIT_ATTR_TM)
        self.assertErrno(errno.EOPNOTSUPP, SRQ, self.ctx, attr)
        # A basic SRQ through ibv_create_srq_ex works, without a number.
        attr = self.xrc_srq_attr(None, cq)
        attr.srq_type = e.IBV_SRQT_BASIC
        attr.comp_mask = (e.IBV_SRQ_INIT_ATTR_TYPE | e.IBV_SRQ_INIT_ATTR_PD |
                          e.IBV_SRQ_INIT_ATTR_CQ)
        basic = SRQ(self.ctx, attr)
        self.assertErrno(errno.EINVAL, basic.get_srq_num)

    def test_close_xrcd_in_use(self):
        """An XRC domain handle that an XRC SRQ was made through cannot be
        closed (EBUSY) until the SRQ is gone; the handles of other contexts
        on the same file are free to close.  (pyverbs' XRCD.close() would
        destroy the SRQ first: the domain is opened through ctypes.)"""
        xrcd = self.xrcd()
        raw = self.raw_context()
        pd = raw.alloc_pd()
        cq = raw.create_cq()
        xrcd2 = raw.open_xrcd(self.xrcd_fd)
        srq = raw.create_xrc_srq(pd, xrcd2, cq)
        self.assertErrno(errno.EBUSY, raw.close_xrcd, xrcd2)
        xrcd.close()
        self.assertErrno(errno.EBUSY, raw.close_xrcd, xrcd2)
        raw.destroy_srq(srq)
        raw.close_xrcd(xrcd2)
