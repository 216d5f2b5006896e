// UI tests in Debian's Chromium against the built UI with the in-memory backend: connect the
// demo server, call tools (one with a nested form), filter the log, follow mode, jump to a
// response, scroll a large log, open past sessions (one still being written). What the double
// does not simulate (OAuth, tasks, crashes, hostile servers) the real window checks against the
// core (src-tauri/e2e/).
// Run: npm run build && node e2e/ui.mjs   (make test does both)
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { chromium } from "playwright-core";
import { formTests } from "./forms.mjs";
import { panelTests } from "./panels.mjs";
import { windowTests } from "./window.mjs";
import { resultTests } from "./results.mjs";

// A free port, so that two checkouts can run these tests at once without one testing the other's UI.
const PORT = await new Promise((resolve, reject) => {
  const probe = createServer().listen(0, "127.0.0.1", () => {
    const { port } = probe.address();
    probe.close(() => resolve(port));
  });
  probe.on("error", reject);
});
// Vite runs in a process group of its own so that stopping it stops every process it started.
const server = spawn(
  process.execPath,
  [
    "node_modules/vite/bin/vite.js",
    "preview",
    "--port",
    String(PORT),
    "--strictPort",
    "--host",
    "127.0.0.1",
    "--bypass-lock",
  ],
  { stdio: "ignore", detached: true },
);
const stopServer = () => {
  try {
    process.kill(-server.pid, "SIGTERM");
  } catch {
    /* already gone */
  }
};
const results = [];
let failed = 0;

async function waitForServer() {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`http://127.0.0.1:${PORT}/`)).ok) return;
    } catch {
      /* not up yet */
    }
    await sleep(100);
  }
  throw new Error("vite preview did not start within 20 s");
}

async function test(name, body) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  try {
    await body(page);
    if (errors.length) throw new Error(`page errors: ${errors.join("; ")}`);
    results.push(`ok   ${name}`);
  } catch (e) {
    failed++;
    results.push(`FAIL ${name}: ${e.message}`);
    await page.screenshot({ path: `e2e-fail-${name.replace(/\W+/g, "-")}.png` }).catch(() => {});
  } finally {
    await page.close();
  }
}

const T = { timeout: 10_000 };
let browser;
try {
  await waitForServer();
  browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      "--disable-quic",
    ],
  });

  await test("connect the demo server, watching its stages, and call a tool", async (page) => {
    await page.goto(`http://127.0.0.1:${PORT}/`);
    await page.getByRole("button", { name: "Connect" }).first().click();
    await page.locator(".connections .status[data-status='spawning']").waitFor(T);
    await page.locator(".connections .status[data-status='probing']").waitFor(T);
    await page.getByText("ready · pid").waitFor(T);
    await page.getByRole("button", { name: /Echo/ }).click();
    await page.locator(".tool-call").getByRole("textbox").first().fill("hello from playwright");
    await page.getByRole("button", { name: "Call", exact: true }).click();
    await page.getByLabel("Tool result").getByText("hello from playwright").waitFor(T);
  });

  await test("the tool form fills a nested object, an array, an enum and a oneOf, and says what is missing", async (page) => {
    await page.goto(`http://127.0.0.1:${PORT}/`);
    await page.getByRole("button", { name: "Connect" }).first().click();
    await page.getByText("ready · pid").waitFor(T);
    await page.getByRole("button", { name: /Ship a parcel/ }).click();
    const form = page.locator(".tool-call form");
    await form.getByRole("button", { name: "Call", exact: true }).click();
    await page.locator(".tool-call").getByRole("alert").getByText("to.city is required").waitFor(T);
    const city = form.getByRole("textbox", { name: "city", exact: true });
    if ((await city.getAttribute("aria-invalid")) !== "true") throw new Error("the missing field is not marked");
    await city.fill("Oslo");
    await form.getByRole("button", { name: "Add an item to items" }).click();
    await form.getByRole("button", { name: "Add an item to items" }).click();
    await form.getByRole("textbox", { name: "items 1", exact: true }).fill("book");
    await form.getByRole("textbox", { name: "items 2", exact: true }).fill("lamp");
    await form.getByRole("button", { name: "Remove items 1" }).click();
    if ((await form.getByRole("textbox", { name: "items 1", exact: true }).inputValue()) !== "lamp")
      throw new Error("Remove took the wrong item");
    await form.getByRole("combobox", { name: "speed", exact: true }).selectOption("express");
    await form.getByRole("combobox", { name: "Kind of payment" }).selectOption("Invoice");
    await form.getByRole("textbox", { name: "invoice", exact: true }).fill("42");
    await form.getByRole("button", { name: "Call", exact: true }).click();
    const sent = { to: { city: "Oslo" }, items: ["lamp"], speed: "express", payment: { invoice: 42 } };
    await page.getByLabel("Tool result").getByText(JSON.stringify(sent)).waitFor(T);

    // Raw JSON → Form → Raw JSON keeps what the form does not know.
    await page.getByRole("button", { name: "Raw JSON" }).click();
    const raw = form.getByLabel("Arguments as JSON");
    if (JSON.stringify(JSON.parse(await raw.inputValue())) !== JSON.stringify(sent))
      throw new Error(await raw.inputValue());
    await raw.fill(JSON.stringify({ ...sent, to: { city: "Oslo", floor: 3 }, gift: true }));
    await page.getByRole("button", { name: "Form" }).click();
    await form.getByRole("note", { name: "Kept from the JSON" }).getByText("gift", { exact: true }).waitFor(T);
    if ((await form.getByRole("textbox", { name: "invoice", exact: true }).inputValue()) !== "42")
      throw new Error("the oneOf branch was not found again");
    await form.getByRole("textbox", { name: "zip", exact: true }).fill("0150");
    await page.getByRole("button", { name: "Raw JSON" }).click();
    const back = JSON.parse(await raw.inputValue());
    const want = { ...sent, to: { city: "Oslo", floor: 3, zip: "0150" }, gift: true };
    if (JSON.stringify(back) !== JSON.stringify(want))
      throw new Error(`raw JSON after the form: ${JSON.stringify(back)}`);
  });

  await test("a server's elicitation is answered in a form with its defaults, and the reply is logged", async (page) => {
    await page.goto(`http://127.0.0.1:${PORT}/`);
    await page.getByRole("button", { name: "Connect" }).first().click();
    await page.getByText("ready · pid").waitFor(T);
    await page.getByRole("button", { name: /Greet/ }).click();
    await page.getByRole("button", { name: "Call", exact: true }).click();
    const dialog = page.getByRole("dialog", { name: "Server request" });
    await dialog.getByText("Who are you?").waitFor(T);
    const name = dialog.getByRole("textbox").first();
    if ((await name.inputValue()) !== "Ada")
      throw new Error(`the default was not filled in: ${await name.inputValue()}`);
    await name.fill("Grace");
    await dialog.getByRole("button", { name: "Accept" }).click();
    await page.getByLabel("Tool result").getByText("Hello, Grace!").waitFor(T);
    await page.getByLabel("Filter the log").fill("dir:out Grace");
    await page.locator(".rows .row", { hasText: "result" }).first().waitFor(T);
    if (await dialog.count()) throw new Error("the dialog is still open");
  });

  await test("a sampling request shows its messages and sends the reply the person writes", async (page) => {
    await page.goto(`http://127.0.0.1:${PORT}/`);
    await page.getByRole("button", { name: "Connect" }).first().click();
    await page.getByText("ready · pid").waitFor(T);
    await page.getByRole("button", { name: /Summarize/ }).click();
    await page.getByRole("button", { name: "Call", exact: true }).click();
    const dialog = page.getByRole("dialog", { name: "Server request" });
    await dialog.getByText("Summarize MCP in five words.").waitFor(T);
    await dialog.getByLabel("Reply").fill("Tools for models, over JSON-RPC");
    await dialog.getByRole("button", { name: "Send" }).click();
    await page.getByLabel("Tool result").getByText("Summary: Tools for models, over JSON-RPC").waitFor(T);
  });

  await test("an mcpServers config is imported from a pasted text; bad JSON keeps the text and says why", async (page) => {
    await page.goto(`http://127.0.0.1:${PORT}/`);
    await page.getByRole("button", { name: "Import" }).click();
    const dialog = page.getByRole("form", { name: "Import servers" });
    await dialog.getByRole("textbox").fill('{"mcpServers": {"time": {"command": "uvx", "args": ["mcp-server-time"]}');
    await dialog.getByRole("button", { name: "Import" }).click();
    await dialog.getByRole("alert").getByText("not JSON").waitFor(T);
    const kept = await dialog.getByRole("textbox").inputValue();
    if (!kept.includes("mcp-server-time")) throw new Error("the pasted text was lost");
    await dialog
      .getByRole("textbox")
      .fill('{"mcpServers": {"time": {"command": "uvx", "args": ["mcp-server-time"]}, "odd": {}}}');
    await dialog.getByRole("button", { name: "Import" }).click();
    await page.getByRole("status").getByText("Imported 1 server; skipped: odd: no command and no url").waitFor(T);
    await page.locator(".sidebar").getByText("uvx mcp-server-time").waitFor(T);
  });

  await test("the filter narrows the log and its chips remove terms", async (page) => {
    await page.goto(`http://127.0.0.1:${PORT}/`);
    await page.getByRole("button", { name: "Connect" }).first().click();
    await page.getByText("ready · pid").waitFor(T);
    await page.getByLabel("Filter the log").fill("kind:lifecycle");
    await page.getByRole("button", { name: "kind:lifecycle ×" }).waitFor(T);
    const kinds = await page.locator(".rows .row .c-kind").allTextContents();
    if (!kinds.length || kinds.some((k) => k !== "lifecycle")) throw new Error(`rows: ${kinds}`);
    // Entries that arrive while the filter is on join the list as the backend says they match.
    await page.getByRole("button", { name: "Stop" }).first().click();
    await page.locator(".rows .row", { hasText: "shutdown complete" }).waitFor(T);
    const after = await page.locator(".rows .row .c-kind").allTextContents();
    if (after.length <= kinds.length || after.some((k) => k !== "lifecycle"))
      throw new Error(`rows after stopping: ${after}`);
    await page.getByLabel("Filter the log").fill("kind:nonsense");
    await page.getByText("unknown kind").waitFor(T);
    // A filter in error shows nothing (never the whole log), and says so; so does no match.
    await page.getByText("nothing is shown until it reads").waitFor(T);
    if ((await page.locator(".rows .row").count()) !== 0) throw new Error("rows shown under a filter in error");
    await page.getByLabel("Filter the log").fill("method:no/such/method");
    await page.getByText("Nothing matches this filter.").waitFor(T);
    await page.getByLabel("Filter the log").fill("method:tools/list dir:in");
    await page.getByRole("button", { name: "dir:in ×" }).click();
    if ((await page.getByLabel("Filter the log").inputValue()) !== "method:tools/list")
      throw new Error("chip not removed");
  });

  await test("clicking a request jumps to its response", async (page) => {
    await page.goto(`http://127.0.0.1:${PORT}/`);
    await page.getByRole("button", { name: "Connect" }).first().click();
    await page.getByText("ready · pid").waitFor(T);
    await page.getByText("tools/list #", { exact: false }).first().waitFor(T);
    await page.locator(".row", { hasText: "tools/list" }).first().click();
    await page.getByRole("button", { name: "Jump to response" }).click();
    await page.getByLabel("Entry detail").getByText("< tools/list #", { exact: false }).waitFor(T);
    await page.getByRole("button", { name: "Jump to request" }).waitFor(T);
  });

  await test("follow mode sticks to the bottom until the user scrolls away", async (page) => {
    await page.goto(`http://127.0.0.1:${PORT}/?entries=5000`);
    await page.getByText("5000 entries").waitFor(T);
    const rows = page.getByRole("grid", { name: "Wire log" });
    await page.waitForFunction(
      () => {
        const el = document.querySelector(".rows");
        return el && el.scrollHeight - el.scrollTop - el.clientHeight < 30;
      },
      null,
      T,
    );
    await rows.hover();
    await page.mouse.wheel(0, -3000);
    await page.waitForFunction(() => !document.querySelector(".follow input").checked, null, T);
  });

  await test("a 200,000-entry log scrolls by pages and j/k move the selection", async (page) => {
    await page.goto(`http://127.0.0.1:${PORT}/?entries=200000`);
    await page.getByText("200000 entries").waitFor(T);
    const rows = page.getByRole("grid", { name: "Wire log" });
    await rows.evaluate((el) => el.scrollTo(0, el.scrollHeight / 2));
    await page.locator(".row[data-seq='100000']").waitFor(T);
    await page.locator(".row[data-seq='100000'] .c-sum", { hasText: "notifications/message" }).waitFor(T);
    const rendered = await page.locator(".row").count();
    if (rendered > 200) throw new Error(`${rendered} rows rendered: the list is not virtualized`);
    await page.locator(".row[data-seq='100000']").click();
    await rows.press("j");
    await page.locator(".row.selected[data-seq='100001']").waitFor(T);
    await rows.press("k");
    await rows.press("k");
    await page.locator(".row.selected[data-seq='99999']").waitFor(T);
  });
  await test("File → Open Session lists the recorded sessions and opens a CLI one read-only, filtered, then back", async (page) => {
    await page.goto(`http://127.0.0.1:${PORT}/`);
    await page.getByRole("button", { name: "Connect" }).first().click();
    await page.getByText("ready · pid").waitFor(T);
    await page.keyboard.press("Control+o");
    const dialog = page.getByRole("dialog", { name: "Open session" });
    const options = dialog.getByRole("option");
    await options.nth(3).waitFor(T);
    const own = options.nth(0);
    await own.getByText("this window").waitFor(T);
    await own.getByText("sonde demo-server").waitFor(T);
    await options.nth(1).getByText("being written").waitFor(T);
    // A proxy session the person named: the name comes first, the file's name is the row's title.
    await options.nth(1).locator(".s-given").getByText("ticks", { exact: true }).waitFor(T);
    await options.nth(1).getByText("proxy for claude-code").waitFor(T);
    if ((await options.nth(1).getAttribute("title")) !== "2026-11-30T08-00-00.000Z-6000.jsonl")
      throw new Error("the named session's row does not carry its file's name");
    await page.screenshot({ path: join(tmpdir(), "sonde-e2e-open-session.png") });
    const cli = options.nth(2);
    await cli.getByText("sonde-fixture --tools 3").waitFor(T);
    await cli.getByText("sonde", { exact: true }).waitFor(T);
    // Its writer was killed: marked incomplete, and only it.
    await cli.getByText("incomplete", { exact: true }).waitFor(T);
    if ((await dialog.getByText("incomplete", { exact: true }).count()) !== 1)
      throw new Error("a session other than the killed one is marked incomplete");
    await options.nth(3).getByText("servers not recorded").waitFor(T);
    // Keyboard only: down twice to the CLI's session, Enter opens it.
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("j");
    if ((await cli.getAttribute("aria-selected")) !== "true") throw new Error("the arrow keys did not move");
    await page.keyboard.press("Enter");
    const banner = page.getByRole("status", { name: "Past session" });
    await banner.getByText("sonde-fixture --tools 3").waitFor(T);
    await banner.getByText("read-only").waitFor(T);
    await page
      .getByRole("status", { name: "Incomplete session" })
      .getByText("This session is incomplete: it has no end-of-session entry", { exact: false })
      .waitFor(T);
    await page.getByText("9 entries").waitFor(T);
    if (await dialog.count()) throw new Error("the dialog is still open");
    await page.getByLabel("Filter the log").fill("method:tools/list");
    await page.getByText("2 of 9").waitFor(T);
    const sums = await page.locator(".rows .row .c-sum").allTextContents();
    if (sums.length !== 2 || sums.some((t) => !t.startsWith("tools/list"))) throw new Error(`rows: ${sums}`);
    // The request's reply is found in the same past session.
    await page.locator(".rows .row").first().click();
    await page.getByRole("button", { name: "Jump to response" }).click();
    await page.getByLabel("Entry detail").getByText("entry 5 ·", { exact: false }).waitFor(T);
    await page.getByRole("button", { name: "Back to the live session" }).click();
    await banner.waitFor({ state: "detached", ...T });
    await page.getByText("tools/list #", { exact: false }).first().waitFor(T);
  });

  await test("Settings shows the sessions folder, saves the budget and the theme; P pins a session in Open Session", async (page) => {
    await page.goto(`http://127.0.0.1:${PORT}/`);
    await page.getByText("No server selected").waitFor(T);
    await page.keyboard.press("Control+,");
    const settings = page.getByRole("dialog", { name: "Settings" });
    await settings.getByLabel("Sessions folder").getByText("The folder holds 4 sessions").waitFor(T);
    const keep = settings.getByLabel("Keep at most this many sessions");
    if ((await keep.getAttribute("placeholder")) !== "500 (the default)") throw new Error("no default shown");
    // A number that cannot be a budget is refused where it was typed, and nothing is saved.
    await keep.fill("-3");
    await settings.getByRole("button", { name: "Save" }).click();
    await settings.getByRole("alert").getByText("The number of sessions is a whole number above zero").waitFor(T);
    await keep.fill("50");
    // The theme is dark until chosen; Light takes the page at once.
    if (!(await settings.getByRole("radio", { name: "Dark" }).isChecked())) throw new Error("not dark at first");
    await settings.getByRole("radio", { name: "Light" }).check();
    await settings.getByRole("button", { name: "Save" }).click();
    await page.getByText("Settings saved.").waitFor(T);
    const theme = await page.evaluate(() => document.documentElement.dataset.theme);
    if (theme !== "light") throw new Error(`theme ${theme}`);
    const bg = await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
    if (bg !== "rgb(244, 246, 249)") throw new Error(`a light theme with background ${bg}`);
    await page.keyboard.press("Control+,");
    if (
      (await page
        .getByRole("dialog", { name: "Settings" })
        .getByLabel("Keep at most this many sessions")
        .inputValue()) !== "50"
    )
      throw new Error("the budget was not kept");
    await page.keyboard.press("Escape");
    // Pinned from the keyboard: the row says so, and P again unpins it.
    await page.keyboard.press("Control+o");
    const dialog = page.getByRole("dialog", { name: "Open session" });
    const cli = dialog.getByRole("option").nth(2);
    await cli.waitFor(T);
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("p");
    await cli.getByRole("button", { name: "pinned" }).waitFor(T);
    await page.keyboard.press("p");
    await cli.getByRole("button", { name: "pin", exact: true }).waitFor(T);
  });

  await test("a session still being written is followed as it grows, and says when its writer is done", async (page) => {
    await page.goto(`http://127.0.0.1:${PORT}/`);
    await page.getByText("No server selected").waitFor(T);
    await page.keyboard.press("Control+o");
    const dialog = page.getByRole("dialog", { name: "Open session" });
    await dialog.getByRole("option").nth(1).getByText("being written").waitFor(T);
    await dialog.getByRole("option").nth(1).dblclick();
    const banner = page.getByRole("status", { name: "Past session" });
    await banner.getByText("being written by another Sonde process").waitFor(T);
    // Its given name heads the banner, the file's name on hover.
    const heading = banner.getByText('"ticks" · session of', { exact: false });
    await heading.waitFor(T);
    if ((await heading.getAttribute("title")) !== "2026-11-30T08-00-00.000Z-6000.jsonl")
      throw new Error("the banner does not carry the session's file name");
    await banner.getByText("by sonde proxy for claude-code", { exact: false }).waitFor(T);
    await page.locator(".rows .row", { hasText: "notifications/message" }).first().waitFor(T);
    await page.getByText("11 entries").waitFor(T);
    await banner.getByText("read-only").waitFor(T);
    // Escape closes the dialog without opening anything.
    await page.keyboard.press("Control+o");
    await dialog.getByRole("option").first().waitFor(T);
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached", ...T });
    await banner.getByText("read-only").waitFor(T);
  });

  await test("a filter matching 200,000 entries pages its matches from the core and holds a bounded number", async (page) => {
    await page.goto(`http://127.0.0.1:${PORT}/?entries=200000`);
    await page.getByText("200000 entries").waitFor(T);
    await page.getByLabel("Filter the log").fill("kind:message seeded");
    await page.getByText("200000 of 200000").waitFor({ timeout: 30_000 });
    const rows = page.getByRole("grid", { name: "Wire log" });
    // Every match is reachable (the window once loaded 50,000 at most): the middle and the end.
    for (const at of [0.25, 0.5, 0.75, 1]) {
      await rows.evaluate((el, f) => el.scrollTo(0, el.scrollHeight * f), at);
      await page.waitForTimeout(50);
    }
    await page.locator(".row[data-seq='199999'] .c-sum", { hasText: "notifications/message" }).waitFor(T);
    await page.locator(".row[data-seq='199999']").click();
    await rows.press("k");
    await page.locator(".row.selected[data-seq='199998']").waitFor(T);
    await page.getByLabel("Entry detail").locator("pre.raw", { hasText: "seeded 199998" }).waitFor(T);
    const held = Number(await rows.getAttribute("data-held"));
    if (!(held > 0 && held <= 20_000)) throw new Error(`${held} rows held`);
  });

  await test("links a server asks for show their host, open only on a click, and are reported done", async (page) => {
    await page.goto(`http://127.0.0.1:${PORT}/`);
    await page.getByRole("button", { name: "Connect" }).first().click();
    await page.getByText("ready · pid").waitFor(T);
    const opened = page.locator(".row", { hasText: "opened https://auth.example.com" });
    // A URL-mode elicitation: the dialog shows the whole URL, the host emphasised; Enter accepts.
    await page.getByRole("button", { name: /Sign in/ }).click();
    await page.getByRole("button", { name: "Call", exact: true }).click();
    const dialog = page.getByRole("dialog", { name: "Server request" });
    await dialog.getByLabel("The full URL").getByText("https://auth.example.com/sign-in?session=42").waitFor(T);
    if ((await dialog.locator("strong.link-host").innerText()) !== "auth.example.com") throw new Error("no host");
    if (await opened.count()) throw new Error("opened before the click");
    await page.keyboard.press("Enter");
    await page.getByLabel("Tool result").getByText("You chose to accept the sign-in link.").waitFor(T);
    // The accepted link stays, and is reported done once opened.
    const accepted = page.getByLabel("Links you accepted");
    await accepted.getByText("Not reported done by the server yet.").waitFor(T);
    await accepted.getByRole("button", { name: "Open in browser" }).click();
    await accepted.getByText("The server says this is done").waitFor(T);
    await opened.first().waitFor(T);
    await accepted.getByRole("button", { name: "Dismiss" }).click();

    // -32042: the call fails with the link to open; once opened, it is sent again and answers.
    await page.getByRole("button", { name: /Authorize/ }).click();
    await page.getByRole("button", { name: "Call", exact: true }).click();
    const required = page.getByLabel("Links the server requires");
    await required.locator("strong.link-host", { hasText: "auth.example.com" }).waitFor(T);
    await required.getByRole("button", { name: "Open in browser" }).click();
    await required.getByText("The server says this is done").waitFor(T);
    await required.getByRole("button", { name: "Send the call again" }).click();
    await page.getByLabel("Tool result").getByText("Authorized: your files are reachable.").waitFor(T);
  });

  await panelTests(test, `http://127.0.0.1:${PORT}/`, T);
  await windowTests(test, `http://127.0.0.1:${PORT}/`, T);
  await formTests(test, `http://127.0.0.1:${PORT}/`, T);
  await resultTests(test, `http://127.0.0.1:${PORT}/`, T);
} finally {
  await browser?.close();
  stopServer();
}
for (const r of results) console.log(r);
console.log(`${results.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
