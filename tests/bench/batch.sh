#!/bin/sh
# bench/batch.sh [BIN] [LINES]: throughput of `strata batch` on one core.
#
# The companion profile (profiles/companion.toml), LINES (default
# 100,000) requests of a short user text and a 10-message history, the
# default output (openai-batch).  Prints requests per second of CPU time
# (user + system of the strata process, so other load on the machine
# does not count) and of wall time; the target is 20,000 per second of
# CPU time.  Run from the repository root after building.  Not part of
# the test suite: timings belong to a benchmark.
set -eu
bin=${1:-build/strata}
lines=${2:-100000}
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
exec python3 - "$bin" "$tmp" "$lines" <<'PY'
import json, os, resource, subprocess, sys, time

bin, tmp, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
hist = [{"role": "user" if i % 2 == 0 else "assistant",
         "content": "Message %d about tea and the weather." % i}
        for i in range(10)]
path = os.path.join(tmp, "in.jsonl")
with open(path, "w") as f:
    for i in range(n):
        f.write(json.dumps({"id": "r%d" % i, "user": "Good morning!",
                            "history": hist}) + "\n")
before = resource.getrusage(resource.RUSAGE_CHILDREN)
t = time.perf_counter()
with open(path) as inp:
    subprocess.run([bin, "batch", "profiles/companion.toml"], stdin=inp,
                   stdout=subprocess.DEVNULL, check=True)
wall = time.perf_counter() - t
after = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
rate = n / cpu
print("batch: %d requests, %.2f s CPU, %.2f s wall" % (n, cpu, wall))
print("batch: %.0f requests/s per core (target 20000: %s), %.0f/s wall"
      % (rate, "met" if rate >= 20000 else "NOT met", n / wall))
PY
