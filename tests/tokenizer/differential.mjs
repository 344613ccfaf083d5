#!/usr/bin/env node
// Randomized differential check of strata's tokenizer against js-tiktoken.
// Run by hand (CI has no npm), from the repository root, after building:
//
//   mkdir -p /tmp/jt && (cd /tmp/jt && npm install js-tiktoken)
//   NODE_PATH=/tmp/jt/node_modules node tests/tokenizer/differential.mjs \
//       build/tests/tok-dump [COUNT] [SEED] [FRAGMENTS]
//
// FRAGMENTS (default 16) is the most fragments in one string; make it a
// few hundred for long pieces, which exercise the merge heap.
// Each random string is built from fragments that exercise the split
// patterns (contractions, Unicode spaces, CJK, emoji, marks, digits, CRLF,
// invalid UTF-8...).  It is encoded by both, and every difference in the
// token ids is printed.  Strings drawn from "any code point" are counted
// apart: there Node's Unicode version (17 in Node 20.20) and PCRE2's
// (14 in 10.42) may disagree on newly assigned letters.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const require = createRequire(join(process.env.NODE_PATH || '.', 'x'));
const { getEncoding } = require('js-tiktoken');

const [dump, countArg, seedArg] = process.argv.slice(2);
if (!dump) {
	console.error('usage: differential.mjs PATH/TO/tok-dump [COUNT] [SEED] [FRAGMENTS]');
	process.exit(2);
}
const COUNT = Number(countArg || 3000);
const FRAGMENTS = Number(process.argv[5] || 16);
let seed = Number(seedArg || 1) >>> 0;
function rand(n) {		// xorshift32: the same strings for one seed
	seed ^= seed << 13; seed >>>= 0;
	seed ^= seed >>> 17;
	seed ^= seed << 5; seed >>>= 0;
	return seed % n;
}
const pick = (a) => a[rand(a.length)];
const cp = (lo, hi) => String.fromCodePoint(lo + rand(hi - lo + 1));

const fragments = [
	() => pick(['the', 'The', 'THE', 'hello', 'World', 'naïve', 'café',
		'don', 'I', 'a', 'ThisIsCamelCase', 'HTTPServer', 'x']),
	() => pick(["'s", "'S", "'t", "'T", "'re", "'RE", "'Re", "'ve",
		"'vE", "'m", "'M", "'ll", "'LL", "'lL", "'d", "'D", "'", "'x",
		"'ſ", "’s", "''"]),
	() => pick([' ', '  ', '   ', '\t', '\n', '\r\n', '\r', '\n\n',
		' \n', '\u000b', '\u000c', '\u00a0', '\u0085', '\u1680',
		'\u2000', '\u2009', '\u200a', '\u200b', '\u2028', '\u2029',
		'\u202f', '\u205f', '\u3000', '\ufeff', '\u180e', '\u001c',
		'\u001f']),
	() => String(rand(100000)),
	() => pick(['٣٤٥', '１２３', '½', 'Ⅻ', '²', '߀', '০১']),
	() => pick(['!', '?', '...', '--', '/', '//', '/*', '*/', '{', '}',
		'();', '=>', '#', '@', '$', '%', '^', '&&', '||', '"', '`',
		'<|endoftext|>', '<|fim_prefix|>', '<|endofprompt|>', '<', '|>']),
	() => { let s = ''; for (let i = rand(6) + 1; i--;) s += cp(0x4e00, 0x9fff); return s; },
	() => { let s = ''; for (let i = rand(6) + 1; i--;) s += cp(0x3040, 0x30ff); return s; },
	() => { let s = ''; for (let i = rand(4) + 1; i--;) s += cp(0xac00, 0xd7a3); return s; },
	() => pick(['Привет', 'мир', 'Ελληνικά', 'مرحبا', 'שלום',
		'नमस्ते', 'ภาษาไทย', 'ǅemal', 'ǈ', 'ʰʲ', 'ꜰ', 'ß', 'İstanbul']),
	() => pick(['e\u0301', '\u0301', '\u0301\u0302', 'a\u20dd', '\u093f',
		'\u0e31', '\ufe0f', '\u200d', 'x\u0345']),
	() => pick(['😀', '👍🏽', '👨‍👩‍👧‍👦', '🏳️‍🌈', '🇯🇵', '🇺🇸🇬🇧', '❤️',
		'©', '™', '🧑🏿‍🚀', '\u{1f9d1}\u200d\u{1f4bb}', '𝔘𝔫𝔦', '𠀀', '𪜀']),
	// Assigned since Unicode 14 (PCRE2 10.42's): tokenizer_unicode.h.
	() => pick(['\ua7dc', '\u0295', 'a\u0295b', '\u{31350}\u{31351}',
		'\u{2ebf0}', '\u{1e4d0}\u{1e4d1}', '\u{11f04}\u{11f05}',
		'\u{1e4f0}\u{1e4f1}', '\u{11f50}', '\u0cf3', '\u{10efd}',
		'\u{1e030}', '\u{16d40}\u{16d41}', '\u{1e5d0}']),
	() => cp(0x30000, 0x323af),
	() => String.fromCharCode(rand(128)),
	() => cp(0x80, 0x7ff),
	() => cp(0x800, 0xffff).replace(/[\ud800-\udfff]/, 'x'),
];

// 'any' draws from every code point, 'bytes' from random bytes.
function randomString(kind) {
	if (kind === 'any') {
		let s = '';
		for (let i = rand(12) + 1; i--;) {
			const c = rand(0x110000);
			s += c >= 0xd800 && c < 0xe000 ? ' ' : String.fromCodePoint(c);
		}
		return { bytes: Buffer.from(s, 'utf8'), text: s };
	}
	if (kind === 'bytes') {
		const b = Buffer.alloc(rand(24) + 1);
		for (let i = 0; i < b.length; i++)
			b[i] = rand(3) ? 0x80 + rand(128) : rand(256);
		return { bytes: b, text: new TextDecoder().decode(b) };
	}
	let s = '';
	for (let i = rand(FRAGMENTS) + 1; i--;)
		s += pick(fragments)();
	return { bytes: Buffer.from(s, 'utf8'), text: s };
}

const cases = [];
for (let i = 0; i < COUNT; i++) {
	const r = rand(20);
	const kind = r === 0 ? 'any' : r === 1 ? 'bytes' : 'mixed';
	cases.push({ kind, ...randomString(kind) });
}
const dir = mkdtempSync(join(tmpdir(), 'tokdiff-'));
const recs = [];
for (const c of cases)
	recs.push(Buffer.from(`${c.bytes.length}\n`), c.bytes, Buffer.from('\n'));
writeFileSync(join(dir, 'in'), Buffer.concat(recs));

let bad = 0;
const tally = {};
for (const enc of ['cl100k_base', 'o200k_base']) {
	const js = getEncoding(enc);
	const out = execFileSync(dump, [enc, join(dir, 'in')],
		{ maxBuffer: 1 << 28 }).toString().split('\n');
	cases.forEach((c, i) => {
		const want = js.encode(c.text, [], []).join(' ');
		const key = `${enc} ${c.kind}`;
		tally[key] ??= { n: 0, diff: 0 };
		tally[key].n++;
		if (out[i] !== want) {
			tally[key].diff++;
			bad++;
			if (bad <= 20)
				console.log(`DIFF ${key} ${JSON.stringify(c.text)}\n` +
				    `  c:  ${out[i]}\n  js: ${want}`);
		}
	});
}
for (const [k, v] of Object.entries(tally))
	console.log(`${k}: ${v.n} strings, ${v.diff} differ`);
console.log(bad ? `${bad} differences` : 'no differences');
process.exit(bad ? 1 : 0);
