import { buildPrompt } from 'fast-tavern';
import fs from 'fs';
const dir = process.argv[2];
const params = JSON.parse(fs.readFileSync(dir + '/params.json', 'utf8'));
const r = params.options?.rng;
if (params.options && r !== undefined && r !== null) {
  let fn;
  if (typeof r === 'number') fn = () => r;
  else if (Array.isArray(r)) { let i = 0; fn = () => r[i++ % r.length]; }
  else if (typeof r === 'object' && 'seed' in r) {
    let a = r.seed >>> 0;
    fn = () => { a = (a + 0x6D2B79F5) >>> 0; let t = Math.imul(a ^ (a >>> 15), a | 1);
      t = (t ^ (t + Math.imul(t ^ (t >>> 7), t | 61))) >>> 0; return ((t ^ (t >>> 14)) >>> 0) / 4294967296; };
  }
  if (fn) params.options.rng = fn;
}
try {
  const res = buildPrompt(params);
  fs.writeFileSync(dir + '/expected.json', JSON.stringify(res, null, 2) + '\n');
  try { fs.unlinkSync(dir + '/expected-error.txt'); } catch {}
} catch (e) {
  fs.writeFileSync(dir + '/expected-error.txt', String(e) + '\n');
  try { fs.unlinkSync(dir + '/expected.json'); } catch {}
}
