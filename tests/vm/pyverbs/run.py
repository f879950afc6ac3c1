#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Run wookie's pyverbs tests on one device.

usage: run.py --dev DEV [--gid N] [--json FILE] [--timeout S] [TEST...]

TEST is a unittest name (test_qp, test_qp.QPStateTest.test_rc_transitions);
by default every test_*.py here runs.  Needs pyverbs 56.1 on PYTHONPATH
(build/rdma-core-56.1/build/python) and, for a wookie device, the provider
in RDMAV_DRIVERS.  Prints one line per test, then every skip with its
reason; exits 1 if any test failed or erred, or if none ran.
"""

import argparse
import faulthandler
import json
import os
import sys
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import common  # noqa: E402


class Result(unittest.TextTestResult):
    """Also records each test's outcome and duration, and arms a watchdog:
    a test stuck in the kernel dumps every thread's stack and ends the run
    instead of waiting for the VM's timeout."""

    watchdog = 300

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.records = {}
        self.subfailures = 0

    def startTest(self, test):
        self._t0 = time.monotonic()
        faulthandler.dump_traceback_later(self.watchdog, exit=True)
        super().startTest(test)

    def stopTest(self, test):
        faulthandler.cancel_dump_traceback_later()
        rec = self.records.setdefault(test.id(), {'outcome': 'ok'})
        rec['seconds'] = round(time.monotonic() - self._t0, 3)
        super().stopTest(test)

    def _set(self, test, outcome, detail=''):
        self.records[test.id()] = {'outcome': outcome, 'detail': detail}

    def addError(self, test, err):
        super().addError(test, err)
        self._set(test, 'error', self._exc_info_to_string(err, test))

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._set(test, 'fail', self._exc_info_to_string(err, test))

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self._set(test, 'skip', reason)

    def addSubTest(self, test, subtest, err):
        super().addSubTest(test, subtest, err)
        if err is not None:
            self.subfailures += 1
            outcome = 'fail' if issubclass(err[0],
                                           test.failureException) else 'error'
            rec = self.records.setdefault(test.id(), {'outcome': outcome,
                                                      'detail': ''})
            rec['outcome'] = outcome
            rec['detail'] += (f'{subtest._subDescription()}: ' +
                              self._exc_info_to_string(err, test))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--dev', required=True, help='RDMA device')
    ap.add_argument('--gid', type=int, default=1, help='GID index')
    ap.add_argument('--timeout', type=float, default=common.CONFIG['timeout'],
                    help='seconds to wait for a completion or an event')
    ap.add_argument('--json', help='write per-test results here')
    ap.add_argument('tests', nargs='*')
    args = ap.parse_args()
    common.CONFIG.update(dev=args.dev, gid=args.gid, timeout=args.timeout)

    loader = unittest.TestLoader()
    if args.tests:
        suite = loader.loadTestsFromNames(args.tests)
    else:
        suite = loader.discover(HERE, pattern='test_*.py', top_level_dir=HERE)
    start = time.monotonic()
    runner = unittest.TextTestRunner(stream=sys.stdout, verbosity=2,
                                     resultclass=Result)
    result = runner.run(suite)
    counts = {}
    for rec in result.records.values():
        counts[rec['outcome']] = counts.get(rec['outcome'], 0) + 1

    if result.skipped:
        print('\nSkipped:')
        for test, reason in result.skipped:
            print(f'  {test.id()}: {reason}')
    print(f'\npyverbs on {args.dev}: {counts.get("ok", 0)} ok, '
          f'{counts.get("skip", 0)} skipped, {counts.get("fail", 0)} '
          f'failing, {counts.get("error", 0)} in error '
          f'({time.monotonic() - start:.0f} s)')
    if args.json:
        with open(args.json, 'w') as f:
            json.dump(result.records, f, indent=1, sort_keys=True)
    bad = counts.get('fail', 0) + counts.get('error', 0)
    return 1 if bad or not result.testsRun else 0


if __name__ == '__main__':
    sys.exit(main())
