#!/bin/sh
# spgen.sh SPGEN DIR: spgen refuses each DIR/NAME.model (a SentencePiece
# model breaking one rule tok_sp() relies on; make.py wrote them) with
# exit status 1, DIR/NAME.err on stderr and no output file, and takes
# DIR/good.model.ok, the same model with no rule broken.
spgen=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") dir=$2
tmp=${TMPDIR:-/tmp}/spgen.$$
mkdir -p "$tmp" || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0 n=0
for m in "$dir"/*.model; do
	name=$(basename "$m" .model)
	n=$((n + 1))
	(cd "$dir" && "$spgen" "$tmp/out.c" sym "$name.model") 2>"$tmp/err"
	st=$?
	if [ "$st" -ne 1 ] || [ -e "$tmp/out.c" ] ||
	    ! cmp -s "$tmp/err" "$dir/$name.err"; then
		echo "FAIL $name: status $st"; cat "$tmp/err"
		fail=1
	fi
	rm -f "$tmp/out.c"
done
if ! "$spgen" "$tmp/out.c" sym "$dir/good.model.ok" ||
    ! grep -q '^const struct tokenizer_sp sym = {' "$tmp/out.c"; then
	echo "FAIL good.model.ok"
	fail=1
fi
"$spgen" 2>/dev/null
[ $? -eq 2 ] || { echo "FAIL usage"; fail=1; }
"$spgen" "$tmp/out2.c" sym "$dir/absent.model" 2>"$tmp/err"
[ $? -eq 1 ] && grep -q 'cannot read' "$tmp/err" || { echo "FAIL absent"; fail=1; }
[ "$n" -ge 11 ] || { echo "FAIL only $n models"; fail=1; }
echo "spgen: $n refused models checked"
exit $fail
