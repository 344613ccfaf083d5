#!/bin/sh
# bench/tokenizer.sh [TOK-DUMP]: the tokenizer's speed and start-up cost.
#
#  1. throughput, tokens and MB per second of CPU time (user + system,
#     so that a shared machine does not skew it; the median of 5 runs,
#     whole process), counting 4 MB of English prose and of Chinese (the
#     corpus samples repeated), per encoding;
#  2. a megabyte with no split point (one letter, one CJK character);
#  3. start-up: the in-process time of the first count (the tables are
#     compiled in; ASCII text, as this one is, is split without PCRE2, and
#     the full pattern's compile and JIT wait for a non-ASCII character
#     the hand split does not take), and the whole
#     process's wall time for one small count next to /bin/true's;
#     target under 2 ms.
#
# Run from the repository root after building (build/tests/tok-dump).
# Not part of the test suite: timings belong to a benchmark.
set -eu
bin=${1:-build/tests/tok-dump}
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
exec python3 - "$bin" "$tmp" tests/tokenizer/corpus <<'PY'
import os, resource, statistics, subprocess, sys, time

bin, tmp, corpus = sys.argv[1:4]

def data(name, src, size):
    unit = open(os.path.join(corpus, src), 'rb').read()
    path = os.path.join(tmp, name)
    with open(path, 'wb') as f:
        f.write((unit * (size // len(unit) + 1))[:size])
    return path

def cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime

def wall(argv, runs, clock=time.perf_counter):
    times = []
    for _ in range(runs):
        t = clock()
        out = subprocess.run(argv, stdout=subprocess.PIPE, check=True).stdout
        times.append(clock() - t)
    return statistics.median(times), out

files = {
    'English 4 MB': data('en', 'english.txt', 4 << 20),
    'Chinese 4 MB': data('zh', 'chinese.txt', 4 << 20),
}
for name, ch in (('1 MB of "a"', b'a'), ('1 MB of "中"', '中'.encode())):
    path = os.path.join(tmp, name.split()[-1].strip('"'))
    with open(path, 'wb') as f:
        f.write(ch * ((1 << 20) // len(ch)))
    files[name] = path

base, _ = wall(['/bin/true'], 50)
for enc in ('cl100k_base', 'o200k_base'):
    print(enc)
    for name, path in files.items():
        size = os.path.getsize(path)
        t, out = wall([bin, '-c', enc, path], 5, cpu)
        tokens = int(out)
        print(f'  {name:14} {tokens:9d} tokens  {t * 1000:8.1f} ms  '
              f'{tokens / t / 1e6:6.2f} M tokens/s  {size / t / 1e6:6.1f} MB/s')
    first = statistics.median(
        float(subprocess.run([bin, '-t', enc], stdout=subprocess.PIPE,
                             check=True).stdout.split()[0])
        for _ in range(21))
    small = os.path.join(tmp, 'small')
    with open(small, 'w') as f:
        f.write('hello world')
    t, _ = wall([bin, '-c', enc, small], 51)
    print(f'  first count in process: {first / 1000:.3f} ms; '
          f'process with one count: {t * 1000:.2f} ms '
          f'(/bin/true: {base * 1000:.2f} ms)  '
          f'{"ok" if first < 2000 else "OVER"} (target < 2 ms)')
PY
