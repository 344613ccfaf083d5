#!/bin/sh
# test-suite.sh BIN ROOT: strata test on the sample suites.  tests/prompts
# passes; tests/prompts-failing fails on purpose (3 of its 4 cases), with
# exit status 1, the same report with -j 2, TAP, and JUnit XML that
# python3's parser reads with the expected counts; --update rewrites an
# expected file that went stale, and the case passes again.
set -u
bin=$1
cd "$2" || exit 1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "test-suite: $*"; exit 1; }

"$bin" test tests/prompts >"$tmp/pass" || { cat "$tmp/pass"; fail "tests/prompts does not pass"; }
tail -1 "$tmp/pass" | grep -qx '3 passed, 0 failed' || fail "tests/prompts: $(tail -1 "$tmp/pass")"

"$bin" test tests/prompts-failing --junit "$tmp/j.xml" >"$tmp/f1"
[ $? -eq 1 ] || fail "tests/prompts-failing: exit status is not 1"
tail -1 "$tmp/f1" | grep -qx '1 passed, 3 failed' || fail "tests/prompts-failing: $(tail -1 "$tmp/f1")"
grep -q '^FAIL changed-persona' "$tmp/f1" || fail "changed-persona did not fail"
grep -q 'changed   persona (persona)' "$tmp/f1" || fail "no layer diff for changed-persona"
grep -q 'prefix_stable_with base: breaks at message 1' "$tmp/f1" || fail "unstable: no prefix report"
# Each failure names the file and line to look at.
grep -q '^    prompts/characters/satone.md:1: persona changed$' "$tmp/f1" || fail "changed-persona: no file:line of the entry"
grep -q '^    tests/prompts-failing/too-long.toml:4: max_tokens' "$tmp/f1" || fail "too-long: no file:line of the assertion"
grep -q '^    tests/prompts-failing/unstable.toml:[0-9]*: prefix_stable_with' "$tmp/f1" || fail "unstable: no file:line"

"$bin" test -j 2 tests/prompts-failing >"$tmp/f2"
cmp -s "$tmp/f1" "$tmp/f2" || fail "-j 2 prints another report"

"$bin" test --filter 'too-*' tests/prompts-failing >"$tmp/f3"
tail -1 "$tmp/f3" | grep -qx '0 passed, 1 failed' || fail "--filter: $(tail -1 "$tmp/f3")"

"$bin" test --tap tests/prompts-failing >"$tmp/tap"
sed -n 2p "$tmp/tap" | grep -qx '1..4' || fail "TAP plan"
[ "$(grep -c '^not ok' "$tmp/tap")" -eq 3 ] || fail "TAP: not 3 failures"

python3 - "$tmp/j.xml" <<'PY' || fail "JUnit XML"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
suite = root.find("testsuite")
cases = suite.findall("testcase")
assert root.get("tests") == "4" and root.get("failures") == "3", root.attrib
assert suite.get("tests") == "4" and suite.get("failures") == "3"
assert len(cases) == 4
failed = [c.get("name") for c in cases if c.find("failure") is not None]
assert failed == ["changed-persona", "too-long", "unstable"], failed
assert "changed   persona" in cases[1].find("failure").text
PY

# A case that does not build: its diagnostic is in the JUnit report.
mkdir "$tmp/broken" || fail mkdir
printf 'profile = "%s/profiles/small.toml"\nuser = "Hi"\nhistory = "nosuch.json"\ncontains = ["Hi"]\n' "$(pwd)" >"$tmp/broken/b.toml"
"$bin" test --junit "$tmp/b.xml" "$tmp/broken" >"$tmp/b.out" 2>"$tmp/b.err"
[ $? -eq 1 ] || fail "broken suite: exit status is not 1"
[ -s "$tmp/b.err" ] && fail "broken suite: the diagnostic went to stderr, not the report: $(cat "$tmp/b.err")"
python3 - "$tmp/b.xml" <<'PY' || fail "JUnit XML of a build error"
import sys, xml.etree.ElementTree as ET
case = ET.parse(sys.argv[1]).getroot().find("testsuite").find("testcase")
f = case.find("failure")
assert f is not None and f.get("message") == "does not build", f.attrib
assert "nosuch.json" in f.text and "error:" in f.text, f.text
PY

# --update: a stale expected file is rewritten, then the case passes.
mkdir "$tmp/suite" && cp -r tests/prompts-failing/changed-persona "$tmp/suite/" || fail "copy"
sed -i 's|"\.\./\.\./\.\./profiles|"'"$(pwd)"'/profiles|' "$tmp/suite/changed-persona/case.toml"
"$bin" test "$tmp/suite" >/dev/null && fail "the stale case passes"
"$bin" test --update "$tmp/suite" >"$tmp/u" || fail "--update failed"
grep -q "updated $tmp/suite/changed-persona/expect.json" "$tmp/u" || fail "--update does not say what it wrote"
"$bin" test "$tmp/suite" >"$tmp/u2" || fail "the case fails after --update"
echo "test-suite: ok"
