// Run once with Node (v20) to write expected.json next to this file:
//   node tests/regex/gen-expected.mjs > tests/regex/expected.json
// Each case is [pattern, flags, input].  For every match the output holds
// "[match|g1,g2,...]" (an unset group is "~"), made by String.replace
// with the regex as given (first match only without g), so the C test
// can rebuild the same string from jsregex_match().  A pattern that
// JavaScript refuses gives {"error": true}.
const cases = [
  // literals, CJK, emoji
  ['abc', 'g', 'xabcyabc'],
  ['猫', 'g', '猫と犬と猫'],
  ['😀', 'g', 'a😀b😀'],
  ['é+', 'g', 'ééé e é'],
  // dot and line terminators
  ['a.c', 'g', 'abc a\nc a\rc a\u2028c a\u2029c a\u000bc a\u0085c a😀c'],
  ['a.c', 'gs', 'a\nc a\rc a\u2028c'],
  ['.+', '', '中文テキスト\n次'],
  // ^ and $
  ['^a', 'g', 'a\na'],
  ['^a', 'gm', 'a\na\ra\r\na\u2028a'],
  ['a$', 'g', 'a\na\n'],
  ['a$', 'gm', 'a\na\ra\r\na\u2029'],
  ['^$', 'gm', 'x\n\ny'],
  ['\\s*$', '', 'text  \n'],
  // \s and \S
  ['\\s', 'g', 'a b\tc\u00a0d\u3000e\u2003f\ufeffg\u0085h'],
  ['\\S+', 'g', 'a\u00a0bc\u3000日本'],
  ['[\\s]', 'g', 'x\u00a0y z'],
  ['[\\S]', 'g', 'x\u00a0y'],
  ['[^\\S]', 'g', 'x\u00a0y z'],
  ['[a\\S]', 'g', ' a\u3000b'],
  ['[^a\\S]', 'g', 'a \u3000b'],
  // \d \w \b are ASCII
  ['\\d+', 'g', '12 ١٢ ３'],
  ['\\w+', 'g', 'héllo wörld_1 日本'],
  ['\\bcat\\b', 'g', 'cat concat cat_ écat'],
  ['\\B', 'g', 'ab'],
  ['\\W', 'g', 'a-é'],
  // escapes
  ['\\x41\\u0042\\u{43}', 'u', 'ABC'],
  ['\\u{3}', '', 'uuu'],
  ['\\x4', '', 'x4'],
  ['\\uD83D\\uDE00', 'g', 'a😀b'],
  ['\\u{1F600}', 'gu', 'a😀b'],
  ['\\cJ', 'g', 'a\nb'],
  ['\\c1', 'g', '\\c1'],
  ['\\v\\f', 'g', '\u000b\f'],
  ['\\0', 'g', 'a\u0000b'],
  ['\\/', 'g', 'a/b'],
  ['\\a\\e\\g\\y\\z', '', 'aegyz'],
  ['\\p{L}', '', 'p{L}'],
  ['\\p{L}+', 'gu', 'héllo 日本 123'],
  ['\\p{Script=Han}+', 'gu', 'abc日本語def'],
  ['\\P{L}+', 'gu', 'ab12cd'],
  ['\\-', '', 'a-b'],
  ['\\q', 'u', 'q'],
  // classes
  ['[^]', 'g', 'a\nb'],
  ['[]', 'g', 'abc'],
  ['a[]]', 'g', 'a] a'],
  ['[a-z]+', 'gi', 'Hello WORLD'],
  ['[\\d-z]+', 'g', '1-z9'],
  ['[\\w-]+', 'g', 'a-b c_d'],
  ['[z-a]', '', 'a'],
  ['[[]', 'g', 'a[b'],
  ['[\\b]', 'g', 'a\bb'],
  ['[\\]]', 'g', 'a]b'],
  ['[😀-😂]', 'gu', '😀😁😂😃'],
  ['[\\u4e00-\\u9fff]+', 'g', 'abc日本語def'],
  ['[^\\u0000-\\u007f]+', 'g', 'abc日本語😀'],
  ['[\\c1]', 'g', '\u0011'],
  ['[\\1]', 'g', '\u0001'],
  ['[:alpha:]', 'g', 'a:'],
  // groups, names, backreferences
  ['(a)|(b)', 'g', 'ab'],
  ['(?<year>\\d{4})-(?<m>\\d\\d)', 'g', '2024-05 1999-12'],
  ['(?<q>["\'])(.*?)\\k<q>', 'g', '"a" \'b\' "c\''],
  ['\\k<x>', '', 'k<x>'],
  ['(a)\\1', 'g', 'aa a'],
  ['\\1(a)', 'g', 'a'],
  ['(a)|\\1b', 'g', 'b'],
  ['(a)\\2', 'g', 'a\u0002'],
  ['\\8\\9', 'g', '89'],
  ['(a)\\10', 'g', 'a\b'],
  ['\\101', 'g', 'A'],
  ['(?:ab)+', 'g', 'ababab'],
  ['(?<=\\$)\\d+', 'g', 'cost $42 or 7'],
  ['(?<!\\$)\\b\\d+', 'g', 'cost $42 or 7'],
  ['(?=a)', 'g', 'baa'],
  ['(?<n>a)(?<n>b)', '', 'ab'],
  ['(?i:a)', '', 'A'],
  ['(?', '', 'a'],
  ['a)', '', 'a)'],
  ['(a', '', 'a'],
  // quantifiers and braces
  ['a{2}', 'g', 'aaaaa'],
  ['a{2,}', 'g', 'aaaaa'],
  ['a{1,2}?', 'g', 'aaa'],
  ['a{', 'g', 'a{'],
  ['{', 'g', '{x{'],
  ['a{,2}', 'g', 'a{,2}'],
  ['x{ 1 }', 'g', 'x{ 1 }'],
  ['}', 'g', 'a}'],
  [']', 'g', 'a]'],
  ['a{2,1}', '', 'a'],
  ['a**', '', 'a'],
  ['a*+', '', 'a'],
  ['*a', '', 'a'],
  ['{2}', '', 'a'],
  ['a{', 'u', 'a{'],
  ['^*', '', 'a'],
  ['(?=a)*b', '', 'b'],
  ['(?<=a)*b', '', 'b'],
  ['a??', 'g', 'aa'],
  ['.*?', 'g', 'ab'],
  ['', 'g', 'a😀中'],
  ['x*', 'g', 'a😀'],
  // case-insensitivity
  ['straße', 'i', 'STRAßE'],
  ['σ', 'gi', 'Σσς'],
  ['ÉCOLE', 'i', 'école'],
  ['[а-я]+', 'gi', 'ПРИВЕТ мир'],
  // the sample scripts' patterns
  ['([.!?]|\\.{3})(?!.*[.!?]|\\.{3}).*$', '', 'He did... ( and "more" here'],
  ['(.*)([*"(\\[]|__)(.*?)([.!?]|\\.{3})\\s*$', '', 'Text *she smiles.  '],
  ['([.!?]|\\.{3})\\s*\\(\\s*$', '', 'Will you stay? ('],
  ['\\[\\s*P(\\d{3})\\s*\\]', 'g', 'see [ P123 ] and [P45]'],
  ['\\b(quiet)\\b', 'gi', 'Quiet tea, quiet night.'],
  // more corners
  ['[\\s\\S]+', 'g', 'a b\nc'],
  ['[^\\s\\S]', 'g', 'abc'],
  ['(?:)|a', 'g', 'ab'],
  ['a|', 'g', 'ab'],
  ['\\k<a>(?<a>x)', 'g', 'xx'],
  ['(?<a>.)(?<b>.)\\k<b>\\k<a>', 'g', 'abba xyyx'],
  ['[\\u0000-\\uFFFF]+', 'g', 'aé日'],
  ['\\u{1F600}', '', 'u{1F600}'],
  ['\\07\\377\\400', '', '\u0007\u00ff\u00200'],
  ['[\\-]+|[a-]+|[-b]+', 'g', '--a-b-'],
  ['\\cj\\cZ', '', '\n\u001a'],
  ['^(?=.*\\d)(?!.*x)\\w+$', 'gm', 'ab1\nabx1\ncd'],
  ['.+', 'gms', 'a\nb'],
  ['^.+$', 'gm', 'a\r\nb\u2028c'],
  ['x{1,3}?y|x{0}z', 'g', 'xxxy z'],
  ['[^\\]]+', 'g', 'ab]cd'],
  ['\\//g', 'g', 'a//b'],
  ['\\B', 'g', '日本'],
  ['(?=a){2}a', '', 'a'],
  ['\\s*$', 'gm', 'a \nb\t\n'],
  ['(\\w)\\s(?<=a\\s)', 'g', 'a b c a '],
  ['\\p{Lu}\\p{Ll}+', 'gu', 'Éclair Ωmega Zeta'],
  ['[\\p{N}_]+', 'gu', 'a_1٢3'],
  ['\\d{2,}?', 'g', '12345'],
  ['[😀😁]', 'gu', '😁x😀'],
  ['\\$\\{(\\w+)\\}', 'g', 'a ${name} b'],
  ['<(\\/?)(\\w+)[^>]*>', 'g', '<b class="x">bold</b>'],
  ['(["“])(.*?)(["”])', 'g', 'She said “hi” and "bye"'],
  ['\\*([^*]+)\\*', 'g', '*waves* hello *smiles*'],
  ['「(.+?)」', 'g', '彼は「こんにちは」と言った。「はい」'],
  ['[\\p{gc=Ll}\\p{Script=Han}]+', 'gu', 'ABcd日本'],
  ['[^\\P{sc=Latin}]+', 'gu', 'abc日本é'],
  // bad patterns
  ['[', '', 'a'],
  ['\\', '', 'a'],
  ['a\\', '', 'a'],
  ['(?<=a+)b', '', 'aab'],
  // look-behinds PCRE2 10.42 refuses (not of a fixed length): emulated
  ['(?<=a+)b', 'g', 'b ab aab xb'],
  ['(?<![\"\']\\s*)\\bhello', 'g', 'hello "hello \'  hello say hello "\nhello'],
  ['(?<=ab?)c', 'g', 'ac abc bc xc'],
  ['(?<=\\d+(?:px|em)\\s*)x', 'g', '12px  x 3x emx 4em x'],
  ['(?<!^\\s*)-', 'gm', '- a - b\n  - c'],
  ['(?<=(?<!x)a+)b', 'g', 'ab xab xaab'],
  ['(?<=\\b[A-Z][a-z]*)\\.', 'g', 'Mr. Smith. mr. Dr.'],
  ['(?<=[\u4e00-\u9fff]+)。', 'g', '中文。abc。日本語。'],
  ['\\w+(?<!ing)\\b', 'g', 'sing a song singing songs'],
  ['(?<=<([a-z]+)>.*)x', 'g', '<b>ax x'],
  ['\\2(a)', 'u', 'a'],
  ['\\c', 'u', 'c'],
];
const out = [];
for (const [pattern, flags, input] of cases) {
  let re;
  try {
    re = new RegExp(pattern, flags);
  } catch (e) {
    out.push({ pattern, flags, input, error: true });
    continue;
  }
  const output = input.replace(re, (...args) => {
    const hasGroups = typeof args[args.length - 1] === 'object';
    const n = args.length - (hasGroups ? 3 : 2);
    const groups = args.slice(1, n).map((g) => (g === undefined ? '~' : g));
    return '[' + args[0] + '|' + groups.join(',') + ']';
  });
  // JS may split a surrogate pair (strata does not: a known difference);
  // JSON cannot hold the halves, so they become U+FFFD here.
  if (!output.isWellFormed())
    out.push({ pattern, flags, input, output: output.toWellFormed(), split_pairs: true });
  else
    out.push({ pattern, flags, input, output });
}

// Whole scripts, as SillyTavern 1.15 runs them without macros: the
// findRegex string split as regexFromString does, then String.replace
// with a callback that builds the replacement from replaceString
// ({{match}} -> $0, $N and $<name> from the callback's arguments, trim
// strings removed).  [findRegex, replaceString, trimStrings, input].
const scripts = [
  ['/(\\w+)@(\\w+)/g', '$2 at $1', [], 'ann@home bob@work'],
  ['/(?<who>\\w+)@(?<where>\\w+)/g', '$<where>:$<who>:$<none>', [], 'ann@home'],
  ['/b/g', '[$1|$2|$3]', [], 'abcb'],
  ['/(b)/g', '[$2]', [], '😀b日b'],
  ['/(?<n>b)/', '[$3]', [], 'abc'],
  ['/x*/g', '-', [], 'ab'],
  ['/^/gm', '> ', [], 'one\ntwo\r\nthree'],
  ['/\\s+$/', '', [], 'text \u3000\u00a0 '],
  ['tea', 'TEA', [], 'tea tea'],
  ['/TEA/gi', '{{MATCH}}!', [], 'tea Tea'],
  ['/(a)(b)?/g', '<$1$2$0>', [], 'a ab'],
  ['/"(.*?)"/g', '«$1»', ['"', ' '], 'say "hi there" now'],
  ['/(\\d+)/g', '$1$$&$`', [], 'n 42'],
  ['/a/gu', 'b', [], 'aáa'],
  ['/[^]/g', '.', [], 'a\nb'],
  ['/a/y', 'b', [], '/a/y a'],
  ['/a/x', 'b', [], 'a'],
  ['/(.)\\1/g', '<$1>', [], 'aabbcd'],
  ['/(?<=\\d)(?=(\\d{3})+$)/g', ',', [], '1234567'],
  ['/(\\p{Script=Han}+)/gu', '[$1]', [], 'abc日本語def'],
];
function regexFromString(input) {
  try {
    const m = input.match(/(\/?)(.+)\1([a-z]*)/i);
    if (m[3] && !/^(?!.*?(.).*?\1)[gmixXsuUAJ]+$/.test(m[3])) return RegExp(input);
    return new RegExp(m[2], m[3]);
  } catch {
    return undefined;
  }
}
const runs = [];
for (const [find, replace, trims, input] of scripts) {
  const re = regexFromString(find);
  let output = input;
  if (re) {
    output = input.replace(re, function (...args) {
      const tpl = replace.replace(/{{match}}/gi, '$0');
      return tpl.replaceAll(/\$(\d+)|\$<([^>]+)>/g, (_, num, name) => {
        let v;
        if (num) v = args[Number(num)];
        else {
          const groups = args[args.length - 1];
          v = groups && typeof groups === 'object' && groups[name];
        }
        if (!v) return '';
        let f = v;
        for (const t of trims) f = f.replaceAll(t, '');
        return f;
      });
    });
  }
  runs.push({ find, replace, trims, input, output });
}

// World-info keys, as world-info.js's parseRegexFromString reads them:
// regex is null for a plain key, else whether re.test(text) holds.
const keys = [
  ['/dragon/i', 'A DRAGON!'],
  ['/drag(on|oon)/', 'dragoon'],
  ['dragon', 'dragon'],
  ['/a/b/', 'a/b'],
  ['/a\\/b/', 'a/b'],
  ['/a\\/b\\/c/', 'a/b/c'],
  ['/\\/x/', '/x'],
  ['/x/gg', 'x'],
  ['/x/y', 'ax'],
  ['/x/y', 'xa'],
  ['/x/gy', 'x'],
  ['/x/z', 'x'],
  ['/(/', '('],
  ['//', '/'],
  ['/x/', 'X'],
  ['/^\\x01Sera/m', 'a\n\u0001Seraphina: hi'],
  ['/猫|犬/u', '小さな犬'],
  ['/\\bcat\\b/', 'concat'],
];
const keyruns = keys.map(([key, text]) => {
  const m = key.match(/^\/([\w\W]+?)\/([gimsuy]*)$/);
  let re = null;
  if (m && !m[1].match(/(^|[^\\])\//)) {
    try { re = new RegExp(m[1].replace('\\/', '/'), m[2]); } catch { re = null; }
  }
  return { key, text, regex: re ? { source: re.source, flags: re.flags, test: re.test(text) } : null };
});
process.stdout.write(JSON.stringify({ patterns: out, scripts: runs, keys: keyruns }, null, 1) + '\n');
