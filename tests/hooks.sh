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
check "a point a build does not reach" "2:strata build: --hook beforeLLMCall: strata build calls no model, so it never reaches this point (see strata(1), HOOKS)" "$?:$(cat err)"
"$bin" build --card card.json -u x --hook 'nowhere=cat' >out 2>err
check "an unknown point" 2 "$?"
"$bin" build --card card.json -u x --hook 'beforeVariablesSave=cat' --hook-timeout 0 >out 2>err
check "a timeout of 0" 2 "$?"

# ---- the points inside the assembly ----
cat >chat.json <<'CHAT'
[{"role": "user", "content": "Is the lamp lit?"},
 {"role": "assistant", "content": "It is."},
 {"role": "user", "content": "Good."}]
CHAT
cat >rx.json <<'RX'
[{"id": "r1", "scriptName": "shout", "findRegex": "/lit/g",
  "replaceString": "LIT", "placement": [1, 2], "promptOnly": true},
 {"id": "r1", "scriptName": "shout again", "findRegex": "/It/g",
  "replaceString": "IT", "placement": [1, 2], "promptOnly": true}]
RX
a() {
	"$bin" build --card card.json -H chat.json -f openai \
	    --set output.model=m "$@" >out 2>err
	echo $?
}
# What each point hands over, and that its edit is what the build
# goes on with: lamp -> LAMP at the point, so the request has LAMP.
for p in beforeRaw afterInsert afterRaw beforePostprocessAssistant \
    afterPostprocessAssistant; do
	check "$p: exit" 0 "$(a --hook "$p=tee $p.json | sed s/lamp/LAMP/")"
	check "$p: its edit is sent" 1 "$(grep -c 'Is the LAMP lit' out)"
done
check "beforeRaw sees the chat as read" \
    '{"messages":[{"role":"user","content":"Isthelamplit?","name":"User"},{"role":"assistant","content":"Itis.","name":"Mira"},{"role":"user","content":"Good.","name":"User"}]}' \
    "$(flat beforeRaw.json)"
check "afterInsert sees the history" 3 "$(grep -c '"role"' afterInsert.json)"
check "afterRaw sees every message" 6 "$(grep -c '"role"' afterRaw.json)"
check "the user view's points" 0 \
    "$(a --view user_view --hook 'afterPostprocessUser=sed s/Good/Fine/' \
    --hook 'afterPostprocessAssistant=exit 1')"
check "the user view's edit" 1 "$(grep -c '"Fine."' out)"
check "a beforeRaw edit reaches the macros' view of the chat" 0 \
    "$(a --hook 'beforeRaw=sed s/Good/{{lastUserMessage}}!/')"
check "a beforeRaw edit: the macros read it" 1 "$(grep -c '"{{lastUserMessage}}!.!."' out)"

check "the normalise points: exit" 0 \
    "$(a --regex rx.json --hook 'beforeNormalizeAssets=tee bn.json' \
    --hook 'afterNormalizeAssets=tee an.json | sed s/LIT/lit!/')"
check "beforeNormalizeAssets sees both scripts" 2 "$(grep -c '"id"' bn.json)"
check "afterNormalizeAssets sees the merge" 1 "$(grep -c '"id"' an.json)"
check "afterNormalizeAssets: its scripts run" 1 "$(grep -c 'Is the lamp lit!?' out)"
check "the merge's warning" 1 "$(grep -c "warning: regex script 'shout again' has the id" err)"

check "a message added: exit" 1 "$(a --hook 'afterRaw=sed "s/\"messages\": \[/&{\"role\": \"user\", \"content\": \"x\", \"name\": null},/"')"
check "a message added: where and why" \
    "hook afterRaw:2:13: error: 6 messages went in and 7 came out; a hook may change their texts and names, not add or remove messages" \
    "$(head -1 err)"
check "a message added: nothing on stdout" "" "$(cat out)"
check "a role changed: exit" 1 "$(a --hook 'afterInsert=sed 0,/assistant/s//user/')"
check "a role changed: why" "error: message 2 must keep its role 'assistant'" \
    "$(head -1 err | cut -d' ' -f3-)"
check "a content that is not a string" 1 \
    "$(a --hook 'beforeRaw=sed "s/\"Good.\"/7/"')"
check "... says so" "error: 'content' must be a string" "$(head -1 err | cut -d' ' -f3-)"
check "a script a hook breaks: exit" 1 \
    "$(a --regex rx.json --hook 'beforeNormalizeAssets=sed s#./lit/g.#3#')"
check "... where" "hook beforeNormalizeAssets:" "$(head -1 err | cut -d: -f1):"
check "a failing assembly hook" 1 "$(a --hook 'afterInsert=exit 4')"
check "... its message" "strata: error: hook afterInsert (exit 4): it exited with status 4" "$(cat err)"
check "a hanging assembly hook" 1 "$(a --hook 'beforeRaw=sleep 30' --hook-timeout 1)"
check "an assembly point in a profile build" \
    "1:strata: error: strata build reaches afterRaw only in a SillyTavern build (--card, --params or a profile's [tavern]); this build is not one" \
    "$("$bin" build -u hi --hook afterRaw=cat >out 2>err; echo $?):$(cat err)"

# ---- a profile's [hooks] ----
cat >p.toml <<'TOML'
[output]
model = "m"

[tavern]
card = "card.json"

[hooks]
afterPostprocessAssistant = ["sed s/lamp/LAMP/", "sed s/LAMP/Lamp/"]
timeout = 1
TOML
check "[hooks]: exit" 0 "$("$bin" build p.toml -H chat.json >out 2>err; echo $?)"
check "[hooks]: its commands in order" 1 "$(grep -c 'Is the Lamp lit' out)"
check "[hooks] then --hook" 0 \
    "$("$bin" build p.toml -H chat.json --hook 'afterPostprocessAssistant=sed s/Lamp/lamp!/' >out 2>err; echo $?)"
check "[hooks] then --hook: the last word is --hook's" 1 "$(grep -c 'Is the lamp! lit' out)"
sed 's/^timeout.*/beforeRaw = "sleep 30"\ntimeout = 1/' p.toml >slow.toml
check "[hooks] timeout" 1 "$("$bin" build slow.toml -H chat.json >out 2>err; echo $?)"
check "[hooks] timeout: its message" "strata: error: hook beforeRaw (sleep 30): it ran past 1000 ms and was stopped" "$(cat err)"
check "debug runs no hooks" 0 "$("$bin" debug slow.toml -H chat.json --json >out 2>err; echo $?)"
check "debug: the text as built, no hook's" yes:0 \
    "$(grep -q 'Is the lamp lit' out && echo yes):$(grep -c 'Is the Lamp lit' out)"
check "--hook with debug" \
    "2:strata debug: --hook: debug runs no hooks; it shows the build without them (see strata(1), HOOKS)" \
    "$("$bin" debug --card card.json -u x --hook 'afterRaw=cat' >out 2>err; echo $?):$(cat err)"

# ---- strata reply's save points ----
r() {
	printf '%s' '{"choices":[{"message":{"role":"assistant","content":"The lamp is lit."}}]}' |
	    "$bin" reply --session s2.jsonl "$@" >out 2>err
	echo $?
}
check "beforeSaveResponse: exit" 0 \
    "$(r --hook 'beforeSaveResponse=sed s/lamp/LAMP/' --hook 'afterSaveResponse=tee saved.json')"
check "beforeSaveResponse: what is saved" 1 "$(grep -c 'The LAMP is lit.' s2.jsonl)"
check "afterSaveResponse sees it" 1 "$(grep -c 'The LAMP is lit.' saved.json)"
check "a save hook that fails: exit" 1 "$(r --hook 'beforeSaveResponse=exit 2')"
check "... nothing written" 1 "$(grep -c '"mes"' s2.jsonl)"
check "a save hook that changes the role" 1 "$(r --hook 'beforeSaveResponse=sed s/assistant/user/')"
check "... why" "error: a hook may change the reply's content and reasoning, not its 'role'" \
    "$(head -1 err | cut -d' ' -f3-)"
check "... nothing written" 1 "$(grep -c '"mes"' s2.jsonl)"
check "a save hook without --session" 2 \
    "$(printf x | "$bin" reply --hook 'beforeSaveResponse=cat' >out 2>err; echo $?)"
check "reply: another point" 2 "$(r --hook 'afterRaw=cat')"
exit $fail
