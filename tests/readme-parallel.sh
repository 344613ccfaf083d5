#!/bin/sh
# readme-parallel.sh BIN ROOT: the GNU parallel examples of README.md's
# "Batch builds" section, run as written (strata on PATH, a profile.toml
# and a requests.jsonl of 500 lines with ids), give what one run
# gives.  Skips (77) without GNU parallel (Debian's package: parallel).
set -u
bin=$1
root=$2
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
command -v parallel >/dev/null 2>&1 || { echo "SKIP: GNU parallel is not installed"; exit 77; }
parallel --version 2>/dev/null | grep -q "GNU parallel" || { echo "SKIP: parallel is not GNU parallel"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "readme-parallel: $*"; exit 1; }

# The README's sh block that runs parallel.
awk '/^## Batch builds/ { s = 1 } s && /^```sh$/ { b = 1; blk = ""; next }
	b && /^```$/ { b = 0; if (blk ~ /parallel/) { printf "%s", blk; exit } next }
	b { blk = blk $0 "\n" }' "$root/README.md" >"$tmp/example.sh"
grep -q '^parallel ' "$tmp/example.sh" || fail "no parallel example in README.md"

mkdir "$tmp/bin" && ln -s "$bin" "$tmp/bin/strata"
cp -r "$root/profiles" "$root/prompts" "$tmp/"
printf 'extends = "profiles/companion.toml"\n' >"$tmp/profile.toml"
python3 -c '
for i in range(1, 501):
    print("{\"id\": \"r%d\", \"user\": \"Hello %d\"}" % (i, i))' >"$tmp/requests.jsonl" ||
	fail "cannot write requests.jsonl"
cd "$tmp" || exit 1
PATH=$tmp/bin:$PATH strata batch profile.toml requests.jsonl >one.jsonl || fail "one run failed"
[ "$(wc -l <one.jsonl)" -eq 500 ] || fail "one run: $(wc -l <one.jsonl) lines"

# Each example writes batch.jsonl (or sorted.jsonl): run the script one
# command at a time, checking after each that writes one.
: >"$tmp/ran"
while IFS= read -r line; do
	case $line in ''|'#'*) continue ;; esac
	rm -f batch.jsonl sorted.jsonl
	PATH=$tmp/bin:$PATH HOME=$tmp sh -c "$line" 2>"$tmp/err" ||
		{ cat "$tmp/err"; fail "README example failed: $line"; }
	if [ -f batch.jsonl ]; then
		cmp -s batch.jsonl one.jsonl || fail "not the same as one run: $line"
		echo "$line" >>"$tmp/ran"
	elif [ -f sorted.jsonl ]; then
		sort one.jsonl | cmp -s - sorted.jsonl || fail "not one run's lines: $line"
		echo "$line" >>"$tmp/ran"
	fi
done <"$tmp/example.sh"
[ "$(wc -l <"$tmp/ran")" -eq 3 ] || fail "expected 3 examples compared, did $(wc -l <"$tmp/ran")"
echo "readme-parallel: ok (3 examples, 500 lines)"
