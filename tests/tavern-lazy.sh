#!/bin/sh
# tavern-lazy.sh STRATA GOLDEN: a request body regexes only the chat
# messages world info or the budget reach, when the regex scripts can
# change nothing else (strata-tavern(7), REGEX SCRIPTS); it must be the
# body a build that regexes every message gives.
#
# With --log-level debug (the trace on stderr shows every message) strata
# regexes the whole chat, as SillyTavern does; without it, only what it
# needs.  Each case builds both ways from the inputs of the golden case
# tavern-budget-trims-history, with a 120-message chat the 120-token
# budget cuts to a few, and compares the bodies byte for byte:
#
#   pure       a replacement with {{char}} and $1, on every message (the
#              old ones are never regexed: the limit case shows that the
#              unsent are skipped);
#   addvar     a replacement with {{addvar}}, counted by {{getvar}} in the
#              main prompt: every message must be regexed, in order;
#   random     a replacement with {{random}} under --seed: the draws of
#              every message come before the main prompt's {{roll}};
#   braces     an old message holding "{{addvar::n::1}}" that a $1
#              carries into a macro;
#   lastchat   a replacement with {{lastChatMessage}} on a continue,
#              whose value is set only once the message continued is
#              known;
#   chain      a script writing "{{abc}}" and a later one whose $1 turns
#              it into a {{random}};
#   limit      a pattern that hits PCRE2's match limit on an old
#              message only: the body build, which never regexes it,
#              succeeds; the debug build reports the limit, exit 1.
set -u
strata=$1
golden=$2
src=$golden/tavern-budget-trims-history
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0

python3 - "$src" "$tmp" <<'PY'
import json, os, sys
src, tmp = sys.argv[1:3]
lines = open(os.path.join(src, "chat.jsonl"), encoding="utf-8").read().splitlines()
head = lines[0]
def chat(name, old):
    with open(os.path.join(tmp, name), "w", encoding="utf-8") as f:
        f.write(head + "\n")
        for n in range(120):
            user = n % 2 == 1
            # The first message is macro-expanded anew at every
            # generation: the odd one out is the third.
            mes = old if n == 2 else "Line %d of the watch, %s." % (
                n, "said Sam" if user else "said Mira")
            f.write(json.dumps({"name": "Sam" if user else "Mira",
                "is_user": user, "is_system": False, "mes": mes,
                "extra": {}}) + "\n")
chat("chat.jsonl", "The first line of the watch.")
chat("chat-braces.jsonl", "Noted {{addvar::n::1}} here.")
chat("chat-limit.jsonl", "a" * 40 + "!")
preset = json.load(open(os.path.join(src, "preset.json"), encoding="utf-8"))
for p in preset["prompts"]:
    if p["identifier"] == "main":
        p["content"] = ("Write {{char}}'s next reply. Seen "
                        "{{getvar::seen}}, n {{getvar::n}}, roll "
                        "{{roll:d1000000}}.")
json.dump(preset, open(os.path.join(tmp, "preset.json"), "w"))
# Room for more messages than world info's two (which it regexes first).
preset["openai_max_context"] = 700
json.dump(preset, open(os.path.join(tmp, "preset-wide.json"), "w"))
def script(name, find, replace, **kw):
    s = {"id": name, "scriptName": name, "findRegex": find,
         "replaceString": replace, "trimStrings": [], "placement": [1, 2],
         "disabled": False, "markdownOnly": False, "promptOnly": True,
         "runOnEdit": True, "substituteRegex": 0, "minDepth": None,
         "maxDepth": None}
    s.update(kw)
    json.dump(s, open(os.path.join(tmp, name + ".json"), "w"))
script("pure", r"/said (\w+)/g", "{{char}} heard $1")
script("addvar", r"/watch/", "watch{{addvar::seen::1}}")
script("random", r"/watch/", "{{random::post,tower,shore}}")
script("braces", r"/Noted (.*) here/", "Kept $1")
script("limit", r"/(a+)+$/", "x")
script("lastchat", r"/watch/g", "watch[{{lastChatMessage}}]")
# Two scripts: the first writes a macro's start, the second's $1 copies
# it into a {{random}}.
script("chain-a", r"/watch/", "{{abc}}")
script("chain-b", r"/(\{\{)abc\}\}/", "$1random::post::tower::shore}}")
json.dump([json.load(open(os.path.join(tmp, n + ".json")))
           for n in ("chain-a", "chain-b")],
          open(os.path.join(tmp, "chain.json"), "w"))
PY

# case NAME CHAT SCRIPT [ARGS...]: the body must be the debug build's.
case_() {
	name=$1 chat=$2 rx=$3
	shift 3
	set -- --card "$src/card.json" --preset "$tmp/${PRESET:-preset}.json" \
	    --settings "$src/settings.json" --chat "$tmp/$chat" \
	    --regex "$tmp/$rx.json" -u Hello -f openai \
	    --set output.model=m --now 2026-07-12T06:00:00Z "$@"
	"$strata" build "$@" >"$tmp/$name.lazy" 2>"$tmp/$name.lazy.err"
	ls=$?
	"$strata" build --log-level debug "$@" >"$tmp/$name.full" \
	    2>"$tmp/$name.full.err"
	fs=$?
	if [ "$name" = limit ]; then
		if [ $ls -ne 0 ] || [ $fs -ne 1 ] || [ -s "$tmp/$name.full" ] ||
		    ! grep -q "match limit" "$tmp/$name.full.err"; then
			echo "tavern-lazy: $name: want the body build to pass" \
			    "($ls) and the full one to stop at the limit ($fs)"
			cat "$tmp/$name.lazy.err" "$tmp/$name.full.err"
			status=1
			return
		fi
		echo "tavern-lazy: $name: the unsent message was never regexed"
		return
	fi
	if [ $ls -ne 0 ] || [ $fs -ne 0 ]; then
		echo "tavern-lazy: $name: exit $ls and $fs"
		cat "$tmp/$name.lazy.err" "$tmp/$name.full.err"
		status=1
	elif ! cmp -s "$tmp/$name.lazy" "$tmp/$name.full"; then
		echo "tavern-lazy: $name: the bodies differ"
		diff "$tmp/$name.lazy" "$tmp/$name.full" | head -20
		status=1
	else
		echo "tavern-lazy: $name: same body"
	fi
}

case_ pure chat.jsonl pure
case_ addvar chat.jsonl addvar
case_ random chat.jsonl random --seed 7
case_ braces chat-braces.jsonl braces
case_ limit chat-limit.jsonl limit
PRESET=preset-wide
case_ lastchat chat.jsonl lastchat --type continue
PRESET=preset
case_ chain chat.jsonl chain --seed 7

# The cases must mean something: the budget cuts the chat, addvar counted
# every one of the 120 messages, and a draw was made.
grep -q "Line 119" "$tmp/pure.lazy" && ! grep -q "Line 1 of" "$tmp/pure.lazy" ||
    { echo "tavern-lazy: the budget did not cut the chat"; status=1; }
grep -q "Mira heard Sam" "$tmp/pure.lazy" ||
    { echo "tavern-lazy: the pure script did not run"; status=1; }
grep -q "Seen 120" "$tmp/addvar.lazy" ||
    { echo "tavern-lazy: addvar did not count every message"; status=1; }
grep -Eq "(post|tower|shore)" "$tmp/random.lazy" ||
    { echo "tavern-lazy: no draw"; status=1; }
[ "$(grep -c "watch\[" "$tmp/lastchat.lazy")" -gt 5 ] ||
    { echo "tavern-lazy: the lastChatMessage script did not run"; status=1; }
grep -Eq "(post|tower|shore)" "$tmp/chain.lazy" ||
    { echo "tavern-lazy: the chained scripts made no draw"; status=1; }
grep -q "n 1," "$tmp/braces.lazy" ||
    { echo "tavern-lazy: the old message's {{addvar}} did not run"; status=1; }

# Random cases (a fixed seed, so every run is the same 150): one to three
# scripts drawn from replacements with and without macros, braces and
# groups, over chats whose messages sometimes hold braces, on a normal
# generation or a continue; the main prompt shows a variable and a
# {{roll}}, so a change of state or of draws shows in the body.
python3 - "$strata" "$src" "$tmp" <<'PY' || status=1
import json, os, random, subprocess, sys
strata, src, tmp = sys.argv[1:4]
rnd = random.Random(20261123)
FINDS = [r"/(\w+)/", r"/watch/g", r"/(a)/gi", r"/\{/g", r"/(\{\{)/",
         r"/said (\w+)/", r"/(.)$/", r"/(\w+) of/g", r"/Line/"]
REPLS = ["$1", "[$1]", "{{char}}: $1", "{{user}}", "{{setvar::v::$1}}",
         "{{getvar::v}}", "{{random::a,b,c}}", "{{roll:d20}}", "{{abc}}",
         "{", "}}", "{{", "$0{", "<USER>", "{{lastChatMessage}}",
         "{{pick::x,y}}", "{{time}}", "{{noop}}", "x{{trim}}y",
         "{{reverse:ab}}", "{{outlet::x}}", "{{addvar::n::1}}$1", "$1}}",
         "{{$1}}", "{{ran$1dom::p,q}}"]
WORDS = ["watch", "lamp", "a", "said", "Sam", "Mira", "{", "{{", "}}",
         "{{char}}", "of", "random::u,w}}", "Line"]
preset = json.load(open(os.path.join(tmp, "preset-wide.json")))
for p in preset["prompts"]:
    if p["identifier"] == "main":
        p["content"] = "v={{getvar::v}} n={{getvar::n}} {{roll:d1000000}}"
json.dump(preset, open(os.path.join(tmp, "rp.json"), "w"))
bad = built = 0
for case in range(150):
    with open(os.path.join(tmp, "rc.jsonl"), "w") as f:
        f.write(json.dumps({"chat_metadata": {}, "user_name": "unused",
                            "character_name": "unused"}) + "\n")
        for n in range(rnd.randint(3, 60)):
            user = n % 2 == 1
            mes = " ".join(rnd.choice(WORDS) if rnd.random() < 0.15 else
                           "Line %d of the watch, said %s" %
                           (n, "Sam" if user else "Mira")
                           for _ in range(rnd.randint(1, 3)))
            f.write(json.dumps({"name": "Sam" if user else "Mira",
                "is_user": user, "is_system": False, "mes": mes,
                "extra": {}}) + "\n")
    scripts = [{"scriptName": "r%d" % k, "findRegex": rnd.choice(FINDS),
                "replaceString": rnd.choice(REPLS), "placement": [1, 2],
                "promptOnly": True,
                "trimStrings": ["{{char}}"] if rnd.random() < 0.1 else [],
                "substituteRegex": 1 if rnd.random() < 0.1 else 0}
               for k in range(rnd.randint(1, 3))]
    json.dump(scripts, open(os.path.join(tmp, "rs.json"), "w"))
    args = ["--card", os.path.join(src, "card.json"), "--preset",
            os.path.join(tmp, "rp.json"), "--settings",
            os.path.join(src, "settings.json"), "--chat",
            os.path.join(tmp, "rc.jsonl"), "--regex",
            os.path.join(tmp, "rs.json"), "-f", "openai", "--set",
            "output.model=m", "--now", "2026-07-12T06:00:00Z",
            "--seed", str(case)]
    if rnd.random() < 0.3:
        args += ["--type", "continue"]
    else:
        args += ["-u", rnd.choice(["Hello", "a {{", "said Sam"])]
    lazy = subprocess.run([strata, "build"] + args, capture_output=True)
    full = subprocess.run([strata, "build", "--log-level", "debug"] + args,
                          capture_output=True)
    built += lazy.returncode == 0
    if lazy.returncode != full.returncode or (lazy.returncode == 0 and
            lazy.stdout != full.stdout):
        bad += 1
        print("tavern-lazy: random case %d differs (exit %d and %d); "
              "scripts %s" % (case, lazy.returncode, full.returncode,
                              json.dumps(scripts)))
print("tavern-lazy: 150 random cases, %d built, %d differ" % (built, bad))
sys.exit(1 if bad else 0)
PY
exit $status
