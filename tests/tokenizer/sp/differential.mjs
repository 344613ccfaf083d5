#!/usr/bin/env node
// Differential check of strata's SentencePiece encoder against the
// library SillyTavern 1.15 runs it with, on every string of every JSON
// and JSONL file under the given directories (cards, presets, lorebooks,
// chats: real users' text).  Run by hand (CI has no npm), from the
// repository root, after building:
//
//   ST_HOME=/path/to/SillyTavern-1.15.0 node tests/tokenizer/sp/differential.mjs \
//       build/tests/tok-dump DIR...
//
// ST_HOME is a SillyTavern 1.15.0 tree with its node_modules.  Each
// string is encoded by both with each of llama, mistral and yi, and every
// string whose ids differ is printed; the exit status is 1 if any did.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const st = process.env.ST_HOME;
const [dump, ...dirs] = process.argv.slice(2);
if (!st || !dump || dirs.length === 0) {
	console.error('usage: ST_HOME=... differential.mjs PATH/TO/tok-dump DIR...');
	process.exit(2);
}
const require = createRequire(join(st, 'package.json'));
const { SentencePieceProcessor } = require('@agnai/sentencepiece-js');

const strings = new Set();
const collect = (v) => {
	if (typeof v === 'string') {
		if (v.length > 0)
			strings.add(v);
	} else if (v && typeof v === 'object')
		Object.values(v).forEach(collect);
};
const walk = (d) => {
	for (const f of readdirSync(d)) {
		const p = join(d, f);
		if (statSync(p).isDirectory())
			walk(p);
		else if (/\.jsonl?$/.test(f))
			for (const line of f.endsWith('.jsonl') ?
			    readFileSync(p, 'utf8').split('\n') : [readFileSync(p, 'utf8')])
				try { collect(JSON.parse(line)); } catch { /* not JSON */ }
	}
};
dirs.forEach(walk);
const list = [...strings];
const records = join(mkdtempSync(join(tmpdir(), 'sp-diff-')), 'records');
writeFileSync(records, Buffer.concat(list.flatMap((s) => {
	const b = Buffer.from(s);
	return [Buffer.from(b.length + '\n'), b, Buffer.from('\n')];
})));
let bad = 0;
for (const m of ['llama', 'mistral', 'yi']) {
	const sp = new SentencePieceProcessor();
	await sp.load(join(st, 'src/tokenizers', m + '.model'));
	const got = execFileSync(dump, [m, records], { maxBuffer: 1 << 30 })
		.toString().split('\n');
	list.forEach((s, i) => {
		const want = sp.encodeIds(s).join(' ');
		if (got[i] !== want) {
			bad++;
			console.log(`${m} ${JSON.stringify(s).slice(0, 120)}\n  want ${want.slice(0, 200)}\n  got  ${got[i].slice(0, 200)}`);
		}
	});
}
console.log(`${list.length} strings, ${list.reduce((a, s) => a + s.length, 0)} UTF-16 units, 3 models: ${bad} differ`);
process.exit(bad ? 1 : 0);
