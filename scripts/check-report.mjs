// Opens an HTML report of `sonde export --format html` in Debian's Chromium, headless and with
// the network refused, as someone without Sonde would open it, and checks it reads: the timeline
// has requests drawn, hovering one names it, a click shows its entry's detail, the latency table
// has rows, and no secret given is anywhere on the page. Writes a screenshot where asked.
// Run: node scripts/check-report.mjs REPORT.html [--secret S]... [--shot FILE.png]
// (playwright-core comes from ui/node_modules: make ui-deps installs it.)
import { createRequire } from "node:module";
import { resolve } from "node:path";

const require = createRequire(resolve("ui/package.json"));
const { chromium } = require("playwright-core");

const args = process.argv.slice(2);
const report = resolve(args[0]);
const secrets = [];
let shot = null;
for (let i = 1; i < args.length; i++) {
  if (args[i] === "--secret") secrets.push(args[++i]);
  else if (args[i] === "--shot") shot = args[++i];
}
const fail = (why) => {
  console.error(`check-report: ${why}`);
  process.exitCode = 1;
};

const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync"],
});
try {
  const page = await browser.newPage({ viewport: { width: 1500, height: 1000 } });
  const asked = [];
  page.on("request", (r) => r.url().startsWith("file:") || asked.push(r.url()));
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  await page.goto(`file://${report}`);
  const spans = await page.locator("svg#timeline rect.span").count();
  if (spans === 0) fail("the timeline has no request drawn");
  const lanes = await page.locator(".lane-name").count();
  const rows = await page.locator("table.latency tbody tr").count();
  if (rows === 0) fail("the latency table is empty");
  const entries = await page.locator("table.entries tbody tr").count();
  // The widest request: its title names it, and a click on it shows its entry.
  const widest = await page.locator("svg#timeline rect.span").evaluateAll((rects) => {
    const w = rects.map((r) => r.getBBox().width);
    return w.indexOf(Math.max(...w));
  });
  const rect = page.locator("svg#timeline rect.span").nth(widest);
  const title = await rect.locator("title").textContent();
  if (!/ after /.test(title ?? "")) fail(`a request's title does not say how long it took: ${title}`);
  await page.locator("button[data-zoom='2']").click();
  await rect.click();
  const shown = page.locator("article.detail:target");
  if ((await shown.count()) !== 1) fail("clicking a request shows no entry");
  const detail = (await shown.textContent()) ?? "";
  if (!/request/.test(detail)) fail(`the entry shown is not the request: ${detail.slice(0, 120)}`);
  const text = await page.content();
  for (const s of secrets) if (text.includes(s)) fail(`the secret ${JSON.stringify(s)} is on the page`);
  if (asked.length) fail(`the page asked the network for ${asked.join(", ")}`);
  if (errors.length) fail(`the page had errors: ${errors.join("; ")}`);
  // Fit fits the whole session in the plot's box, at this width and a narrower one.
  for (const width of [1500, 1280]) {
    await page.setViewportSize({ width, height: 1000 });
    await page.locator("button[data-zoom='0']").click();
    const [drawn, box] = await page.locator("div.plot").evaluate((p) => [p.scrollWidth, p.clientWidth]);
    if (drawn > box) fail(`at ${width} px Fit draws ${drawn} px in a ${box} px box: the end is cut off`);
  }
  await page.setViewportSize({ width: 1500, height: 1000 });
  if (shot) {
    // The whole session in view, the clicked request's entry in the pane.
    await page.locator("button[data-zoom='0']").click();
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: shot, fullPage: false });
  }
  console.log(`check-report: ${lanes} lanes, ${spans} requests drawn, ${rows} latency rows, ${entries} entries; "${title}"`);
} finally {
  await browser.close();
}
