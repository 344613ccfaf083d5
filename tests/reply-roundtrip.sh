#!/bin/sh
# reply-roundtrip.sh BIN GOLDEN SHARED: per provider, build -> a canned
# streamed reply (GOLDEN/reply-stream-P/stdin) -> reply --session ->
# the tool results -> build again; and the same through -H with the
# line `strata reply` prints.  The second body must send back what that
# provider requires of the reply, exactly as the whole body
# (GOLDEN/reply-body-P/stdin) gave it: Anthropic's signed thinking blocks
# before the tool calls, the Responses reasoning item before the turn's
# items, Gemini's parts with their thought signatures, Ollama's thinking;
# Chat Completions never gets reasoning back.  The bodies are checked
# with the providers' schemas when SHARED/api-schemas can run.
set -u
bin=$1
golden=$2
shared=$3
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
case $golden in /*) ;; *) golden=$(pwd)/$golden ;; esac
case $shared in /*) ;; *) shared=$(pwd)/$shared ;; esac
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
export LC_ALL=C.UTF-8 TZ=UTC NO_COLOR=1
status=0
fail() { echo "reply-roundtrip: $*"; status=1; }
now="--now 2026-01-01T00:00:00Z"
checked=0
validator=
if [ -f "$shared/api-schemas/validate" ] && command -v node >/dev/null &&
    [ -d "$shared/api-schemas/node_modules" ]; then
	validator=yes
fi
check_schema() {        # provider file
	[ -n "$validator" ] || return 0
	case $1 in
	ollama) node "$golden/../ollama/validate.js" \
	    "$shared/api-schemas/node_modules" "$2" >/dev/null 2>&1 ;;
	responses) node "$shared/api-schemas/validate" --strict \
	    openai-responses "$2" >/dev/null 2>&1 ;;
	*) node "$shared/api-schemas/validate" --strict "$1" "$2" \
	    >/dev/null 2>&1 ;;
	esac && checked=$((checked + 1)) ||
	    fail "$1: $2 is not valid against the schema"
}
for p in openai responses anthropic gemini ollama; do
	mkdir "$p" && cd "$p" || exit 1
	printf '[output]\nmodel = "m"\nformat = "%s"\n' "$p" >p.toml
	stream=$golden/reply-stream-$p/stdin
	body=$golden/reply-body-$p/stdin
	case $p in
	gemini) stream=$golden/reply-stream-gemini-sse/stdin ;;
	ollama) body=$golden/reply-body-ollama-chat/stdin ;;
	esac
	case $p in
	openai) ids="call_a call_b" ;;
	responses) ids="call_a" ;;
	anthropic) ids="toolu_1" ;;
	*) ids="call_1" ;;
	esac
	# Through a session.
	"$bin" session s.jsonl new $now || fail "$p: session new"
	"$bin" build p.toml --session s.jsonl -u "Weather in Paris?" $now \
	    >req1.json || fail "$p: first build"
	check_schema $p req1.json
	"$bin" reply --session s.jsonl $now \
	    <"$stream" || fail "$p: reply --session"
	for id in $ids; do
		"$bin" session s.jsonl tool-result $id "18 C" $now ||
		    fail "$p: tool-result $id"
	done
	"$bin" build p.toml --session s.jsonl $now >req2.json 2>err ||
	    fail "$p: second build: $(cat err)"
	check_schema $p req2.json
	# Through -H, with the line strata reply prints.
	"$bin" reply <"$stream" >line.json ||
	    fail "$p: reply"
	python3 - "$p" "$ids" >h.json <<'PY'
import json, sys
p, ids = sys.argv[1], sys.argv[2].split()
h = [{"role": "user", "content": "Weather in Paris?"},
     json.loads(open("line.json").read())]
h += [{"role": "tool", "tool_call_id": i, "content": "18 C"} for i in ids]
print(json.dumps(h, indent=1))
PY
	"$bin" build p.toml -H h.json >req3.json 2>err ||
	    fail "$p: build -H: $(cat err)"
	cmp -s req2.json req3.json ||
	    fail "$p: the -H body differs from the session's"
	python3 - "$p" "$body" <<'PY' || status=1
import json, sys
p, body = sys.argv[1], json.load(open(sys.argv[2]))
req = json.load(open("req2.json"))
def die(why):
    sys.exit("reply-roundtrip: %s: %s" % (p, why))
if p == "openai":
    text = json.dumps(req)
    if "reasoning" in text:
        die("reasoning went back to Chat Completions")
    a = req["messages"][1]
    want = body["choices"][0]["message"]["tool_calls"]
    if a["tool_calls"] != want:
        die("tool calls differ: %r" % a["tool_calls"])
elif p == "anthropic":
    a = req["messages"][1]
    want = [b for b in body["content"]
            if b["type"] in ("thinking", "redacted_thinking")]
    if a["content"][:len(want)] != want:
        die("the signed thinking blocks are not first: %r" % a["content"])
    if [b["type"] for b in a["content"][len(want):]] != ["text", "tool_use"]:
        die("text and tool_use do not follow the thinking")
elif p == "responses":
    # The reasoning item and the items it pairs with (by their ids), as
    # the API returned them, then the call's output.
    items = req["input"]
    want = body["output"]
    if items[1:1 + len(want)] != want:
        die("the reply's items are not sent back as they came: %r" % items)
    kinds = [o["type"] for o in items[1 + len(want):]]
    if kinds != ["function_call_output"]:
        die("items after the reply's: %r" % kinds)
elif p == "gemini":
    got = req["contents"][1]["parts"]
    want = body["candidates"][0]["content"]["parts"]
    if got != want:
        die("the parts with their signatures differ: %r" % got)
elif p == "ollama":
    a = req["messages"][1]
    if a.get("thinking") != "Paris, then.":
        die("no thinking on the assistant message: %r" % a)
    if a["tool_calls"][0]["function"]["arguments"] != {"city": "Paris"}:
        die("tool calls differ")
    if req["messages"][2].get("tool_name") != "get_weather":
        die("the tool result has no tool_name")
print("reply-roundtrip: %s: reasoning and tool calls sent back as it requires" % p)
PY
	cd ..
done
# A reply cut at max tokens: a warning, and the session says so.
for f in openai-length anthropic-max-tokens gemini-max-tokens ollama-length \
    responses-incomplete; do
	rm -f cut.jsonl
	"$bin" session cut.jsonl new $now || fail "cut: session new"
	"$bin" build openai/p.toml --session cut.jsonl -u "Tell a story" \
	    $now >/dev/null || fail "cut: build"
	"$bin" reply --session cut.jsonl $now <"$golden/reply-body-$f/stdin" \
	    2>err || fail "$f: reply --session refused a cut reply"
	grep -q 'warning: the reply was cut short' err ||
	    fail "$f: no warning: $(cat err)"
	"$bin" session cut.jsonl show >show.txt || fail "$f: show"
	grep -q '^\[2\] Assistant (assistant, cut short: ' show.txt ||
	    fail "$f: session show does not say the reply was cut: $(cat show.txt)"
done
echo "reply-roundtrip: cut replies stored with a warning, and session show says so"
# What is not a reply leaves the session as it was.
cp cut.jsonl before.jsonl
for d in "$golden"/reply-err-*/; do
	[ -f "$d/stdin" ] || continue
	"$bin" reply --session cut.jsonl $(sed 's/^reply//' "$d/args") $now \
	    <"$d/stdin" 2>/dev/null && fail "$d: reply --session accepted it"
	cmp -s cut.jsonl before.jsonl || fail "$d: the session changed"
done
echo "reply-roundtrip: no error input changed the session"
if [ -n "$validator" ]; then
	echo "reply-roundtrip: $checked bodies valid against the schemas"
else
	echo "reply-roundtrip: schemas not checked (node or ../shared/api-schemas/node_modules absent)"
fi
exit $status
