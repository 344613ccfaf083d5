#!/bin/sh
# schema.sh SHARED GOLDEN: every golden case that names a provider API in a
# file `schema` (openai, openai-responses, anthropic or gemini) has its
# expected output checked with the providers' request schemas in
# SHARED/api-schemas; `ollama` cases are checked against the request shape
# written down in tests/ollama/ (Ollama publishes no schema), with the same
# ajv.
# Skips (exit 77), saying why, when ../shared, node or the validator's
# modules are absent.
shared=$1
golden=$2
v=$shared/api-schemas/validate
if [ ! -f "$v" ]; then
	echo "SKIP: $shared/api-schemas is absent"
	exit 77
fi
if ! command -v node >/dev/null 2>&1; then
	echo "SKIP: node is not installed"
	exit 77
fi
if [ ! -d "$shared/api-schemas/node_modules" ]; then
	echo "SKIP: run 'npm ci' in $shared/api-schemas first"
	exit 77
fi
n=0
fail=0
for d in "$golden"/*/; do
	[ -f "$d/schema" ] || continue
	api=$(cat "$d/schema")
	n=$((n + 1))
	if [ "$api" = ollama ]; then
		out=$(node "$(dirname "$0")/ollama/validate.js" \
		    "$shared/api-schemas/node_modules" "$d/expect.out" 2>&1) ||
		    { echo "FAIL ${d%/}: $out"; fail=$((fail + 1)); }
	elif ! out=$(node "$v" --strict "$api" "$d/expect.out" 2>&1); then
		echo "FAIL ${d%/}: $out"
		fail=$((fail + 1))
	fi
done
echo "schema: $n bodies checked, $fail invalid"
[ "$n" -gt 0 ] && [ "$fail" -eq 0 ]
