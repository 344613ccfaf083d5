#!/bin/sh
# decide-stream.sh BIN: `strata decide --stream` writes a finish message
# as it arrives.  The reply is fed through a FIFO in two parts; the second
# is written only once the first part of the message has come out, so a
# strata that waited for the end would never see it (and the test fails
# on its timeout, not on timing luck).
set -u
bin=$1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"; kill $pid 2>/dev/null' EXIT
mkfifo "$tmp/in"
"$bin" decide --stream --decision "$tmp/decision" <"$tmp/in" >"$tmp/out" &
pid=$!
exec 3>"$tmp/in"
printf '<think>first</think>{"action": "finish", "message": "你好，' >&3
i=0
until grep -q '你好，' "$tmp/out" 2>/dev/null; do
	i=$((i + 1))
	if [ $i -gt 200 ]; then
		echo "decide-stream: nothing streamed after 20 s"
		exit 1
	fi
	sleep 0.1
done
printf '世界"}' >&3
exec 3>&-
wait $pid || { echo "decide-stream: exit $?"; exit 1; }
out=$(cat "$tmp/out")
[ "$out" = "你好，世界" ] || { echo "decide-stream: got '$out'"; exit 1; }
dec=$(cat "$tmp/decision")
[ "$dec" = '{"action":"finish","message":"你好，世界"}' ] ||
	{ echo "decide-stream: decision '$dec'"; exit 1; }
echo "decide-stream: ok"
