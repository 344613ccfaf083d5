#!/bin/sh
# lookup.sh BIN ROOT: strata --version prints meson.build's version (and
# in a git checkout the commit), and `strata build NAME` finds a profile
# by name in the documented order when no file NAME exists here:
# $STRATA_PATH, then $XDG_DATA_HOME/strata/profiles, then
# BINDIR/../share/strata/profiles (an installed tree, wherever it is).
set -u
bin=$1
root=$2
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "lookup: $*"; exit 1; }

want=$(sed -n "s/^  version: '\([^']*\)',/\1/p" "$root/meson.build")
got=$("$bin" --version) || fail "--version failed"
case $got in "strata $want"|"strata $want (commit "*")") ;; *) fail "--version says '$got', meson.build '$want'" ;; esac
if command -v git >/dev/null 2>&1 && git -C "$root" rev-parse HEAD >/dev/null 2>&1; then
	head=$(git -C "$root" rev-parse --short=12 HEAD)
	case $got in *"(commit $head"*) ;; *) fail "--version in a git checkout does not name commit $head: $got" ;; esac
fi

# A tree like an installed one: profiles and prompts side by side.
mkdir -p "$tmp/a/profiles" "$tmp/xdg/strata" "$tmp/inst/bin" "$tmp/inst/share/strata" "$tmp/empty"
cp -r "$root/profiles" "$root/prompts" "$tmp/xdg/strata/"
cp -r "$root/profiles" "$root/prompts" "$tmp/inst/share/strata/"
cp "$bin" "$tmp/inst/bin/strata"
printf '[prompt]\npersona = "p.md"\n' >"$tmp/a/profiles/mine.toml"
mkdir "$tmp/a/profiles/prompts" && echo "From STRATA_PATH." >"$tmp/a/profiles/prompts/p.md"
cd "$tmp/empty" || exit 1
ref=$("$bin" build "$root/profiles/companion.toml" -u hi) || fail "reference build"

# 1. $STRATA_PATH
out=$(STRATA_PATH="$tmp/nope:$tmp/a/profiles" XDG_DATA_HOME="$tmp/xdg" "$bin" build mine -u hi -f text) ||
	fail "STRATA_PATH: mine not found"
case $out in *"From STRATA_PATH."*) ;; *) fail "STRATA_PATH: another mine" ;; esac
# 2. $XDG_DATA_HOME/strata/profiles, by name and by name.toml
out=$(XDG_DATA_HOME="$tmp/xdg" "$bin" build companion -u hi) || fail "XDG_DATA_HOME: companion not found"
[ "$out" = "$ref" ] || fail "XDG_DATA_HOME: companion builds another body"
XDG_DATA_HOME="$tmp/xdg" "$bin" build fay/planner.toml -u hi >/dev/null || fail "XDG_DATA_HOME: fay/planner.toml not found"
# 3. beside the binary
out=$(XDG_DATA_HOME="$tmp/nowhere" HOME="$tmp/nowhere" "$tmp/inst/bin/strata" build companion -u hi) ||
	fail "BINDIR/../share/strata/profiles: companion not found"
[ "$out" = "$ref" ] || fail "BINDIR/../share: companion builds another body"
XDG_DATA_HOME="$tmp/nowhere" HOME="$tmp/nowhere" "$tmp/inst/bin/strata" batch companion - </dev/null ||
	fail "batch does not look the profile up"
# A file here wins, and a name found nowhere is an error that names it.
mkdir "$tmp/here" && printf '[prompt]\npersona = "x.md"\n' >"$tmp/here/companion.toml" && mkdir "$tmp/here/prompts" && echo "Here." >"$tmp/here/prompts/x.md"
out=$(cd "$tmp/here" && XDG_DATA_HOME="$tmp/xdg" "$bin" build companion.toml -u hi -f text) || fail "a file here"
case $out in *"Here."*) ;; *) fail "a profile found by name wins over the file here" ;; esac
XDG_DATA_HOME="$tmp/xdg" "$bin" build nosuchprofile -u hi >/dev/null 2>"$tmp/err" && fail "nosuchprofile builds"
grep -q nosuchprofile "$tmp/err" || fail "the error does not name nosuchprofile: $(cat "$tmp/err")"
echo "lookup: ok"
