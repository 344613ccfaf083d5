#!/bin/sh
# history-files.sh BIN ROOT: the trust boundary of strata(1), SECURITY.
# A history (-H, a batch line's history) never names a file strata reads:
# every shape of part that could name one is an error at its line:col,
# and no byte of the named file reaches stdout.  With
# --allow-history-files DIR, only regular files inside DIR are read
# (symbolic links and '..' resolved; a FIFO is refused, never waited on).
bin=$1
root=$2
t=$(mktemp -d) || exit 1
trap 'rm -rf "$t"' EXIT
cd "$t" || exit 1
fail=0
prof=$root/profiles/companion.toml

# The secret: a PNG signature (so image parts would accept it) and a
# marker; what must never show is the marker or the file's base64.
printf '\211PNG\r\n\032\nSECRET-MARKER-4d1f' >secret.png
cp secret.png secret.txt
b64=$(base64 -w0 secret.png)
s=$t/secret.png

# no NAME OUT ERR: the run failed with nothing on stdout, no secret.
no() {
	if [ -s "$2" ] || grep -q "SECRET-MARKER\|$b64" "$2" "$3"; then
		echo "history-files: $1: the secret leaked"
		fail=1
	fi
}

# Every shape that takes a path or URL, with an absolute path, a
# relative one and '..'.
n=0
for ref in "$s" secret.png "../$(basename "$t")/secret.png"; do
	for part in \
	    '{"type":"file","path":"@","media_type":"text/plain"}' \
	    '{"type":"image","path":"@"}' \
	    '{"type":"image","url":"@"}' \
	    '{"type":"document","path":"@","media_type":"text/plain"}' \
	    '{"type":"image_url","image_url":"@"}' \
	    '{"type":"image_url","image_url":{"url":"@"}}' \
	    '{"type":"image","source":{"type":"url","url":"@"}}' \
	    '{"type":"document","source":{"type":"url","url":"@"}}' \
	    '{"type":"file","file":{"file_data":"@","filename":"x"}}'; do
		n=$((n + 1))
		p=$(printf '%s' "$part" | sed "s|@|$ref|")
		printf '[{"role":"user","content":[\n  %s]}]\n' "$p" >h$n.json
		"$bin" build "$prof" -H h$n.json -u hi >o 2>e
		st=$?
		no "h$n.json $p" o e
		if [ $st -ne 1 ] || ! grep -q "^h$n.json:2:" e; then
			echo "history-files: h$n.json: no error at the part"
			cat e
			fail=1
		fi
	done
done
# Gemini's fileData, and a part nested in a tool result.
printf '[{"role":"user","parts":[{"fileData":{"fileUri":"%s","mimeType":"image/png"}}]}]\n' "$s" >g.json
"$bin" build "$prof" -H g.json -u hi -f gemini >o 2>e
no "gemini fileData" o e
grep -q '^g.json:1:' e || { echo "history-files: fileData: no error"; fail=1; }
cat >tr.json <<EOF
[{"role":"assistant","content":[{"type":"tool_use","id":"c1","name":"f","input":{}}]},
 {"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":[
  {"type":"image","path":"$s"}]}]}]
EOF
"$bin" build "$prof" -H tr.json -u hi -f anthropic >o 2>e
no "tool_result image" o e
grep -q '^tr.json:3:' e || { echo "history-files: nested: no error"; cat e; fail=1; }
# A batch line's history.
printf '{"id":"r1","user":"hi","history":[{"role":"user","content":[{"type":"file","path":"%s","media_type":"text/plain"}]}]}\n' "$s" >b.jsonl
"$bin" batch "$prof" b.jsonl >o 2>e
if grep -q "SECRET-MARKER\|$b64" o e; then
	echo "history-files: batch: the secret leaked"; fail=1
fi
grep -q 'may not name files' o e || { echo "history-files: batch: no error"; fail=1; }

# --allow-history-files DIR: inside DIR works (relative to the history's
# directory, as before); outside, through a link or '..', does not.
mkdir -p ok/sub
printf '\211PNG\r\n\032\nALLOWED' >ok/sub/in.png
ln -s ../secret.png ok/out-link.png
ln -s sub/in.png ok/in-link.png
mkfifo ok/fifo.png
hist() { printf '[{"role":"user","content":[{"type":"image","path":"%s"}]}]\n' "$1" >ok/h.json; }
hist sub/in.png
"$bin" build "$prof" -H ok/h.json -u hi --allow-history-files ok >o 2>e ||
	{ echo "history-files: allowed file refused"; cat e; fail=1; }
grep -q "$(printf '\211PNG\r\n\032\nALLOWED' | base64 -w0)" o ||
	{ echo "history-files: allowed file not sent"; fail=1; }
hist in-link.png
"$bin" build "$prof" -H ok/h.json -u hi --allow-history-files ok >o 2>e ||
	{ echo "history-files: link inside refused"; cat e; fail=1; }
for bad in out-link.png ../secret.png "$s"; do
	hist "$bad"
	"$bin" build "$prof" -H ok/h.json -u hi --allow-history-files ok >o 2>e
	no "allowed dir, $bad" o e
	grep -q "outside the --allow-history-files" e ||
		{ echo "history-files: $bad: not refused as outside"; cat e; fail=1; }
done
hist fifo.png
timeout 10 "$bin" build "$prof" -H ok/h.json -u hi --allow-history-files ok >o 2>e
st=$?
if [ $st -ne 1 ] || ! grep -q 'not a regular file' e; then
	echo "history-files: FIFO: status $st"; cat e; fail=1
fi
# --image on the command line still reads the user's file; a FIFO
# there is refused, not waited on.
"$bin" build "$prof" -u hi --image ok/sub/in.png >o 2>e ||
	{ echo "history-files: --image refused"; cat e; fail=1; }
timeout 10 "$bin" build "$prof" -u hi --image ok/fifo.png >o 2>e
[ $? -eq 1 ] || { echo "history-files: --image FIFO"; fail=1; }
echo "$n part shapes checked"
exit $fail
