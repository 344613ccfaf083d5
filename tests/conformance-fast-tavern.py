#!/usr/bin/env python3
# conformance-fast-tavern.py BIN CASES...: run fast-tavern conformance
# cases (each a directory with params.json, args.json and expected.json
# or expected-error.txt; ../shared/conformance/fast-tavern/README.md)
# and compare strata's stdout with expected.json as JSON values (key
# order and spacing aside, numbers by value, true is not 1), or check
# that an expected error exits 1 with nothing on stdout and a message on
# stderr.  Each CASES argument is a directory of cases; one that is
# absent is skipped, and the test skips (77) when none is there.
# Prints PASS/FAIL per case, then "N passed, N failed".
import json
import os
import subprocess
import sys


def same(a, b):
    """JSON equality: bool is not a number, numbers by value."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def where(a, b, path='$'):
    """The first path at which a and b differ."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in list(a) + [k for k in b if k not in a]:
            if k not in a or k not in b:
                return '%s.%s: %s' % (path, k, 'missing' if k not in b
                                      else 'unexpected')
            if not same(a[k], b[k]):
                return where(a[k], b[k], '%s.%s' % (path, k))
    if isinstance(a, list) and isinstance(b, list):
        for i, (x, y) in enumerate(zip(a, b)):
            if not same(x, y):
                return where(x, y, '%s[%d]' % (path, i))
        if len(a) != len(b):
            return '%s: %d items, expected %d' % (path, len(b), len(a))
    return '%s:\n      want %s\n      got  %s' % (
        path, json.dumps(a, ensure_ascii=False)[:400],
        json.dumps(b, ensure_ascii=False)[:400])


def run_case(binary, d, env, wrapper):
    with open(os.path.join(d, 'args.json'), encoding='utf-8') as f:
        args = json.load(f)
    p = subprocess.run(wrapper + [binary] + args[1:], cwd=d, env=env,
                       capture_output=True, timeout=60)
    err = p.stderr.decode('utf-8', 'replace')
    if os.path.exists(os.path.join(d, 'expected-error.txt')):
        if p.returncode != 1 or p.stdout or not err.strip():
            return 'want exit 1, no stdout, a message; got %d, %d bytes, %r' % (
                p.returncode, len(p.stdout), err[:200])
        return None
    if p.returncode != 0:
        return 'exit status %d: %s' % (p.returncode, err[:500])
    with open(os.path.join(d, 'expected.json'), encoding='utf-8') as f:
        want = json.load(f)
    try:
        got = json.loads(p.stdout)
    except ValueError as e:
        return 'not JSON: %s' % e
    if same(want, got):
        return None
    return where(want, got)


def main():
    binary = os.path.abspath(sys.argv[1])
    roots = [os.path.abspath(r) for r in sys.argv[2:]]
    env = dict(os.environ, LC_ALL='C.UTF-8', TZ='UTC', NO_COLOR='1')
    wrapper = os.environ.get('STRATA_WRAPPER', '').split()
    passed = failed = 0
    seen = False
    for root in roots:
        if not os.path.isdir(root):
            print('conformance-fast-tavern: %s is absent: skipped' % root)
            continue
        seen = True
        for case in sorted(os.listdir(root)):
            d = os.path.join(root, case)
            if not os.path.isfile(os.path.join(d, 'args.json')):
                continue
            why = run_case(binary, d, env, wrapper)
            if why is None:
                passed += 1
                print('PASS  %s' % case)
            else:
                failed += 1
                print('FAIL  %s\n    %s' % (case, why))
    if not seen:
        return 77
    print('%d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
