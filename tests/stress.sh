#!/bin/sh
# stress.sh BIN: big and hostile inputs still work (or fail cleanly) in
# bounded time: a 50 MB context file, a 100,000-message history, a 10 MB
# single-line user message, a history nested 100,000 deep.  meson's
# timeout is the guard against a hang; speed is measured by bench/.
bin=$1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/p.toml" <<'TOML'
[[context]]
name = "memory"
[output]
model = "m"
TOML
python3 - "$tmp" <<'PY' || exit 1
import json, sys
d = sys.argv[1]
line = "remembered: the quick brown fox jumps over the lazy dog 敏捷的狐狸\n"
with open(d + "/ctx.txt", "w") as f:
    f.write(line * (50 * 1024 * 1024 // len(line.encode())))
with open(d + "/h.json", "w") as f:
    json.dump([{"role": "user" if i % 2 == 0 else "assistant",
                "content": "message %d" % i} for i in range(100000)], f)
with open(d + "/deep.json", "w") as f:
    f.write("[" * 100000 + "]" * 100000)
with open(d + "/long.txt", "w") as f:
    f.write("x" * (10 * 1024 * 1024))
PY
fail=0
check() {        # check WHAT EXPECTED-STATUS CMD...
	what=$1 want=$2
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	st=$?
	if [ $st -ne "$want" ]; then
		echo "stress: $what: exit $st, expected $want"; head -c 2000 "$tmp/err"; fail=1
	elif [ "$want" -ne 0 ] && [ -s "$tmp/out" ]; then
		echo "stress: $what: failed but wrote to stdout"; fail=1
	else
		echo "stress: $what: ok ($(wc -c <"$tmp/out") bytes out)"
	fi
}
check "50 MB context" 0 "$bin" build "$tmp/p.toml" -u hi -c memory="$tmp/ctx.txt"
check "100,000-message history" 0 "$bin" build "$tmp/p.toml" -u hi -H "$tmp/h.json" -f anthropic
check "10 MB user message" 0 "$bin" build "$tmp/p.toml" -u - -f gemini <"$tmp/long.txt"
check "history nested 100,000 deep" 1 "$bin" build "$tmp/p.toml" -u hi -H "$tmp/deep.json"
check "debug of the big history" 0 "$bin" debug "$tmp/p.toml" -u hi -H "$tmp/h.json"
exit $fail
