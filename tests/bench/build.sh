#!/bin/sh
# bench/build.sh [BIN]: whole-process timings of `strata build`.
#
#  1. the companion profile (profiles/companion.toml with a memory
#     context): median wall time over many runs; target under 3 ms;
#  2. a generated large profile -- 200 injections, 50 skills, 100 tools,
#     a 5 MB context, a 2,000-message history: median wall time, target
#     under 100 ms; peak memory, target under 5 x the input bytes + 8 MB.
#
# Run from the repository root after building; prints the figures and
# whether each target is met.  Not part of the test suite: timings
# belong to a benchmark, not to a test.
set -eu
bin=${1:-build/strata}
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
exec python3 - "$bin" "$tmp" <<'PY'
import json, os, resource, statistics, subprocess, sys, time

bin, tmp = sys.argv[1], sys.argv[2]

def wall(argv, runs, stdin=None):
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, check=True, stdin=stdin)
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1000, min(times) * 1000

def peak_kb(argv):
    # RUSAGE_CHILDREN keeps the maximum over all children so far, so run
    # the measured command in a fresh python child of its own.
    code = ("import resource,subprocess,sys;"
            "subprocess.run(sys.argv[1:],stdout=subprocess.DEVNULL,check=True);"
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    out = subprocess.run([sys.executable, "-c", code] + argv,
                         capture_output=True, text=True, check=True)
    return int(out.stdout)

ok = True
mem = os.path.join(tmp, "memory.txt")
with open(mem, "w") as f:
    f.write("Kei has an exam on Friday.\nKei likes rainy days.\n")
argv = [bin, "build", "profiles/companion.toml", "-u", "Good morning!",
        "-c", "memory=" + mem]
wall(argv, 20)                              # warm the page cache
med, best = wall(argv, 300)
print("companion profile: median %.2f ms, best %.2f ms over 300 runs "
      "(target < 3 ms): %s" % (med, best, "ok" if med < 3 else "MISSED"))
ok &= med < 3

# The large profile.
p = os.path.join(tmp, "prompts")
for d in ("skills", "tools", "stack"):
    os.makedirs(os.path.join(p, d))
prof = ['[prompt]\npersona = "persona.md"\nstyle = "markdown"\n']
with open(os.path.join(p, "persona.md"), "w") as f:
    f.write("You are a test persona for {{who}}.\n" * 20)
prof.append('[vars]\nwho = "the benchmark"\n')
for i in range(50):
    with open(os.path.join(p, "skills", "s%d.md" % i), "w") as f:
        f.write("---\nname: skill%d\ndescription: Skill number %d\n---\n" % (i, i))
        f.write(("Step %d: do the thing carefully.\n" % i) * 30)
    prof.append('[[skills]]\nfile = "skills/s%d.md"\nmode = "%s"\n'
                % (i, "inline" if i % 2 else "outline"))
for i in range(100):
    tool = {"name": "tool_%d" % i, "description": "Tool number %d." % i,
            "parameters": {"type": "object", "properties": {
                "a": {"type": "string", "description": "First."},
                "b": {"type": "integer", "enum": [1, 2, 3], "default": 1},
                "c": {"type": "object", "properties": {
                    "d": {"type": "array", "items": {"type": "string"}}}}},
                "required": ["a"]},
            "usage_hint": "Use tool %d when needed." % i}
    with open(os.path.join(p, "tools", "t%d.json" % i), "w") as f:
        json.dump(tool, f)
    prof.append('[[tools]]\nfile = "tools/t%d.json"\n' % i)
for i in range(200):
    if i % 4 == 0:
        with open(os.path.join(p, "stack", "i%d.md" % i), "w") as f:
            f.write("Injected file %d for {{who}}.\n" % i * 5)
        prof.append('[[inject]]\nkey = "k.%d"\nfile = "stack/i%d.md"\n'
                    'priority = %d\n' % (i, i, i % 97))
    else:
        prof.append('[[inject]]\nkey = "k.%d"\ncontent = "Entry %d for {{who}}."\n'
                    'priority = %d\n' % (i, i, i % 97))
prof.append('[[context]]\nname = "memory"\n[output]\nmodel = "m"\n')
with open(os.path.join(tmp, "big.toml"), "w") as f:
    f.write("".join(prof))
line = "Recalled: the user mentioned a detail on some day. 用户提到过的细节。\n"
with open(os.path.join(tmp, "ctx.txt"), "w") as f:
    f.write(line * (5 * 1024 * 1024 // len(line.encode())))
with open(os.path.join(tmp, "h.json"), "w") as f:
    json.dump([{"role": "user" if i % 2 == 0 else "assistant",
                "content": "History message number %d, of some length." % i}
               for i in range(2000)], f, indent=1)
inputs = 0
for root, _, files in os.walk(tmp):
    for n in files:
        inputs += os.path.getsize(os.path.join(root, n))
argv = [bin, "build", os.path.join(tmp, "big.toml"), "-u", "hi",
        "-c", "memory=" + os.path.join(tmp, "ctx.txt"),
        "-H", os.path.join(tmp, "h.json")]
wall(argv, 3)
med, best = wall(argv, 21)
print("large profile (200 injections, 50 skills, 100 tools, 5 MB context, "
      "2000 messages; %.1f MB of input): median %.1f ms, best %.1f ms over "
      "21 runs (target < 100 ms): %s"
      % (inputs / 1e6, med, best, "ok" if med < 100 else "MISSED"))
ok &= med < 100
kb = peak_kb(argv)
limit = (5 * inputs + 8 * 1024 * 1024) / 1024
print("large profile peak memory: %.1f MB (target < 5 x input + 8 MB = "
      "%.1f MB): %s" % (kb / 1024, limit / 1024, "ok" if kb < limit else "MISSED"))
ok &= kb < limit
for fmt in ("anthropic", "gemini", "json"):
    med, best = wall(argv + ["-f", fmt], 11)
    print("  same, -f %s: median %.1f ms" % (fmt, med))
med, best = wall([bin, "debug"] + argv[2:], 11)
print("  same, debug: median %.1f ms" % med)
sys.exit(0 if ok else 1)
PY
