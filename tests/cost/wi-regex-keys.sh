# M2: 100 chained entries and 100 catastrophic regex keys, which ran on
# the whole buffer in every recursion pass.
python3 - <<'PY'
import json
e = {}
for i in range(100):
    e[str(i)] = {"uid": i, "key": ["k%d" % i], "content": "text k%d" % (i + 1),
                 "order": 100, "position": 0, "ignoreBudget": True}
for i in range(100):
    e[str(1000 + i)] = {"uid": 1000 + i, "key": ["/(a+)+$/"], "content": "x",
                        "order": 100, "position": 0, "ignoreBudget": True}
json.dump({"entries": e}, open("w.json", "w"))
open("chat.jsonl", "w").write('{"chat_metadata": {}}\n{"name": "User", "is_user": true, "mes": "k0 %sb"}\n' % ("a" * 40))
open("settings.json", "w").write('{"world_info_recursive": true, "world_info_depth": 4, "world_info_max_recursion_steps": 0, "world_info_budget": 100, "world_info_budget_cap": 0}')
PY
run 2 300 0 "$bin" wi w.json --chat chat.jsonl --settings settings.json
grep -q "101 passes" out || { echo "cost wi-regex-keys: wrong outcome"; head -3 out; exit 1; }
grep -q "hit the match limit" err || { echo "cost wi-regex-keys: no warning"; exit 1; }
