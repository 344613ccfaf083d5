#!/bin/sh
# roundtrip.sh GOLDEN: a history given in a provider's own shape comes
# back from that provider's format byte for byte.  Each case
# GOLDEN/roundtrip-PROVIDER holds h.json (the history, as strata prints
# JSON) and expect.out (the body built from it, checked by golden.sh);
# here the body's messages (contents for Gemini) must be h.json itself.
set -u
golden=$1
status=0
for p in openai anthropic gemini; do
	dir=$golden/roundtrip-$p
	python3 - "$dir" <<'PY' || status=1
import sys
d = sys.argv[1]
body = open(d + "/expect.out", encoding="utf-8").read()
want = open(d + "/h.json", encoding="utf-8").read()
key = '\n  "contents": ' if d.endswith("gemini") else '\n  "messages": '
at = body.find(key)
if at < 0:
    sys.exit("roundtrip: %s: no %s in the body" % (d, key.strip()))
# The array runs to the line "  ]" at the body's first level.
start = at + len(key)
end = body.find("\n  ]", start) + len("\n  ]")
got = "\n".join(l[2:] if l.startswith("  ") else l
                for l in body[start:end].split("\n")) + "\n"
if got != want:
    sys.exit("roundtrip: %s: the body's history differs from h.json" % d)
print("roundtrip: %s: the history came back byte for byte" % d)
PY
done
exit $status
