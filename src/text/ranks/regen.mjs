#!/usr/bin/env node
// Regenerate cl100k_base.tiktoken and o200k_base.tiktoken from the ranks
// that the npm package js-tiktoken ships (OpenAI's published BPE ranks,
// MIT-licensed).  Run by hand, never by the build:
//
//   mkdir -p /tmp/jt && cd /tmp/jt && npm install js-tiktoken
//   node src/text/ranks/regen.mjs /tmp/jt/node_modules/js-tiktoken
//
// Each output line is "BASE64 RANK", in rank order: OpenAI's own
// .tiktoken format.  The split pattern and special tokens are printed so
// that a change upstream is noticed (tokenizer.h documents the patterns).
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const pkg = process.argv[2];
if (!pkg) {
	console.error('usage: node regen.mjs PATH/TO/node_modules/js-tiktoken');
	process.exit(2);
}
const here = dirname(fileURLToPath(import.meta.url));

for (const name of ['cl100k_base', 'o200k_base']) {
	const url = pathToFileURL(join(pkg, 'dist', 'ranks', name + '.js'));
	const ranks = (await import(url.href)).default;
	// js-tiktoken's packing: lines of "! OFFSET TOKEN TOKEN ...", the
	// tokens' ranks counting up from OFFSET.
	const byRank = [];
	for (const line of ranks.bpe_ranks.split('\n')) {
		if (!line)
			continue;
		const [, off, ...toks] = line.split(' ');
		toks.forEach((t, i) => { byRank[Number(off) + i] = t; });
	}
	let out = '';
	for (let r = 0; r < byRank.length; r++) {
		if (byRank[r] === undefined)
			throw new Error(`${name}: no token of rank ${r}`);
		out += `${byRank[r]} ${r}\n`;
	}
	writeFileSync(join(here, name + '.tiktoken'), out);
	console.log(`${name}: ${byRank.length} ranks`);
	console.log(`  pat_str: ${ranks.pat_str}`);
	console.log(`  special: ${JSON.stringify(ranks.special_tokens)}`);
}
