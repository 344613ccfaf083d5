#!/bin/sh
# toml.sh [STRATA]: time the TOML reader on a generated ~10 MB profile
# with ~100k keys (tables, arrays of tables, strings, integers, floats,
# arrays, inline tables).  Runs "strata check FILE" five times and prints
# the best and median wall time, the peak RSS and its ratio to the file
# size.  The file's keys are not profile keys, so check reports them and
# exits 1; only the time matters here.  Targets: well under 1 s, peak RSS
# under 10x the file size.
set -u
bin=${1:-build/strata}
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
[ -x "$bin" ] || { echo "toml.sh: $bin is not executable" >&2; exit 2; }
tmp=$(mktemp -d) || exit 3
trap 'rm -rf "$tmp"' EXIT INT TERM
file=$tmp/bench.toml

# 2000 sections of 50 keys each; every tenth section is an array-of-tables
# element, and every key kind comes round once in five keys.
awk 'BEGIN {
	pad = "lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua, ut enim ad minim veniam quis"
	for (t = 0; t < 2000; t++) {
		if (t % 10 == 9)
			printf "[[items]]\n"
		else
			printf "[section_%d]\n", t
		for (k = 0; k < 50; k++) {
			m = k % 5
			if (m == 0)
				printf "string_key_%d = \"%s %d\\t\\u00e9\"\n", k, pad, t
			else if (m == 1)
				printf "integer_key_%d = %d # a comment after an integer value, long enough to be read\n", k, t * 1000 + k
			else if (m == 2)
				printf "float_key_%d = %d.%03de-3 # and one after a float value too, just as long as that one\n", k, t, k
			else if (m == 3)
				printf "array_key_%d = [ 1, 2_000, 3.5, \"four\", \x27five\x27, true, 1979-05-27T07:32:00Z ]\n", k
			else
				printf "inline_key_%d = { name = \"n%d\", id = %d, nested.flag = false, list = [ 1, 2 ] }\n", k, t, k
		}
		printf "\n"
	}
}' >"$file"

size=$(wc -c <"$file" | tr -d ' ')
keys=$(grep -c '=' "$file")

# GNU time gives seconds and peak RSS in one go; else only seconds.
if /usr/bin/time -f '%e %M' true >/dev/null 2>&1; then
	measure() {
		/usr/bin/time -f '%e %M' -o "$tmp/t" "$bin" check "$file" \
		    >/dev/null 2>"$tmp/err"
		# A failing status adds a line before the figures.
		tail -n 1 "$tmp/t"
	}
else
	measure() {
		{ command time -p "$bin" check "$file" >/dev/null \
		    2>"$tmp/err"; } 2>"$tmp/t"
		echo "$(awk '/^real/ { print $2 }' "$tmp/t") 0"
	}
fi

i=0
: >"$tmp/runs"
while [ $i -lt 5 ]; do
	measure >>"$tmp/runs"
	i=$((i + 1))
done
# Profile checks may complain (unknown keys); the reader must not.
if grep ': error: ' "$tmp/err" | grep -qv 'unknown key'; then
	echo "toml.sh: the generated file did not parse:" >&2
	head -5 "$tmp/err" >&2
	exit 1
fi

sort -n "$tmp/runs" | awk -v size="$size" -v keys="$keys" '
	{ t[NR] = $1; if ($2 > rss) rss = $2 }
	END {
		printf "file:        %.1f MB, %d key/value lines\n", size / 1048576, keys
		printf "wall time:   best %.2f s, median %.2f s (5 runs)\n", t[1], t[3]
		if (rss > 0)
			printf "peak RSS:    %.1f MB (%.1fx the file size)\n", rss / 1024, rss * 1024 / size
		else
			printf "peak RSS:    unknown (GNU time is not installed)\n"
	}'
