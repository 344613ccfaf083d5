#!/usr/bin/env python3
"""gen-findings.py KIND OUT: write one of the size-attack findings.

The size attacks among the past findings are megabytes of repetition, so
they are made when the tests are built instead of kept in the repository
(findings/README.md says what each once did).  KIND is one of
  vars-100k       a [vars] table of 100,000 keys (toml harness)
  flood-table     2,048 keys colliding under the tree's old hash, as a
                  plain TOML table (toml harness)
  flood-history   the same keys in a chat history message (json harness)
Deterministic: the same bytes on every run.
"""
import os
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))


def flood(kind):
    return subprocess.run([sys.executable, os.path.join(here, "gen-flood.py"),
                           kind, "2048"], check=True,
                          stdout=subprocess.PIPE).stdout


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    kind, out = sys.argv[1], sys.argv[2]
    if kind == "vars-100k":
        data = ("[vars]\n" + "".join("v%x=1\n" % i for i in range(100000))
                ).encode()
    elif kind == "flood-table":
        data = flood("toml-t")
    elif kind == "flood-history":
        data = flood("json")
    else:
        sys.exit("gen-findings.py: unknown kind " + kind)
    with open(out, "wb") as f:
        f.write(data)


main()
