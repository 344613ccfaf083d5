#!/usr/bin/env python3
"""Write claude.tiktoken and claude.merges from a Hugging Face tokenizer
JSON of Claude's tokenizer (SillyTavern's src/tokenizers/claude.json).

usage: regen-claude.py CLAUDE.json OUTDIR [ANTHROPIC-claude.json]

claude.tiktoken: each ordinary token's bytes in base64, a space, its id
(ids 5..64999; 0..4 are the added special tokens).  claude.merges: the
merge rules in priority order, one a line, as the ids of the left and
right token; rule r makes token 261 + r.  With the third argument (the
claude.json of the npm package @anthropic-ai/tokenizer, which packs the
same vocabulary as "NAME OFFSET BASE64..."), the vocabulary is checked
against Anthropic's.
"""
import base64
import json
import sys


def byte_level_alphabet():
    """The byte-level pre-tokenizer's map of characters back to bytes."""
    keep = (list(range(ord('!'), ord('~') + 1)) +
            list(range(0xa1, 0xac + 1)) + list(range(0xae, 0xff + 1)))
    chars = keep[:]
    extra = 0
    for b in range(256):
        if b not in keep:
            keep.append(b)
            chars.append(256 + extra)
            extra += 1
    return {chr(c): b for b, c in zip(keep, chars)}


def main():
    src, outdir = sys.argv[1], sys.argv[2]
    d = json.load(open(src, encoding='utf-8'))
    m = d['model']
    assert d['normalizer'] == {'type': 'NFKC'}, d['normalizer']
    assert d['pre_tokenizer']['type'] == 'ByteLevel'
    assert not d['pre_tokenizer']['add_prefix_space']
    assert m['type'] == 'BPE' and m['dropout'] is None
    special = {t['id']: t['content'] for t in d['added_tokens']}
    assert sorted(special) == [0, 1, 2, 3, 4], special
    u2b = byte_level_alphabet()
    vocab = m['vocab']
    tok = {}
    for s, i in vocab.items():
        if i in special:
            assert special[i] == s
            continue
        tok[i] = bytes(u2b[c] for c in s)
    assert sorted(tok) == list(range(5, len(vocab)))
    with open(outdir + '/claude.tiktoken', 'w', encoding='ascii') as f:
        for i in sorted(tok):
            f.write('%s %d\n' % (base64.b64encode(tok[i]).decode(), i))
    first = 5 + 256
    with open(outdir + '/claude.merges', 'w', encoding='ascii') as f:
        for r, rule in enumerate(m['merges']):
            left, right = rule.split(' ')
            li, ri = vocab[left], vocab[right]
            assert vocab[left + right] == first + r
            assert tok[first + r] == tok[li] + tok[ri]
            f.write('%d %d\n' % (li, ri))
    if len(sys.argv) > 3:
        a = json.load(open(sys.argv[3], encoding='utf-8'))
        assert a['special_tokens'] == {v: k for k, v in special.items()}
        parts = a['bpe_ranks'].split(' ')
        offset = int(parts[1])
        theirs = {offset + k: base64.b64decode(p)
                  for k, p in enumerate(parts[2:])}
        assert theirs == tok, 'the vocabularies differ'
        print('vocabulary identical to Anthropic\'s', file=sys.stderr)


main()
