#!/usr/bin/env node
// Write texts.json, the texts test_tokenizer counts with Claude's
// tokenizer: the hand-picked ones below, then random strings drawn from
// pools of the characters where a tokenizer can go wrong (a fixed seed,
// so the file is the same each time).  Run by hand; then gen-expected.mjs.
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const picked = [
	'', 'Hello, world!', 'hello world', '  leading and trailing  ',
	"I'm sure you'll see they've said it's 'd, 'S, 'RE and 'Ll.",
	'line one\nline two\r\n\r\nline four\n\n\n', 'tabs\tand\u000bvertical\fforms',
	'3.14159 and 1234567890 and 12,345,678.90', 'MixedCASEwordsAndCamelCase',
	'The quick brown fox jumps over the lazy dog. '.repeat(20),
	'你好，世界！今天天气很好。', '日本語のテキストとカタカナ、ひらがな。', '한국어 텍스트입니다.',
	'Emoji: 😀👍🏽👨‍👩‍👧🇯🇵❤️ and 🫠', 'Ça va? Él está aquí. Ünïcödé naïve café',
	// NFKC: compatibility forms, ligatures, full width, circled, super-
	// and subscripts, decomposed accents, Hangul jamo, the long ones.
	'ﬁﬂﬀﬃ ① ½ ™ ㌀ ＡＢＣ ａｂｃ １２３ ²³⁴ H₂O ſ ẛ Å Ω',
	'e\u0301 a\u0308 o\u0302\u0323 q\u0307\u0323 \u1100\u1161\u11a8 \u0344 \u0f77',
	'\ufdfa \ufdfb \u3300\u33ff \u2474 \u00a0non\u00a0breaking\u2003em\u3000ideographic',
	'\u0041\u030a\u0301 \u1e9b\u0323 \u00c5\u0327 \u0063\u0327\u0301',
	'Unicode 13+ stays as it is: \u{1FBF0}\u{1FBF9} \u{10781} \u{11938} \u{31350}',
	'White space: a\u0085b c\u1680d e\u2028f g\u2029h i\u180ej k\ufeffl m\u200bn',
	'<EOT>start <META>x<META_START>y<META_END>z<SOS> <EOT <META_> <|endoftext|>',
	'code: for (int i = 0; i < n; i++) { x[i] = y[i] * 2; } // done',
	'{"json": [1, 2, 3], "nested": {"key": "value"}}',
	'https://example.com/path?query=1&x=y#frag',
	'a'.repeat(5000), ' '.repeat(3000), '\n'.repeat(500), '中'.repeat(2000),
	'😀'.repeat(300), 'ab'.repeat(2500), '1'.repeat(1000),
];
const pools = [
	'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789',
	" \t\n\r\u000b\u000c'!?.,;:-_()[]{}<>\"/\\@#$%^&*+=~`|",
	"'s 're 'll 've 'd 'm 't 'S",
	'你好世界中文字符测试日本語のテキストカタカナ한국어텍스트',
	'\u00e9\u00e8\u00fc\u00f1\u00c5\u0301\u0308\u0327\u0316\u0345\u05b0\u0e48\u1100\u1161\u11a8\u3131\uac00',
	'\u00a0\u0085\u1680\u2000\u2028\u2029\u202f\u205f\u3000\ufeff\u180e\u200b',
	'\ufb01\u2460\u00bd\u2122\u3300\uff21\uff41\uff11\u00b2\u2075\u017f\u1e9b\u212b\u2126\u0344\u0f77\ufdfa\u33ff',
	'😀👍🏽👨‍👩‍👧🇯🇵❤️\u{10400}\u{31350}\u{1FBF0}\u{10781}\u{11938}',
	'<EOT><META><META_START><META_END><SOS><|endoftext|><',
	'ǅǈǋǲΆΈΉΊΌΎΏάέήίόύώ\u0390\u03b0ΐ',
];
let seed = 21;
const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const texts = [...picked];
for (let i = 0; i < 600; i++) {
	const len = 1 + Math.floor(rnd() * 40);
	const mix = [0, Math.floor(rnd() * pools.length),
		Math.floor(rnd() * pools.length)];
	let s = '';
	for (let j = 0; j < len; j++) {
		const p = [...pools[mix[Math.floor(rnd() * 3)]]];
		s += p[Math.floor(rnd() * p.length)];
	}
	texts.push(s);
}
writeFileSync(join(here, 'texts.json'), JSON.stringify(texts, null, 0)
	.replace(/","/g, '",\n"') + '\n');
console.log(`${texts.length} texts`);
