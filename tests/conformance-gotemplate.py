#!/usr/bin/env python3
"""conformance-gotemplate.py STRATA SHARED: run the Go text/template +
Sprig cases of SHARED/conformance/gotemplate (rendered by Go 1.19 and
Sprig 3.2.3) through `strata templates render`.

A case with expected.txt must print exactly that and exit 0.  A case with
expected-error.txt must exit 1 with nothing on stdout and report, on
stderr, Go's message (the text after Go's "template: NAME:LINE[:COL]: ")
at FILE:LINE of the template Go names.  Skips (77) without the cases."""
import json
import os
import re
import subprocess
import sys


def main():
    strata, shared = os.path.abspath(sys.argv[1]), sys.argv[2]
    root = os.path.join(shared, "conformance", "gotemplate")
    if not os.path.isdir(root):
        print("SKIP: %s is absent" % root)
        return 77
    cases = sorted(d for d in os.listdir(root)
                   if os.path.isfile(os.path.join(root, d, "args.json")))
    env = dict(os.environ, LC_ALL="C.UTF-8", TZ="UTC", NO_COLOR="1")
    passed, failed = 0, []
    for case in cases:
        d = os.path.join(root, case)
        with open(os.path.join(d, "args.json"), encoding="utf-8") as f:
            args = json.load(f)
        p = subprocess.run([strata] + args[1:], cwd=d, env=env,
                           capture_output=True, timeout=30)
        out = p.stdout.decode("utf-8", "replace")
        err = p.stderr.decode("utf-8", "replace")
        why = None
        exp = os.path.join(d, "expected.txt")
        if os.path.exists(exp):
            with open(exp, "rb") as f:
                want = f.read()
            if p.returncode != 0:
                why = "exit %d: %s" % (p.returncode, err.strip())
            elif p.stdout != want:
                why = "output differs:\n--- want\n%r\n--- got\n%r" % (
                    want.decode("utf-8", "replace"), out)
        else:
            with open(os.path.join(d, "expected-error.txt"),
                      encoding="utf-8") as f:
                lines = f.read().split("\n", 1)
            msg = lines[1].strip() if len(lines) > 1 else ""
            m = re.match(r"template: ([^:]+):(\d+)(?::\d+)?: (.*)", msg,
                         re.S)
            if p.returncode != 1:
                why = "exit %d, expected 1" % p.returncode
            elif p.stdout:
                why = "stdout not empty: %r" % out
            elif m:
                name, line, text = m.group(1), m.group(2), m.group(3)
                place = "templates/%s:%s:" % (name, line)
                if place not in err:
                    why = "no diagnostic at %s:\n%s" % (place, err)
                elif text not in err:
                    why = "message differs: want %r in:\n%s" % (text, err)
        if why:
            failed.append((case, why))
        else:
            passed += 1
    for case, why in failed:
        print("FAIL %s: %s" % (case, why))
    print("%d passed, %d failed" % (passed, len(failed)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
