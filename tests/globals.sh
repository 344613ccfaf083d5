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

# A profile names the global variables file: [tavern] globals, relative
# to the profile; two sessions of that profile share it.
mkdir -p prof
cat >prof/p.toml <<'TOML'
[tavern]
card = "../card.json"
globals = "shared.json"
TOML
printf '{"visits": "1"}' >prof/shared.json
pdesc() {
	"$bin" build prof/p.toml -f openai --set output.model=m "$@" |
	    sed -n 's/.*"content": "\(Mira is[^"]*\)".*/\1/p'
}
check "profile globals: session c" "Mira is ; visits 2.2" \
    "$(pdesc -u x --session c.jsonl)"
check "profile globals: session d sees c's" "Mira is ; visits 3.3" \
    "$(pdesc -u x --session d.jsonl)"
check "profile globals: saved beside the profile" '{ "visits": "3" }' \
    "$(tr -s ' \n' ' ' <prof/shared.json | sed 's/ $//')"

# Seed 002's params: variables and global variables reach the card, the
# result holds them all as the build left them; dry_run saves nothing,
# a build without it saves the globals in the profile's file.
cat >params.json <<'JSON'
{"character_file": "card.json", "messages": [{"role": "user", "content": "x"}],
 "variables": {"mood": "calm"}, "global_variables": {"visits": 10},
 "dry_run": true}
JSON
res=$("$bin" build prof/p.toml --params params.json)
check "params: local variables in the result" '{"mood":"calm","seen":"yes"}' \
    "$(printf '%s' "$res" | python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin)["variables"]["local"], separators=(",", ":")))')"
check "params: global variables in the result" '{"visits":"11"}' \
    "$(printf '%s' "$res" | python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin)["variables"]["global"], separators=(",", ":")))')"
check "params dry_run: nothing saved" '{ "visits": "3" }' \
    "$(tr -s ' \n' ' ' <prof/shared.json | sed 's/ $//')"
sed 's/"dry_run": true/"dry_run": false/' params.json >params2.json
"$bin" build prof/p.toml --params params2.json >/dev/null
check "params: saved without dry_run" '{ "visits": "11" }' \
    "$(tr -s ' \n' ' ' <prof/shared.json | sed 's/ $//')"
exit $fail
