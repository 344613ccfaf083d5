#!/bin/sh
# stress-tools.sh BIN: big tool definitions come out right, in bounded
# time: one schema of 100,000 properties, all required (listed in reverse
# order, so the prose must look each one up), and 5,000 tools in one
# file, then the same name defined again in a second file.  The output
# is checked line by line against what the definitions say.  meson's
# timeout is the guard against quadratic work (100,000 properties took
# 15 s of CPU when each line searched 'required'); speed is measured by
# bench/.
bin=$1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/prompts"
cat >"$tmp/p.toml" <<'TOML'
[[tools]]
file = "big.json"
[[tools]]
file = "many.json"
[output]
model = "m"
TOML
sed 's/^\[output\]$/[[tools]]\nfile = "again.json"\n[output]/' \
	"$tmp/p.toml" >"$tmp/dup.toml"
python3 - "$tmp/prompts" <<'PY' || exit 1
import json, sys
d = sys.argv[1]
n = 100000
props = {"p%d" % i: {"type": "string", "description": "value %d" % i}
         for i in range(n)}
with open(d + "/big.json", "w") as f:
    json.dump({"name": "big", "description": "Many parameters.",
               "parameters": {"type": "object", "properties": props,
                              "required": list(reversed(list(props)))}}, f)
with open(d + "/many.json", "w") as f:
    json.dump([{"name": "t%d" % i, "description": "Tool %d." % i}
               for i in range(5000)], f)
with open(d + "/again.json", "w") as f:
    json.dump({"name": "t4999", "description": "Again."}, f)
PY
fail=0
"$bin" build "$tmp/p.toml" -u hi >"$tmp/out" 2>"$tmp/err"
st=$?
if [ $st -ne 0 ]; then
	echo "stress-tools: build: exit $st"; head -c 2000 "$tmp/err"; fail=1
elif ! python3 - "$tmp/out" <<'PY'; then
import json, sys
body = json.load(open(sys.argv[1]))
want = ["You can call the following tools.", "", "### big",
        "Many parameters.", "Parameters:"]
want += ["- p%d (string, required): value %d" % (i, i)
         for i in range(100000)]
for i in range(5000):
    want += ["", "### t%d" % i, "Tool %d." % i, "Parameters: none."]
system = body["messages"][0]["content"]
got = system[system.index("You can call"):].split("\n")
if got != want:
    bad = next(i for i, (g, w) in enumerate(zip(got + [None], want + [None]))
               if g != w)
    sys.exit("stress-tools: prose line %d: got %r, want %r"
             % (bad + 1, (got + [None])[bad], (want + [None])[bad]))
tools = body["tools"]
names = [t["function"]["name"] for t in tools]
if names != ["big"] + ["t%d" % i for i in range(5000)]:
    sys.exit("stress-tools: the tools are not in definition order")
params = tools[0]["function"]["parameters"]
if len(params["properties"]) != 100000 or len(params["required"]) != 100000:
    sys.exit("stress-tools: the big schema lost properties")
PY
	fail=1
else
	echo "stress-tools: 100,000 required properties and 5,000 tools: ok"
fi
"$bin" build "$tmp/dup.toml" -u hi >"$tmp/out" 2>"$tmp/err"
st=$?
if [ $st -ne 1 ] || [ -s "$tmp/out" ] ||
    ! grep -q "again.json:1:10: error: tool 't4999' is defined twice" "$tmp/err" ||
    ! grep -q "many.json:.*note: first defined here" "$tmp/err"; then
	echo "stress-tools: a name defined twice: exit $st, stderr:"
	head -c 2000 "$tmp/err"; fail=1
else
	echo "stress-tools: a name defined twice among 5,000: ok"
fi
exit $fail
