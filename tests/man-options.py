#!/usr/bin/env python3
"""man-options.py BIN STRATA1: every option of every command's --help
(`strata help COMMAND`) is documented in strata(1): a long option as
`Fl \\-name` (or `| \\-name` inside an .Op), a short one as `Fl x`."""
import re, subprocess, sys

bin_, page = sys.argv[1], sys.argv[2]
man = open(page, encoding="utf-8").read().replace("\\-", "-")
over = subprocess.run([bin_, "--help"], capture_output=True, text=True).stdout
cmds = re.findall(r"^  ([a-z]+) ", over, re.M)
opt_re = re.compile(r"(?:^|[\]\[ ,|(])(-(?:-[a-z][a-z-]*|[A-Za-z]))(?=[\] ,=|)]|$)", re.M)
missing = []
for c in cmds:
    if c == "help":
        continue
    text = subprocess.run([bin_, "help", c], capture_output=True, text=True).stdout
    for o in sorted(set(opt_re.findall(text))):
        if o.startswith("--"):
            pat = r"(?:Fl |\| )" + re.escape(o[1:]) + r"(?![a-z-])"
        else:
            pat = r"Fl " + re.escape(o[1:]) + r"(?![A-Za-z])"
        if not re.search(pat, man):
            missing.append("%s %s" % (c, o))
    if not re.search(r"^\.Cm %s\b" % re.escape(c), man, re.M):
        missing.append("%s: not in the SYNOPSIS (.Cm %s)" % (c, c))
if missing:
    print("man-options: strata(1) does not document:")
    for m in missing:
        print("  " + m)
    sys.exit(1)
print("man-options: ok (%d commands)" % len(cmds))
