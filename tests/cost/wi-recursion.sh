# M1: a chain of 3,000 entries (1,500 in a card, linked as SillyTavern
# reads an imported book), each keyed by the one before (cubic
# before: every pass rescanned every entry against all text so far).
python3 - <<'PY'
import json
n = 3000
e = {str(i): {"uid": i, "key": ["k%d" % i], "content": "text k%d" % (i + 1),
     "order": 100, "position": 0, "ignoreBudget": True} for i in range(n)}
json.dump({"entries": e}, open("w.json", "w"))
json.dump({"spec": "chara_card_v2", "spec_version": "2.0", "data": {
    "name": "Pip", "description": "d", "first_mes": "k0 hello",
    "extensions": {"world": "b"},
    "character_book": {"name": "b", "entries": [
        {"id": i, "keys": ["k%d" % i], "content": "text k%d" % (i + 1),
         "enabled": True, "insertion_order": 100,
         "extensions": {"position": 0, "ignore_budget": True}}
        for i in range(1500)]}}}, open("card.json", "w"))
open("chat.jsonl", "w").write('{"chat_metadata": {}}\n{"name": "User", "is_user": true, "mes": "k0"}\n')
open("preset.json", "w").write('{"openai_max_context": 200000, "openai_max_tokens": 300}')
open("settings.json", "w").write('{"world_info_recursive": true, "world_info_depth": 4, "world_info_max_recursion_steps": 0, "world_info_budget": 100, "world_info_budget_cap": 0}')
PY
run 3 300 0 "$bin" wi w.json --chat chat.jsonl --settings settings.json
grep -q "3001 passes" out || { echo "cost wi-recursion: not every entry activated"; head -3 out; exit 1; }
run 3 300 0 "$bin" build --card card.json -u hi --settings settings.json \
    --preset preset.json
grep -q 'text k1500' out || { echo "cost wi-recursion: the chain did not run"; exit 1; }
