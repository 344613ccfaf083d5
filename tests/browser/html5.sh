#!/bin/sh
# html5.sh PAGE...: each inspector page is well-formed HTML5 as HTML Tidy
# reads it: no error and no warning (a missing or misplaced end tag, an
# unknown element or attribute, a bad id), but the one Tidy gives about
# empty <span>s, which the page uses on purpose (colour swatches, the
# segments of the token bars) and HTML5 allows.  Run on the golden
# pages; skips (77), saying so, without tidy.
set -u
if ! command -v tidy >/dev/null 2>&1; then
	echo "html5.sh skipped: no tidy (apt-get install tidy)"
	exit 77
fi
bad=0
for page in "$@"; do
	out=$(tidy -errors -q "$page" 2>&1 | grep -v 'Warning: trimming empty <span>')
	if [ -n "$out" ]; then
		echo "$page:"
		echo "$out"
		bad=1
	else
		echo "$page: ok"
	fi
done
exit $bad
