#!/usr/bin/env python3
"""gotmpl-cases.py STRATA CASES DATA: run each case of CASES (see its
header) through `strata templates render` with DATA as the dot."""
import os
import subprocess
import sys
import tempfile


def cases(path):
    text = open(path, encoding="utf-8").read()
    for block in text.split("\n### ")[1:]:
        name, rest = block.split("\n", 1)
        tmpl, want = rest.split("\n---\n", 1)
        yield name, tmpl, want[:-1] if want.endswith("\n") else want


def main():
    strata, path, data = (os.path.abspath(a) for a in sys.argv[1:4])
    env = dict(os.environ, LC_ALL="C.UTF-8", NO_COLOR="1")
    passed, failed = 0, []
    with tempfile.TemporaryDirectory() as d:
        for name, tmpl, want in cases(path):
            with open(os.path.join(d, "t"), "w", encoding="utf-8") as f:
                f.write(tmpl)
            p = subprocess.run([strata, "templates", "render", "--prompt-dir",
                                d, "--data", data, "t"], env=env,
                               capture_output=True, timeout=30)
            out = p.stdout.decode("utf-8", "replace")
            err = p.stderr.decode("utf-8", "replace")
            if want.startswith("error: "):
                ok = p.returncode == 1 and not out and want[7:] in err
            else:
                ok = p.returncode == 0 and out == want
            if ok:
                passed += 1
            else:
                failed.append((name, want, out, err))
    for name, want, out, err in failed:
        print("FAIL %s\n  want: %r\n  got:  %r %r" % (name, want, out, err))
    print("%d passed, %d failed" % (passed, len(failed)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
