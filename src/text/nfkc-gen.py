#!/usr/bin/env python3
"""Write ranks/nfkc.txt, the Unicode tables of Claude's NFKC normalizer.

usage: nfkc-gen.py NODE_MODULES CLAUDE.json > src/text/ranks/nfkc.txt

SillyTavern normalizes with @agnai/web-tokenizers 0.1.3, Hugging Face
tokenizers 0.13.3 built for WebAssembly, whose NFKC comes from the Rust
crate unicode-normalization-alignments 0.1.12 (its tables are of an older
Unicode than Python's).  So the tables start from Python's unicodedata
(full compatibility decompositions, canonical combining classes, primary
composites; Hangul is left to the algorithm) and then each entry is asked
of the real library through Node (NODE_MODULES holds
@agnai/web-tokenizers; CLAUDE.json is SillyTavern's
src/tokenizers/claude.json): an entry the library does not apply (a
character assigned after its Unicode version) is left out.
"""
import json
import subprocess
import sys
import unicodedata as ud

PROBE = r"""
const fs = require('fs');
const path = require('path');
const wt = require(path.join(process.argv[1], '@agnai/web-tokenizers'));
(async () => {
  const tok = await wt.Tokenizer.fromJSON(fs.readFileSync(process.argv[2]));
  const strs = JSON.parse(fs.readFileSync(0, 'utf8'));
  const out = [];
  for (let i = 0; i < strs.length; i += 500) {
    const chunk = strs.slice(i, i + 500);
    const ids = Array.from(tok.encode(chunk.join('\n')));
    const got = tok.decode(new Int32Array(ids)).split('\n');
    if (got.length !== chunk.length) throw new Error('a probe split');
    out.push(...got);
  }
  process.stdout.write(JSON.stringify(out));
})();
"""


def probe(node_modules, claude, strs):
    r = subprocess.run(['node', '-e', PROBE, node_modules, claude],
                       input=json.dumps(strs).encode(), capture_output=True,
                       check=True)
    return json.loads(r.stdout)


def nfkc(s):
    return ud.normalize('NFKC', s)


def main():
    node_modules, claude = sys.argv[1], sys.argv[2]
    dec, ccc, comp = [], [], []
    for cp in range(0x110000):
        if 0xd800 <= cp <= 0xdfff or 0xac00 <= cp <= 0xd7a3:
            continue
        c = chr(cp)
        if ud.normalize('NFKD', c) != c:
            dec.append(cp)
        if ud.combining(c):
            ccc.append(cp)
        d = ud.decomposition(c)
        if d and not d.startswith('<') and len(d.split()) == 2 and \
                ud.normalize('NFC', ud.normalize('NFD', c)) == c:
            comp.append(cp)
    # A starter 'x' with U+0301 (230) or U+0316 (220) around a mark shows
    # whether the library knows the mark's class.
    got = probe(node_modules, claude, [chr(cp) for cp in dec] +
                ['x\u0301' + chr(cp) for cp in ccc] +
                ['x' + chr(cp) + '\u0316' for cp in ccc] +
                [ud.normalize('NFD', chr(cp)) for cp in comp])
    gdec = got[:len(dec)]
    gccc = got[len(dec):len(dec) + len(ccc)]
    gccc2 = got[len(dec) + len(ccc):len(dec) + 2 * len(ccc)]
    gcomp = got[len(dec) + 2 * len(ccc):]
    decs = [cp for cp, g in zip(dec, gdec) if g == nfkc(chr(cp))]
    assert all(g in (chr(cp), nfkc(chr(cp))) for cp, g in zip(dec, gdec))
    cccs = [cp for cp, g, g2 in zip(ccc, gccc, gccc2)
            if g == nfkc('x\u0301' + chr(cp)) and
            g2 == nfkc('x' + chr(cp) + '\u0316')]
    comps = [cp for cp, g in zip(comp, gcomp)
             if g == nfkc(ud.normalize('NFD', chr(cp)))]
    known = set(cccs)
    # A composite that NFKC gives back as it is tells nothing by itself:
    # its decomposition is known exactly when its composition is.
    decs = [cp for cp in decs if nfkc(chr(cp)) != chr(cp) or cp in comps]

    w = sys.stdout.write
    w('# Claude\'s NFKC tables, written by src/text/nfkc-gen.py (Python %s\'s\n'
      '# unicodedata %s, checked entry by entry against @agnai/web-tokenizers):\n'
      '# do not edit.  nfkcgen turns them into C at build time.\n'
      '#   D CP C...   the full compatibility decomposition of CP\n'
      '#   C CP CLASS  the canonical combining class of a mark\n'
      '#   P A B CP    the primary composite of A then B\n'
      '# (code points in hex; Hangul is left to the algorithm)\n'
      % (sys.version.split()[0], ud.unidata_version))
    for cp in decs:
        d = [ord(ch) for ch in ud.normalize('NFKD', chr(cp))]
        # Marks the library does not know are starters there, so they
        # must not be moved past: none occurs in a kept decomposition.
        assert all(not ud.combining(chr(x)) or x in known for x in d)
        w('D %x %s\n' % (cp, ' '.join('%x' % x for x in d)))
    for cp in cccs:
        w('C %x %d\n' % (cp, ud.combining(chr(cp))))
    pairs = sorted((int(ud.decomposition(chr(cp)).split()[0], 16),
                    int(ud.decomposition(chr(cp)).split()[1], 16), cp)
                   for cp in comps)
    for a, b, c in pairs:
        w('P %x %x %x\n' % (a, b, c))


main()
