# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Per-QP counters (`rdma statistic qp`): QPs bound to a counter, by the
auto mode or by hand, count their packets in it; the port's figures
(`rdma statistic show link`, sysfs hw_counters) count every packet once,
bound or not, before and after the counter goes away."""

import json
import os
import subprocess
import time

import pyverbs.enums as e

from common import CONFIG, PORT, VerbsTest, pattern

NAMES = ('sent_pkts', 'rcvd_pkts')


def rdma(*args, check=True):
    """The rdma tool's JSON output of ARGS (None when it prints none)."""
    out = subprocess.run(['rdma', '-j', *args], capture_output=True,
                         text=True, timeout=30)
    if check and out.returncode:
        raise AssertionError(f'rdma {" ".join(args)}: exit '
                             f'{out.returncode}: {out.stderr.strip()}')
    if out.returncode:
        return out
    return json.loads(out.stdout) if out.stdout.strip() else None


def qpns(entry):
    """The QP numbers a counter entry lists, however the tool nests them."""
    found = []

    def walk(v):
        if isinstance(v, list):
            for x in v:
                walk(x)
        elif isinstance(v, dict):
            for x in v.values():
                walk(x)
        else:
            found.append(int(v))
    walk(entry.get('lqpn', []))
    return found


class QPCounterTest(VerbsTest):

    def setUp(self):
        super().setUp()
        self.require(os.path.exists('/sys/module/wookie/parameters/local_path'),
                     'not a wookie device (rdma_rxe has no QP counters)')
        self.link = f'{CONFIG["dev"]}/{PORT}'
        rdma('statistic', 'qp', 'set', 'link', self.link, 'auto', 'off')

    def tearDown(self):
        super().tearDown()
        rdma('statistic', 'qp', 'set', 'link', self.link, 'auto', 'off')

    def port(self):
        """The port's figures, as sysfs shows them (cached for 10 ms)."""
        time.sleep(0.03)
        base = f'/sys/class/infiniband/{CONFIG["dev"]}/ports/{PORT}/hw_counters'
        vals = {}
        for n in NAMES:
            with open(f'{base}/{n}') as f:
                vals[n] = int(f.read())
        return vals

    def counters(self):
        """This device's counters: {cntn: entry}."""
        got = rdma('statistic', 'qp', 'show', 'link', self.link) or []
        return {c['cntn']: c for c in got if c.get('ifname') == CONFIG['dev']}

    def counter_of(self, qpn):
        for c in self.counters().values():
            if qpn in qpns(c):
                return c
        self.fail(f'no counter lists QP {qpn}: {self.counters()}')
        return None

    def settled(self, qpn):
        """QPN's counter once two readings 0.2 s apart agree."""
        last = None
        for _ in range(50):
            c = self.counter_of(qpn)
            now = tuple(c[n] for n in NAMES)
            if now == last:
                return c
            last = now
            time.sleep(0.2)
        self.fail(f'counter of QP {qpn} still moving: {last}')
        return None

    def sends(self, a, b, n, size=64):
        src, dst = a.mr(n * size), b.mr(n * size)
        src.write(pattern(n * size, n), n * size)
        for i in range(n):
            self.recv(b.qp, dst, size, i * size, wr_id=i)
        for i in range(n):
            self.send(a.qp, src, size, offset=i * size, wr_id=i)
        self.poll_ok(a.cq, n)
        self.poll_ok(b.cq, n)
        self.assertEqual(dst.read(n * size, 0), pattern(n * size, n))

    def assertPortCounts(self, before, counted):
        """The port counted since BEFORE exactly what COUNTED says."""
        now = self.port()
        for n in NAMES:
            self.assertEqual(now[n] - before[n], counted[n],
                             f'{n}: the port counted {now[n] - before[n]}, '
                             f'the counters {counted[n]}')

    def test_auto_by_type(self):
        before = self.port()
        rdma('statistic', 'qp', 'set', 'link', self.link, 'auto', 'type', 'on')
        a, b = self.rc_pair()
        # Bound at INIT, one counter per QP type.
        ca, cb = self.counter_of(a.qpn), self.counter_of(b.qpn)
        self.assertEqual(ca['cntn'], cb['cntn'])
        self.assertEqual(ca.get('qp-type'), 'RC')
        self.assertEqual(ca['sent_pkts'], 0)
        self.sends(a, b, 32)
        c = self.settled(a.qpn)
        # 32 requests and their ACKs, both QPs in the one counter.
        self.assertGreaterEqual(c['sent_pkts'], 33)
        self.assertEqual(c['sent_pkts'], c['rcvd_pkts'])
        self.assertPortCounts(before, c)
        # A UD pair gets a counter of its own.
        u, v = self.ud_pair()
        cu = self.counter_of(u.qpn)
        self.assertNotEqual(cu['cntn'], c['cntn'])
        self.assertEqual(cu.get('qp-type'), 'UD')
        self.assertEqual(self.counter_of(v.qpn)['cntn'], cu['cntn'])
        # Destroyed, the QPs leave their counters; what the counters
        # counted stays in the port's figures.
        for end in (a, b, u, v):
            end.qp.close()
        self.assertEqual(self.counters(), {})
        self.assertPortCounts(before, c)

    def test_bind_by_hand(self):
        a, b = self.rc_pair()
        self.assertEqual(self.counters(), {})
        self.sends(a, b, 8)
        time.sleep(0.3)
        before = self.port()
        rdma('statistic', 'qp', 'bind', 'link', self.link, 'lqpn',
             str(a.qpn))
        c = self.counter_of(a.qpn)
        self.assertEqual(c['sent_pkts'], 0)
        # The tool's order: bind ... lqpn N cntn C, unbind ... cntn C lqpn N.
        rdma('statistic', 'qp', 'bind', 'link', self.link, 'lqpn',
             str(b.qpn), 'cntn', str(c['cntn']))
        self.assertEqual(self.counter_of(b.qpn)['cntn'], c['cntn'])
        # A bound QP cannot be bound again; an unknown QPN not at all.
        self.assertNotEqual(rdma('statistic', 'qp', 'bind', 'link', self.link,
                                 'lqpn', str(a.qpn), check=False).returncode, 0)
        self.assertNotEqual(rdma('statistic', 'qp', 'bind', 'link', self.link,
                                 'lqpn', '16777000', check=False).returncode,
                            0)
        self.sends(a, b, 16)
        c = self.settled(a.qpn)
        self.assertGreaterEqual(c['sent_pkts'], 17)
        self.assertPortCounts(before, c)
        # Unbound, the QPs count on the port again; the counter's
        # figures stay in the port's after it is gone.
        for end in (a, b):
            rdma('statistic', 'qp', 'unbind', 'link', self.link, 'cntn',
                 str(c['cntn']), 'lqpn', str(end.qpn))
        self.assertEqual(self.counters(), {})
        self.assertPortCounts(before, c)
        self.sends(a, b, 4)
        time.sleep(0.3)
        now = self.port()
        self.assertGreaterEqual(now['sent_pkts'] - before['sent_pkts'],
                                c['sent_pkts'] + 5)

    def test_kernel_qps_stay_unbound(self):
        # ib_core binds user QPs only; the device's GSI QP is not listed.
        rdma('statistic', 'qp', 'set', 'link', self.link, 'auto', 'type', 'on')
        a, b = self.rc_pair(qp_type=e.IBV_QPT_RC)
        listed = [q for c in self.counters().values() for q in qpns(c)]
        self.assertEqual(sorted(listed), sorted([a.qpn, b.qpn]))
        # Auto mode cannot change while a QP is bound.
        out = rdma('statistic', 'qp', 'set', 'link', self.link, 'auto',
                   'pid', 'on', check=False)
        self.assertNotEqual(out.returncode, 0)
