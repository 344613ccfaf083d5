#!/bin/sh
# globals.sh BIN: variables given to a SillyTavern build and kept after
# it.  -v and --global-var are seen by the card's texts; a build writes
# the global variables it changed into the --globals file (not with
# --dry-run); two sessions share that file; a session keeps its local
# variables.
set -u
bin=$1
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
export LC_ALL=C.UTF-8 TZ=UTC NO_COLOR=1
fail=0
check() {       # check NAME WANT GOT
	if [ "$2" != "$3" ]; then
		printf 'FAIL %s\n  want: %s\n  got:  %s\n' "$1" "$2" "$3"
		fail=1
	else
		printf 'ok   %s\n' "$1"
	fi
}
cat >card.json <<'CARD'
{"spec": "chara_card_v2", "spec_version": "2.0", "data": {"name": "Mira",
 "description": "{{char}} is {{getvar::mood}}; visits {{getglobalvar::visits}}.{{incglobalvar::visits}}{{setvar::seen::yes}}",
 "personality": "", "scenario": "", "first_mes": "Hi.", "mes_example": "",
 "extensions": {}}}
CARD
desc() {
	"$bin" build --card card.json -f openai --set output.model=m "$@" |
	    sed -n 's/.*"content": "\(Mira is[^"]*\)".*/\1/p'
}
check "-v and --global-var reach the card" "Mira is calm; visits 6.6" \
    "$(desc -u x -v mood=calm --global-var visits=5 --globals g.json)"
check "the changed global is saved" '{ "visits": "6" }' "$(tr -s ' \n' ' ' <g.json | sed 's/ $//')"
check "dry run: seen" "Mira is ; visits 7.7" \
    "$(desc -u x --globals g.json --dry-run)"
check "dry run: nothing saved" '{ "visits": "6" }' "$(tr -s ' \n' ' ' <g.json | sed 's/ $//')"
check "session a" "Mira is ; visits 7.7" \
    "$(desc -u x --globals g.json --session a.jsonl)"
check "session b sees a's global" "Mira is ; visits 8.8" \
    "$(desc -u x --globals g.json --session b.jsonl)"
check "the session keeps its local variable" 1 \
    "$(grep -c '"seen":"yes"' a.jsonl)"
printf '[1]' >bad.json
"$bin" build --card card.json -u x --globals bad.json -f openai \
    --set output.model=m >out 2>err
check "a file that is not an object" "1:$(cat /dev/null)" "$?:$(cat out)"
check "its message" "bad.json:1:1: error: a global variables file holds one JSON object, not an array" \
    "$(head -1 err)"
check "not written over" "[1]" "$(cat bad.json)"
exit $fail
