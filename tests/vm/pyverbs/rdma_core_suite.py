#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""rdma-core's own test suite, recorded test by test, and compared.

  rdma_core_suite.py run --tests DIR --dev DEV --gid N --json FILE
      Runs DIR (rdma-core 56.1's tests/) the way its run_tests.py does,
      with --dev and --gid, and writes each test's outcome (ok, skip,
      fail, error) and skip reason or traceback to FILE.  Exits 0 whatever
      the outcomes: compare judges them.  --only A.json [B.json...]: only
      the tests that fail or err in one of those results (the baseline a
      comparison needs, and nothing it cannot use).

  rdma_core_suite.py compare BASE.json SUBJECT.json [--table FILE] [--strict]
          [--allowed-skips FILE [--kernel RELEASE]]
      Prints (and writes to FILE) a per-module table of both runs' counts,
      the tests that fail or err on SUBJECT but pass on BASE, the other
      failures, the tests SUBJECT skips but BASE passes, and SUBJECT's
      skips outside vendor-only modules with their reasons.  Exits 1 if
      SUBJECT regressed against BASE (with --strict: if any test fails or
      errs on SUBJECT) or has no results; with --allowed-skips, also if
      SUBJECT skips a test outside vendor-only modules that the file
      (suite_skips.txt) does not allow on that kernel release, or with
      another message than the file expects.
"""

import argparse
import json
import os
import re
import sys
import unittest
from importlib.machinery import SourceFileLoader

HERE = os.path.dirname(os.path.abspath(__file__))
OUTCOMES = ('ok', 'skip', 'fail', 'error')
# Modules that only run on one vendor's hardware (their skips say so).
VENDOR_MODULE = re.compile(r'^test_(mlx5|efa|irdma|bnxt|hns|mana|erdma)')


def module_of(test_id):
    parts = test_id.split('.')
    if parts[0] == 'tests' and len(parts) > 1:
        return parts[1]
    if parts[0] == 'unittest':
        return 'load-errors'
    return parts[0]


def flatten(suite):
    for t in suite:
        if isinstance(t, unittest.TestSuite):
            yield from flatten(t)
        else:
            yield t


def run(args):
    sys.path.insert(0, HERE)
    from run import Result  # noqa: E402  (our recording result class)

    sys.path.insert(0, args.tests)
    from args_parser import parser  # noqa: E402  (rdma-core's)

    sys.argv = [sys.argv[0], '--dev', args.dev, '--gid', str(args.gid)]
    parser.parse_args()
    tests = SourceFileLoader(
        'tests', os.path.join(args.tests, '__init__.py')).load_module()
    suite = unittest.defaultTestLoader.loadTestsFromModule(tests)
    if args.only:
        wanted = set()
        for path in args.only:
            recs = load(path) or {}
            wanted |= {t for t, r in recs.items()
                       if r['outcome'] in ('fail', 'error')}
        suite = unittest.TestSuite(t for t in flatten(suite)
                                   if t.id() in wanted)
        print(f'running {suite.countTestCases()} of {len(wanted)} wanted '
              'test(s)')
    class Saving(Result):
        """Rewrites FILE after every test: a crash keeps what ran."""
        watchdog = 600

        def stopTest(self, test):
            super().stopTest(test)
            with open(args.json + '.tmp', 'w') as f:
                json.dump(self.records, f, indent=1, sort_keys=True)
            os.replace(args.json + '.tmp', args.json)

    result = unittest.TextTestRunner(stream=sys.stdout, verbosity=2,
                                     resultclass=Saving).run(suite)
    # Also when nothing ran (an empty --only list).
    with open(args.json, 'w') as f:
        json.dump(result.records, f, indent=1, sort_keys=True)
    return 0


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as ex:
        print(f'cannot read {path}: {ex}')
        return None


def count(records):
    table = {}
    for test_id, rec in records.items():
        row = table.setdefault(module_of(test_id), dict.fromkeys(OUTCOMES, 0))
        row[rec['outcome']] += 1
    return table


def load_allowed_skips(path, release):
    """The lines of PATH that apply on kernel RELEASE: (test id pattern,
    reason, pattern the skip's message must match or None)."""
    numbers = re.match(r'(\d+)\.(\d+)', release or '')
    kver = tuple(int(n) for n in numbers.groups()) if numbers else None
    allowed = []
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith('#'):
                continue
            parts = line.split(None, 1)
            rest = parts[1].strip() if len(parts) > 1 else ''
            before = re.match(r'kernel<(\d+)\.(\d+)(\s+|$)', rest)
            if before:
                rest = rest[before.end():]
            reason, _, message = rest.rpartition(' | ')
            if not reason:
                reason, message = rest, ''
            if not reason.strip():
                raise SystemExit(f'{path}:{lineno}: no reason given')
            if before and (kver is None or
                           kver >= tuple(int(n) for n in before.groups()[:2])):
                continue
            allowed.append((re.compile(parts[0]), reason.strip(),
                            re.compile(message.strip()) if message else None))
    return allowed


def compare(args):
    base, subj = load(args.base), load(args.subject)
    names = (args.base_name or os.path.basename(args.base).split('.')[0],
             args.subject_name or os.path.basename(args.subject).split('.')[0])
    out = []
    if base is None or subj is None or not subj:
        print('no results to compare')
        return 1
    tb, ts = count(base), count(subj)
    head = f'{"module":<26}' + ''.join(
        f' | {n[:18]:^18}' for n in names)
    sub = f'{"":<26}' + ' | ok  skip fail  err' * 2
    out += [head, sub, '-' * len(sub)]
    for mod in sorted(set(tb) | set(ts)):
        line = f'{mod:<26}'
        for t in (tb, ts):
            r = t.get(mod)
            line += (' | ' + ' '.join(f'{r[o]:>4}' for o in OUTCOMES)
                     if r else f' | {"-":^18}')
        out.append(line)
    tot = []
    for t in (tb, ts):
        tot.append({o: sum(r[o] for r in t.values()) for o in OUTCOMES})
    out.append('-' * len(sub))
    out.append(f'{"total":<26}' + ''.join(
        ' | ' + ' '.join(f'{x[o]:>4}' for o in OUTCOMES) for x in tot))

    regress = sorted(t for t, r in subj.items()
                     if r['outcome'] in ('fail', 'error') and
                     base.get(t, {}).get('outcome') == 'ok')
    both = sorted(t for t, r in subj.items()
                  if r['outcome'] in ('fail', 'error') and t not in regress)
    out.append('')
    out.append(f'{len(regress)} test(s) fail or err on {names[1]} but pass '
               f'on {names[0]}' + (':' if regress else '.'))
    for t in regress:
        detail = subj[t].get('detail', '').strip().splitlines()
        out.append(f'  {subj[t]["outcome"].upper():5} {t}: '
                   f'{detail[-1] if detail else ""}')
    if both:
        out.append(f'{len(both)} other failure(s) on {names[1]} (not passing '
                   f'on {names[0]} either):')
        for t in both:
            out.append(f'  {subj[t]["outcome"].upper():5} {t} ({names[0]}: '
                       f'{base.get(t, {}).get("outcome", "absent")})')
    gained = sorted(t for t, r in subj.items() if r['outcome'] == 'ok' and
                    base.get(t, {}).get('outcome') in ('fail', 'error'))
    if gained:
        out.append(f'{len(gained)} test(s) pass on {names[1]} but not on '
                   f'{names[0]}:')
        out += [f'  {t}' for t in gained]
    skipped = sorted(t for t, r in subj.items() if r['outcome'] == 'skip' and
                     base.get(t, {}).get('outcome') == 'ok')
    if skipped:
        out.append(f'{len(skipped)} test(s) skip on {names[1]} but pass on '
                   f'{names[0]}:')
        out += [f'  {t}: {subj[t].get("detail", "")}' for t in skipped]
    reasons = {}
    for t, r in subj.items():
        if r['outcome'] == 'skip' and not VENDOR_MODULE.match(module_of(t)):
            reasons.setdefault(r.get('detail', ''), []).append(t)
    out.append('')
    out.append(f'Skips on {names[1]} outside vendor-only modules, by reason '
               f'({sum(len(v) for v in reasons.values())}):')
    for reason, ts_ in sorted(reasons.items(), key=lambda kv: -len(kv[1])):
        out.append(f'  {len(ts_):3}  {reason}')
        for t in sorted(ts_):
            out.append(f'         {t}')
    unexpected = []
    if args.allowed_skips:
        allowed = load_allowed_skips(args.allowed_skips, args.kernel)
        used = set()

        def allows(test):
            detail = subj[test].get('detail', '')
            for i, (pattern, _, message) in enumerate(allowed):
                if pattern.fullmatch(test) and \
                        (message is None or message.search(detail)):
                    used.add(i)
                    return True
            return False
        unexpected = sorted(t for ts_ in reasons.values() for t in ts_
                            if not allows(t))
        name = os.path.basename(args.allowed_skips)
        out.append('')
        out.append(f'{len(unexpected)} skip(s) on {names[1]} that {name} '
                   'does not allow' + (':' if unexpected else '.'))
        out += [f'  {t}: {subj[t].get("detail", "")}' for t in unexpected]
        for i, (pattern, reason, _) in enumerate(allowed):
            if i not in used:
                out.append(f'{name}: no skip needed {pattern.pattern} '
                           f'({reason})')
    text = '\n'.join(out) + '\n'
    sys.stdout.write(text)
    if args.table:
        with open(args.table, 'w') as f:
            f.write(text)
    return 1 if regress or (args.strict and both) or unexpected else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    sp = ap.add_subparsers(dest='cmd', required=True)
    r = sp.add_parser('run')
    r.add_argument('--tests', required=True, help="rdma-core's tests/")
    r.add_argument('--dev', required=True)
    r.add_argument('--gid', type=int, default=1)
    r.add_argument('--json', required=True)
    r.add_argument('--only', nargs='+', metavar='RESULTS')
    c = sp.add_parser('compare')
    c.add_argument('base')
    c.add_argument('subject')
    c.add_argument('--base-name')
    c.add_argument('--subject-name')
    c.add_argument('--table')
    c.add_argument('--strict', action='store_true')
    c.add_argument('--allowed-skips', metavar='FILE')
    c.add_argument('--kernel', metavar='RELEASE',
                   help='the kernel release, for kernel<X.Y lines')
    args = ap.parse_args()
    return run(args) if args.cmd == 'run' else compare(args)


if __name__ == '__main__':
    sys.exit(main())
