#!/bin/sh
# cost.sh BIN CASE: one cost bound of strata(1), SECURITY, on an input
# generated here: the run must finish within a CPU-time and a memory
# limit (ulimit), with the exit status the case expects.  Suite 'cost'
# (not the default run; meant for optimised builds without sanitizers).
bin=$1
case_=$2
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v python3 >/dev/null 2>&1; then
	echo "SKIP: python3 is not installed"
	exit 77
fi
t=$(mktemp -d) || exit 1
trap 'rm -rf "$t"' EXIT
cd "$t" || exit 1
# run CPU-SECONDS MEM-MB STATUS CMD...: under the limits, expect STATUS.
run() {
	cpu=$1 mem=$2 want=$3
	shift 3
	( ulimit -t "$cpu"; ulimit -v $((mem * 1024)); "$@" ) >out 2>err
	st=$?
	if [ "$st" -ne "$want" ]; then
		echo "cost $case_: exit $st (wanted $want) under ${cpu}s CPU, ${mem} MB: $*"
		head -c 2000 err
		exit 1
	fi
}
. "$here/cost/$case_.sh"
