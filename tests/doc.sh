#!/bin/sh
# doc.sh MANDIR: lint the man pages.  Skips (exit 77) without mandoc.
if ! command -v mandoc >/dev/null 2>&1; then
	echo "SKIP: mandoc is not installed"
	exit 77
fi
status=0
for page in "$1"/strata.1 "$1"/strata-profile.5 "$1"/strata-tavern.7 \
    "$1"/strata-templates.7; do
	out=$(mandoc -Tlint -Wwarning "$page" 2>&1)
	if [ -n "$out" ]; then
		echo "$out"
		status=1
	fi
done
exit $status
