#!/bin/sh
# wi-shared.sh BIN SHARED CASES: the world-info cases that read the
# shared samples (Eldoria, Seraphina's book).  Skips (77) when SHARED is
# absent.  Each case directory is a golden case (golden.sh).
set -u
bin=$1 shared=$2 cases=$3
if [ ! -d "$shared/samples/sillytavern" ]; then
	echo "wi-shared: $shared/samples/sillytavern is absent; skipping"
	exit 77
fi
here=$(dirname "$0")
fail=0
for d in "$cases"/*/; do
	sh "$here/golden.sh" "$bin" "$d" || fail=1
done
exit $fail
