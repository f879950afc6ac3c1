# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""On-demand paging MRs (IBV_ACCESS_ON_DEMAND): what rdma-core's
test_odp.py does not check.

The capabilities reported, exactly.  Traffic into and out of ODP memory the
process has not touched yet (the device faults it in): RDMA WRITE, READ
(responder and completer side), SEND/RECV over RC and UD, atomics on the
zero page; the odp_faults counter moves.  Memory the process does not map
(or maps read-only) fails the operation as a bad key would, and changes
nothing.  ibv_advise_mr: a synchronous write prefetch leaves nothing to
fault; its errors.  Memory remapped or copied on write under a live ODP MR
is never written through the old page: a memfd remapped (MAP_FIXED) under
traffic from another thread, then its old pages overwritten with a
sentinel that must survive; a forked child whose copy of the pages must
not change while the parent's MR is written.  Implicit ODP MRs (the whole
address space): registration and its errors, traffic across the 2 MiB
pieces the device gives tables, memory dropped and faulted in again,
addresses past user space or wrapping, prefetch, the remap race, and a
dereg while a fault in the MR waits.
"""

import ctypes
import errno
import os
import subprocess
import threading
import time
import unittest

import pyverbs.enums as e
from pyverbs.mr import MR
from pyverbs.qp import QPCap
from pyverbs.wr import SGE, SendWR

from common import (ALL_REMOTE, CONFIG, PORT, VerbsTest, pattern,
                    status_name)

ODP = e.IBV_ACCESS_ON_DEMAND
PAGE = 4096
# An implicit MR's children each map this much of the address space.
CHILD = 2 * 1024 * 1024
MADV_DONTNEED = 4
PROT_READ, PROT_WRITE = 1, 2
MAP_SHARED, MAP_PRIVATE, MAP_FIXED, MAP_ANONYMOUS = 0x01, 0x02, 0x10, 0x20

_libc = ctypes.CDLL(None, use_errno=True)
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                       ctypes.c_int, ctypes.c_int, ctypes.c_long]
_libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
_libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
_libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
_libc.memfd_create.argtypes = [ctypes.c_char_p, ctypes.c_uint]


def _check(ret, what):
    if ret in (None, -1, ctypes.c_void_p(-1).value):
        err = ctypes.get_errno()
        raise OSError(err, f'{what}: {os.strerror(err)}')
    return ret


def mmap(length, prot=PROT_READ | PROT_WRITE, flags=MAP_PRIVATE |
         MAP_ANONYMOUS, fd=-1, offset=0, addr=None):
    return _check(_libc.mmap(addr, length, prot, flags, fd, offset), 'mmap')


def munmap(addr, length):
    _check(_libc.munmap(addr, length), 'munmap')


def peek(addr, length):
    return ctypes.string_at(addr, length)


def poke(addr, data):
    ctypes.memmove(addr, data, len(data))


def counter(name):
    # ib_core keeps a read's values for 10 ms (RDMA_HW_STATS_DEFAULT_LIFESPAN).
    time.sleep(0.05)
    path = (f'/sys/class/infiniband/{CONFIG["dev"]}/ports/{PORT}'
            f'/hw_counters/{name}')
    with open(path) as f:
        return int(f.read())


class SlowDisk:
    """A device-mapper zero device whose pages, mapped shared, are read in
    by I/O that `dmsetup suspend` holds back: a fault that lasts as long
    as the test wants."""
    NAME = 'wookie-odp-slow'
    SECTORS = 32 * 2048

    def __init__(self, test):
        self.test = test
        subprocess.run(['modprobe', 'dm_zero'], check=False)
        subprocess.run(['dmsetup', 'remove', '--noudevsync', self.NAME],
                       stderr=subprocess.DEVNULL, check=False)
        subprocess.run(['dmsetup', 'create', '--noudevsync', self.NAME,
                        '--table', f'0 {self.SECTORS} zero'], check=True)
        test.addCleanup(self.remove)
        name = subprocess.run(['dmsetup', 'info', '-c', '--noheadings',
                               '-o', 'blkdevname', self.NAME], check=True,
                              capture_output=True, text=True).stdout.strip()
        self.fd = os.open(f'/dev/{name}', os.O_RDWR)
        self.maps = []

    def map(self, length, offset):
        addr = mmap(length, flags=MAP_SHARED, fd=self.fd, offset=offset)
        self.maps.append((addr, length))
        return addr

    def suspend(self, seconds, then_fail=False):
        """Hold the device's I/O back for SECONDS (then fail it, with
        THEN_FAIL); the process that resumes it is started now, as the
        faults will hold this process's mmap lock until then."""
        subprocess.run(['dmsetup', 'suspend', '--noudevsync', self.NAME],
                       check=True)
        load = (f'dmsetup load {self.NAME} --table "0 {self.SECTORS} error"'
                ' && ' if then_fail else '')
        return subprocess.Popen(['sh', '-c', f'sleep {seconds}; {load}exec '
                                 f'dmsetup resume --noudevsync {self.NAME}'])

    def remove(self):
        subprocess.run(['dmsetup', 'resume', '--noudevsync', self.NAME],
                       stderr=subprocess.DEVNULL, check=False)
        for addr, length in self.maps:
            munmap(addr, length)
        os.close(self.fd)
        subprocess.run(['dmsetup', 'remove', '--noudevsync', self.NAME],
                       check=True)


class OdpTest(VerbsTest):
    def setUp(self):
        super().setUp()
        self.odp = self.ctx.query_device_ex().odp_caps
        self.require(self.odp.general_caps & e.IBV_ODP_SUPPORT,
                     'the device has no ODP')
        self.maps = []

    def tearDown(self):
        super().tearDown()
        for addr, length in self.maps:
            munmap(addr, length)

    def anon(self, length):
        """LENGTH bytes of anonymous memory nothing has touched."""
        addr = mmap(length)
        self.maps.append((addr, length))
        return addr

    def odp_mr(self, end, addr, length, access=ALL_REMOTE):
        return MR(end.pd, length, access | ODP, address=addr)

    def sge_of(self, mr, length, offset=0):
        return SGE(mr.buf + offset, length, mr.lkey)

    # --- capabilities ---------------------------------------------------
    def test_caps(self):
        c = self.odp
        rc = (e.IBV_ODP_SUPPORT_SEND | e.IBV_ODP_SUPPORT_RECV |
              e.IBV_ODP_SUPPORT_WRITE | e.IBV_ODP_SUPPORT_READ |
              e.IBV_ODP_SUPPORT_ATOMIC | e.IBV_ODP_SUPPORT_SRQ_RECV)
        self.assertEqual(c.general_caps,
                         e.IBV_ODP_SUPPORT | e.IBV_ODP_SUPPORT_IMPLICIT)
        self.assertEqual(c.rc_odp_caps, rc)
        self.assertEqual(c.uc_odp_caps,
                         e.IBV_ODP_SUPPORT_SEND | e.IBV_ODP_SUPPORT_RECV |
                         e.IBV_ODP_SUPPORT_WRITE |
                         e.IBV_ODP_SUPPORT_SRQ_RECV)
        self.assertEqual(c.ud_odp_caps,
                         e.IBV_ODP_SUPPORT_SEND | e.IBV_ODP_SUPPORT_RECV |
                         e.IBV_ODP_SUPPORT_SRQ_RECV)
        self.assertEqual(c.xrc_odp_caps, rc & ~e.IBV_ODP_SUPPORT_RECV)

    def test_implicit_registration(self):
        # The whole address space as one MR (uverbs_probe checks the
        # length reported and that only iova 0 is taken).
        mr = MR(self.pd, 0, ALL_REMOTE | ODP, implicit=True)
        # Its pages are PAGE_SIZE whatever backs them, as explicit ODP's.
        MR(self.pd, 0, ALL_REMOTE | ODP | e.IBV_ACCESS_HUGETLB,
           implicit=True).close()
        # Without ON_DEMAND it would pin the whole address space.
        self.assertErrno(errno.EINVAL, MR, self.pd, 0, ALL_REMOTE,
                         implicit=True)
        # A new PD keeps the paging; the translation or the access, not.
        pd2 = type(self.pd)(self.ctx)
        mr.rereg(e.IBV_REREG_MR_CHANGE_PD, pd2, 0, 0, 0)
        self.assertErrno((errno.EOPNOTSUPP, errno.EINVAL), mr.rereg,
                         e.IBV_REREG_MR_CHANGE_ACCESS, None, 0, 0,
                         e.IBV_ACCESS_LOCAL_WRITE | ODP)

    # --- traffic through faults -----------------------------------------
    def test_rc_traffic_faults_in(self):
        # Sizes past one local packet (64 KiB), and odd ones.
        for size in (1, 4097, 200 * 1024):
            with self.subTest(size=size):
                self.rc_traffic(size)

    def rc_traffic(self, size):
        a, b = self.rc_pair()
        data = pattern(size, seed=size & 0xff)
        src = self.anon(size)
        poke(src, data)
        src_mr = self.odp_mr(a, src, size)
        dst = self.anon(size)
        dst_mr = self.odp_mr(b, dst, size)
        back = self.anon(size)
        back_mr = self.odp_mr(a, back, size)
        faults = counter('odp_faults')

        # WRITE: gather from ODP (requester), place into ODP (responder).
        self.send(a.qp, src_mr, size, e.IBV_WR_RDMA_WRITE, wr_id=1,
                  rkey=dst_mr.rkey, raddr=dst_mr.buf)
        self.poll_ok(a.cq)
        self.assertEqual(peek(dst, size), data)
        # READ: the responder reads ODP, the completer places into ODP.
        self.send(a.qp, back_mr, size, e.IBV_WR_RDMA_READ, wr_id=2,
                  rkey=dst_mr.rkey, raddr=dst_mr.buf)
        self.poll_ok(a.cq)
        self.assertEqual(peek(back, size), data)
        # SEND into an ODP receive buffer not touched yet.
        rbuf = self.anon(size)
        rmr = self.odp_mr(b, rbuf, size)
        self.recv(b.qp, rmr)
        self.send(a.qp, src_mr, size, wr_id=3)
        self.poll_ok(a.cq)
        wc = self.poll_ok(b.cq)[0]
        self.assertEqual(wc.byte_len, size)
        self.assertEqual(peek(rbuf, size), data)
        self.assertGreater(counter('odp_faults'), faults)

    def test_atomics_on_zero_page(self):
        self.require(self.has_atomics(), 'no atomics')
        a, b = self.rc_pair()
        # Read through the zero page first: read-only until a write faults.
        target = self.anon(PAGE)
        self.assertEqual(peek(target, 8), bytes(8))
        tmr = self.odp_mr(b, target, PAGE)
        res = self.anon(PAGE)
        rmr = self.odp_mr(a, res, PAGE)
        for i, (op, add) in enumerate(((e.IBV_WR_ATOMIC_FETCH_AND_ADD, 5),
                                       (e.IBV_WR_ATOMIC_FETCH_AND_ADD, 7))):
            wr = self.atomic_wr(rmr, op, tmr, add, i)
            a.qp.post_send(wr)
            self.poll_ok(a.cq)
        self.assertEqual(int.from_bytes(peek(target, 8), 'little'), 12)
        self.assertEqual(int.from_bytes(peek(res, 8), 'little'), 5)
        # The zero page itself is still zero.
        other = self.anon(PAGE)
        self.assertEqual(peek(other, 8), bytes(8))

    @staticmethod
    def atomic_wr(local_mr, opcode, remote_mr, add, wr_id):
        wr = SendWR(wr_id=wr_id, opcode=opcode, num_sge=1,
                    sg=[SGE(local_mr.buf, 8, local_mr.lkey)],
                    send_flags=e.IBV_SEND_SIGNALED)
        wr.set_wr_atomic(rkey=remote_mr.rkey, addr=remote_mr.buf,
                         compare_add=add, swap=0)
        return wr

    def test_ud_traffic(self):
        a, b = self.ud_pair()
        size = 512
        src = self.anon(PAGE)
        data = pattern(size, seed=3)
        poke(src, data)
        smr = self.odp_mr(a, src, PAGE, e.IBV_ACCESS_LOCAL_WRITE)
        rbuf = self.anon(PAGE)
        rmr = self.odp_mr(b, rbuf, PAGE, e.IBV_ACCESS_LOCAL_WRITE)
        self.recv(b.qp, rmr, length=40 + size)
        self.ud_send(a, b, self.sge_of(smr, size))
        self.assertEqual(peek(rbuf + 40, size), data)

    def ud_send(self, a, b, sge):
        """SGE sent from A's UD QP to B's, both completions polled."""
        wr = SendWR(opcode=e.IBV_WR_SEND, num_sge=1, sg=[sge],
                    send_flags=e.IBV_SEND_SIGNALED)
        wr.set_wr_ud(self.ah(a.pd), b.qpn, 0x11111111)
        a.qp.post_send(wr)
        self.poll_ok(a.cq)
        self.poll_ok(b.cq)

    # --- memory the process does not (writably) map ---------------------
    def unmapped(self, length):
        addr = mmap(length)
        munmap(addr, length)
        return addr

    def test_unmapped_write_fails(self):
        a, b = self.rc_pair()
        src_mr = a.mr(PAGE)
        dst_mr = self.odp_mr(b, self.unmapped(PAGE), PAGE)
        self.send(a.qp, src_mr, 64, e.IBV_WR_RDMA_WRITE,
                  rkey=dst_mr.rkey, raddr=dst_mr.buf)
        self.poll_status(a.cq, e.IBV_WC_REM_ACCESS_ERR)

    def test_unmapped_recv_fails(self):
        a, b = self.rc_pair()
        src_mr = a.mr(PAGE)
        rmr = self.odp_mr(b, self.unmapped(PAGE), PAGE)
        self.recv(b.qp, rmr)
        self.send(a.qp, src_mr, 64)
        self.poll_status(b.cq, e.IBV_WC_LOC_PROT_ERR)
        wc = self.poll(a.cq)[0]
        self.assertNotEqual(wc.status, e.IBV_WC_SUCCESS)

    def test_unmapped_gather_fails(self):
        a, b = self.rc_pair()
        smr = self.odp_mr(a, self.unmapped(PAGE), PAGE)
        dst_mr = b.mr(PAGE)
        self.send(a.qp, smr, 64, e.IBV_WR_RDMA_WRITE,
                  rkey=dst_mr.rkey, raddr=dst_mr.buf)
        self.poll_status(a.cq, e.IBV_WC_LOC_PROT_ERR)

    def test_read_only_mapping_not_written(self):
        a, b = self.rc_pair()
        dst = self.anon(PAGE)
        before = pattern(PAGE, seed=9)
        poke(dst, before)
        dst_mr = self.odp_mr(b, dst, PAGE)
        src_mr = a.mr(PAGE)
        # Faulted in for write once, then the mapping becomes read-only.
        self.send(a.qp, src_mr, 8, e.IBV_WR_RDMA_WRITE, wr_id=1,
                  rkey=dst_mr.rkey, raddr=dst_mr.buf + 8)
        self.poll_ok(a.cq)
        before = peek(dst, PAGE)
        _check(_libc.mprotect(dst, PAGE, PROT_READ), 'mprotect')
        self.send(a.qp, src_mr, 64, e.IBV_WR_RDMA_WRITE, wr_id=2,
                  rkey=dst_mr.rkey, raddr=dst_mr.buf)
        self.poll_status(a.cq, e.IBV_WC_REM_ACCESS_ERR)
        self.assertEqual(peek(dst, PAGE), before)

    # --- ibv_advise_mr --------------------------------------------------
    def test_prefetch_write_avoids_faults(self):
        a, b = self.rc_pair()
        size = 16 * PAGE
        dst = self.anon(size)
        dst_mr = self.odp_mr(b, dst, size)
        b.pd.advise_mr(e._IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE,
                       e._IBV_ADVISE_MR_FLAG_FLUSH,
                       [self.sge_of(dst_mr, size)])
        faults = counter('odp_faults')
        src_mr = a.mr(size)
        self.send(a.qp, src_mr, size, e.IBV_WR_RDMA_WRITE,
                  rkey=dst_mr.rkey, raddr=dst_mr.buf)
        self.poll_ok(a.cq)
        self.assertEqual(counter('odp_faults'), faults)

    def test_prefetch_async_and_no_fault(self):
        size = 8 * PAGE
        buf = self.anon(size)
        mr = MR(self.pd, size, e.IBV_ACCESS_LOCAL_WRITE | ODP, address=buf)
        before = counter('odp_prefetches')
        for advice in (e._IBV_ADVISE_MR_ADVICE_PREFETCH,
                       e._IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE,
                       e._IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT):
            self.pd.advise_mr(advice, 0, [self.sge_of(mr, size)])
        deadline = time.monotonic() + CONFIG['timeout']
        while counter('odp_prefetches') < before + 3:
            self.assertLess(time.monotonic(), deadline, 'prefetches')
            time.sleep(0.05)

    def test_prefetch_large_runs_in_call(self):
        # An advice naming more than 64 MiB is not queued: the caller's
        # time, not a kworker's, faults it in, so the counter has moved
        # when the call returns (queued, 80 MiB would take far longer).
        size = 80 * 1024 * 1024
        buf = self.anon(size)
        mr = MR(self.pd, size, e.IBV_ACCESS_LOCAL_WRITE | ODP, address=buf)
        before = counter('odp_prefetches')
        self.pd.advise_mr(e._IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE, 0,
                          [self.sge_of(mr, size)])
        self.assertEqual(counter('odp_prefetches'), before + 1)

    def test_prefetch_errors(self):
        pd2 = type(self.pd)(self.ctx)
        buf = self.anon(PAGE)
        ro = MR(self.pd, PAGE, ODP, address=buf)
        pinned = MR(self.pd, PAGE, e.IBV_ACCESS_LOCAL_WRITE)
        flush = e._IBV_ADVISE_MR_FLAG_FLUSH
        pf = e._IBV_ADVISE_MR_ADVICE_PREFETCH
        pfw = e._IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE
        cases = (
            ('unknown lkey', self.pd, pf, SGE(buf, 8, ro.lkey ^ 0x100),
             errno.ENOENT),
            ('write on read-only', self.pd, pfw, SGE(buf, 8, ro.lkey),
             errno.EPERM),
            ('other PD', pd2, pf, SGE(buf, 8, ro.lkey), errno.EPERM),
            ('outside the MR', self.pd, pf, SGE(buf, 2 * PAGE, ro.lkey),
             errno.EFAULT),
            ('not ODP', self.pd, pf, SGE(pinned.buf, 8, pinned.lkey),
             errno.EINVAL),
        )
        for name, pd, advice, sge, err in cases:
            with self.subTest(name):
                self.assertErrno(err, pd.advise_mr, advice, flush, [sge])
        # Flags uverbs does not know.
        self.assertErrno(errno.EINVAL, self.pd.advise_mr, pf, 0x80,
                         [SGE(buf, 8, ro.lkey)])

    def test_rereg(self):
        buf = self.anon(PAGE)
        mr = MR(self.pd, PAGE, ALL_REMOTE | ODP, address=buf)
        pd2 = type(self.pd)(self.ctx)
        # A new PD keeps the paging; a new translation is not done yet.
        mr.rereg(e.IBV_REREG_MR_CHANGE_PD, pd2, 0, 0, 0)
        self.assertErrno((errno.EOPNOTSUPP, errno.EINVAL), mr.rereg,
                         e.IBV_REREG_MR_CHANGE_ACCESS, None, 0, 0,
                         e.IBV_ACCESS_LOCAL_WRITE | ODP)

    # --- a fault longer than the requester's ACK timeouts ---------------
    def test_long_fault_rnr(self):
        """A fault held up for 1.5 s (its page is read from a device-mapper
        device that is suspended) must not exhaust a requester whose ACK
        timeouts (67 ms, retry_cnt 1) last 200 ms: the responder RNR NAKs
        the request it holds, and the requester's RNR retries wait.  A
        WRITE into such memory, then a SEND into a receive buffer there;
        then a WRITE whose fault fails after 1.5 s: a remote access error."""
        size = 64 * 1024
        disk = SlowDisk(self)
        a, b = self.rc_pair(a_over=dict(timeout=14, retry_cnt=1,
                                        rnr_retry=7),
                            b_over=dict(min_rnr_timer=12))
        src_mr = a.mr(size)
        data = pattern(size, seed=6)
        poke(src_mr.buf, data)
        sent = counter('send_rnr_err')
        for i, op in enumerate((e.IBV_WR_RDMA_WRITE, e.IBV_WR_SEND)):
            with self.subTest(op=op):
                # Pages not read yet: a fresh part of the device each time.
                addr = disk.map(size, offset=(i + 1) * 4 * 1024 * 1024)
                mr = self.odp_mr(b, addr, size)
                if op == e.IBV_WR_SEND:
                    self.recv(b.qp, mr)
                resume = disk.suspend(1.5)
                start = time.monotonic()
                write = op == e.IBV_WR_RDMA_WRITE
                self.send(a.qp, src_mr, size, op, wr_id=i,
                          rkey=mr.rkey if write else None, raddr=mr.buf)
                self.poll_ok(a.cq)
                took = time.monotonic() - start
                resume.wait()
                self.assertEqual(resume.returncode, 0)
                if op == e.IBV_WR_SEND:
                    self.assertEqual(self.poll_ok(b.cq)[0].byte_len, size)
                self.assertEqual(peek(addr, size), data)
                # It did wait for the device, well past 2 ACK timeouts.
                self.assertGreater(took, 1.0)
        self.assertGreater(counter('send_rnr_err'), sent)
        # A long fault that fails in the end fails the WRITE, as a bad
        # key would, not the RNR retries (for ever, with 7).
        addr = disk.map(size, offset=12 * 1024 * 1024)
        mr = self.odp_mr(b, addr, size)
        resume = disk.suspend(1.5, then_fail=True)
        self.send(a.qp, src_mr, size, e.IBV_WR_RDMA_WRITE, wr_id=3,
                  rkey=mr.rkey, raddr=mr.buf)
        self.poll_status(a.cq, e.IBV_WC_REM_ACCESS_ERR)
        resume.wait()
        self.assertEqual(resume.returncode, 0)

    def test_long_gather_fault(self):
        """The requester's own fault held up 1.5 s in the middle of a
        WRITE: what it sent before lacks the ACK request it would have sent
        next, and its ACK timeouts (67 ms, retry_cnt 1) must not run out
        meanwhile, even with the QP run again (a second WRITE posted).
        The source: 200 KiB of memory, then 56 KiB of the suspended
        device."""
        size, head = 256 * 1024, 200 * 1024
        disk = SlowDisk(self)
        src = self.anon(size)
        data = pattern(size, seed=8)
        poke(src, data[:head])
        mmap(size - head, flags=MAP_SHARED | MAP_FIXED, fd=disk.fd,
             offset=16 * 1024 * 1024, addr=src + head)
        # The device reads zeros.
        data = data[:head] + bytes(size - head)
        a, b = self.rc_pair(a_over=dict(timeout=14, retry_cnt=1))
        src_mr = self.odp_mr(a, src, size)
        small = a.mr(PAGE)
        poke(small.buf, b'\x5a' * 64)
        dst_mr = b.mr(size + PAGE)
        retries = counter('completer_retry_err')
        resume = disk.suspend(1.5)
        start = time.monotonic()
        self.send(a.qp, src_mr, size, e.IBV_WR_RDMA_WRITE, wr_id=1,
                  rkey=dst_mr.rkey, raddr=dst_mr.buf)
        time.sleep(0.3)
        self.send(a.qp, small, 64, e.IBV_WR_RDMA_WRITE, wr_id=2,
                  rkey=dst_mr.rkey, raddr=dst_mr.buf + size)
        self.poll_ok(a.cq, 2)
        took = time.monotonic() - start
        resume.wait()
        self.assertEqual(resume.returncode, 0)
        self.assertEqual(dst_mr.read(size, 0), data)
        self.assertEqual(dst_mr.read(64, size), b'\x5a' * 64)
        self.assertGreater(took, 1.0)
        # Nothing was lost: no ACK timeout either.
        self.assertEqual(counter('completer_retry_err'), retries)

    # --- implicit ODP: the whole address space as one MR ----------------
    def implicit_mr(self, end, access=ALL_REMOTE):
        return MR(end.pd, 0, access | ODP, implicit=True)

    def straddling(self, length, before=5000):
        """LENGTH bytes of fresh memory that start BEFORE bytes below a
        2 MiB boundary (where the device's implicit MRs change child)."""
        room = length + before + 2 * CHILD
        base = self.anon(room)
        start = ((base + CHILD - 1) & ~(CHILD - 1)) - before
        if start < base:
            start += CHILD
        return start

    @staticmethod
    def dontneed(addr, length):
        start = addr & ~(PAGE - 1)
        end = (addr + length + PAGE - 1) & ~(PAGE - 1)
        _check(_libc.madvise(start, end - start, MADV_DONTNEED), 'madvise')

    def test_implicit_rc_traffic(self):
        """WRITE, READ and SEND/RECV through implicit MRs, into and out of
        memory nothing touched, across 2 MiB boundaries and over three of
        them; in the second round the memory was dropped (MADV_DONTNEED)
        and faults in again, in the children made by the first."""
        size = 2 * CHILD + 10000
        a, b = self.rc_pair()
        amr, bmr = self.implicit_mr(a), self.implicit_mr(b)
        src, back = self.straddling(size), self.straddling(size)
        dst, rbuf = self.straddling(size, 77), self.straddling(size, 1)
        data = pattern(size, seed=11)
        children = counter('odp_implicit_children')
        for rnd in range(2):
            with self.subTest(round=rnd):
                if rnd:
                    for addr in (src, back, dst, rbuf):
                        self.dontneed(addr, size)
                    children = counter('odp_implicit_children')
                poke(src, data)
                faults = counter('odp_faults')
                self.send(a.qp, amr, size, e.IBV_WR_RDMA_WRITE, wr_id=1,
                          offset=src, rkey=bmr.rkey, raddr=dst)
                self.poll_ok(a.cq)
                self.assertEqual(peek(dst, size), data)
                self.send(a.qp, amr, size, e.IBV_WR_RDMA_READ, wr_id=2,
                          offset=back, rkey=bmr.rkey, raddr=dst)
                self.poll_ok(a.cq)
                self.assertEqual(peek(back, size), data)
                self.recv(b.qp, bmr, size, offset=rbuf)
                self.send(a.qp, amr, size, wr_id=3, offset=src)
                self.poll_ok(a.cq)
                self.assertEqual(self.poll_ok(b.cq)[0].byte_len, size)
                self.assertEqual(peek(rbuf, size), data)
                self.assertGreater(counter('odp_faults'), faults)
                made = counter('odp_implicit_children') - children
                if rnd:
                    # Kept until dereg: nothing new to make.
                    self.assertEqual(made, 0)
                else:
                    # Each of the 4 buffers spans 3 or 4 children.
                    self.assertGreaterEqual(made, 12)

    def test_implicit_atomics_and_ud(self):
        self.require(self.has_atomics(), 'no atomics')
        a, b = self.rc_pair()
        amr, bmr = self.implicit_mr(a), self.implicit_mr(b)
        target, res = self.anon(PAGE), self.anon(PAGE)
        for i, add in enumerate((5, 7)):
            wr = SendWR(wr_id=i, opcode=e.IBV_WR_ATOMIC_FETCH_AND_ADD,
                        num_sge=1, sg=[SGE(res, 8, amr.lkey)],
                        send_flags=e.IBV_SEND_SIGNALED)
            wr.set_wr_atomic(rkey=bmr.rkey, addr=target, compare_add=add,
                             swap=0)
            a.qp.post_send(wr)
            self.poll_ok(a.cq)
        self.assertEqual(int.from_bytes(peek(target, 8), 'little'), 12)
        self.assertEqual(int.from_bytes(peek(res, 8), 'little'), 5)

        u, v = self.ud_pair()
        umr = self.implicit_mr(u, e.IBV_ACCESS_LOCAL_WRITE)
        vmr = self.implicit_mr(v, e.IBV_ACCESS_LOCAL_WRITE)
        size = 512
        src, rbuf = self.straddling(size, 100), self.straddling(PAGE, 20)
        data = pattern(size, seed=12)
        poke(src, data)
        self.recv(v.qp, vmr, 40 + size, offset=rbuf)
        self.ud_send(u, v, SGE(src, size, umr.lkey))
        self.assertEqual(peek(rbuf + 40, size), data)

    def test_implicit_bad_addresses(self):
        """Past user space, wrapping around, unmapped: an access error,
        as a bad key would give, nothing written, and no child left."""
        none = mmap(PAGE, prot=0)
        self.maps.append((none, PAGE))
        children = counter('odp_implicit_children')
        for name, where, length in (
                ('past user space', lambda: 1 << 56, 64),
                ('last byte of the address space', lambda: (1 << 64) - 1, 1),
                ('wrapping', lambda: (1 << 64) - PAGE, 2 * PAGE),
                ('page 0', lambda: 0, 64),
                ('PROT_NONE', lambda: none, 64),
                # Asked for after the objects are made (rings are mmaps).
                ('unmapped', lambda: self.unmapped(PAGE), 64)):
            with self.subTest(name):
                a, b = self.rc_pair()
                src, bmr = a.mr(2 * PAGE), self.implicit_mr(b)
                addr = where()
                self.send(a.qp, src, length, e.IBV_WR_RDMA_WRITE,
                          rkey=bmr.rkey, raddr=addr)
                self.poll_status(a.cq, e.IBV_WC_REM_ACCESS_ERR)
                c, d = self.rc_pair()
                cmr = self.implicit_mr(c)
                dst = d.mr(2 * PAGE)
                addr = where()
                self.send(c.qp, cmr, length, e.IBV_WR_RDMA_WRITE,
                          offset=addr, rkey=dst.rkey, raddr=dst.buf)
                self.poll_status(c.cq, e.IBV_WC_LOC_PROT_ERR)
                self.assertEqual(dst.read(64, 0), bytes(64))
        self.assertEqual(counter('odp_implicit_children'), children)

    def test_implicit_prefetch(self):
        a, b = self.rc_pair()
        bmr = self.implicit_mr(b)
        size = CHILD + 3 * PAGE
        dst = self.straddling(size, 2 * PAGE)
        b.pd.advise_mr(e._IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE,
                       e._IBV_ADVISE_MR_FLAG_FLUSH, [SGE(dst, size, bmr.lkey)])
        faults = counter('odp_faults')
        src_mr = a.mr(size)
        poke(src_mr.buf, pattern(size, seed=13))
        self.send(a.qp, src_mr, size, e.IBV_WR_RDMA_WRITE,
                  rkey=bmr.rkey, raddr=dst)
        self.poll_ok(a.cq)
        self.assertEqual(counter('odp_faults'), faults)
        self.assertEqual(peek(dst, size), pattern(size, seed=13))
        # Queued, and its errors.
        before = counter('odp_prefetches')
        b.pd.advise_mr(e._IBV_ADVISE_MR_ADVICE_PREFETCH, 0,
                       [SGE(self.anon(PAGE), PAGE, bmr.lkey)])
        deadline = time.monotonic() + CONFIG['timeout']
        while counter('odp_prefetches') <= before:
            self.assertLess(time.monotonic(), deadline, 'prefetch')
            time.sleep(0.05)
        flush = e._IBV_ADVISE_MR_FLAG_FLUSH
        pfw = e._IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE
        self.assertErrno(errno.EFAULT, b.pd.advise_mr, pfw, flush,
                         [SGE(1 << 56, 8, bmr.lkey)])
        self.assertErrno(errno.EFAULT, b.pd.advise_mr, pfw, flush,
                         [SGE(self.unmapped(PAGE), 8, bmr.lkey)])
        ro = MR(b.pd, 0, ODP, implicit=True)
        self.assertErrno(errno.EPERM, b.pd.advise_mr, pfw, flush,
                         [SGE(dst, 8, ro.lkey)])
        # What is not mapped gets no child: 64 MiB of nothing, and of
        # memory mapped but never touched, taken as it is.
        children = counter('odp_implicit_children')
        big = 64 * 1024 * 1024
        for addr in (self.unmapped(big), self.anon(big)):
            b.pd.advise_mr(e._IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT, flush,
                           [SGE(addr, big, bmr.lkey)])
        self.assertEqual(counter('odp_implicit_children'), children)

    def test_implicit_dereg_during_fault(self):
        """An implicit MR deregistered while the device waits for a fault
        in it (a suspended device-mapper device): dereg waits for the
        fault, the WRITE fails or completes, nothing is left behind."""
        size = 64 * 1024
        disk = SlowDisk(self)
        a, b = self.rc_pair(a_over=dict(rnr_retry=7),
                            b_over=dict(min_rnr_timer=12))
        src_mr = a.mr(size)
        bmr = self.implicit_mr(b)
        addr = disk.map(size, offset=20 * 1024 * 1024)
        resume = disk.suspend(1.5)
        self.send(a.qp, src_mr, size, e.IBV_WR_RDMA_WRITE,
                  rkey=bmr.rkey, raddr=addr)
        time.sleep(0.3)
        bmr.close()
        resume.wait()
        self.assertEqual(resume.returncode, 0)
        wc = self.poll(a.cq)[0]
        self.assertIn(wc.status, (e.IBV_WC_SUCCESS, e.IBV_WC_REM_ACCESS_ERR),
                      status_name(wc.status))

    # --- no write through a stale page ----------------------------------
    def test_remap_under_traffic(self):
        """A memfd's pages remapped (MAP_FIXED) one slot after the other
        under an ODP MR written by RDMA WRITE and SEND; after each remap
        the old slot is overwritten with a sentinel, which must survive."""
        self.remap_under_traffic(implicit=False)

    def test_implicit_remap_under_traffic(self):
        """The same under an implicit MR."""
        self.remap_under_traffic(implicit=True)

    def remap_under_traffic(self, implicit):
        length, slots = 64 * 1024, 24
        fd = _check(_libc.memfd_create(b'wookie-odp', 0), 'memfd_create')
        self.addCleanup(os.close, fd)
        os.ftruncate(fd, length * (slots + 1))
        addr = mmap(length, flags=MAP_SHARED, fd=fd)
        self.maps.append((addr, length))
        a, b = self.rc_pair(cap=QPCap(max_send_wr=64, max_recv_wr=64,
                                      max_send_sge=1, max_recv_sge=1))
        if implicit:
            dst_mr, off = self.implicit_mr(b), addr
        else:
            dst_mr, off = self.odp_mr(b, addr, length), 0
        src_mr = a.mr(length)
        poke(src_mr.buf, pattern(length, seed=1))
        sentinel = b'\xa5' * length
        stop = threading.Event()
        errors = []

        def remapper():
            try:
                for k in range(1, slots + 1):
                    time.sleep(0.02)
                    mmap(length, flags=MAP_SHARED | MAP_FIXED, fd=fd,
                         offset=k * length, addr=addr)
                    os.pwrite(fd, sentinel, (k - 1) * length)
            except OSError as ex:
                errors.append(ex)
            finally:
                stop.set()

        t = threading.Thread(target=remapper)
        t.start()
        n = 0
        try:
            while not stop.is_set():
                self.recv(b.qp, dst_mr, length, offset=off, wr_id=n)
                self.send(a.qp, src_mr, length, e.IBV_WR_RDMA_WRITE,
                          wr_id=2 * n, rkey=dst_mr.rkey,
                          raddr=dst_mr.buf + off)
                self.send(a.qp, src_mr, length, wr_id=2 * n + 1)
                self.poll_ok(a.cq, 2)
                self.poll_ok(b.cq)
                n += 1
        finally:
            t.join()
        self.assertFalse(errors, errors)
        self.assertGreater(n, 0)
        for k in range(slots):
            got = os.pread(fd, length, k * length)
            self.assertEqual(got, sentinel,
                             f'slot {k}: written after it was unmapped '
                             f'({n} rounds)')

    def test_fork_copy_not_written(self):
        """After fork the parent's pages are copied on write: RDMA WRITEs
        into the parent's ODP MR must land in the parent's new pages and
        never in the pages the child still maps."""
        length = 64 * 1024
        buf = self.anon(length)
        a, b = self.rc_pair()
        dst_mr = self.odp_mr(b, buf, length)
        src_mr = a.mr(length)
        old = pattern(length, seed=4)
        poke(src_mr.buf, old)
        self.send(a.qp, src_mr, length, e.IBV_WR_RDMA_WRITE, wr_id=1,
                  rkey=dst_mr.rkey, raddr=dst_mr.buf)
        self.poll_ok(a.cq)
        self.assertEqual(peek(buf, length), old)
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            # The child: its copy must keep the old bytes.
            os.close(r)
            time.sleep(1.5)
            ok = peek(buf, length) == old
            os.write(w, b'1' if ok else b'0')
            os._exit(0)
        os.close(w)
        new = pattern(length, seed=5)
        poke(src_mr.buf, new)
        deadline = time.monotonic() + 1.0
        i = 2
        while time.monotonic() < deadline:
            self.send(a.qp, src_mr, length, e.IBV_WR_RDMA_WRITE, wr_id=i,
                      rkey=dst_mr.rkey, raddr=dst_mr.buf)
            self.poll_ok(a.cq)
            i += 1
        verdict = os.read(r, 1)
        os.close(r)
        _, status = os.waitpid(pid, 0)
        self.assertEqual(status, 0)
        self.assertEqual(verdict, b'1', "the child's pages were written")
        self.assertEqual(peek(buf, length), new)


if __name__ == '__main__':
    unittest.main()
