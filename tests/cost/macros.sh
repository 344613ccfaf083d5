# M4: {{setvar}} of a 100 KB value read back 10,000 times (a 1 GB body
# before, 2.9 GB of memory), and 1,000 times.
for n in 10000 1000; do
	python3 - "$n" <<'PY'
import json, sys
n = int(sys.argv[1])
desc = "{{setvar::a::" + "word " * 20000 + "}}" + "{{getvar::a}}" * n
json.dump({"spec": "chara_card_v2", "spec_version": "2.0", "data": {
    "name": "Pip", "description": desc, "first_mes": "Hello"}}, open("c.json", "w"))
PY
	run 2 300 1 "$bin" build --card c.json -u hi
	# The diagnostic names the asset, never quotes its text.
	grep -q "the macros of card 'c.json', field description would make" err ||
		{ echo "cost macros: $n: no diagnostic naming the asset"; exit 1; }
	! grep -q "word word" err ||
		{ echo "cost macros: $n: the diagnostic quotes the text"; exit 1; }
done
# One variable is capped at 1 MiB.
python3 -c '
import json
json.dump({"spec": "chara_card_v2", "spec_version": "2.0", "data": {"name": "Pip",
  "description": "{{setvar::big::" + "x" * (1 << 21) + "}}", "first_mes": "Hello"}}, open("v.json", "w"))'
run 2 300 1 "$bin" build --card v.json -u hi
grep -q "the macros of card 'v.json', field description would set variable 'big'" err ||
	{ echo "cost macros: no variable cap naming the asset"; exit 1; }
