#!/bin/sh
# session-once.sh BIN: a build reads its --session file once.  The
# session comes through a pipe (/dev/stdin), which gives its bytes to the
# first reader only: a second read would find it empty.
#
#  1. a SillyTavern build (debug, -f json) with --session /dev/stdin sends
#     the session's messages, not a new chat's greeting;
#  2. its JSON view places the session's messages at their lines;
#  3. --log-level debug names the session's thread in the trace of a
#     build that writes nothing (--dry-run);
#  4. the same for a profile build.
set -u
bin=$1
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "session-once: $*"; exit 1; }
cd "$tmp" || exit 1
export LC_ALL=C.UTF-8 TZ=UTC NO_COLOR=1

cat >card.json <<'CARD'
{"spec":"chara_card_v2","spec_version":"2.0","data":{"name":"Mira","description":"Mira keeps the light.","personality":"","scenario":"","first_mes":"GREETING","mes_example":""}}
CARD
cat >s.jsonl <<'CHAT'
{"user_name":"Sam","character_name":"Mira","chat_metadata":{"strata":{"thread_id":"thread-42"}}}
{"name":"Mira","is_user":false,"is_system":false,"send_date":"2026-01-01T00:00:00.000Z","mes":"FROM-SESSION-1","extra":{}}
{"name":"Sam","is_user":true,"is_system":false,"send_date":"2026-01-01T00:00:01.000Z","mes":"FROM-SESSION-2","extra":{}}
CHAT

# 1. The tavern build sends the session's chat.
cat s.jsonl | "$bin" build --card card.json --session /dev/stdin -u hi \
    --dry-run --now 2026-01-01T00:00:02Z -f openai --set output.model=m \
    >o.json 2>e.txt || fail "tavern build failed: $(cat e.txt)"
grep -q FROM-SESSION-2 o.json || fail "tavern build: the session's messages are missing"
grep -q GREETING o.json && fail "tavern build: a new chat's greeting: the session was read twice"

# 2. The debug view: the session's messages, at their lines.
cat s.jsonl | "$bin" debug --card card.json --session /dev/stdin -u hi \
    --now 2026-01-01T00:00:02Z >d.txt 2>e.txt ||
	fail "tavern debug failed: $(cat e.txt)"
grep -q "/dev/stdin:3 " d.txt || fail "tavern debug: the session's messages are missing"
grep -q "first_mes" d.txt && fail "tavern debug: a new chat's greeting: the session was read twice"

# 3. The trace of a tavern build names the session's thread.
cat s.jsonl | "$bin" build --card card.json --session /dev/stdin -u hi \
    --dry-run --log-level debug --now 2026-01-01T00:00:02Z -f openai \
    --set output.model=m >o.json 2>e.txt || fail "traced build failed: $(cat e.txt)"
grep -q "session /dev/stdin, thread thread-42," e.txt ||
	fail "tavern trace: $(grep 'debug: session' e.txt)"

# 4. The same for a profile build.
cat s.jsonl | "$bin" build --session /dev/stdin -u hi --dry-run \
    --log-level debug --now 2026-01-01T00:00:02Z -f openai \
    --set output.model=m >o.json 2>e.txt || fail "profile build failed: $(cat e.txt)"
grep -q FROM-SESSION-2 o.json || fail "profile build: the session's messages are missing"
grep -q "session /dev/stdin, thread thread-42," e.txt ||
	fail "profile trace: $(grep 'debug: session' e.txt)"
# 5. The turn is written over the session as the build read it, and
# only if nothing changed the file since: a program that ignores the
# lock (here a hook) wrote a line during the build, so the turn is not
# written, the build fails with nothing on stdout, and the line stays.
cp s.jsonl w.jsonl
cat >hook.sh <<'HOOK'
cat
printf '%s\n' '{"name":"Sam","is_user":true,"is_system":false,"mes":"FROM-HOOK","extra":{}}' >>w.jsonl
HOOK
st=0
"$bin" build --card card.json --session w.jsonl -u FROM-TURN \
    --now 2026-01-01T00:00:02Z -f openai --set output.model=m \
    --hook 'beforeVariablesSave=sh hook.sh' >o.json 2>e.txt || st=$?
[ "$st" = 1 ] || fail "changed session: exit status $st, expected 1"
[ -s o.json ] && fail "changed session: something on stdout"
grep -q "changed during the build" e.txt || fail "changed session: $(cat e.txt)"
grep -q FROM-HOOK w.jsonl || fail "changed session: the other program's line is lost"
grep -q FROM-TURN w.jsonl && fail "changed session: the turn was written over it"
grep -q FROM-SESSION-2 w.jsonl || fail "changed session: the session's messages are lost"
# Without the other writer the turn is written.
cp s.jsonl w.jsonl
"$bin" build --card card.json --session w.jsonl -u FROM-TURN \
    --now 2026-01-01T00:00:02Z -f openai --set output.model=m \
    >o.json 2>e.txt || fail "held build failed: $(cat e.txt)"
grep -q FROM-TURN w.jsonl || fail "held build: the turn was not written"
grep -q FROM-SESSION-2 w.jsonl || fail "held build: the session's messages are lost"
echo "session-once: ok"
