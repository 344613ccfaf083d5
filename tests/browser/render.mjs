// render.mjs PAGES.json: how long Chromium takes to render each inspector
// page that has a maxMs (the 400-message stress page), in CPU time, from
// Chromium's own counters; tests/bench/inspector.sh writes PAGES.json.
//
// A wall clock on a shared machine measures the machine: with more jobs
// than cores the page waits for a core and its figure grows with the
// load.  So each load is measured by the DevTools Performance domain in
// thread ticks (Performance.enable {timeDomain: "threadTicks"}): the CPU
// time of the renderer's main thread, split into HTML parsing and other
// tasks, style recalculation, layout and script, from navigation to the
// first frame after the load event (a requestAnimationFrame, then a
// task, so that frame's style and layout are done).  That main-thread
// time is what the page costs before a reader sees it; paint and raster
// run on other threads: the renderer process's CPU time, all threads,
// is printed beside it.  RUNS fresh loads (default 5;
// STRATA_RENDER_RUNS) in a new tab each; the median of each figure is
// printed with the wall time beside it and the machine's load average,
// and the median main-thread time is judged against maxMs.  Exits 1 when
// a page misses it (STRATA_BENCH_REPORT_ONLY=1: prints the same, exits
// 0).
import { readFileSync } from "node:fs";
import os from "node:os";
import { chromium } from "playwright-core";

const pages = JSON.parse(readFileSync(process.argv[2], "utf8")).filter((p) => p.maxMs);
const exe = process.env.CHROMIUM || "/usr/bin/chromium";
const runs = Math.max(1, +(process.env.STRATA_RENDER_RUNS || 5));
const reportOnly = process.env.STRATA_BENCH_REPORT_ONLY === "1";
const browser = await chromium.launch({
  executablePath: exe,
  args: ["--no-sandbox", "--disable-gpu", "--font-render-hinting=none"],
});
const median = (v) => {
  const s = [...v].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const ms = (s) => Math.round(s * 1000);
let missed = 0;

async function metrics(cdp) {
  const { metrics } = await cdp.send("Performance.getMetrics");
  return Object.fromEntries(metrics.map((m) => [m.name, m.value]));
}

for (const spec of pages) {
  const ctx = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const url = "file://" + spec.html;
  const rows = [];
  const load = [];
  for (let k = 0; k < runs; k++) {
    const p = await ctx.newPage();
    const cdp = await ctx.newCDPSession(p);
    await cdp.send("Performance.enable", { timeDomain: "threadTicks" });
    load.push(os.loadavg()[0]);
    const before = await metrics(cdp);
    const t0 = Date.now();
    await p.goto(url, { waitUntil: "load" });
    await p.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))));
    const wall = Date.now() - t0;
    const after = await metrics(cdp);
    const d = (name) => after[name] - before[name];
    rows.push({
      main: d("TaskDuration"), style: d("RecalcStyleDuration"),
      layout: d("LayoutDuration"), script: d("ScriptDuration"),
      other: d("TaskOtherDuration"), thread: d("ThreadTime"),
      process: d("ProcessTime"), wall,
      nodes: after.Nodes, layouts: d("LayoutCount"),
    });
    await cdp.detach();
    await p.close();
  }
  await ctx.close();
  const m = (key) => median(rows.map((r) => r[key]));
  const main = ms(m("main"));
  const cpus = os.cpus().length;
  console.log(`${spec.name}: ${rows[0].nodes} DOM nodes; median of ${runs} fresh loads, main-thread CPU time from navigation to the first frame after load:`);
  console.log(`  all tasks      ${main} ms (thread time ${ms(m("thread"))} ms)`);
  console.log(`    HTML parsing and other tasks ${ms(m("other"))} ms`);
  console.log(`    style          ${ms(m("style"))} ms`);
  console.log(`    layout         ${ms(m("layout"))} ms (${m("layouts")} layouts)`);
  console.log(`    script         ${ms(m("script"))} ms`);
  console.log(`  renderer       ${ms(m("process"))} ms of CPU, all its threads (paint and raster too; counted in 10 ms steps)`);
  console.log(`  wall time      ${Math.round(m("wall"))} ms (min ${Math.min(...rows.map((r) => r.wall))}, max ${Math.max(...rows.map((r) => r.wall))})`);
  console.log(`  load average   ${median(load).toFixed(1)} over ${cpus} CPUs (${(median(load) / cpus).toFixed(1)} per CPU) while measuring`);
  const ok = main < spec.maxMs;
  console.log(`${ok ? "ok  " : "MISS"} ${spec.name}: ${main} ms of main-thread CPU, target under ${spec.maxMs} ms`);
  if (!ok)
    missed++;
}
await browser.close();
if (!pages.length)
  console.log("render.mjs: no page with a time target");
process.exit(missed && !reportOnly ? 1 : 0);
