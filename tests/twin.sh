#!/bin/sh
# twin.sh BIN ROOT: a TOML profile and its YAML twin give the same bytes,
# in every output format.
bin=$1
root=$2
cd "$root" || exit 1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
printf 'Kei has an exam on Friday.\n' >"$tmp/memory.txt"
fail=0
for f in openai anthropic gemini messages text json; do
	for ext in toml yaml; do
		"$bin" build "profiles/companion.$ext" -u "Good morning!" \
			-c memory="$tmp/memory.txt" -f "$f" \
			>"$tmp/$ext.out" 2>"$tmp/$ext.err" || {
			echo "twin: $ext -f $f failed:"; cat "$tmp/$ext.err"; fail=1; }
	done
	# The json format names the profile file and the lines of its
	# entries there; nothing else may differ.
	if [ "$f" = json ]; then
		for ext in toml yaml; do
			sed 's/"profiles\/companion\.[a-z]*\(:[0-9]*\)\{0,1\}"/"P"/' \
				"$tmp/$ext.out" >"$tmp/x" && mv "$tmp/x" "$tmp/$ext.out"
		done
	fi
	if ! cmp -s "$tmp/toml.out" "$tmp/yaml.out"; then
		echo "twin: -f $f differs between companion.toml and companion.yaml:"
		diff -u "$tmp/toml.out" "$tmp/yaml.out" | head -40
		fail=1
	fi
done
[ $fail -eq 0 ] && echo "twin: companion.toml and companion.yaml agree in 6 formats"
exit $fail
