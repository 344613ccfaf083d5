#!/bin/sh
# card-roundtrip.sh BIN GOLDENDIR [SAMPLE.png]: PNG -> JSON -> PNG -> JSON
# gives the same JSON, and writing twice gives the same bytes; the write
# is atomic (no temporary file left, an old file kept when the write
# fails).  With SAMPLE, the same round trip on that PNG instead, skipped
# (77) when it is absent (../shared not beside the repository).
set -u
bin=$1
golden=$2
sample=${3:-}
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
export LC_ALL=C.UTF-8 NO_COLOR=1
if [ -n "$sample" ]; then
	if [ ! -r "$sample" ]; then
		echo "SKIP: $sample is absent (../shared not beside the repository)"
		exit 77
	fi
	png=$sample
else
	png=$golden/card-png/pip.png
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
no() { echo "card-roundtrip: $*"; fail=1; }

"$bin" card "$png" >"$tmp/a.json" || no "cannot read $png"
"$bin" card "$tmp/a.json" --png "$png" -o "$tmp/b.png" || no "cannot write b.png"
"$bin" card "$tmp/b.png" >"$tmp/c.json" || no "cannot read b.png"
cmp -s "$tmp/a.json" "$tmp/c.json" || no "JSON differs after PNG -> JSON -> PNG -> JSON"
"$bin" card "$tmp/c.json" --png "$tmp/b.png" -o "$tmp/d.png" || no "cannot write d.png"
cmp -s "$tmp/b.png" "$tmp/d.png" || no "writing the same card twice gives different bytes"
"$bin" card "$tmp/c.json" --png "$tmp/b.png" -o - >"$tmp/e.png" || no "-o - failed"
cmp -s "$tmp/b.png" "$tmp/e.png" || no "-o - and -o FILE differ"
# The V2 chunk carries the same card.
"$bin" card "$tmp/b.png" -F name >"$tmp/name" || no "--field name failed"
left=$(ls -A "$tmp" | grep -v -x -e a.json -e b.png -e c.json -e d.png -e e.png -e name)
[ -z "$left" ] || no "files left behind: $left"

# Failures: nothing written, an existing file kept.
echo keep >"$tmp/keep.png"
printf 'not a png' >"$tmp/bad.png"
"$bin" card "$tmp/a.json" --png "$tmp/bad.png" -o "$tmp/keep.png" 2>"$tmp/err"
[ $? -eq 1 ] || no "a bad image should exit 1"
[ "$(cat "$tmp/keep.png")" = keep ] || no "a failed write changed the old file"
"$bin" card "$tmp/a.json" --png "$png" -o "$tmp/no/such/dir.png" 2>"$tmp/err"
[ $? -eq 3 ] || no "an unwritable output should exit 3"
grep -q "cannot write $tmp/no/such/dir.png: No such file or directory" "$tmp/err" ||
	no "unexpected message: $(cat "$tmp/err")"
# Binary never goes to a terminal.
if [ -z "$sample" ] && command -v script >/dev/null 2>&1; then
	out=$(script -qc "'$bin' card '$tmp/a.json' --png '$png' -o -; echo status=\$?" /dev/null </dev/null)
	case $out in *"refusing to write a PNG to a terminal"*status=2*) ;;
	*) no "-o - on a terminal was not refused: $out" ;; esac
fi
[ $fail -eq 0 ] && echo "card-roundtrip: $png: PNG -> JSON -> PNG -> JSON is stable"
exit $fail
