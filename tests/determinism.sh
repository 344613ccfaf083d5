#!/bin/sh
# determinism.sh BIN ROOT: the same inputs give the same bytes, whatever
# the locale, time zone or environment, run after run.  The composed
# output is also never read back: building twice changes nothing.
bin=$1
root=$2
cd "$root" || exit 1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
printf '主人周五有考试。\n' >"$tmp/mem.txt"
printf '[{"role":"user","content":"早"},{"role":"assistant","content":"早上好！"}]\n' >"$tmp/h.json"
run() {
	env -i PATH="$PATH" "$@" "$bin" build profiles/xiaoyu.toml -u 今天好累 \
		-c memory="$tmp/mem.txt" -H "$tmp/h.json" -f json
	env -i PATH="$PATH" "$@" "$bin" build profiles/companion.toml \
		-u hi -f gemini --set output.params.temperature=0.25
	env -i PATH="$PATH" "$@" "$bin" debug profiles/promptstack.toml -u hi
}
run LC_ALL=C TZ=UTC >"$tmp/a" 2>&1 || { echo "determinism: run failed"; cat "$tmp/a"; exit 1; }
i=0
for envs in "LC_ALL=C.UTF-8 TZ=Asia/Tokyo" "LANG=de_DE.UTF-8 LC_NUMERIC=de_DE.UTF-8 TZ=America/New_York" \
	"LC_ALL=tr_TR.UTF-8 TZ=Pacific/Chatham NO_COLOR=1 HOME=/nonexistent" "LC_ALL=C TZ=UTC"; do
	i=$((i + 1))
	# shellcheck disable=SC2086
	run $envs >"$tmp/b$i" 2>&1
	if ! cmp -s "$tmp/a" "$tmp/b$i"; then
		echo "determinism: output differs with $envs:"
		diff -u "$tmp/a" "$tmp/b$i" | head -40
		exit 1
	fi
done
echo "determinism: $i environments, identical bytes"
