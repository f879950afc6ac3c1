# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""ATOMIC WRITE and FLUSH between two devices, each end its own process
(in its own network namespace), for interop with another device's
implementation (rxe-interop: 6.12's rdma_rxe).

  ibta15_peer.py serve  --dev D --gid N --dir DIR
  ibta15_peer.py client --dev D --gid N --dir DIR

The two meet through files in DIR (a directory both see): each writes
its QP number and GID (the server also its MR's address and rkey), reads
the other's, and connects an RC QP.  The client then, with the wr_* API:
ATOMIC WRITEs 8 bytes, RDMA WRITEs 256, FLUSHes that range and then the
whole MR (to global visibility), READs both back and checks them; last,
a FLUSH to persistence, which the server's MR does not grant: a remote
access error.  The server then checks its memory itself.  Each prints
'ok ...' lines and exits 0 when all held.
"""

import argparse
import json
import os
import sys
import time

import pyverbs.device as d
import pyverbs.enums as e
from pyverbs.addr import GID, AHAttr, GlobalRoute
from pyverbs.cq import CQ
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.qp import QPAttr, QPCap, QPEx, QPInitAttrEx
from pyverbs.wr import SGE

PORT = 1
PSN = 0x2345
WAIT = 120
AW_OFF, DATA_OFF, DATA_LEN = 8, 256, 256
AW_BYTES = b'ATOMIC!!'
ACCESS = (e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE |
          e.IBV_ACCESS_REMOTE_READ | e.IBV_ACCESS_FLUSH_GLOBAL)
# The QPs grant persistence too: a FLUSH to it fails on the MR.
QP_ACCESS = (ACCESS | e.IBV_ACCESS_REMOTE_ATOMIC |
             e.IBV_ACCESS_FLUSH_PERSISTENT)


def data():
    return bytes((i * 13 + 5) & 0xff for i in range(DATA_LEN))


def wait_file(path):
    deadline = time.monotonic() + WAIT
    while not os.path.exists(path):
        if time.monotonic() > deadline:
            sys.exit(f'FAIL no {path} within {WAIT} s')
        time.sleep(0.05)
    with open(path) as f:
        return json.load(f)


def put_file(path, obj):
    with open(path + '.tmp', 'w') as f:
        json.dump(obj, f)
    os.rename(path + '.tmp', path)


def connect(qp, args, peer, access):
    attr = QPAttr(qp_state=e.IBV_QPS_INIT)
    attr.pkey_index = 0
    attr.port_num = PORT
    attr.qp_access_flags = access
    qp.modify(attr, e.IBV_QP_STATE | e.IBV_QP_PKEY_INDEX | e.IBV_QP_PORT |
              e.IBV_QP_ACCESS_FLAGS)
    attr = QPAttr(qp_state=e.IBV_QPS_RTR)
    attr.path_mtu = e.IBV_MTU_1024
    attr.dest_qp_num = peer['qpn']
    attr.rq_psn = PSN
    attr.max_dest_rd_atomic = 4
    attr.min_rnr_timer = 12
    gr = GlobalRoute(dgid=GID(peer['gid']), sgid_index=args.gid)
    attr.ah_attr = AHAttr(gr=gr, is_global=1, port_num=PORT)
    qp.modify(attr, e.IBV_QP_STATE | e.IBV_QP_AV | e.IBV_QP_PATH_MTU |
              e.IBV_QP_DEST_QPN | e.IBV_QP_RQ_PSN |
              e.IBV_QP_MAX_DEST_RD_ATOMIC | e.IBV_QP_MIN_RNR_TIMER)
    attr = QPAttr(qp_state=e.IBV_QPS_RTS)
    attr.timeout = 14
    attr.retry_cnt = 7
    attr.rnr_retry = 7
    attr.sq_psn = PSN
    attr.max_rd_atomic = 4
    qp.modify(attr, e.IBV_QP_STATE | e.IBV_QP_TIMEOUT | e.IBV_QP_RETRY_CNT |
              e.IBV_QP_RNR_RETRY | e.IBV_QP_SQ_PSN | e.IBV_QP_MAX_QP_RD_ATOMIC)


def poll(cq, what):
    deadline = time.monotonic() + WAIT
    while True:
        _, wcs = cq.poll(1)
        if wcs:
            return wcs[0]
        if time.monotonic() > deadline:
            sys.exit(f'FAIL no completion for {what} within {WAIT} s')
        time.sleep(0.001)


def check(ok, what):
    print(('ok   ' if ok else 'FAIL ') + what, flush=True)
    return ok


def main():
    global WAIT
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('role', choices=('serve', 'client'))
    ap.add_argument('--dev', required=True)
    ap.add_argument('--gid', type=int, default=1)
    ap.add_argument('--dir', required=True)
    ap.add_argument('--wait', type=float, default=120,
                    help='seconds to wait for the peer or a completion')
    ap.add_argument('--no-flush', action='store_true',
                    help='client: ATOMIC WRITE, WRITE and READ only')
    args = ap.parse_args()
    WAIT = args.wait

    ctx = d.Context(name=args.dev)
    pd = PD(ctx)
    cq = CQ(ctx, 64, None, None, 0)
    init = QPInitAttrEx(
        qp_type=e.IBV_QPT_RC, pd=pd, scq=cq, rcq=cq,
        cap=QPCap(max_send_wr=16, max_recv_wr=4, max_send_sge=1,
                  max_recv_sge=1),
        comp_mask=e.IBV_QP_INIT_ATTR_PD | e.IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
        send_ops_flags=(e.IBV_QP_EX_WITH_ATOMIC_WRITE |
                        e.IBV_QP_EX_WITH_FLUSH |
                        e.IBV_QP_EX_WITH_RDMA_WRITE |
                        e.IBV_QP_EX_WITH_RDMA_READ))
    qp = QPEx(ctx, init)
    mr = MR(pd, 4096, ACCESS)
    mr.write(b'\x00' * 4096, 4096)
    me = {'qpn': qp.qp_num, 'gid': str(ctx.query_gid(PORT, args.gid)),
          'rkey': mr.rkey, 'addr': mr.buf}
    mine, theirs = ((f'{args.dir}/server.json', f'{args.dir}/client.json')
                    if args.role == 'serve' else
                    (f'{args.dir}/client.json', f'{args.dir}/server.json'))
    put_file(mine, me)
    peer = wait_file(theirs)
    connect(qp, args, peer, QP_ACCESS)
    good = True

    if args.role == 'serve':
        put_file(f'{args.dir}/server-ready.json', {})
        wait_file(f'{args.dir}/client-done.json')
        good &= check(mr.read(8, AW_OFF) == AW_BYTES,
                      'the ATOMIC WRITE landed in the server\'s memory')
        good &= check(mr.read(DATA_LEN, DATA_OFF) == data(),
                      'the WRITE before the FLUSH did')
        good &= check(mr.read(8, 0) == b'\x00' * 8 and
                      mr.read(16, DATA_OFF - 16) == b'\x00' * 16,
                      'nothing else was written')
        put_file(f'{args.dir}/server-done.json', {})
        return 0 if good else 1

    wait_file(f'{args.dir}/server-ready.json')
    raddr, rkey = peer['addr'], peer['rkey']
    src = MR(pd, 4096, ACCESS)
    src.write(data(), DATA_LEN)

    def post(build):
        qp.wr_start()
        qp.wr_id = 1
        qp.wr_flags = e.IBV_SEND_SIGNALED
        build()
        qp.wr_complete()

    post(lambda: qp.wr_atomic_write(rkey, raddr + AW_OFF, AW_BYTES))
    wc = poll(cq, 'ATOMIC WRITE')
    good &= check(wc.status == e.IBV_WC_SUCCESS and
                  wc.opcode == e.IBV_WC_ATOMIC_WRITE,
                  f'ATOMIC WRITE completes (status {wc.status}, '
                  f'opcode {wc.opcode})')

    def write():
        qp.wr_rdma_write(rkey, raddr + DATA_OFF)
        qp.wr_set_sge(SGE(src.buf, DATA_LEN, src.lkey))
    post(write)
    wc = poll(cq, 'RDMA WRITE')
    good &= check(wc.status == e.IBV_WC_SUCCESS, 'RDMA WRITE completes')
    levels = () if args.no_flush else ((e.IBV_FLUSH_RANGE, 'its range'),
                                       (e.IBV_FLUSH_MR, 'the whole MR'))
    for level, name in levels:
        post(lambda: qp.wr_flush(rkey, raddr + DATA_OFF, DATA_LEN,
                                 e.IBV_FLUSH_GLOBAL, level))
        wc = poll(cq, 'FLUSH')
        good &= check(wc.status == e.IBV_WC_SUCCESS and
                      wc.opcode == e.IBV_WC_FLUSH,
                      f'FLUSH of {name} to global visibility completes '
                      f'(status {wc.status}, opcode {wc.opcode})')

    def read():
        qp.wr_rdma_read(rkey, raddr)
        qp.wr_set_sge(SGE(src.buf + 1024, 1024, src.lkey))
    post(read)
    wc = poll(cq, 'READ')
    back = src.read(1024, 1024)
    good &= check(wc.status == e.IBV_WC_SUCCESS and
                  back[AW_OFF:AW_OFF + 8] == AW_BYTES and
                  back[DATA_OFF:DATA_OFF + DATA_LEN] == data(),
                  'a READ sees the ATOMIC WRITE and the WRITE')

    if not args.no_flush:
        post(lambda: qp.wr_flush(rkey, raddr, 8, e.IBV_FLUSH_PERSISTENT,
                                 e.IBV_FLUSH_RANGE))
        wc = poll(cq, 'FLUSH to persistence')
        good &= check(wc.status == e.IBV_WC_REM_ACCESS_ERR,
                      f'FLUSH to persistence, not granted: remote access '
                      f'error (status {wc.status})')
    put_file(f'{args.dir}/client-done.json', {})
    wait_file(f'{args.dir}/server-done.json')
    return 0 if good else 1


if __name__ == '__main__':
    sys.exit(main())
