# M3: a budget per script run and per build, not just per match; L7:
# one engine (no JIT), so a deep match gives the same result everywhere.
printf '{"scriptName": "SlowG", "findRegex": "/(?:(a+)+x|b)/g", "replaceString": "X", "placement": [1, 2]}' >slow-g.json
python3 -c "print(('a'*22+'b')*200,end='')" >a.txt
run 1 200 1 "$bin" regex slow-g.json -p user_input <a.txt
grep -q "script 'SlowG'" err || { echo "cost regex-scripts: no diagnostic naming the script"; exit 1; }
python3 - <<'PY'
import json
json.dump([{"scriptName": "chain%d" % i, "findRegex": "/(a+)+$/",
            "replaceString": "X", "placement": [1, 2]} for i in range(1000)],
          open("many.json", "w"))
PY
python3 -c "print('a'*40+'b',end='')" >b.txt
# The build's allowance grows once per text, not once per script:
# per script it let these 1,000 scripts run 70 M steps (1.2 s).
run 1 200 1 "$bin" regex many.json -p user_input <b.txt
grep -q "budget of regex match steps" err || { echo "cost regex-scripts: no build budget diagnostic"; exit 1; }
printf '{"scriptName": "Deep", "findRegex": "/(a|b)*c/", "replaceString": "X", "placement": [1, 2]}' >deep.json
python3 -c "print('ab'*300000,end='')" >c.txt
run 5 300 0 "$bin" regex deep.json -p user_input <c.txt
cmp -s out c.txt || { echo "cost regex-scripts: deep: text changed"; exit 1; }
STRATA_NO_JIT=1 run 5 300 0 "$bin" regex deep.json -p user_input <c.txt
# A look-ahead that scans to the end from every start: PCRE2 counts no
# step for the bytes a repeat consumes, so the scan is counted by the
# automatic callouts (text/jsregex.h); 100 KB of 'a' took 3.75 s.
printf '{"scriptName": "Lookahead", "findRegex": "/(?=(a+)+$)/g", "replaceString": "X", "placement": [1, 2]}' >look.json
python3 -c "print('a'*100000,end='')" >d.txt
run 1 200 1 "$bin" regex look.json -p user_input <d.txt
grep -q "script 'Lookahead'" err || { echo "cost regex-scripts: look: no diagnostic naming the script"; exit 1; }
