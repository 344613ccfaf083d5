#!/bin/sh
# layers.sh SRCDIR: the layering of src/, three rules.
#
#  1. Every file in src/LAYER/ includes only headers of its own layer or
#     of the layers below it (the order of strata_layers in
#     src/meson.build).  An upward include fails here, before it can
#     become an upward call.
#  2. Some layers below another may still not be used by it (the pairs
#     in "forbid" below): emit/ is keyed on the dialect and never
#     includes tavern/ (it reads the build's record, prompt/item.h, and
#     world info's outcome, world/wi.h).
#  3. Each layer's library links exactly the layers its files include
#     (the *_lib names in the link_with of its static_library() in
#     src/LAYER/meson.build): no layer linked that it does not use, none
#     used that it does not link.
set -u
src=$1
forbid="emit:tavern"
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
tmp=${TMPDIR:-/tmp}/layers.$$
trap 'rm -f "$tmp".*' EXIT
: >"$tmp.used"
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
			[ "${inc%%/*}" = "$layer" ] || echo "u $layer ${inc%%/*}"
			for p in $forbid; do
				[ "$layer:${inc%%/*}" = "$p" ] || continue
				echo "${f#$src/}:${line%%:*}: $layer includes $inc: $layer may not use ${p#*:}"
				echo x
			done
		done | { out=$(cat); echo "$out" | grep '^u ' >>"$tmp.used";
			out=$(echo "$out" | grep -v '^u ');
			[ -z "$out" ] || { echo "$out" | grep -v '^x$'; exit 1; }; } || bad=1
	done
done

# Rule 3: link_with is the set of layers included.
for dir in "$src"/*/; do
	layer=$(basename "$dir")
	[ "$(rank "$layer")" -ge 0 ] || continue
	uses=$(grep "^u $layer " "$tmp.used" | cut -d' ' -f3 | sort -u | tr '\n' ' ')
	links=$(sed -n "/static_library('$layer'/,/)\$/p" "$dir/meson.build" |
		sed -n '/link_with:/,$p' | grep -o '[a-z]*_lib' |
		sed 's/_lib$//' | grep -vx "$layer" | sort -u | tr '\n' ' ')
	if [ "$uses" != "$links" ]; then
		echo "src/$layer/meson.build: links [ $links] but its files include [ $uses]"
		bad=1
	fi
done
echo "layers: $n files checked against: $(echo $order | tr '\n' ' ')"
exit $bad
