// inspect.mjs PAGES.json: load each inspector page in headless Chromium
// (playwright-core, the system's chromium) and check it; tests/browser.sh
// writes PAGES.json.  Each page: {name, html, png, messages, items:
// [[selector, count], ...], changes, budgetStages, stages, injected,
// search, counts, links, maxBytes, maxMs (render.mjs's, not read
// here)}.
//
// For every page: no console message of level error or warning, no page
// error, no request other than the page itself; the number of messages
// (li.msg) and of each kind of item are those strata's JSON said; both
// token bars add up to the same total, and a SillyTavern message's text
// and overhead are what its budget counted (counts); a long history
// opens with only its first and last 3 messages; source links name
// files, and each SillyTavern item with a source links to its file:line
// (links); the injected text is on the page as text while no element it
// would have made exists; with stages, clicking a stage tab shows its
// panel and hides the others, and the arrow keys move between tabs;
// every role and layer an element names is a filter choice, and each
// layer choice shows exactly what names it; filtering by role, by layer
// and by text changes what is shown, and clearing it shows everything
// again.  A full-page screenshot goes to png.
import { readFileSync, statSync } from "node:fs";
import { chromium } from "playwright-core";

const pages = JSON.parse(readFileSync(process.argv[2], "utf8"));
const exe = process.env.CHROMIUM || "/usr/bin/chromium";
let failed = 0;

function check(page, ok, what) {
  if (ok) {
    console.log(`ok   ${page.name}: ${what}`);
  } else {
    console.log(`FAIL ${page.name}: ${what}`);
    failed++;
  }
}

const browser = await chromium.launch({
  executablePath: exe,
  args: ["--no-sandbox", "--disable-gpu", "--font-render-hinting=none"],
});

async function visible(p, sel) {
  return p.$$eval(sel, (els) => els.filter((e) => e.offsetParent !== null).length);
}

for (const spec of pages) {
  for (const scheme of ["light", "dark"]) {
    const ctx = await browser.newContext({
      viewport: { width: 1200, height: 900 },
      colorScheme: scheme,
      javaScriptEnabled: true,
    });
    const p = await ctx.newPage();
    const problems = [];
    const requests = [];
    const url = "file://" + spec.html;
    p.on("console", (m) => {
      if (m.type() === "error" || m.type() === "warning")
        problems.push(`${m.type()}: ${m.text()}`);
    });
    p.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
    const blocked = new Set();
    p.on("request", (r) => {
      if (r.url() !== url)
        requests.push(r.url());
    });
    p.on("requestfailed", (r) => {
      if (r.failure() && r.failure().errorText === "csp")
        blocked.add(r.url());
    });
    // A dialog would mean an injected script ran.
    p.on("dialog", (d) => {
      problems.push(`dialog: ${d.message()}`);
      d.dismiss();
    });
    await p.goto(url, { waitUntil: "load" });
    const name = `${spec.name} (${scheme})`;
    const page = { name };

    if (scheme === "light") {
      const bytes = statSync(spec.html).size;
      if (spec.maxBytes)
        check(page, bytes < spec.maxBytes, `${bytes} bytes, under ${spec.maxBytes}`);
      // The render time is a benchmark's (tests/bench/inspector.sh,
      // render.mjs), never this suite's: a timing is no test.
    }
    // The page as it opens, for a person to look at.  content-visibility
    // lets Chromium skip painting what is off screen, which a full-page
    // shot would show as empty boxes: paint it all for the shot.
    const png = scheme === "light" ? spec.png : spec.png.replace(/\.png$/, "-dark.png");
    const paint = await p.addStyleTag({ content: "*{content-visibility:visible!important}" });
    await p.screenshot({ path: png, fullPage: !spec.maxBytes });
    await paint.evaluate((e) => e.remove());
    console.log(`     screenshot: ${png}`);
    if (scheme === "dark") {
      // The dark page is for looking at; the checks ran on the light one.
      check(page, problems.length === 0, `no console errors (${problems.join("; ") || "none"})`);
      check(page, requests.length === 0, `no network requests (${requests.join(", ") || "none"})`);
      await ctx.close();
      continue;
    }
    const nmsg = await p.$$eval("li.msg", (v) => v.length);
    check(page, nmsg === spec.messages, `${nmsg} messages, expected ${spec.messages}`);
    for (const [sel, want] of spec.items || []) {
      const n = await p.$$eval(sel, (v) => v.length);
      check(page, n === want, `${n} of ${sel}, expected ${want}`);
    }
    // A diff's changes by layer: each listed once, under the heading of
    // its group, with its kind and name, exactly those pages.py found
    // (changes: [[group, kind, name], ...], sorted).
    if (spec.changes) {
      const got = await p.$$eval("#changes ul.changes > li", (v) => v.map((li) => [
        li.parentElement.previousElementSibling.textContent,
        li.querySelector(".kind").textContent,
        li.querySelector("b").textContent]));
      const key = (c) => JSON.stringify(c);
      const want = spec.changes.map(key).sort(), have = got.map(key).sort();
      const miss = want.filter((c) => !have.includes(c)), extra = have.filter((c) => !want.includes(c));
      check(page, want.length > 0 && miss.length === 0 && extra.length === 0 && have.length === want.length,
        `${have.length} item changes listed by layer, expected ${want.length}${miss.length ? "; missing " + miss.slice(0, 3).join(", ") : ""}${extra.length ? "; not expected " + extra.slice(0, 3).join(", ") : ""}`);
      const head = await p.textContent("#h-changes");
      check(page, head === `Changes by layer (${want.length})`, `the heading says ${JSON.stringify(head)}`);
    }
    // What the budget cut (budgetStages: from strata's JSON, each entry
    // it truncated or gave its fallback, with the text sent): its
    // message's stages end with "budget", the tab the page opens at,
    // which names the cut and shows the text sent (the text less what
    // is struck out).
    for (const b of spec.budgetStages || []) {
      const got = await p.evaluate(([m, key]) => {
        const box = document.querySelector(`#m${m} .stages`);
        if (!box)
          return null;
        const tabs = [...box.querySelectorAll("[role=tab]")];
        const panel = [...box.querySelectorAll(":scope > .stage")].pop();
        const h = [...panel.querySelectorAll("h5")].find((x) => x.textContent === key);
        const by = h && h.nextElementSibling, pre = by && by.nextElementSibling;
        let sent = null;
        if (pre && pre.tagName === "PRE") {
          const c = pre.cloneNode(true);
          c.querySelectorAll("del").forEach((d) => d.remove());
          sent = c.textContent;
        }
        return { last: tabs.length ? tabs[tabs.length - 1].textContent : null,
          selected: tabs.length ? tabs[tabs.length - 1].getAttribute("aria-selected") : null,
          shown: !panel.hidden, by: by ? by.textContent : "", sent };
      }, [b.message, b.key]);
      const how = b.cut === "fallback" ? "its fallback" : `truncated (${b.at} cut)`;
      check(page, got && got.last === "budget" && got.selected === "true" && got.shown,
        `${b.key}: message ${b.message}'s stages end with "budget", shown first (${got ? `${got.last}, ${got.selected}` : "no stages"})`);
      check(page, got && got.by.includes(how) && new RegExp(`\\b~?${b.kept} of ~?${b.tokens} tokens`).test(got.by),
        `${b.key}: the budget stage says how and why it was cut (${got ? JSON.stringify(got.by.slice(0, 60)) : "none"})`);
      check(page, got && got.sent === b.sent, `${b.key}: the budget stage shows the text sent (${got && got.sent !== null ? got.sent.length : "no"} of ${b.sent.length} characters)`);
    }
    // Tokens: one rule on the page.  The bar by layer or source and the
    // bar by message add up to the same total, and a SillyTavern
    // message's text and overhead are what its budget counted for it.
    {
      const sum = (sel) => p.$$eval(sel, (v) => v.reduce((n, e) => {
        const m = /: [^:]*?~?(\d+) tokens(?: \+ (\d+) overhead)?$/.exec(e.title);
        return n + (m ? +m[1] + (+m[2] || 0) : NaN);
      }, 0));
      const bars = await p.$$("#tokens .bar");
      if (bars.length === 2) {
        const a = await sum("#tokens .bar:nth-of-type(1) > span:not(.mark)");
        const b = await sum("#tokens .bar:nth-of-type(2) > span:not(.mark)");
        check(page, a === b && a > 0, `the two token bars add up to the same total (${a}, ${b})`);
      }
    }
    if (spec.counts) {
      const got = await p.$$eval("#tokens .bar:nth-of-type(2) > span:not(.mark)", (v) =>
        v.map((e) => /^message (\d+): .*?(\d+) tokens(?: \+ (\d+) overhead)?$/.exec(e.title)));
      const bad = [];
      for (const [n, want] of Object.entries(spec.counts)) {
        const m = got.find((g) => g && g[1] === n);
        if (!m || +m[2] + (+m[3] || 0) !== want)
          bad.push(`message ${n}: ${m ? `${m[2]} + ${m[3]}` : "none"}, budget ${want}`);
      }
      check(page, bad.length === 0 && Object.keys(spec.counts).length > 0,
        `${Object.keys(spec.counts).length} messages: text and overhead are the budget's count (${bad.slice(0, 3).join("; ") || "all"})`);
    }
    // A long history opens collapsed, but for its first and last 3
    // messages (and, on a diff, those that changed); a click on a
    // message opens it.
    if (nmsg > 12) {
      const open = await p.$$eval("li.msg", (v) => v.map((li, i) => [li.querySelector(":scope > details").open,
        i < 3 || i >= v.length - 3 || li.classList.contains("changed")]));
      const wrong = open.filter(([o, w]) => o !== w).length;
      const n = open.filter(([o]) => o).length;
      check(page, wrong === 0 && n < open.length,
        `${n} of ${open.length} messages open: the first and last 3${spec.stages ? "" : " and the changed"} (${wrong} otherwise)`);
      const closed = open.findIndex(([o]) => !o);
      const summary = p.locator("li.msg > details > summary").nth(closed);
      await summary.click();
      check(page, await p.evaluate((k) => document.querySelectorAll("li.msg > details")[k].open, closed), "a click opens a closed message");
      await summary.click();
    }
    // Source links point at files: a text read from inside one (a
    // card's book in a PNG chunk, "card.png[ccv3]") links to the file.
    {
      const inner = await p.$$eval("a.src", (v) => v.map((a) => a.getAttribute("href")).filter((h) => /\]$|%5D$/i.test(h)));
      check(page, inner.length === 0, `every source link names a file (${inner.slice(0, 2).join(", ") || "all do"})`);
    }
    // SillyTavern items: each with a source (strata's JSON,
    // items[].source) links to its file:line in its row of the items
    // table and on every piece line naming it (in its message, or left
    // out where it would have been), as profile entries do; an item
    // with no source shows no link.
    if (spec.links) {
      const seen = await p.$$eval("tr.item", (rows) => rows.map((r) => [...r.querySelectorAll(".src")].map((a) => [a.tagName, a.textContent, a.getAttribute("href")])));
      const lines = await p.$$eval("ul.pieces > li", (v) => v.filter((li) => li.querySelector("b.key")).map((li) => [li.querySelector("b.key").textContent, [...li.querySelectorAll(".src")].map((a) => [a.tagName, a.textContent, a.getAttribute("href")])]));
      const bad = [];
      let linked = 0, bare = 0, onPieces = 0;
      const fits = (l, got) => {
        if (!l.where)
          return got.length === 0;
        if (got.length !== 1 || got[0][1] !== l.where)
          return false;
        if (l.file.startsWith("-"))
          return got[0][0] === "SPAN";
        return got[0][0] === "A" && decodeURIComponent(got[0][2]).replace(/^\.\//, "") === l.file;
      };
      const show = (got) => JSON.stringify(got.map((g) => `${g[0]} ${g[1]} -> ${g[2]}`));
      if (seen.length !== spec.links.length)
        bad.push(`${seen.length} rows for ${spec.links.length} items`);
      spec.links.forEach((l, i) => {
        if (i < seen.length && !fits(l, seen[i]))
          bad.push(`row ${l.id}: ${show(seen[i])}, want ${l.where || "none"}`);
        l.where ? linked++ : bare++;
        const own = lines.filter((x) => x[0] === l.id);
        const ids = spec.links.filter((m) => m.id === l.id).length;
        if (ids === 1)
          for (const x of own) {
            onPieces++;
            if (!fits(l, x[1]))
              bad.push(`piece ${l.id}: ${show(x[1])}, want ${l.where || "none"}`);
          }
      });
      check(page, bad.length === 0 && linked > 0 && onPieces > 0,
        `${linked} items link to their file:line, ${bare} without a source show none, on the items table and ${onPieces} piece lines${bad.length ? ": " + bad.slice(0, 3).join("; ") : ""}`);
    }
    // Injected markup: shown as text, never made into elements.
    if (spec.injected) {
      const text = await p.evaluate(() => document.body.textContent);
      check(page, text.includes(spec.injected), `the injected ${JSON.stringify(spec.injected)} is text on the page`);
      const made = await p.evaluate(() => ({
        scripts: document.scripts.length,
        imgs: document.images.length,
        handlers: document.querySelectorAll("[onerror],[onload],[onclick]").length,
      }));
      check(page, made.scripts === 1 && made.imgs === 0 && made.handlers === 0,
        `no element made from input (${made.scripts} script, ${made.imgs} img, ${made.handlers} handlers)`);
    }
    // The filter bar is there once the script ran.
    check(page, await p.isVisible("#filters"), "the filter bar is shown");
    // Stage tabs.
    if (spec.stages) {
      const box = p.locator(".stages").first();
      const tabs = box.locator("[role=tab]");
      const n = await tabs.count();
      check(page, n >= 2, `the first stage block has ${n} tabs`);
      const panels = box.locator(":scope > .stage");
      const shown0 = await panels.evaluateAll((v) => v.filter((e) => !e.hidden).length);
      check(page, shown0 === 1, `one stage panel shown (${shown0})`);
      await tabs.nth(0).click();
      const first = await panels.evaluateAll((v) => v.map((e) => !e.hidden));
      check(page, first[0] && first.filter(Boolean).length === 1, "clicking the first tab shows the first stage only");
      check(page, (await tabs.nth(0).getAttribute("aria-selected")) === "true", "the clicked tab is selected");
      await tabs.nth(0).press("ArrowRight");
      const second = await panels.evaluateAll((v) => v.map((e) => !e.hidden));
      check(page, second[1] && second.filter(Boolean).length === 1, "ArrowRight moves to the second stage");
    }
    // Filters: by role, by layer, by text; clearing shows all again.
    const total = nmsg;
    const roles = await p.$$eval("#f-role option", (v) => v.map((o) => o.value).filter(Boolean));
    if (roles.length > 1) {
      await p.selectOption("#f-role", roles[roles.length - 1]);
      const n = await visible(p, "li.msg");
      const want = await p.$$eval(`li.msg[data-role="${roles[roles.length - 1]}"]`, (v) => v.length);
      check(page, n === want && n < total, `role ${roles[roles.length - 1]}: ${n} of ${total} messages shown`);
      await p.selectOption("#f-role", "");
    }
    const layers = await p.$$eval("#f-layer option", (v) => v.map((o) => o.value).filter(Boolean));
    if (layers.length) {
      let tried = false;
      for (const l of layers) {
        const want = await p.$$eval("li.msg", (v, l) => v.filter((e) => (" " + e.dataset.layers + " ").includes(" " + l + " ")).length, l);
        if (want === 0 || want === total)
          continue;
        await p.selectOption("#f-layer", l);
        const n = await visible(p, "li.msg");
        check(page, n === want, `layer ${l}: ${n} of ${total} messages shown, expected ${want}`);
        await p.selectOption("#f-layer", "");
        tried = true;
        break;
      }
      check(page, tried, "some layer shows some messages but not all");
    }
    // Every role and layer a filtered element names is a choice of the
    // filter, and each layer choice shows exactly the elements naming it.
    const unnamed = await p.evaluate(() => {
      const opts = (id) => new Set([...document.querySelectorAll(`#${id} option`)].map((o) => o.value));
      const roles = opts("f-role"), layers = opts("f-layer"), miss = new Set();
      for (const e of document.querySelectorAll(".f")) {
        if (e.dataset.role && !roles.has(e.dataset.role))
          miss.add("role " + e.dataset.role);
        for (const l of (e.dataset.layers || "").split(" ").filter(Boolean))
          if (!layers.has(l))
            miss.add("layer " + l);
      }
      return [...miss];
    });
    check(page, unnamed.length === 0, `every role and layer on the page is a filter choice (missing: ${unnamed.join(", ") || "none"})`);
    const wrong = await p.evaluate(() => {
      const sel = document.getElementById("f-layer"), bad = [];
      for (const o of sel.options) {
        if (!o.value)
          continue;
        sel.value = o.value;
        sel.dispatchEvent(new Event("change"));
        for (const e of document.querySelectorAll(".f")) {
          const names = (" " + (e.dataset.layers || "") + " ").includes(" " + o.value + " ");
          if (names === e.hidden)
            bad.push(`${o.value}: ${e.id || e.className} ${e.hidden ? "hidden" : "shown"}`);
        }
      }
      sel.value = "";
      sel.dispatchEvent(new Event("change"));
      return bad;
    });
    check(page, wrong.length === 0, `each layer choice shows exactly what names it (${wrong.slice(0, 3).join("; ") || "none wrong"})`);
    if (spec.search) {
      await p.fill("#f-q", spec.search);
      const n = await visible(p, "li.msg");
      check(page, n >= 1 && n < total, `search ${JSON.stringify(spec.search)}: ${n} of ${total} messages shown`);
      const out = await p.textContent("#f-count");
      check(page, out === `${n} of ${total} messages`, `the count says ${JSON.stringify(out)}`);
      await p.fill("#f-q", "");
    }
    check(page, (await visible(p, "li.msg")) === total, "clearing the filters shows every message");
    // Keyboard: "/" focuses the search box.
    await p.locator("body").press("/");
    check(page, await p.evaluate(() => document.activeElement.id === "f-q"), "/ focuses the search box");
    await p.fill("#f-q", "");
    check(page, problems.length === 0, `no console errors (${problems.join("; ") || "none"})`);
    check(page, requests.length === 0, `no network requests (${requests.join(", ") || "none"})`);
    // The policy itself: loads that markup slipping through escaping
    // could make (an image, a font, a stylesheet, a fetch) are refused.
    {
      problems.length = 0;
      await p.evaluate(() => {
        const d = document, i = d.createElement("img"), l = d.createElement("link"), st = d.createElement("style");
        i.src = "https://example.invalid/i.png";
        l.rel = "stylesheet";
        l.href = "https://example.invalid/s.css";
        st.textContent = "@font-face{font-family:x;src:url(https://example.invalid/f.woff)}body{font-family:x}";
        d.body.append(i, l, st);
        fetch("https://example.invalid/f").catch(() => {});
      });
      await p.waitForTimeout(300);
      const refused = problems.filter((m) => /Content Security Policy/.test(m)).length;
      const made = requests.filter((u) => !blocked.has(u));
      check(page, made.length === 0 && refused >= 4, `the policy refuses loads made after the fact (${refused} refused; made: ${made.join(", ") || "none"})`);
    }
    await ctx.close();
  }
}
// Scripting off: everything is in the document, the tabs' panels too,
// on every page.
for (const spec of pages) {
  const ctx = await browser.newContext({ javaScriptEnabled: false });
  const p = await ctx.newPage();
  await p.goto("file://" + spec.html);
  const page = { name: `${spec.name} (no script)` };
  const n = await visible(p, "li.msg");
  check(page, n === spec.messages, `${n} messages readable without the script`);
  check(page, !(await p.isVisible("#filters")), "the filter bar stays hidden");
  if (spec.stages) {
    const hidden = await p.$$eval(".stage", (v) => v.filter((e) => e.hidden).length);
    check(page, hidden === 0, "every stage panel is in the document");
  }
  await ctx.close();
}
await browser.close();
console.log(failed ? `${failed} failed` : "all passed");
process.exit(failed ? 1 : 0);
