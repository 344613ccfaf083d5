#!/bin/sh
# stress-profile.sh BIN: the profile layer at sizes that used to be
# quadratic, each checked for its output and against a time and memory
# bound (generous: the fixed code takes well under a second and 50 MB on a
# debug build; the old one took minutes or gigabytes):
#   20,000 --set inject.KEY.priority=... over 20,000 [[inject]];
#   a 32-level extends chain over a 100,000-key base;
#   10,000 unused [vars] under check and build (the template layer's
#   part of this row is bounded by its own tests).
bin=$1
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
python3 - "$tmp" <<'PY' || exit 1
import sys
d = sys.argv[1]
n = 20000
with open(d + "/inj.toml", "w") as f:
    f.write('[output]\nmodel = "m"\n')
    for i in range(n):
        f.write('[[inject]]\nkey = "k.%d"\ncontent = "c%d"\n' % (i, i))
with open(d + "/inj.args", "w") as f:
    # Reverse the order by priority; keys hold dots, as identities may.
    for i in range(n):
        f.write("--set\ninject.k.%d.priority=%d\n" % (i, n - i))
keys, depth = 100000, 32
with open(d + "/l0.toml", "w") as f:
    # Keys strata does not translate: sent as written, to openai only.
    f.write('[output]\nmodel = "m"\n[output.params.openai]\n')
    for i in range(keys):
        f.write('p%d = %d\n' % (i, i))
    f.write('[[inject]]\nkey = "base"\nfile = "base.md"\n')
for l in range(1, depth):
    with open(d + "/l%d.toml" % l, "w") as f:
        f.write('extends = "l%d.toml"\n[output.params.openai]\np%d = "level%d"\n'
                % (l - 1, l, l))
        f.write('[[inject]]\nkey = "lvl%d"\ncontent = "from %d"\n' % (l, l))
with open(d + "/l%d.toml" % (depth - 1), "a") as f:
    # The top replaces the base's file with content (an exclusive pair).
    f.write('[[inject]]\nkey = "base"\ncontent = "inline"\n')
# The same chain with one bad value deep in the base and one in the
# middle: each error must name the file and line that wrote it.
with open(d + "/bad0.toml", "w") as f:
    f.write(open(d + "/l0.toml").read() + '[prompt]\nstyle = 7\n')
for l in range(1, depth):
    text = open(d + "/l%d.toml" % l).read().replace(
        'l%d.toml' % (l - 1), 'bad%d.toml' % (l - 1))
    if l == 17:
        text += '[profile]\nname = false\n'
    open(d + "/bad%d.toml" % l, "w").write(text)
with open(d + "/vars.toml", "w") as f:
    f.write('[output]\nmodel = "m"\n[vars]\n')
    for i in range(10000):
        f.write('v%d = "x%d"\n' % (i, i))
PY
# run OUT ERR CMD...: run CMD with stdout and stderr to files; print
# "seconds max-rss-MB status".  An argument @@FILE stands for the lines
# of FILE, one argument each.
run() {
	python3 - "$@" <<'PY'
import resource, subprocess, sys, time
out, err, cmd = sys.argv[1], sys.argv[2], []
for a in sys.argv[3:]:
    cmd += open(a[2:]).read().splitlines() if a.startswith("@@") else [a]
t = time.monotonic()
with open(out, "w") as o, open(err, "w") as e:
    st = subprocess.call(cmd, stdout=o, stderr=e)
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024
print("%.2f %d %d" % (time.monotonic() - t, rss, st))
PY
}
fail=0
# bounded WHAT SECONDS MB WANT-STATUS CMD...
bounded() {
	what=$1 secs=$2 mb=$3 want=$4
	shift 4
	set -- $(run "$tmp/out" "$tmp/err" "$@") 0 0 99
	echo "stress-profile: $what: $1 s, $2 MB, exit $3"
	if [ "$3" -ne "$want" ]; then
		echo "stress-profile: $what: exit $3, expected $want"
		head -c 2000 "$tmp/err"; fail=1
	fi
	if ! python3 -c "import sys; sys.exit(not ($1 < $secs and $2 < $mb))"
	then
		echo "stress-profile: $what: over $secs s or $mb MB"; fail=1
	fi
}
# expect WHAT PYTHON-CONDITION: check the output of the last run (o: the
# parsed stdout, e: stderr).
expect() {
	python3 - "$tmp/out" "$tmp/err" "$2" <<'PY' ||
import json, sys
raw = open(sys.argv[1]).read()
o = json.loads(raw) if raw.startswith("{") else None
e = open(sys.argv[2]).read()
sys.exit(0 if eval("(" + sys.argv[3] + ")") else 1)
PY
	{ echo "stress-profile: $1: wrong output"; head -c 1000 "$tmp/err"
	  fail=1; }
}

cd "$tmp" || exit 1
printf 'from a file\n' >base.md
bounded "20,000 --set over 20,000 injections" 20 400 0 \
	"$bin" build inj.toml -u hi @@inj.args
expect "20,000 --set" 'o["messages"][0]["content"] ==
    "\n\n".join("c%d" % i for i in reversed(range(20000)))'

bounded "32-level extends over 100,000 keys" 20 400 0 \
	"$bin" build l31.toml -u hi
expect "32-level extends" 'len(o) == 2 + 100000 and
    [o["p%d" % i] for i in (0, 1, 17, 31, 32, 99999)] ==
    [0, "level1", "level17", "level31", 32, 99999] and
    o["messages"][0]["content"] == "\n\n".join(
    ["inline"] + ["from %d" % l for l in range(1, 32)])'

bounded "errors at their lines through 32 levels" 20 400 1 \
	"$bin" check bad31.toml
expect "errors at their lines" '
    "bad0.toml:100008:9: error: " in e and
    "bad17.toml:8:8: error: " in e and e.count("error:") == 2'

bounded "10,000 unused vars: check" 30 400 0 "$bin" check vars.toml
bounded "10,000 unused vars: build" 30 400 0 \
	"$bin" build vars.toml -u hi
expect "10,000 unused vars" 'o["messages"][0]["content"] == "hi" and
    "error" not in e'
exit $fail
