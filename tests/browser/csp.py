#!/usr/bin/env python3
"""csp.py PAGE...: each inspector page's Content-Security-Policy lets its
one script run by hash, and nothing else: the hash is the SHA-256 of the
script's text, default-src is 'none', and script-src names no
'unsafe-inline'.  Run on the golden pages, so a change to the script in
src/emit/emit_html.c that forgets SCRIPT_SHA256 fails here even where
Chromium is absent."""
import base64, hashlib, re, sys

bad = 0
for path in sys.argv[1:]:
    s = open(path, encoding="utf-8").read()
    csp = re.search(r'<meta http-equiv="Content-Security-Policy" '
                    r'content="([^"]*)">', s)
    scripts = re.findall(r"<script>(.*?)</script>", s, re.S)
    if not csp or len(scripts) != 1:
        print("%s: no policy, or not exactly one script" % path)
        bad += 1
        continue
    policy = dict((d.split(" ", 1) + [""])[:2]
                  for d in csp.group(1).replace("&#39;", "'").split("; "))
    want = "'sha256-%s'" % base64.b64encode(hashlib.sha256(
        scripts[0].encode("utf-8")).digest()).decode()
    if policy.get("default-src") != "'none'":
        print("%s: default-src is %r" % (path, policy.get("default-src")))
        bad += 1
    if policy.get("script-src") != want:
        print("%s: script-src is %r; the script's hash is %s" % (
            path, policy.get("script-src"), want))
        bad += 1
    else:
        print("%s: ok" % path)
sys.exit(1 if bad else 0)
