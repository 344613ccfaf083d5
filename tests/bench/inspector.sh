#!/bin/sh
# bench/inspector.sh [BIN [GOLDEN [SHARED [OUT]]]]: issue 26's render
# time: the stress inspector page (a 400-message SillyTavern build with
# 300 world-info entries and 40 regex scripts, tests/browser/pages.py)
# loaded in headless Chromium, which must render it in under a second.
# The figure is CPU time from Chromium's own counters, not a wall clock
# (tests/browser/render.mjs says how and why), printed with the
# machine's load average while it was measured.  Exits 1 when the page
# misses its target (STRATA_BENCH_REPORT_ONLY=1: prints the same, exits
# 0), 77 (skipped, saying why) without chromium, node, python3,
# tests/browser/node_modules or SHARED's SillyTavern samples.  Not part
# of the test suite: `meson test -C BUILD --benchmark inspector-render`,
# or run from the repository root after building.
set -u
bin=${1:-build/strata}
golden=${2:-tests/golden}
shared=${3:-../shared}
out=${4:-build/inspector-bench}
here=$(cd "$(dirname "$0")/.." && pwd)
chromium=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
if [ -z "$chromium" ]; then
	echo "inspector benchmark skipped: no chromium (apt-get install chromium)"
	exit 77
fi
for tool in node python3; do
	if ! command -v $tool >/dev/null 2>&1; then
		echo "inspector benchmark skipped: no $tool"
		exit 77
	fi
done
if [ ! -d "$here/browser/node_modules/playwright-core" ]; then
	echo "inspector benchmark skipped: no playwright-core (cd tests/browser && npm ci)"
	exit 77
fi
if [ ! -d "$shared/samples/sillytavern" ]; then
	echo "inspector benchmark skipped: no $shared/samples/sillytavern for the stress page"
	exit 77
fi
mkdir -p "$out" || exit 1
python3 "$here/browser/pages.py" "$bin" "$golden" "$shared" "$out" \
    >"$out/pages.json" || exit 1
CHROMIUM=$chromium exec node "$here/browser/render.mjs" "$out/pages.json"
