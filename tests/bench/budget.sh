#!/bin/sh
# bench/budget.sh [BIN]: the token budget's fitting (issue 24), each row a
# whole `strata build` process on generated input, with its wall time
# and CPU time (user + system; the median of 3 runs each), the CPU time
# against the target of one second (wall time on a shared machine says
# more about the other processes than about strata):
#
#   entries-100k      100,000 [[inject]] entries of 7-12 words, a budget
#                     that keeps about half (the rest dropped or one
#                     truncated); every entry is counted once
#   history-1m-cut    a 1,000,000-message history, the default budget of
#                     gpt-4o (111,616 tokens): the newest turns are
#                     counted until one does not fit, the rest never
#   history-1m-all    the same history and a budget of 100,000,000
#                     tokens: every message is counted once, all kept
#   history-1m-est    the same as -cut for claude-sonnet-4-5 (estimated)
#   history-1m-none   the same history with no budget (a model the table
#                     does not know): what reading and printing cost
#
# Build with --buildtype=release for figures worth quoting; run from the
# repository root.  Prints one line per row and exits 1 if a row misses
# its target.  Not part of the test suite.
set -eu
bin=${1:-build-rel/strata}
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
exec python3 - "$bin" "$tmp" <<'PY'
import json, os, random, statistics, subprocess, sys, time

bin, tmp = sys.argv[1], sys.argv[2]
rnd = random.Random(24)
words = ("the river city bridge market lamp archive ferry stone rain "
         "tide north gate map guide evening harbor bell").split()

def text(n):
    return " ".join(rnd.choice(words) for _ in range(n)).capitalize() + "."

def timed(argv):
    """Median wall and CPU seconds of one whole process."""
    code = ("import resource,subprocess,sys,time;t=time.perf_counter();"
            "r=subprocess.run(sys.argv[1:],stdout=subprocess.DEVNULL,"
            "stderr=subprocess.DEVNULL);w=time.perf_counter()-t;"
            "u=resource.getrusage(resource.RUSAGE_CHILDREN);"
            "print(w,u.ru_utime+u.ru_stime,r.returncode)")
    walls, cpus = [], []
    for _ in range(3):
        out = subprocess.run([sys.executable, "-c", code] + argv,
                             capture_output=True, text=True, cwd=tmp)
        w, c, rc = out.stdout.split()
        if rc != "0":
            sys.exit("%s: exit %s" % (" ".join(argv), rc))
        walls.append(float(w))
        cpus.append(float(c))
    return statistics.median(walls), statistics.median(cpus)

os.makedirs(os.path.join(tmp, "prompts"))
with open(os.path.join(tmp, "prompts", "persona.md"), "w") as f:
    f.write("You are a guide in the river city.\n")
with open(os.path.join(tmp, "entries.toml"), "w") as f:
    f.write('[prompt]\npersona = "persona.md"\n[output]\n'
            'model = "gpt-4o"\n[budget]\nmax_tokens = 600000\n'
            'cut = "tail"\n')
    for i in range(100000):
        f.write('[[inject]]\nkey = "e%d"\ncontent = "%s"\npriority = %d\n'
                % (i, text(rnd.randint(7, 12)), rnd.randint(0, 999)))
with open(os.path.join(tmp, "history.json"), "w") as f:
    f.write("[")
    for i in range(1000000):
        role = "user" if i % 2 == 0 else "assistant"
        f.write('%s{"role":"%s","content":"%s"}' %
                ("," if i else "", role, text(rnd.randint(5, 12))))
    f.write("]")
with open(os.path.join(tmp, "chat.toml"), "w") as f:
    f.write('[prompt]\npersona = "persona.md"\n[output]\n'
            'model = "gpt-4o"\n')

rows = [
    ("entries-100k", [bin, "build", "entries.toml", "-u", "hi", "-q"]),
    ("history-1m-cut", [bin, "build", "chat.toml", "-H", "history.json",
                        "-u", "hi", "-q"]),
    ("history-1m-all", [bin, "build", "chat.toml", "-H", "history.json",
                        "-u", "hi", "-q", "--budget", "100000000"]),
    ("history-1m-est", [bin, "build", "chat.toml", "-H", "history.json",
                        "-u", "hi", "-q", "--set",
                        "output.model=claude-sonnet-4-5"]),
    ("history-1m-none", [bin, "build", "chat.toml", "-H", "history.json",
                         "-u", "hi", "-q", "--set", "output.model=x"]),
]
fail = 0
for name, argv in rows:
    w, c = timed(argv)
    ok = c < 1.0 or name.endswith("-none")
    fail |= not ok
    print("%-16s wall %6.3f s  cpu %6.3f s  %s" % (name, w, c,
          "" if name.endswith("-none") else "ok" if ok else
          "MISSED (cpu < 1 s)"))
sys.exit(fail)
PY
