#!/bin/sh
# session-turns.sh BIN: conversations through build --session and
# reply --session.
#
#  1. 20 turns, each `build --session -u` then `reply --session` with a
#     canned response body, the provider going round openai, anthropic,
#     gemini and responses: every request has one system message, the
#     same each turn, then exactly the conversation so far; the session
#     file never holds the system prompt and ends with 40 messages and
#     20 turns;
#  2. --dry-run, debug and a failed build write nothing;
#  3. --type regenerate rebuilds the last turn without a new message and
#     reply --swipe replaces its reply;
#  4. first_turn and turn reach the templates.
set -u
bin=$1
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "session-turns: $*"; exit 1; }
cd "$tmp" || exit 1
now=--now=2026-11-23T10:00:00Z

body() {        # body PROVIDER TEXT: a response body as PROVIDER sends it
	case $1 in
	openai) printf '{"choices":[{"message":{"role":"assistant","content":"%s"}}]}' "$2" ;;
	anthropic) printf '{"type":"message","role":"assistant","content":[{"type":"text","text":"%s"}]}' "$2" ;;
	gemini) printf '{"candidates":[{"content":{"role":"model","parts":[{"text":"%s"}]}}]}' "$2" ;;
	responses) printf '{"object":"response","output":[{"type":"message","role":"assistant","content":[{"type":"output_text","text":"%s"}]}]}' "$2" ;;
	esac
}
system_of() {   # the system message's content line of a request
	sed -n '/"role": "system"/{n;p;}' "$1"
}

# 1. Twenty turns.
i=1
for p in openai anthropic gemini responses openai anthropic gemini \
    responses openai anthropic gemini responses openai anthropic gemini \
    responses openai anthropic gemini responses; do
	"$bin" build --session s.jsonl -u "question $i" $now >req.json ||
	    fail "turn $i: build failed"
	[ "$(grep -c '"role": "system"' req.json)" -eq 1 ] ||
	    fail "turn $i: not one system message"
	[ "$(grep -c '"role": "user"' req.json)" -eq $i ] ||
	    fail "turn $i: $(grep -c '"role": "user"' req.json) user messages"
	[ "$(grep -c '"role": "assistant"' req.json)" -eq $((i - 1)) ] ||
	    fail "turn $i: wrong number of assistant messages"
	grep -q "\"content\": \"question $i\"" req.json ||
	    fail "turn $i: the new message is missing"
	if [ $i -eq 1 ]; then
		system_of req.json >first.txt
	else
		system_of req.json | cmp -s - first.txt ||
		    fail "turn $i: the system prompt changed"
	fi
	body $p "answer $i from $p" | "$bin" reply --session s.jsonl $now ||
	    fail "turn $i: reply ($p) failed"
	i=$((i + 1))
done
[ "$(grep -c '"mes"' s.jsonl)" -eq 40 ] || fail "not 40 messages"
grep -q '"turn":20' s.jsonl || fail "the turn counter is not 20"
grep -q 'helpful, honest' s.jsonl && fail "the system prompt was stored"
grep -q '"mes":"answer 20 from responses"' s.jsonl || fail "last reply lost"
echo "session-turns: 20 turns, one unchanging system prompt, never stored"

# 2. Nothing written.
cp s.jsonl before.jsonl
"$bin" build --session s.jsonl -u extra --dry-run >/dev/null ||
    fail "--dry-run failed"
"$bin" debug --session s.jsonl -u extra >/dev/null || fail "debug failed"
"$bin" build --session s.jsonl -u extra -s output.max_tokens=-1 \
    >/dev/null 2>&1 && fail "a bad build succeeded"
cmp -s s.jsonl before.jsonl || fail "a build that must not write wrote"
"$bin" build --session new.jsonl -u extra -s output.max_tokens=-1 \
    >/dev/null 2>&1
[ -e new.jsonl ] && fail "a failed build created its session"
echo "session-turns: --dry-run, debug and failed builds write nothing"

# 3. Regenerate.
"$bin" build --session s.jsonl --type regenerate -f messages >req.json ||
    fail "regenerate failed"
grep -q '"content": "question 20"' req.json || fail "regenerate: no turn"
grep -q 'answer 20' req.json && fail "regenerate: the old reply was sent"
cmp -s s.jsonl before.jsonl || fail "regenerate wrote the session"
body openai "answer 20 again" | "$bin" reply --session s.jsonl --swipe $now ||
    fail "reply --swipe failed"
[ "$(grep -c '"mes"' s.jsonl)" -eq 40 ] || fail "swipe: not 40 messages"
grep -q '"mes":"answer 20 again"' s.jsonl || fail "swipe: reply missing"
echo "session-turns: regenerate rebuilds the last turn, the swipe replaces"

# 4. The turn in templates.
mkdir prompts
echo 'turn {{turn}}, first {{first_turn}}' >prompts/p.md
printf '[prompt]\npersona = "p.md"\n' >p.toml
"$bin" build p.toml --session t.jsonl -u a -f text $now | grep -q \
    'turn 1, first true' || fail "first turn"
body gemini b | "$bin" reply --session t.jsonl $now
"$bin" build p.toml --session t.jsonl -u c -f text $now | grep -q \
    'turn 2, first false' || fail "second turn"
"$bin" build p.toml --turn resume -u c -f text | grep -q \
    'first false' || fail "--turn resume"
"$bin" build p.toml -u c -f text | grep -q 'first true' ||
    fail "no session: first turn"
echo "session-turns: first_turn and turn reach the templates"

# 5. templates export, then an edited copy replaces the built-in one.
"$bin" templates export out/prompts || fail "export failed"
[ "$(find out/prompts -type f | wc -l)" -eq 10 ] ||
    fail "export: not the ten Go templates"
"$bin" templates export out/prompts 2>/dev/null && fail "export overwrote"
"$bin" templates show connector/bot_soul.md.tmpl |
    cmp -s - out/prompts/connector/bot_soul.md.tmpl ||
    fail "export: bot_soul.md.tmpl differs from the built-in one"
printf '[prompt]\nagent = true\n' >out/bot.toml
echo 'EDITED {{ .UserText }}' >out/prompts/connector/current_user_input.md.tmpl
"$bin" build out/bot.toml -u hi -f user | grep -q 'EDITED hi' ||
    fail "the exported, edited template was not used"
"$bin" templates list out/bot.toml |
    grep -q 'out/prompts/connector/current_user_input.md.tmpl' ||
    fail "list does not show the override"
echo 'STRATA {{user_text}}' >out/prompts/current_user_input.md
"$bin" build out/bot.toml -u hi -f user | grep -q 'STRATA hi' ||
    fail "a .md template in the prompt directory does not win"
echo "session-turns: templates export, edit, override"

# 6. A turn-scope -i entry lives in the session until the reply.
"$bin" build --session i.jsonl -u hi -i mood="Be cheerful." $now >/dev/null ||
    fail "-i: build failed"
grep -q '"key":"mood"' i.jsonl || fail "-i: the entry was not kept"
"$bin" build --session i.jsonl --type regenerate | grep -q 'Be cheerful' ||
    fail "-i: regenerate lost the turn's entry"
body anthropic ok | "$bin" reply --session i.jsonl $now
grep -q '"key":"mood"' i.jsonl && fail "-i: the reply did not end the entry"
"$bin" build --session i.jsonl -u again --dry-run | grep -q 'Be cheerful' &&
    fail "-i: the entry outlived its turn"
echo "session-turns: a turn's -i entry lasts until the reply"
