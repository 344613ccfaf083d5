#!/bin/sh
# layers.sh SRCDIR: every file in src/LAYER/ includes only headers of its
# own layer or of the layers below it (the order of strata_layers in
# src/meson.build).  An upward include fails here, before it can become
# an upward call.
set -u
src=$1
order=$(sed -n "/^strata_layers = \[/,/\]/p" "$src/meson.build" |
	tr -d "[],'" | sed 's/strata_layers =//' | tr -s ' \n' '\n' | grep .)
rank() {
	i=0
	for l in $order; do
		[ "$l" = "$1" ] && { echo $i; return; }
		i=$((i + 1))
	done
	echo -1
}
bad=0 n=0
for dir in "$src"/*/; do
	layer=$(basename "$dir")
	mine=$(rank "$layer")
	[ "$mine" -ge 0 ] || { echo "layers: $layer is not in strata_layers"; bad=1; continue; }
	for f in "$dir"*.c "$dir"*.h; do
		[ -f "$f" ] || continue
		n=$((n + 1))
		grep -n '^#include "' "$f" | while IFS= read -r line; do
			inc=${line#*\"}
			inc=${inc%\"*}
			case $inc in
			*/*) ;;
			config.h|version.h) continue ;;
			*) echo "${f#$src/}:${line%%:*}: include \"$inc\" names no layer"; echo x; continue ;;
			esac
			theirs=$(rank "${inc%%/*}")
			if [ "$theirs" -lt 0 ] || [ "$theirs" -gt "$mine" ]; then
				echo "${f#$src/}:${line%%:*}: $layer includes $inc, from a layer above it"
				echo x
			fi
		done | { out=$(cat); [ -z "$out" ] || { echo "$out" | grep -v '^x$'; exit 1; }; } || bad=1
	done
done
echo "layers: $n files checked against: $(echo $order | tr '\n' ' ')"
exit $bad
