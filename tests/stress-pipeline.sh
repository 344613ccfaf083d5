#!/bin/sh
# stress-pipeline.sh BIN: the pipeline's scaling cases, at sizes a debug
# build runs in seconds, each checked for the right output, not only for
# finishing: many [vars] (unused, then each used once), many -c against
# as many [[context]], a long history.  Each row must also finish within
# $limit seconds: linear work takes well under one here even on a debug
# or sanitizer build, the old quadratic loops took 10-30 s on a release
# build.  tests/bench/ measures the issue's full sizes.
bin=$1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
n=50000
limit=${STRESS_LIMIT:-20}
python3 - "$tmp" "$n" <<'PY' || exit 1
import json, os, sys
d, n = sys.argv[1], int(sys.argv[2])
os.mkdir(d + "/prompts")
with open(d + "/vars.toml", "w") as f:
    f.write('[output]\nmodel = "m"\n[vars]\n')
    f.writelines('v%d = "value %d"\n' % (i, i) for i in range(n))
with open(d + "/used.toml", "w") as f:
    f.write('[prompt]\npersona = "used.md"\n[output]\nmodel = "m"\n[vars]\n')
    f.writelines('v%d = "x%d"\n' % (i, i) for i in range(n))
with open(d + "/prompts/used.md", "w") as f:
    f.writelines("{{v%d}}\n" % i for i in range(n))
with open(d + "/used.want", "w") as f:
    f.write("\n".join("x%d" % i for i in range(n)))
with open(d + "/ctx.toml", "w") as f:
    f.write('[output]\nmodel = "m"\n')
    f.writelines('[[context]]\nname = "c%d"\n' % i for i in range(n // 4))
with open(d + "/ctx.args", "w") as f:
    f.writelines("-c\nc%d=%s/c%d.txt\n" % (i, d, i % 7) for i in range(n // 4))
for i in range(7):
    with open(d + "/c%d.txt" % i, "w") as f:
        f.write("content %d\n" % i)
with open(d + "/ctx.want", "w") as f:
    f.write("\n\n".join("[c%d context]\ncontent %d\n[/c%d context]" % (i, i % 7, i)
                        for i in range(n // 4)) + "\n\nhi")
with open(d + "/h.json", "w") as f:
    json.dump([{"role": "user" if i % 2 == 0 else "assistant",
                "content": "message %d" % i} for i in range(4 * n)], f)
with open(d + "/pick.toml", "w") as f:
    f.write('[prompt]\npersona = "pick.md"\n[output]\nmodel = "m"\n')
with open(d + "/prompts/pick.md", "w") as f:
    f.write("{{pick::a::b}}" * (n // 2))
PY
fail=0
start=$(date +%s)
ok() {
	secs=$(($(date +%s) - start))
	if [ $secs -gt "$limit" ]; then
		echo "stress-pipeline: $1: right, but took $secs s"; fail=1
	else
		echo "stress-pipeline: $1: ok ($secs s)"
	fi
	start=$(date +%s)
}
bad() {
	echo "stress-pipeline: $1: $2"; head -c 2000 "$tmp/err"; fail=1
	start=$(date +%s)
}
content() {      # content N: the N-th message's content of -f messages
	python3 -c 'import json,sys; m=json.load(open(sys.argv[1]))
sys.stdout.write(m[int(sys.argv[2])]["content"])' "$tmp/out" "$1"
}

what="$n unused [vars], build"
if "$bin" build "$tmp/vars.toml" -u hi -f messages >"$tmp/out" 2>"$tmp/err" &&
    [ "$(content 0)" = hi ]; then ok "$what"; else bad "$what" "wrong output"; fi

what="$n unused [vars], check"
# Every variable is unused; the first 50 warnings are shown, in order.
"$bin" check "$tmp/vars.toml" >"$tmp/out" 2>"$tmp/err"
st=$?
w=$(grep -c "warning: variable 'v[0-9]*' is not used" "$tmp/err")
last=$(grep "warning:" "$tmp/err" | tail -n 1)
if [ $st -eq 0 ] && [ "$w" -eq 50 ] &&
    case $last in *"'v49'"*) true;; *) false;; esac &&
    grep -q "more than 50 messages" "$tmp/err"
then ok "$what"; else bad "$what" "status $st, $w warnings, last: $last"; fi

what="$n [vars] each used once"
if "$bin" build "$tmp/used.toml" -u hi -f messages >"$tmp/out" 2>"$tmp/err" &&
    content 0 >"$tmp/got" && cmp -s "$tmp/got" "$tmp/used.want"
then ok "$what"; else bad "$what" "wrong system prompt"; fi

what="$((n / 4)) -c against as many [[context]]"
# shellcheck disable=SC2046
if (IFS='
'; exec "$bin" build "$tmp/ctx.toml" -u hi -f messages $(cat "$tmp/ctx.args")) \
    >"$tmp/out" 2>"$tmp/err" && content 0 >"$tmp/got" &&
    cmp -s "$tmp/got" "$tmp/ctx.want"
then ok "$what"; else bad "$what" "wrong user turn"; fi

what="$((4 * n))-message history"
if "$bin" build "$tmp/vars.toml" -u hi -H "$tmp/h.json" -f messages \
    >"$tmp/out" 2>"$tmp/err" &&
    [ "$(python3 -c 'import json,sys; m=json.load(open(sys.argv[1]))
print(len(m), m[-2]["content"], m[-1]["content"])' "$tmp/out")" = \
    "$((4 * n + 1)) message $((4 * n - 1)) hi" ]
then ok "$what"; else bad "$what" "wrong messages"; fi
what="$((n / 2)) {{pick}} in one text"
# Each pick is seeded by the text's hash and its own offset, which the
# engine must not recount from the start for every one.
if "$bin" build "$tmp/pick.toml" -u hi -f messages --seed 7 >"$tmp/out" \
    2>"$tmp/err" && content 0 >"$tmp/got" &&
    [ "$(tr -d ab <"$tmp/got" | wc -c)" -eq 0 ] &&
    [ "$(wc -c <"$tmp/got")" -eq $((n / 2)) ] &&
    grep -q a "$tmp/got" && grep -q b "$tmp/got"
then ok "$what"; else bad "$what" "wrong picks"; fi
exit $fail
