#!/bin/sh
# golden.sh BIN CASEDIR: run one golden case and compare what strata
# printed with the expected files.
#
# A case directory holds the inputs (profiles, prompt files), then:
#   args          the command line after "strata", shell-quoted (required)
#   stdin         fed to standard input (else /dev/null)
#   expect.out    expected standard output (absent: must be empty)
#   expect.err    expected standard error (absent: must be empty)
#   expect.status expected exit status (absent: 0)
# The command runs inside the case directory, so paths in messages are
# relative and stable.  UPDATE_GOLDEN=1 rewrites the expected files from
# what strata printed.  STRATA_WRAPPER (e.g. a valgrind command line whose
# --error-exitcode is 99) is put in front of BIN.
set -u
bin=$1
dir=$2
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
cd "$dir" || exit 1
[ -f args ] || { echo "golden: $dir has no args file"; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
in=/dev/null
[ -f stdin ] && in=stdin
args=$(cat args)
# Pin everything that could change the bytes.
export LC_ALL=C.UTF-8 TZ=UTC NO_COLOR=1
unset STRATA_PATH
eval "set -- $args"
${STRATA_WRAPPER:-} "$bin" "$@" <"$in" >"$tmp/out" 2>"$tmp/err"
status=$?
if [ -n "${STRATA_WRAPPER:-}" ] && [ $status -eq 99 ]; then
	echo "golden: $dir: the wrapper found memory errors:"
	cat "$tmp/err"
	exit 1
fi
if [ "${UPDATE_GOLDEN:-}" = 1 ]; then
	if [ -s "$tmp/out" ]; then cp "$tmp/out" expect.out; else rm -f expect.out; fi
	if [ -s "$tmp/err" ]; then cp "$tmp/err" expect.err; else rm -f expect.err; fi
	if [ $status -ne 0 ]; then echo $status >expect.status; else rm -f expect.status; fi
	echo "golden: $dir: updated"
	exit 0
fi
fail=0
want=0
[ -f expect.status ] && want=$(cat expect.status)
if [ "$status" != "$want" ]; then
	echo "golden: $dir: exit status $status, expected $want"
	fail=1
fi
for f in out err; do
	if [ -f "expect.$f" ]; then
		if ! cmp -s "expect.$f" "$tmp/$f"; then
			echo "golden: $dir: std$f differs:"
			diff -u "expect.$f" "$tmp/$f" | head -60
			fail=1
		fi
	elif [ -s "$tmp/$f" ]; then
		echo "golden: $dir: unexpected std$f:"
		head -c 4000 "$tmp/$f"
		fail=1
	fi
done
exit $fail
