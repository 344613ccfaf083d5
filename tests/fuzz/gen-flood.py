#!/usr/bin/env python3
"""gen-flood.py KIND [N]: print a document whose keys all collide.

The keys collide in the low 24 bits of unseeded FNV-1a 64, the hash that
indexed the config tree's tables before it was keyed (SipHash with a
per-process key, base/hash.h).  With the old hash every key fell into one
bucket of the tree's linear-probing index, so reading N keys cost N*N/2
probes; with the keyed hash they spread like any other keys.

The low k bits of FNV-1a depend only on the low k bits of the state and
the input, so keys are made as Joux multicollisions: at each of log2(N)
stages, two 4-character blocks that take the (low 24 bits of the) state
to the same value are found by a search, and every choice of one block
per stage gives the same hash: 2**16 keys from 16 searches.  24 bits
cover the index of any table up to 8 million keys; a table of 65,536
keys has 131,072 slots.

KIND is one of
  toml     a [vars] table (a profile; `strata check` reads it)
  toml-t   a plain TOML table [t] (for tests/toml-decode)
  json     a chat history: one message object with N extra keys
N is a power of two, 65536 unless given.  Deterministic: no randomness.
"""
import itertools
import sys

FNV_OFFSET = 0xCBF29CE484222325
FNV_PRIME = 0x100000001B3
MASK = (1 << 24) - 1          # only the low bits matter, see above
ALPHABET = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


def fnv_low(h, data):
    for b in data:
        h = ((h ^ b) * FNV_PRIME) & MASK
    return h


def stage(h):
    """Two distinct blocks taking state h to the same state."""
    seen = {}
    for t in itertools.product(ALPHABET, repeat=4):
        blk = bytes(reversed(t))
        v = fnv_low(h, blk)
        if v in seen:
            return seen[v], blk, v
        seen[v] = blk
    raise SystemExit("gen-flood: no collision found")


def keys(n):
    bits = n.bit_length() - 1
    if n < 1 or 1 << bits != n:
        raise SystemExit("gen-flood: N must be a power of two")
    h = FNV_OFFSET & MASK
    pairs = []
    for _ in range(bits):
        a, b, h = stage(h)
        pairs.append((a, b))
    for choice in itertools.product((0, 1), repeat=bits):
        yield b"".join(p[c] for p, c in zip(pairs, choice)).decode()


def main():
    if len(sys.argv) not in (2, 3) or sys.argv[1] not in ("toml", "toml-t",
                                                          "json"):
        raise SystemExit(__doc__)
    n = int(sys.argv[2]) if len(sys.argv) == 3 else 65536
    out = sys.stdout
    kind = sys.argv[1]
    if kind == "toml":
        out.write('[output]\nmodel = "m"\n\n[prompt]\n'
                  'keep_unknown_vars = true\n\n[vars]\n')
    elif kind == "toml-t":
        out.write("[t]\n")
    else:
        out.write('[{"role": "user", "content": "hi"')
    for k in keys(n):
        if kind == "json":
            out.write(',\n"%s": 1' % k)
        else:
            out.write('%s = "v"\n' % k)
    if kind == "json":
        out.write("}]\n")


if __name__ == "__main__":
    main()
