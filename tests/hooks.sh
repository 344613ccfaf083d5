#!/bin/sh
# hooks.sh BIN: --hook POINT=COMMAND at the variables points of a
# SillyTavern build.  A hook that edits what is saved; one that fails,
# one that hangs past --hook-timeout, one that prints invalid JSON, one
# that changes the shape: each an error naming the hook, exit 1, nothing
# on stdout, nothing written.  Points a build does not reach are usage
# errors.
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
 "description": "{{setglobalvar::tide::high}}{{setvar::seen::yes}}Mira.",
 "personality": "", "scenario": "", "first_mes": "Hi.", "mes_example": "",
 "extensions": {}}}
CARD
b() {
	"$bin" build --card card.json -u x -f openai --set output.model=m \
	    --globals g.json "$@" >out 2>err
	echo $?
}
flat() { tr -d ' \n' <"$1"; }

printf '{}' >g.json
check "an editing hook: exit" 0 \
    "$(b --session s.jsonl --hook 'beforeVariablesSave=sed s/high/low/' \
    --hook 'afterVariablesSave=tee after.json')"
check "an editing hook: the globals saved are its" '{"tide":"low"}' "$(flat g.json)"
check "an editing hook: the session's too" 1 "$(grep -c '"seen":"yes"' s.jsonl)"
check "afterVariablesSave sees what was saved" \
    '{"local":{"seen":"yes"},"global":{"tide":"low"}}' "$(flat after.json)"

printf '{}' >g.json
check "a failing hook: exit" 1 "$(b --session t.jsonl --hook 'beforeVariablesSave=cat >/dev/null; exit 3')"
check "a failing hook: its message" \
    "strata: error: hook beforeVariablesSave (cat >/dev/null; exit 3): it exited with status 3" \
    "$(cat err)"
check "a failing hook: nothing on stdout" "" "$(cat out)"
check "a failing hook: nothing saved" '{}' "$(flat g.json)"
check "a failing hook: no session" no "$([ -e t.jsonl ] && echo yes || echo no)"

check "a hanging hook: exit" 1 "$(b --hook 'beforeVariablesSave=sleep 30' --hook-timeout 1)"
check "a hanging hook: its message" \
    "strata: error: hook beforeVariablesSave (sleep 30): it ran past 1000 ms and was stopped" \
    "$(cat err)"
check "a hanging hook: nothing saved" '{}' "$(flat g.json)"

check "invalid JSON: exit" 1 "$(b --hook 'beforeVariablesSave=echo "{oops"')"
check "invalid JSON: where" "hook beforeVariablesSave:1:2:" "$(head -1 err | cut -d' ' -f1-2)"
check "invalid JSON: nothing on stdout" "" "$(cat out)"

check "a shape change: exit" 1 "$(b --hook 'beforeVariablesSave=echo "{\"local\": {}}"')"
check "a shape change: its message" \
    "strata: error: hook beforeVariablesSave (echo \"{\\\"local\\\": {}}\"): its output lacks 'global'" \
    "$(cat err)"
check "a value that is not a string" 1 \
    "$(b --hook 'beforeVariablesSave=echo "{\"local\": {}, \"global\": {\"tide\": 3}}"')"
check "nothing saved after them" '{}' "$(flat g.json)"

check "dry run: no hook runs" 0 "$(b --dry-run --hook 'beforeVariablesSave=exit 1')"

"$bin" build --card card.json -u x --hook 'beforeLLMCall=cat' >out 2>err
check "a point a build does not reach" "2:strata build: --hook beforeLLMCall: strata build runs hooks at beforeVariablesSave and afterVariablesSave only (see strata(1), HOOKS)" "$?:$(cat err)"
"$bin" build --card card.json -u x --hook 'nowhere=cat' >out 2>err
check "an unknown point" 2 "$?"
"$bin" build --card card.json -u x --hook 'beforeVariablesSave=cat' --hook-timeout 0 >out 2>err
check "a timeout of 0" 2 "$?"
exit $fail
