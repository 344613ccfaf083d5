#!/bin/sh
# bench/scale.sh [BIN]: the scaling rows of the restructure (issue 6), each
# a whole `strata` process on generated input, with its wall time, peak
# memory and target:
#
#   vars-unused      [vars] with 100,000 keys, none used (build, check)
#   vars-used        100,000 vars, each used once in the persona
#   tool-required    a tool schema with 100,000 properties, all required
#   set-inject       20,000 --set inject.KEY.priority=N over as many
#                    [[inject]]
#   context-many     20,000 -c NAME=FILE against as many [[context]]
#   extends-chain    a 32-level extends chain over a 100,000-key base
#   history-1m       a 1,000,000-message history (about 40 MB of JSON):
#                    peak memory within 5 x input + 8 MB
#
# Build with --buildtype=release for figures worth quoting.  Run from the
# repository root; prints one line per row and exits 1 if a target is
# missed.  Not part of the test suite: the stress suite checks the same
# shapes at sizes CI can afford.
set -eu
bin=${1:-build/strata}
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
exec python3 - "$bin" "$tmp" <<'PY'
import json, os, subprocess, sys, time

bin, tmp = sys.argv[1], sys.argv[2]
MB = 1024 * 1024

def run(argv, stdin=None):
    """Wall seconds and peak RSS (bytes) of one whole process."""
    code = ("import resource,subprocess,sys,time;t=time.perf_counter();"
            "r=subprocess.run(sys.argv[1:],stdout=subprocess.DEVNULL,"
            "stderr=subprocess.PIPE);"
            "print(time.perf_counter()-t,"
            "resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,"
            "r.returncode);sys.stderr.buffer.write(r.stderr[:2000])")
    out = subprocess.run([sys.executable, "-c", code] + argv,
                         capture_output=True, text=True, stdin=stdin)
    secs, kb, rc = out.stdout.split()
    if rc != "0":
        sys.stderr.write(out.stderr)
    return float(secs), int(kb) * 1024, int(rc)

failed = 0
def row(name, argv, max_secs, max_bytes=None, stdin=None):
    global failed
    secs, peak, rc = run(argv, stdin)
    ok = rc == 0 and secs < max_secs and (max_bytes is None or peak <= max_bytes)
    failed += not ok
    target = "< %g s" % max_secs
    if max_bytes is not None:
        target += ", <= %.1f MB" % (max_bytes / MB)
    print("%-16s %8.3f s %8.1f MB  (target %s)%s%s" % (
        name, secs, peak / MB, target, "" if rc == 0 else " exit %d" % rc,
        "" if ok else "  MISSED"))

def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    return path

d = lambda *p: os.path.join(tmp, *p)
N = 100000

# vars, unused and used
write(d("vars", "prompts", "persona.md"), "Hi.\n")
MODEL = '[output]\nmodel = "bench"\n'
write(d("vars", "unused.toml"), MODEL + '[prompt]\npersona = "persona.md"\n'
      'keep_unknown_vars = true\n[vars]\n' +
      "".join('v%d = "value %d"\n' % (i, i) for i in range(N)))
row("vars-unused", [bin, "build", d("vars", "unused.toml"), "-u", "x"], 1)
row("vars-unused chk", [bin, "check", d("vars", "unused.toml")], 1)
write(d("vars", "prompts", "all.md"),
      "".join("{{v%d}}\n" % i for i in range(N)))
write(d("vars", "used.toml"), MODEL + '[prompt]\npersona = "all.md"\n[vars]\n' +
      "".join('v%d = "value %d"\n' % (i, i) for i in range(N)))
row("vars-used", [bin, "build", d("vars", "used.toml"), "-u", "x"], 1)

# a tool with 100,000 required properties
props = {"p%d" % i: {"type": "string"} for i in range(N)}
write(d("tool", "prompts", "tools", "big.json"), json.dumps({
    "name": "big", "description": "A big tool.",
    "parameters": {"type": "object", "properties": props,
                   "required": list(props)}}))
write(d("tool", "tool.toml"), MODEL + '[[tools]]\nfile = "tools/big.json"\n')
row("tool-required", [bin, "build", d("tool", "tool.toml"), "-u", "x"], 1.5)

# 20,000 --set over as many injections
M = 20000
write(d("set", "set.toml"), MODEL + "".join(
    '[[inject]]\nkey = "k%d"\ncontent = "c%d"\n' % (i, i) for i in range(M)))
argv = [bin, "build", d("set", "set.toml"), "-u", "x"]
for i in range(M):
    argv += ["-s", "inject.k%d.priority=%d" % (i, M - i)]
row("set-inject", argv, 1)

# 20,000 contexts
prof = [MODEL]
argv = [bin, "build", d("ctx", "ctx.toml"), "-u", "x"]
for i in range(M):
    prof.append('[[context]]\nname = "c%d"\n' % i)
    argv += ["-c", "c%d=%s" % (i, write(d("ctx", "c", "%d.txt" % i),
                                        "text %d\n" % i))]
write(d("ctx", "ctx.toml"), "".join(prof))
row("context-many", argv, 1)

# a 32-level extends chain over a 100,000-key base
write(d("ext", "prompts", "p.md"), "Hi.\n")
write(d("ext", "base0.toml"), MODEL + '[prompt]\npersona = "p.md"\n'
      'keep_unknown_vars = true\n[vars]\n' +
      "".join('v%d = "value %d"\n' % (i, i) for i in range(N)))
for lvl in range(1, 32):      # base0 .. base31: 32 profiles
    write(d("ext", "base%d.toml" % lvl),
          'extends = "base%d.toml"\n[vars]\nlevel%d = "%d"\n' % (lvl - 1, lvl, lvl))
row("extends-chain", [bin, "build", d("ext", "base31.toml"), "-u", "x"],
    1, 100 * MB)

# a 1,000,000-message history
hist = d("hist", "h.json")
os.makedirs(d("hist"))
with open(hist, "w") as f:
    f.write("[")
    for i in range(1000000):
        f.write('%s{"role":"%s","content":"message number %07d"}' % (
            "," if i else "", "user" if i % 2 == 0 else "assistant", i))
    f.write("]")
size = os.path.getsize(hist)
row("history-1m", [bin, "build", "-H", hist, "-u", "x", "-s",
    "output.model=bench"], 5,
    5 * size + 8 * MB)
print("history input: %.1f MB" % (size / MB))
sys.exit(1 if failed else 0)
PY
