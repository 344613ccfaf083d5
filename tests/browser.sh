#!/bin/sh
# browser.sh BIN GOLDEN SHARED OUT: the inspector pages (strata debug -f
# html, strata diff -f html) loaded in headless Chromium.  pages.py
# writes the pages and what each should hold into OUT; inspect.mjs
# (playwright-core driving the system's chromium) checks them and writes
# a screenshot of each, light and dark, into OUT for a person to look at.
# Skips (exit 77), saying why, without chromium, node, python3 or
# tests/browser/node_modules (cd tests/browser && npm ci).
set -u
bin=$1 golden=$2 shared=$3 out=$4
here=$(cd "$(dirname "$0")" && pwd)
chromium=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
if [ -z "$chromium" ]; then
	echo "browser suite skipped: no chromium (apt-get install chromium)"
	exit 77
fi
for tool in node python3; do
	if ! command -v $tool >/dev/null 2>&1; then
		echo "browser suite skipped: no $tool"
		exit 77
	fi
done
if [ ! -d "$here/browser/node_modules/playwright-core" ]; then
	echo "browser suite skipped: no playwright-core (cd tests/browser && npm ci)"
	exit 77
fi
mkdir -p "$out" || exit 1
python3 "$here/browser/pages.py" "$bin" "$golden" "$shared" "$out" \
    >"$out/pages.json" || exit 1
CHROMIUM=$chromium exec node "$here/browser/inspect.mjs" "$out/pages.json"
