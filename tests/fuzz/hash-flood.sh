#!/bin/sh
# hash-flood.sh BIN TOML-DECODE GEN: 65,536 keys made to collide under the
# config tree's old unseeded FNV-1a index (gen-flood.py) must be read in
# linear time, in a TOML table and in a JSON history message.  With the
# old hash they took about a minute each; with the keyed one, well under
# a second.  The limit of 20 s per command is for slow sanitizer builds.
bin=$1 decode=$2 gen=$3
command -v python3 >/dev/null 2>&1 || { echo "hash-flood: no python3"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
python3 "$gen" toml-t >"$tmp/t.toml" || exit 1
# The same keys as a history message (one generation is the slow part).
awk 'BEGIN { printf "[{\"role\": \"user\", \"content\": \"hi\"" }
	NR > 1 { printf ",\n\"%s\": 1", $1 }
	END { print "}]" }' "$tmp/t.toml" >"$tmp/h.json"
printf '[output]\nmodel = "m"\n' >"$tmp/p.toml"
fail=0
timeout 20 "$decode" <"$tmp/t.toml" >/dev/null
st=$?
if [ $st -ne 0 ]; then echo "hash-flood: TOML table: exit $st"; fail=1
else echo "hash-flood: TOML table of 65,536 colliding keys: ok"; fi
# The history is read, then refused: its keys are unknown.
timeout 20 "$bin" build "$tmp/p.toml" -u hi -H "$tmp/h.json" >/dev/null 2>"$tmp/err"
st=$?
if [ $st -ne 1 ] || ! grep -q "unknown key" "$tmp/err"; then
	echo "hash-flood: JSON history: exit $st, expected 1"; head -c 1000 "$tmp/err"; fail=1
else echo "hash-flood: JSON object of 65,536 colliding keys: ok"; fi
exit $fail
