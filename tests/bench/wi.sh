#!/bin/sh
# bench/wi.sh [BIN]: the world-info engine at scale, through `strata wi`
# and through a whole `strata build` (issue 10: "a world of 100,000 entries with 1,000 keys matching over a
# 400-message chat builds in under 1 s whole process, memory linear in
# the input").
#
# A generated world of 100,000 entries (two keys each: 84% single-word
# keys, 15% two-word keys, 1% regex keys; about 18.5 MB of JSON), 1,000
# of which match, against a 400-message chat scanned to depth 401 with
# recursion and whole-word matching on.  Prints the inputs, then for the
# matching chat, for one that matches nothing (reading + one scan), and
# for `strata build -f json` of a card with the world as global lore (the
# budget counted with the real tokenizer, every match sent), the
# median wall time of the whole process, the least CPU time (user +
# system, which a loaded machine inflates less than wall time) and the
# peak RSS, against the target: < 1000 ms CPU, peak memory within 16 x
# the input.  Exits 1 when a target is missed or the activations are
# wrong.  Regex keys cost one PCRE2 (JIT) scan of the buffer each per
# pass; plain keys cost a hash lookup or a 4-gram-filtered memmem().
#
# Run from the repository root after building with --buildtype=release.
# Not part of the test suite: timings belong to a benchmark, not to a
# test.
set -eu
bin=${1:-build/strata}
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
exec python3 - "$bin" "$tmp" <<'PY'
import json, os, random, resource, statistics, subprocess, sys, time

bin, tmp = sys.argv[1], sys.argv[2]
rnd = random.Random(1)
N, HIT, MSGS = 100_000, 1_000, 400

entries = {}
for i in range(N):
    kind = i % 100
    if kind < 84:
        keys = [f"kw{i}x", f"kw{i}y"]
    elif kind < 99:
        keys = [f"kw{i} alpha", f"kw{i}z"]
    else:
        keys = [f"/kw{i}r[0-9]/i", f"kw{i}q"]
    entries[str(i)] = {"uid": i, "key": keys, "keysecondary": [],
        "comment": f"entry {i}", "content": f"Lore text number {i}, filler words.",
        "order": rnd.randint(1, 1000), "position": i % 7}
with open(f"{tmp}/world.json", "w") as f:
    json.dump({"entries": entries}, f)

hits = rnd.sample(range(N), HIT)
words = [f"filler{j}" for j in range(500)]
msgs = [[rnd.choice(words) for _ in range(30)] for _ in range(MSGS)]
for n, i in enumerate(hits):
    kind = i % 100
    w = f"kw{i}x" if kind < 84 else (f"kw{i} alpha" if kind < 99 else f"KW{i}R7")
    msgs[n % MSGS].insert(rnd.randint(0, 30), w)
def chat(path, msgs):
    with open(path, "w") as f:
        f.write(json.dumps({"chat_metadata": {}}) + "\n")
        for n, m in enumerate(msgs):
            f.write(json.dumps({"name": "User" if n % 2 else "Char",
                "is_user": bool(n % 2), "mes": " ".join(m)}) + "\n")
chat(f"{tmp}/chat.jsonl", msgs)
chat(f"{tmp}/quiet.jsonl", [[rnd.choice(words) for _ in range(30)] for _ in range(MSGS)])
with open(f"{tmp}/settings.json", "w") as f:
    # globalSelect makes world.json global lore for strata build.
    json.dump({"world_info_settings": {"world_info_depth": 401,
        "world_info_recursive": True, "world_info_match_whole_words": True,
        "world_info_budget": 100,
        "world_info": {"globalSelect": ["world"]}}}, f)
with open(f"{tmp}/card.json", "w") as f:
    json.dump({"spec": "chara_card_v2", "spec_version": "2.0",
        "data": {"name": "Char", "description": "A keeper of lore.",
                 "first_mes": "Ask me anything."}}, f)
with open(f"{tmp}/preset.json", "w") as f:
    # A context large enough that the budget never cuts: every entry
    # that matches is counted with the real tokenizer and sent.
    json.dump({"openai_max_context": 2000000, "openai_max_tokens": 300}, f)

def run(chatfile, runs=3, build=False):
    """Median wall ms, least CPU ms, peak RSS (bytes) and the output."""
    argv = [bin, "wi", f"{tmp}/world.json", "--chat", chatfile,
            "--settings", f"{tmp}/settings.json", "--context", "100000000"]
    if build:
        argv = [bin, "build", "--card", f"{tmp}/card.json", "--preset",
                f"{tmp}/preset.json", "--world", f"{tmp}/world.json",
                "--chat", chatfile, "--settings", f"{tmp}/settings.json",
                "-u", "what do you know?", "-f", "openai"]
    times, cpus, rss = [], [], []
    for _ in range(runs):
        t = time.perf_counter()
        p = subprocess.Popen(argv, stdout=subprocess.PIPE)
        out = p.stdout.read()
        _, status, ru = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        times.append(time.perf_counter() - t)
        if p.returncode != 0:
            sys.exit(f"wi.sh: strata exited {p.returncode}")
        cpus.append(ru.ru_utime + ru.ru_stime)
        rss.append(ru.ru_maxrss * 1024)
    return (statistics.median(times) * 1000, min(cpus) * 1000, max(rss),
            out)

MB = 1024 * 1024
size = os.path.getsize(f"{tmp}/world.json")
csize = os.path.getsize(f"{tmp}/chat.jsonl")
ms, cpu, peak, out = run(f"{tmp}/chat.jsonl")
activated = sum(1 for l in out.decode().splitlines() if l.startswith("  + "))
qms, qcpu, qpeak, _ = run(f"{tmp}/quiet.jsonl")
bms, bcpu, bpeak, bout = run(f"{tmp}/chat.jsonl", build=True)
# Entries at positions 5 and 6 (before and after the example messages)
# are activated but not sent: the card has no examples to anchor them.
bsent = bout.decode().count("Lore text number")
bwant = sum(1 for i in hits if i % 7 not in (5, 6))
print(f"inputs: world {N} entries ({size / MB:.1f} MB; keys 84% one word, "
      f"15% two words, 1% regex), chat {MSGS} messages "
      f"({csize / MB:.2f} MB), depth 401, recursive, whole words")
ok = (cpu < 1000 and activated == HIT and peak <= 16 * size and
      bcpu < 1000 and bsent == bwant and bpeak <= 16 * size)
print(f"wi-100k match   {ms:7.1f} ms wall {cpu:7.1f} ms CPU {peak / MB:7.1f} MB"
      f"  {activated} activated (expected {HIT})")
print(f"wi-100k none    {qms:7.1f} ms wall {qcpu:7.1f} ms CPU {qpeak / MB:7.1f} MB"
      f"  (read + one scan, nothing fires)")
print(f"build-100k      {bms:7.1f} ms wall {bcpu:7.1f} ms CPU {bpeak / MB:7.1f} MB"
      f"  {bsent} entries sent (expected {bwant}), budgeted with "
      f"cl100k_base")
print(f"target: < 1000 ms CPU, <= {16 * size / MB:.0f} MB (16 x the world): "
      + ("met" if ok else "NOT met"))
sys.exit(0 if ok else 1)
PY
