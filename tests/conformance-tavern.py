#!/usr/bin/env python3
# conformance-tavern.py BIN SHARED XFAIL [CASES]: run every SillyTavern
# conformance case (SHARED/conformance/sillytavern/*/, or CASES/*/ when
# given: the cases captured in-tree the same way) and compare the
# body strata prints with expected.json, as the suite's README says:
# messages exactly (count, order, role, content, name present or absent),
# then the other body fields.  Prints PASS/FAIL per case (a short diff
# for a failure) and a count.  Cases listed in XFAIL (one "case reason"
# a line) are expected to fail; the run fails only on other failures.
# Exits 77 (skip) when SHARED is absent.
import json
import os
import subprocess
import sys


def load_xfail(path):
    x = {}
    with open(path, encoding='utf-8') as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith('#'):
                name, _, why = line.partition(' ')
                x[name] = why.strip()
    return x


def compare(want, got):
    """A list of differences, empty when the bodies agree."""
    out = []
    wm, gm = want.get('messages', []), got.get('messages', [])
    for i in range(max(len(wm), len(gm))):
        w = wm[i] if i < len(wm) else None
        g = gm[i] if i < len(gm) else None
        if w != g:
            out.append('message %d:\n  want %s\n  got  %s' % (
                i, json.dumps(w, ensure_ascii=False)[:300],
                json.dumps(g, ensure_ascii=False)[:300]))
            if len(out) >= 3:
                break
    if len(wm) != len(gm):
        out.append('%d messages, expected %d' % (len(gm), len(wm)))
    for k in sorted(set(want) | set(got)):
        if k != 'messages' and want.get(k, '<absent>') != got.get(k, '<absent>'):
            out.append('%s: want %r, got %r' % (k, want.get(k, '<absent>'),
                                                got.get(k, '<absent>')))
    return out


def main():
    binary, shared, xfail_path = [os.path.abspath(a) for a in sys.argv[1:4]]
    root = os.path.join(shared, 'conformance', 'sillytavern')
    if len(sys.argv) > 4:
        root = os.path.abspath(sys.argv[4])
    if not os.path.isdir(root):
        print('conformance-tavern: %s is absent: skipped' % root)
        return 77
    xfail = load_xfail(xfail_path)
    env = dict(os.environ, LC_ALL='C.UTF-8', TZ='UTC', NO_COLOR='1')
    wrapper = os.environ.get('STRATA_WRAPPER', '').split()
    passed = failed = xfailed = xpassed = 0
    for case in sorted(os.listdir(root)):
        d = os.path.join(root, case)
        if not os.path.isfile(os.path.join(d, 'args.json')):
            continue
        with open(os.path.join(d, 'args.json'), encoding='utf-8') as f:
            args = json.load(f)
        with open(os.path.join(d, 'expected.json'), encoding='utf-8') as f:
            want = json.load(f)
        p = subprocess.run(wrapper + [binary] + args[1:], cwd=d, env=env,
                           capture_output=True)
        diffs = []
        if p.returncode != 0:
            diffs = ['exit status %d: %s' % (p.returncode,
                     p.stderr.decode('utf-8', 'replace')[:500])]
        else:
            try:
                diffs = compare(want, json.loads(p.stdout))
            except ValueError as e:
                diffs = ['not JSON: %s' % e]
        if not diffs:
            if case in xfail:
                xpassed += 1
                print('XPASS %s (listed: %s)' % (case, xfail[case]))
            else:
                passed += 1
                print('PASS  %s' % case)
        elif case in xfail:
            xfailed += 1
            print('XFAIL %s (%s)' % (case, xfail[case]))
        else:
            failed += 1
            print('FAIL  %s' % case)
            for line in diffs:
                print('    ' + line.replace('\n', '\n    '))
    print('%d passed, %d failed, %d expected failures, %d unexpected passes'
          % (passed, failed, xfailed, xpassed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
