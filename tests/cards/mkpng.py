#!/usr/bin/env python3
"""mkpng.py: make the small PNG files the card-* golden cases read.

Run from anywhere; it writes into tests/golden/card-*/ next to this
script's folder.  The output is the same bytes every time (no clock, no
randomness), and the files are committed, so the tests do not need
Python; run it again only after changing it.
"""
import base64
import os
import struct
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, '..', 'golden')

SIG = b'\x89PNG\r\n\x1a\n'
IHDR = struct.pack('>IIBBBBB', 2, 2, 8, 2, 0, 0, 0)     # 2x2 RGB
IDAT = zlib.compress(b'\x00\xff\x00\x00\x00\xff\x00'
                     b'\x00\x00\x00\xff\xff\xff\xff', 9)


def chunk(kind, data, crc=None):
    if crc is None:
        crc = zlib.crc32(kind + data) & 0xffffffff
    return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', crc)


def text(keyword, s):
    return chunk(b'tEXt', keyword + b'\0' + s)


def card_text(keyword, card):
    return text(keyword, base64.b64encode(card.encode('utf-8')))


def png(*middle, ihdr=True):
    out = SIG
    if ihdr:
        out += chunk(b'IHDR', IHDR)
    out += chunk(b'IDAT', IDAT)
    for m in middle:
        out += m
    return out + chunk(b'IEND', b'')


V2 = ('{"name":"Pip","description":"A small robot.","personality":"curious",'
      '"scenario":"A workshop.","first_mes":"Beep! Hello, {{user}}.",'
      '"mes_example":"<START>\\n{{char}}: Beep.","spec":"chara_card_v2",'
      '"spec_version":"2.0","data":{"name":"Pip","description":"A small robot.",'
      '"personality":"curious","scenario":"A workshop.",'
      '"first_mes":"Beep! Hello, {{user}}.",'
      '"mes_example":"<START>\\n{{char}}: Beep.","creator_notes":"",'
      '"system_prompt":"","post_history_instructions":"",'
      '"alternate_greetings":["Whirr?"],"tags":["robot"],"creator":"strata",'
      '"character_version":"1","extensions":{"talkativeness":"0.5",'
      '"fav":false,"world":"","depth_prompt":{"prompt":"Pip is tiny.",'
      '"depth":4,"role":"system"}}},"avatar":"none","create_date":"2026-1-1"}')
V3 = V2.replace('"chara_card_v2","spec_version":"2.0"',
                '"chara_card_v3","spec_version":"3.0"').replace(
                    '"name":"Pip","description"', '"name":"Pip 3","description"', 2)


def write(case, name, data):
    d = os.path.join(GOLDEN, case)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), 'wb') as f:
        f.write(data)


def main():
    good = png(text(b'Comment', b'made by mkpng.py'),
               card_text(b'chara', V2), card_text(b'ccv3', V3))
    write('card-png', 'pip.png', good)
    write('man1-ex-card', 'pip.png', good)
    write('man1-ex-card-field', 'pip.png', good)
    write('card-png-chara-only', 'pip.png',
          png(card_text(b'chara', V2)))
    write('card-png-write', 'image.png', png(text(b'Comment', b'keep me'),
                                             card_text(b'chara', '{}')))
    write('card-png-write', 'pip.json', V3.encode('utf-8'))
    # Errors.
    write('card-png-truncated', 'cut.png', good[:len(good) - 30])
    bad = bytearray(good)
    bad[8 + 25 + 8 + 3] ^= 0x10     # a byte of IDAT's data
    write('card-png-bad-crc', 'bad.png', bytes(bad))
    write('card-png-bad-base64', 'bad.png',
          png(text(b'ccv3', b'eyJuYW1lIjoiWCJ9*')))
    write('card-png-no-card', 'plain.png', png(text(b'Title', b'a picture')))
    over = struct.pack('>I', 0x7fffffff) + b'tEXt' + b'ccv3\0'
    write('card-png-oversized', 'huge.png', SIG + chunk(b'IHDR', IHDR) + over)
    write('card-png-bad-json', 'bad.png',
          png(card_text(b'ccv3', '{"spec":"chara_card_v3","data":{"name":}}')))
    write('card-png-no-ihdr', 'noihdr.png', png(ihdr=False))
    write('card-png-no-iend', 'cut.png', good[:len(good) - 12])
    bad = bytearray(good)
    bad[8 + 25 + 4 + 1] = ord('?')  # IDAT's type
    write('card-png-bad-type', 'bad.png', bytes(bad))
    bad = bytearray(good)
    bad[8 + 4 + 4] ^= 0x01          # IHDR's data
    bad[len(good) - 1] ^= 0x01      # IEND's CRC
    write('card-png-bad-crc-twice', 'bad.png', bytes(bad))
    write('card-png-base64-after-pad', 'bad.png',
          png(text(b'ccv3', b'e30=e30=')))
    write('card-png-base64-truncated', 'bad.png',
          png(text(b'chara', b'e30g\nI')))
    write('card-png-base64-lenient', 'ok.png',
          png(text(b'CCV3', b'eyJuYW1lIjoi\r\nTGF4In0')))
    write('card-png-bad-image', 'image.png', good[:40])
    write('card-png-bad-image', 'pip.json', V3.encode('utf-8'))


main()
