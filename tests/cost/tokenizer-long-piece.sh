# L1: one unbroken 100 MiB message (a single BPE piece of "x"): 40 s of
# CPU and 2.7 GB before, as the whole piece was merged at once; merged in
# windows it is linear, and the count is the same (the unit test
# compares both ways).  Then 4 MiB of random letters, which no window
# repeats: each window merged.
python3 - <<'PY'
import json, random
with open("card.json", "w") as f:
    json.dump({"spec": "chara_card_v2", "spec_version": "2.0", "data": {
        "name": "Pip", "description": "A test {{char}}.",
        "first_mes": "Hello {{user}}"}}, f)
def chat(name, text):
    with open(name, "w") as f:
        f.write(json.dumps({"user_name": "User", "character_name": "Pip",
                            "chat_metadata": {}}) + "\n")
        f.write(json.dumps({"name": "User", "is_user": True,
                            "mes": text}) + "\n")
        f.write(json.dumps({"name": "Pip", "is_user": False,
                            "mes": "ok"}) + "\n")
chat("x.jsonl", "x" * (100 << 20))
r = random.Random(18)
chat("r.jsonl", "".join(r.choice("abcdefghijklmnopqrstuvwxyz")
                        for _ in range(4 << 20)))
PY
run 10 1500 0 "$bin" build --card card.json --chat x.jsonl -u hi
grep -q '"ok"' out || { echo "cost tokenizer-long-piece: no body"; exit 1; }
run 10 400 0 "$bin" build --card card.json --chat r.jsonl -u hi
grep -q '"ok"' out || { echo "cost tokenizer-long-piece: no body"; exit 1; }
