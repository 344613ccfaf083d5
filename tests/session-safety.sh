#!/bin/sh
# session-safety.sh BIN: a symbolic link at the session path is followed
# (the target replaced, the link kept); a dangling one is an error that
# creates nothing; ten concurrent builds on one session serialise their
# read-build-write, so ten {{addvar::count::1}} end at 10 (strata(1),
# SESSIONS).
bin=$1
t=$(mktemp -d) || exit 1
trap 'rm -rf "$t"' EXIT
cd "$t" || exit 1
fail=0
reply() {
	echo "{\"choices\":[{\"message\":{\"role\":\"assistant\",\"content\":\"$2\"}}]}" |
	    "$bin" reply --session "$1" --now 2026-01-01T00:00:00Z
}
mkdir elsewhere
ln -s elsewhere/made.jsonl dangling.jsonl
reply dangling.jsonl x >/dev/null 2>e && { echo "session-safety: dangling link accepted"; fail=1; }
grep -q 'symbolic link to a file that does not exist' e ||
	{ echo "session-safety: dangling: no error"; cat e; fail=1; }
[ -e elsewhere/made.jsonl ] && { echo "session-safety: dangling: target created"; fail=1; }
[ -L dangling.jsonl ] || { echo "session-safety: dangling: link replaced"; fail=1; }
"$bin" build --session dangling.jsonl -u hi >/dev/null 2>&1 &&
	{ echo "session-safety: build through a dangling link"; fail=1; }
[ -e elsewhere/made.jsonl ] && { echo "session-safety: build: target created"; fail=1; }
[ "$(ls elsewhere)" = "" ] || { echo "session-safety: files left: $(ls elsewhere)"; fail=1; }

"$bin" session elsewhere/target.jsonl new --now 2026-01-01T00:00:00Z || fail=1
ln -s elsewhere/target.jsonl link.jsonl
reply link.jsonl 'via link' >/dev/null || { echo "session-safety: reply through a link failed"; fail=1; }
[ -L link.jsonl ] || { echo "session-safety: the link was replaced by a file"; fail=1; }
grep -q 'via link' elsewhere/target.jsonl || { echo "session-safety: the target was not updated"; fail=1; }
"$bin" build --session link.jsonl -u 'built through' >/dev/null || fail=1
[ -L link.jsonl ] && grep -q 'built through' elsewhere/target.jsonl ||
	{ echo "session-safety: build through a link"; fail=1; }
[ "$(ls -A elsewhere)" = target.jsonl ] || { echo "session-safety: temporary files left: $(ls -A elsewhere)"; fail=1; }

printf '{"spec":"chara_card_v2","spec_version":"2.0","data":{"name":"Pip","description":"{{addvar::count::1}}Pip.","first_mes":"Hello {{user}}"}}\n' >card.json
for i in 1 2 3 4 5 6 7 8 9 10; do
	"$bin" build --card card.json --session s.jsonl -u "par $i" >/dev/null &
done
wait
n=$(grep -c '"mes":"par' s.jsonl)
c=$(head -1 s.jsonl | grep -o '"count":"[0-9]*"')
if [ "$n" != 10 ] || [ "$c" != '"count":"10"' ]; then
	echo "session-safety: concurrent builds: $n messages, $c"
	fail=1
fi
exit $fail
