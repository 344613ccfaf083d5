#!/usr/bin/env python3
# Write the small SentencePiece models spgen must refuse (run by hand,
# once; the .model files are kept in the tree): each is a ModelProto
# in the protocol-buffer wire format, one rule broken, and NAME.err is
# what spgen says about it.
import os
import struct

here = os.path.dirname(os.path.abspath(__file__))


def varint(v):
    out = b''
    while True:
        b = v & 0x7f
        v >>= 7
        out += bytes([b | (0x80 if v else 0)])
        if not v:
            return out


def field(num, wire, payload):
    key = varint(num << 3 | wire)
    if wire == 0:
        return key + varint(payload)
    if wire == 5:
        return key + payload
    return key + varint(len(payload)) + payload


def piece(text, score=0.0, kind=1):
    return field(1, 2, field(1, 2, text.encode()) +
                 field(2, 5, struct.pack('<f', score)) + field(3, 0, kind))


def model(pieces, trainer=None, normalizer=None):
    trainer = trainer if trainer is not None else [(3, 0, 2), (35, 0, 1)]
    normalizer = normalizer if normalizer is not None else [
        (1, 2, b'identity'), (3, 0, 1), (4, 0, 0)]
    t = b''.join(field(n, w, v) for n, w, v in trainer)
    m = b''.join(field(n, w, v) for n, w, v in normalizer)
    return b''.join(pieces) + field(2, 2, t) + field(3, 2, m)


base = [piece('<unk>', 0, 2), piece('<s>', 0, 3)] + [
    piece('<0x%02X>' % i, 0, 6) for i in range(256)] + [
    piece('\u2581a', -1), piece('a', -2)]
cases = {
    'unigram': (model(base, trainer=[(3, 0, 1)]),
                'it is not a BPE model'),
    'nfkc': (model(base, normalizer=[(1, 2, b'nmt_nfkc'), (4, 0, 0)]),
             'its normalization is not the identity'),
    'charsmap': (model(base, normalizer=[(1, 2, b'identity'),
                                         (2, 2, b'\x01\x02'), (4, 0, 0)]),
                 'it has normalization rules'),
    'extra-space': (model(base, normalizer=[(1, 2, b'identity')]),
                    'it removes extra white space'),
    'suffix': (model(base, trainer=[(3, 0, 2), (24, 0, 1)]),
               'it treats white space as a suffix'),
    'unused': (model(base + [piece('b', -3, 5)]), 'it has unused pieces'),
    'twice': (model(base + [piece('a', -3)]), 'a piece is defined twice'),
    'no-byte': (model(base[:10] + base[-2:]), 'a byte piece is missing'),
    'no-unk': (model(base[1:]), 'it has no unknown piece'),
    'empty-piece': (model(base + [field(1, 2, field(2, 5, b'\0\0\0\0'))]),
                    'a piece is empty'),
    'truncated': (model(base)[:-3], 'truncated field'),
}
for name, (data, err) in cases.items():
    with open(os.path.join(here, name + '.model'), 'wb') as f:
        f.write(data)
    with open(os.path.join(here, name + '.err'), 'w') as f:
        f.write('spgen: %s.model: %s\n' % (name, err))
# And one it takes: the same model with no rule broken.
with open(os.path.join(here, 'good.model.ok'), 'wb') as f:
    f.write(model(base))
