#!/bin/sh
# term-safety.sh BIN: human views show the control characters, ESC, C1
# controls and bidirectional overrides of cards, chats and lorebooks
# escaped (strata(1), SECURITY); JSON bodies keep the text exact.
bin=$1
t=$(mktemp -d) || exit 1
trap 'rm -rf "$t"' EXIT
cd "$t" || exit 1
fail=0
# The hostile text, as JSON escapes: OSC title, clear screen, SGR, CSI
# as C1 (U+009B), a right-to-left override (U+202E).
evil='\u001b]0;owned\u0007\u001b[2J\u001b[31mRED\u009b31m\u202eevil'
printf '{"user_name":"User","character_name":"Pip","create_date":"2025-01-01","chat_metadata":{}}\n{"name":"%s","is_user":false,"mes":"%s"}\n' "$evil" "$evil" >chat.jsonl
printf '{"spec":"chara_card_v2","spec_version":"2.0","data":{"name":"%s","description":"D %s","first_mes":"Hi %s"}}\n' "$evil" "$evil" "$evil" >card.json
printf '{"entries":{"0":{"uid":0,"key":["hello","%s"],"comment":"%s","content":"W %s","constant":true}}}\n' "$evil" "$evil" "$evil" >world.json
# Raw bytes of the attack: ESC, BEL, C1 CSI, RLO.
raw() {
	LC_ALL=C grep -q "$(printf '\033')\|$(printf '\007')\|$(printf '\302\233')\|$(printf '\342\200\256')" "$1"
}
check() {   # NAME FILE: no raw control in FILE
	if raw "$2"; then
		echo "term-safety: $1: raw control characters"
		fail=1
	fi
	if ! grep -q 'u001b' "$2"; then
		echo "term-safety: $1: the escape is not shown"
		fail=1
	fi
}
"$bin" session chat.jsonl show >o 2>&1; check "session show" o
"$bin" wi world.json >o 2>&1; check "wi" o
"$bin" wi world.json --chat chat.jsonl >o 2>&1; check "wi --chat" o
"$bin" debug --card card.json --chat chat.jsonl --world world.json -u hi \
    >o 2>&1; check "debug" o
"$bin" debug --card card.json --chat chat.jsonl -u hi --stage macros \
    >o 2>&1; check "debug --stage" o
# A diagnostic's quoted line with a raw C1 control and a raw ESC.
printf 'name = "a\302\233b\033[2J"\nmodel = 5\n' >p.toml
"$bin" build p.toml -u x >o 2>&1
if raw o; then echo "term-safety: diagnostic: raw control"; fail=1; fi
grep -q 'u009b' o || { echo "term-safety: diagnostic: C1 not shown"; cat o; fail=1; }
# Usage errors.
"$bin" "$(printf 'x\033]0;t\007')" >o 2>&1
if raw o; then echo "term-safety: usage error: raw control"; fail=1; fi
"$bin" build -f "$(printf 'x\033[2J')" >o 2>&1
if raw o; then echo "term-safety: -f error: raw control"; fail=1; fi
# The JSON body keeps the text exact.
"$bin" build --card card.json --chat chat.jsonl -u hi >o 2>/dev/null
grep -q 'u001b\]0;owned' o || { echo "term-safety: JSON body changed"; fail=1; }
# On a terminal: -f text and card -F escape; into a pipe they do not.
if command -v script >/dev/null 2>&1; then
	script -qc "$bin build --card card.json --chat chat.jsonl -u hi -f text" /dev/null </dev/null >o
	check "-f text on a terminal" o
	script -qc "$bin card card.json -F name" /dev/null </dev/null >o
	check "card -F on a terminal" o
	"$bin" card card.json -F name >o
	raw o || { echo "term-safety: card -F into a pipe changed"; fail=1; }
fi
exit $fail
