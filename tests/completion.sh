#!/bin/sh
# completion.sh BIN COMPDIR: the shell completions built into COMPDIR
# (strata for bash, _strata, strata.fish, made by `strata completion SHELL`
# at build time) complete every command, and every option of every
# command: the options each command's --help lists, which must also be
# all the completions offer (so the help, the parser's table and the
# completions agree).  bash is driven through its completion function;
# fish through `complete -C`; zsh, when installed, is syntax-checked and
# its script searched.  A shell that is missing skips its part.
set -u
bin=$1
dir=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
err() { echo "completion: $*"; fail=1; }

cmds=$("$bin" --help | sed -n 's/^  \([a-z][a-z]*\) .*/\1/p')
[ -n "$cmds" ] || { echo "completion: no commands in strata --help"; exit 1; }
for f in strata _strata strata.fish; do
	[ -s "$dir/$f" ] || err "$dir/$f was not built"
done
[ $fail -eq 0 ] || exit 1

# What each command's help lists: its options, long and short.
# Every option word of the help text (debug takes build's too; help
# has no options of its own).
cmds=$(echo $cmds | tr ' ' '\n' | grep -vx help)
for c in $cmds; do
	"$bin" help "$c" | grep -oE -- "(^|[][ ,|(])-(-[a-z][a-z-]*|[A-Za-z])([] ,=|)]|\$)" |
		sed 's/^[][ ,|(]//; s/[] ,=|)]$//' | sort -u >"$tmp/help.$c"
done
if "$bin" help debug | tr '\n' ' ' | grep -q "Takes the options of 'strata build'"; then
	sort -u "$tmp/help.build" "$tmp/help.debug" -o "$tmp/help.debug"
fi

if command -v bash >/dev/null 2>&1; then
	for c in $cmds; do
		bash -c '. "$1"; COMP_WORDS=(strata "$2" -); COMP_CWORD=2; _strata
			printf "%s\n" "${COMPREPLY[@]}"' _ "$dir/strata" "$c" |
			sort -u >"$tmp/bash.$c"
		missing=$(comm -23 "$tmp/help.$c" "$tmp/bash.$c")
		extra=$(comm -13 "$tmp/help.$c" "$tmp/bash.$c")
		[ -z "$missing" ] || err "bash: strata $c does not complete:" $missing
		[ -z "$extra" ] || err "bash: strata $c completes options its --help does not list:" $extra
	done
	got=$(bash -c '. "$1"; COMP_WORDS=(strata ""); COMP_CWORD=1; _strata
		printf "%s\n" "${COMPREPLY[@]}"' _ "$dir/strata")
	for c in $cmds; do
		printf '%s\n' "$got" | grep -qx "$c" || err "bash: command $c does not complete"
	done
	got=$(bash -c '. "$1"; COMP_WORDS=(strata build -f ""); COMP_CWORD=3; _strata
		printf "%s\n" "${COMPREPLY[@]}"' _ "$dir/strata")
	printf '%s\n' "$got" | grep -qx anthropic || err "bash: -f does not complete the formats"
else
	echo "completion: bash not installed, its part skipped"
fi

if command -v fish >/dev/null 2>&1; then
	for c in $cmds; do
		HOME=$tmp fish --no-config -c 'source $argv[1]; complete -C "strata $argv[2] --"' \
			"$dir/strata.fish" "$c" 2>/dev/null | cut -f1 | sort -u >"$tmp/fish.$c"
		grep -- '^--' "$tmp/help.$c" | comm -23 - "$tmp/fish.$c" >"$tmp/miss"
		[ ! -s "$tmp/miss" ] || err "fish: strata $c does not complete:" $(cat "$tmp/miss")
	done
	HOME=$tmp fish --no-config -c 'source $argv[1]; complete -C "strata "' "$dir/strata.fish" \
		2>/dev/null | cut -f1 >"$tmp/fishcmds"
	for c in $cmds; do
		grep -qx "$c" "$tmp/fishcmds" || err "fish: command $c does not complete"
	done
else
	echo "completion: fish not installed, its part skipped"
fi

if command -v zsh >/dev/null 2>&1; then
	zsh -n "$dir/_strata" || err "zsh: _strata does not parse"
	for c in $cmds; do
		sed -n "/^	$c)/,/;;/p" "$dir/_strata" >"$tmp/zsh.$c"
		while read -r o; do
			grep -q -- "'\*$o[:']" "$tmp/zsh.$c" || err "zsh: strata $c does not complete $o"
		done <"$tmp/help.$c"
	done
else
	echo "completion: zsh not installed, its part skipped"
fi
[ $fail -eq 0 ] && echo "completion: ok ($(echo $cmds | wc -w) commands)"
exit $fail
