#!/usr/bin/env python3
"""man-examples.py MANDIR GOLDENDIR: every example command of the man
pages (a `$ strata ...` line, with its continuation lines, in an
.Bd -literal display) runs as a golden case: some tests/golden/*/args
holds the same strata arguments, paths compared without their leading
../ (a case runs in its own directory), redirections and the other
commands of a pipeline left out (the case's stdin stands for them).
Prints the examples that have no case."""
import glob, os, re, shlex, sys

mandir, golden = sys.argv[1], sys.argv[2]

def unescape(line):
    return (line.replace("\\e", "\\").replace("\\(aq", "'").replace("\\-", "-")
            .replace("\\&", "").replace("\\(em", "-"))

def balanced(cmd):
    try:
        shlex.split(cmd)
        return True
    except ValueError:
        return False

def norm(tokens):
    out = []
    skip = False
    for t in tokens:
        if skip:
            skip = False
            continue
        if re.fullmatch(r"\d?[<>]{1,2}", t):
            skip = True                 # "> file": the file goes too
            continue
        if re.match(r"\d?[<>]", t):
            continue                    # ">file"
        while t.startswith("../"):
            t = t[3:]
        t = t.replace("=../../../", "=").replace("=../../", "=").replace("=../", "=")
        out.append(t)
    return out

def strata_args(cmd):
    lex = shlex.shlex(cmd, posix=True, punctuation_chars="|&;")
    lex.whitespace_split = True
    toks = list(lex)
    stages, cur = [], []
    for t in toks:
        if t in ("|", "||", "&&", ";"):
            stages.append(cur)
            cur = []
        else:
            cur.append(t)
    stages.append(cur)
    for st in stages:
        if st and st[0] == "strata":
            return norm(st[1:])
    return None

examples = []
for page in sorted(glob.glob(os.path.join(mandir, "*.[1-9]"))):
    lines = open(page, encoding="utf-8").read().split("\n")
    lit = False
    i = 0
    while i < len(lines):
        l = lines[i]
        if l.startswith(".Bd -literal"):
            lit = True
        elif l.startswith(".Ed"):
            lit = False
        elif lit and l.startswith("$ "):
            cmd = unescape(l[2:])
            while (cmd.endswith("\\") or cmd.rstrip().endswith("|") or
                   not balanced(cmd)) and i + 1 < len(lines) and lines[i + 1] != ".Ed":
                i += 1
                cmd = (cmd[:-1] if cmd.endswith("\\") else cmd) + " " + unescape(lines[i]).strip()
            examples.append((os.path.basename(page), i + 1, cmd))
        i += 1

cases = {}
for a in glob.glob(os.path.join(golden, "*", "args")):
    try:
        cases[tuple(norm(shlex.split(open(a, encoding="utf-8").read())))] = os.path.basename(os.path.dirname(a))
    except ValueError:
        pass

missing = 0
for page, line, cmd in examples:
    args = strata_args(cmd)
    if args is None:
        continue
    if tuple(args) not in cases:
        print("man-examples: %s:%d: no golden case runs: strata %s" % (page, line, " ".join(args)))
        missing += 1
n = sum(1 for e in examples if strata_args(e[2]) is not None)
if missing:
    sys.exit(1)
print("man-examples: ok (%d examples, each a golden case)" % n)
