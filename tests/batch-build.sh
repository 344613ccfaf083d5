#!/bin/sh
# batch-build.sh BIN ROOT: every line of a mixed strata batch input builds
# exactly as strata build builds the same inputs given as options: -i
# with @depth/role/priority attributes and plain KEY=TEXT (priority 100,
# as build gives it), contexts, variables and a history, for a plain
# profile and for a profile with a [tavern] table (the SillyTavern
# build, with the profile's own entries among the preset's prompts, and
# a line's history as the chat, as -H gives it, not the card's greeting)
# and for agent profiles (the user's message through its template, the
# first-turn instructions only without a history; an [agent] layout,
# which reads the turn).
# Then the custom_id rules, --id-prefix, --shard and -o with
# --split-requests / --split-bytes.
set -u
bin=$1
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
root=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "batch-build: $*"; exit 1; }
command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3"; exit 77; }

plain=$root/profiles/companion.toml
tavern=$root/tests/golden/tavern-own-openai/profile.toml
tavern2=$root/tests/golden/tavern-profile/profile.toml
agent=$root/tests/golden/agent-first-turn/bot.toml
agent2=$root/tests/golden/agent-default-planner-en/p.toml

# The lines, and for each the build options that say the same.
python3 - "$tmp" <<'PY' || fail "cannot write the inputs"
import json, os, sys
tmp = sys.argv[1]
hist = [{"role": "user", "content": "Where were we?"},
        {"role": "assistant", "content": "At the harbour."},
        {"role": "user", "content": "And then?"},
        {"role": "assistant", "content": "The bell rang."}]
lines = [
    {"id": "plain", "user": "Hello"},
    {"id": "inject-plain", "user": "Hi", "inject": ["turn.note=Be brief."]},
    {"id": "inject-depth", "user": "Hi", "history": hist,
     "inject": ["note@depth=1:role=user=Psst"]},
    {"id": "inject-priority", "user": "Hi",
     "inject": ["first@priority=5=Read this first.", "last@priority=900=And this last."]},
    {"id": "ctx-vars", "user": "Hi", "vars": {"user": "Ann"},
     "context": {"memory": "Ann likes tea."}},
]
with open(os.path.join(tmp, "plain.jsonl"), "w") as f:
    for l in lines:
        f.write(json.dumps(l, ensure_ascii=False) + "\n")
tav = [
    {"id": "t-plain", "user": "Hello"},
    {"id": "t-inject", "user": "Hello", "inject": ["note@depth=2:role=user=Whisper."]},
    {"id": "t-inject-system", "user": "Hello", "inject": ["turn.aside=Mind the fog."]},
    {"id": "t-memory", "user": "Hello", "context": {"memory": "Quinn fears the sea."}},
    {"id": "t-history", "user": "What now?", "history": hist},
    {"id": "t-history-inject", "user": "What now?", "history": hist[:2],
     "inject": ["note@depth=1:role=system=The fog lifts."]},
    {"id": "t-history-system", "user": "What now?",
     "history": [{"role": "system", "content": "A storm is coming."}] + hist[:2]},
]
with open(os.path.join(tmp, "tavern.jsonl"), "w") as f:
    for l in tav:
        f.write(json.dumps(l, ensure_ascii=False) + "\n")
tav2 = [
    {"id": "p-plain", "user": "Hello"},
    {"id": "p-history", "user": "What now?", "history": hist},
]
with open(os.path.join(tmp, "tavern2.jsonl"), "w") as f:
    for l in tav2:
        f.write(json.dumps(l, ensure_ascii=False) + "\n")
agent = [
    {"id": "a-first", "user": "fix the login timeout"},
    {"id": "a-resume", "user": "and the retry?", "history": hist[:2]},
]
with open(os.path.join(tmp, "agent.jsonl"), "w") as f:
    for l in agent:
        f.write(json.dumps(l, ensure_ascii=False) + "\n")
with open(os.path.join(tmp, "agent2.jsonl"), "w") as f:
    for l in agent:
        f.write(json.dumps(l, ensure_ascii=False) + "\n")
# One shell script per line with the same inputs as build options.
for name, ls in (("plain", lines), ("tavern", tav), ("tavern2", tav2),
                 ("agent", agent), ("agent2", agent)):
    with open(os.path.join(tmp, name + ".cmds"), "w") as f:
        for i, l in enumerate(ls):
            args = ["-u", l["user"], "-f", "openai", "-s", "output.model=m"]
            if "history" in l:
                p = os.path.join(tmp, "%s-%d.hist.json" % (name, i))
                json.dump(l["history"], open(p, "w"))
                args += ["-H", p]
            for k, v in l.get("context", {}).items():
                p = os.path.join(tmp, "%s-%d.%s.txt" % (name, i, k))
                open(p, "w").write(v)
                args += ["-c", "%s=%s" % (k, p)]
            for k, v in l.get("vars", {}).items():
                args += ["-v", "%s=%s" % (k, v)]
            for s in l.get("inject", []):
                args += ["-i", s]
            f.write("\x1f".join(args) + "\n")
PY

for kind in plain tavern tavern2 agent agent2; do
	eval "profile=\$$kind"
	"$bin" batch "$profile" "$tmp/$kind.jsonl" -f openai -s output.model=m >"$tmp/$kind.out" 2>"$tmp/$kind.err" ||
		{ cat "$tmp/$kind.err"; fail "$kind: batch failed"; }
	n=0
	while IFS= read -r cmd; do
		n=$((n + 1))
		# The arguments, separated by US (0x1f), back into "$@".
		printf '%s\n' "$cmd" | tr '\037' '\n' >"$tmp/argv"
		set --
		while IFS= read -r a; do set -- "$@" "$a"; done <"$tmp/argv"
		"$bin" build "$profile" "$@" >"$tmp/build.$n" 2>"$tmp/build.err" ||
			{ cat "$tmp/build.err"; fail "$kind line $n: build failed"; }
	done <"$tmp/$kind.cmds"
	[ "$n" -eq "$(wc -l <"$tmp/$kind.out")" ] || fail "$kind: $n builds, $(wc -l <"$tmp/$kind.out") batch lines"
	python3 - "$tmp" "$kind" <<'PY' || fail "$kind: batch builds another body than build"
import json, sys
tmp, kind = sys.argv[1], sys.argv[2]
for n, line in enumerate(open("%s/%s.out" % (tmp, kind)), 1):
    a = json.load(open("%s/build.%d" % (tmp, n)))
    b = json.loads(line)
    if a != b:
        print("line %d: build" % n)
        print(json.dumps(a, indent=1, ensure_ascii=False)[:3000])
        print("--- batch:")
        print(json.dumps(b, indent=1, ensure_ascii=False)[:3000])
        sys.exit(1)
PY
done
# The plain -i lands where build puts it (priority 100): not first.
grep -q '"content":"Be brief\.' "$tmp/plain.out" && fail "turn.note is at the top of the system prompt"
# The tavern lines are whole SillyTavern requests, not the bare message.
[ "$(sed -n 1p "$tmp/tavern.out" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["messages"]))')" -gt 2 ] ||
	fail "a [tavern] profile built as the bare user message"
# A line's history is the chat: its messages are sent, the card's
# greeting is not.
for kind in tavern tavern2; do
	grep -q '"content":"At the harbour\."' "$tmp/$kind.out" ||
		fail "$kind: a line's history is not sent"
done

# custom_id: unique in a run, Anthropic's pattern, --id-prefix.
printf '%s\n' '{"id":"a","user":"x"}' '{"id":"a","user":"y"}' \
	'{"id":"has space","user":"x"}' '{"id":"dot.ted","user":"x"}' \
	"{\"id\":\"$(printf 'x%.0s' $(seq 65))\",\"user\":\"x\"}" \
	'{"user":"no id"}' >"$tmp/ids.jsonl"
"$bin" batch "$plain" "$tmp/ids.jsonl" -f anthropic-batch >"$tmp/ids.out" 2>"$tmp/ids.err"
[ $? -eq 1 ] || fail "bad ids: exit status is not 1"
[ "$(wc -l <"$tmp/ids.out")" -eq 2 ] || fail "bad ids: $(wc -l <"$tmp/ids.out") lines, expected 2"
grep -q "custom_id 'a' is already the id of line 1" "$tmp/ids.err" || fail "duplicate id passes"
[ "$(grep -c 'is not one the Anthropic Message Batches API takes' "$tmp/ids.err")" -eq 3 ] ||
	fail "ids Anthropic refuses pass: $(cat "$tmp/ids.err")"
"$bin" batch "$plain" "$tmp/ids.jsonl" 2>/dev/null | python3 -c '
import json, sys
ids = [json.loads(l)["custom_id"] for l in sys.stdin]
assert ids == ["a", "has space", "dot.ted", "x" * 65, "line-6"], ids' ||
	fail "openai-batch: the ids OpenAI takes are not kept"
"$bin" batch "$plain" "$tmp/plain.jsonl" --id-prefix run7- | python3 -c '
import json, sys
ids = [json.loads(l)["custom_id"] for l in sys.stdin]
assert ids == ["run7-plain", "run7-inject-plain", "run7-inject-depth", "run7-inject-priority", "run7-ctx-vars"], ids' ||
	fail "--id-prefix"

# --shard K/N: lines without ids get ids unique across shards, and the
# shards together are one run.
python3 -c '
for i in range(1, 31):
    print("{\"user\": \"Hello %d\"}" % i)' >"$tmp/noid.jsonl"
"$bin" batch "$plain" "$tmp/noid.jsonl" >"$tmp/one" || fail "no-id run"
for k in 1 2 3; do
	"$bin" batch "$plain" "$tmp/noid.jsonl" --shard $k/3 >"$tmp/shard.$k" || fail "--shard $k/3"
done
[ "$(wc -l <"$tmp/shard.1")" -eq 10 ] || fail "--shard 1/3 is not a third"
cat "$tmp/shard.1" "$tmp/shard.2" "$tmp/shard.3" | sort >"$tmp/shards"
sort "$tmp/one" | cmp -s - "$tmp/shards" || fail "the shards together are not one run"
python3 -c '
import json, sys
ids = [json.loads(l)["custom_id"] for l in open(sys.argv[1])]
assert len(set(ids)) == 30, ids' "$tmp/shards" || fail "ids repeat across shards"
# A given id never equals the id made for another line, in any shard:
# made ids are line-N, and a given line-N is refused but on line N.
printf '%s\n' '{"id":"2","user":"a"}' '{"user":"b"}' '{"id":"line-1","user":"c"}' \
	'{"id":"line-4","user":"d"}' '{"id":"line-05","user":"e"}' >"$tmp/clash.jsonl"
for k in 1 2; do
	"$bin" batch "$plain" "$tmp/clash.jsonl" --shard $k/2 >"$tmp/clash.$k" 2>"$tmp/clash.err.$k"
done
cat "$tmp/clash.1" "$tmp/clash.2" | python3 -c '
import json, sys
ids = sorted(json.loads(l)["custom_id"] for l in sys.stdin)
assert ids == ["2", "line-2", "line-4"], ids' || fail "ids clash across shards"
grep -q "custom_id 'line-1' has the form line-N" "$tmp/clash.err.1" ||
	fail "a given id of another line's made form passes"
grep -q "custom_id 'line-05' has the form line-N" "$tmp/clash.err.1" ||
	fail "line-05 passes"
for bad in 0/3 4/3 1/0 x 1/ /3; do
	"$bin" batch "$plain" "$tmp/noid.jsonl" --shard "$bad" >/dev/null 2>&1
	[ $? -eq 2 ] || fail "--shard $bad is not a usage error"
done

# -o with --split-requests / --split-bytes: numbered files, within the
# limits, the same lines as one run, no part file left.
(cd "$tmp" && "$bin" batch "$plain" noid.jsonl -o part --split-requests 7 >list) ||
	fail "--split-requests"
[ "$(cat "$tmp/list" | wc -l)" -eq 5 ] || fail "--split-requests 7 of 30: $(cat "$tmp/list")"
[ "$(wc -l <"$tmp/part-001.jsonl")" -eq 7 ] || fail "part-001 does not hold 7"
[ "$(wc -l <"$tmp/part-005.jsonl")" -eq 2 ] || fail "part-005 does not hold 2"
cat "$tmp"/part-0*.jsonl | cmp -s - "$tmp/one" || fail "the files together are not one run"
ls "$tmp"/*.part >/dev/null 2>&1 && fail "a part file is left"
line=$(head -1 "$tmp/one" | wc -c)
(cd "$tmp" && "$bin" batch "$plain" noid.jsonl -o bytes --split-bytes $((line * 4)) >/dev/null) ||
	fail "--split-bytes"
for f in "$tmp"/bytes-*.jsonl; do
	[ "$(wc -c <"$f")" -le $((line * 4)) ] || fail "$f is over --split-bytes"
done
cat "$tmp"/bytes-*.jsonl | cmp -s - "$tmp/one" || fail "--split-bytes: not one run"
"$bin" batch "$plain" noid.jsonl --split-requests 5 >/dev/null 2>&1
[ $? -eq 2 ] || fail "--split-requests without -o is not a usage error"
"$bin" batch "$plain" noid.jsonl -o x --split-requests 50001 >/dev/null 2>&1
[ $? -eq 2 ] || fail "--split-requests over OpenAI's 50,000 is not refused"
"$bin" batch "$plain" noid.jsonl -f anthropic-batch -o x --split-bytes 257MB >/dev/null 2>&1
[ $? -eq 2 ] || fail "--split-bytes over Anthropic's 256 MB is not refused"
echo "batch-build: ok"
