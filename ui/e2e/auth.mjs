// UI tests of OAuth against the in-memory backend's protected server (src/ipc/memoryAuth.ts):
// the flow's steps on the connection's card with the URL it waits at, the browser step completed
// (or refused) through the hook the backend puts on the page, and the Authorizations dialog that
// lists the credentials and forgets them. ui.mjs runs them with its harness. Each leaves a
// screenshot in e2e-shots/ for a person to look at.
import { mkdirSync } from "node:fs";

const SHOTS = "e2e-shots";

export async function authTests(test, url, T) {
  mkdirSync(SHOTS, { recursive: true });
  const card = (page) => page.locator("ul.connections > li", { hasText: "OAuth server" }).last();
  /** Connects the OAuth server and waits until its flow waits for the person; returns the connection. */
  const connectUntilWaiting = async (page) => {
    await page.goto(url);
    await page.locator("ul.servers li", { hasText: "OAuth server" }).getByRole("button", { name: "Connect" }).click();
    await card(page).getByTestId("auth-url").waitFor(T);
    return Number((await card(page).locator(".conn").innerText()).replace(/\D+/g, ""));
  };
  /** The steps shown, as "name state" each, in order. */
  const stepsOf = (page) =>
    card(page)
      .locator(".auth-steps li")
      .evaluateAll((els) => els.map((e) => `${e.dataset.step} ${e.dataset.state}`));
  const authorize = (page, conn, refusal) =>
    page.evaluate(([conn, refusal]) => globalThis.sondeAuthorize(conn, refusal ?? undefined), [conn, refusal ?? null]);
  const openAuthorizations = async (page) => {
    await page.getByRole("button", { name: "Authorizations…" }).click();
    const dialog = page.getByRole("dialog", { name: "Authorizations" });
    await dialog.waitFor(T);
    return dialog;
  };

  await test("an OAuth server's steps show with the URL; authorized, it is ready and its credential is forgotten", async (page) => {
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: new URL(url).origin });
    await page.goto(url);
    await page.locator("ul.servers li", { hasText: "OAuth server" }).getByRole("button", { name: "Connect" }).click();
    const flow = card(page).getByRole("region", { name: "Authorization" });
    // The steps advance as the backend reports them.
    await flow.locator("li[data-step='discovery'][data-state='running']").waitFor(T);
    await flow.locator("li[data-step='registration'][data-state='running']").waitFor(T);
    await flow.getByTestId("auth-url").waitFor(T);
    const conn = Number((await card(page).locator(".conn").innerText()).replace(/\D+/g, ""));
    const steps = await stepsOf(page);
    if (steps.join() !== "discovery done,registration done,authorization running") throw new Error(`steps: ${steps}`);
    await flow.getByText("Authorization", { exact: true }).waitFor(T);
    await flow.getByText("waiting for you in the browser").waitFor(T);
    await flow.getByText("Authorize Sonde in your browser; this page waits for the redirect.").waitFor(T);
    await flow.getByText("Authorizing for mcp.example.com: waiting for you").waitFor(T);
    const authUrl = await flow.getByTestId("auth-url").innerText();
    if (!authUrl.startsWith("https://login.example.com/authorize?") || !authUrl.includes("code_challenge_method=S256"))
      throw new Error(`the URL shown: ${authUrl}`);
    await page.screenshot({ path: `${SHOTS}/auth-steps.png` });
    // Open goes through the backend (recorded in the log here); Copy puts the whole URL on the clipboard.
    await flow.getByRole("button", { name: "Open in browser" }).click();
    await flow.getByText("Opened in the system browser.").waitFor(T);
    await page.locator(".rows .row", { hasText: "the person opened https://login.example.com/authorize" }).waitFor(T);
    await flow.getByRole("button", { name: "Copy link" }).click();
    await flow.getByText("Link copied.").waitFor(T);
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    if (copied !== authUrl) throw new Error(`copied ${copied}`);

    // The browser step completes: the token step, then ready, the flow folded to one line.
    await authorize(page, conn);
    await card(page).getByText("ready · HTTP").waitFor(T);
    const folded = card(page).locator("details.auth-flow");
    await folded.getByText("Authorized for mcp.example.com").waitFor(T);
    if (await card(page).getByTestId("auth-url").count()) throw new Error("the URL is still shown");
    if (await folded.locator(".auth-steps").isVisible()) throw new Error("a done flow is not folded");
    // The folded line opens to its steps from the keyboard.
    await folded.locator("summary").focus();
    await page.keyboard.press("Enter");
    await folded.locator("li[data-step='token'][data-state='done']").waitFor(T);
    const doneSteps = await stepsOf(page);
    if (doneSteps.join() !== "discovery done,registration done,authorization done,token done")
      throw new Error(`steps once done: ${doneSteps}`);

    // The credential is listed, then forgotten.
    const dialog = await openAuthorizations(page);
    const item = dialog.getByRole("listitem", { name: "https://mcp.example.com/mcp" });
    await item.getByText("https://login.example.com").waitFor(T);
    await item.getByText(/^sonde-memory-\d+$/).waitFor(T);
    await item.getByText("mcp:tools", { exact: true }).waitFor(T);
    await item.getByText("mcp:resources", { exact: true }).waitFor(T);
    await item.getByText(/^expires in (59 min|1 h)$/).waitFor(T);
    await item.getByText("refreshable", { exact: true }).waitFor(T);
    await page.screenshot({ path: `${SHOTS}/auth-dialog.png` });
    await item.getByRole("button", { name: "Forget https://mcp.example.com/mcp" }).click();
    await dialog.getByText("Sonde holds no authorizations.").waitFor(T);
    await page.screenshot({ path: `${SHOTS}/auth-dialog-empty.png` });
    if (!(await dialog.getByRole("button", { name: "Forget all…" }).isDisabled()))
      throw new Error("Forget all is offered with nothing to forget");
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached", ...T });
  });

  await test("a refused authorization fails its step with the reason, and the connection fails with it", async (page) => {
    const conn = await connectUntilWaiting(page);
    await authorize(page, conn, "access_denied: the person declined");
    const flow = card(page).getByRole("region", { name: "Authorization" });
    await flow.getByText("Authorization for mcp.example.com failed").waitFor(T);
    await flow
      .locator("li[data-step='authorization'][data-state='failed']")
      .getByText("failed", { exact: true })
      .waitFor(T);
    await flow.getByText("access_denied: the person declined").waitFor(T);
    await card(page).locator(".status[data-status='failed']").waitFor(T);
    if (await card(page).getByTestId("auth-url").count()) throw new Error("a failed flow still shows its URL");
    await page.screenshot({ path: `${SHOTS}/auth-failed.png` });
    const dialog = await openAuthorizations(page);
    await dialog.getByText("Sonde holds no authorizations.").waitFor(T);
  });

  await test("Forget all asks first, keeps the credentials on Escape, and forgets them when confirmed, by keyboard", async (page) => {
    const conn = await connectUntilWaiting(page);
    await authorize(page, conn);
    await card(page).getByText("ready · HTTP").waitFor(T);
    const dialog = await openAuthorizations(page);
    const item = dialog.getByRole("listitem", { name: "https://mcp.example.com/mcp" });
    await item.waitFor(T);
    // Close has the focus; Shift+Tab reaches Forget all.
    await page.keyboard.press("Shift+Tab");
    if ((await page.evaluate(() => document.activeElement?.textContent)) !== "Forget all…")
      throw new Error("Shift+Tab from Close does not reach Forget all");
    await page.keyboard.press("Enter");
    const confirm = dialog.getByRole("alertdialog", { name: "Forget all authorizations" });
    await confirm.getByText("Forget all 1 authorizations?").waitFor(T);
    await page.screenshot({ path: `${SHOTS}/auth-forget-all.png` });
    // Escape answers the confirmation, not the dialog; the credential stays.
    await page.keyboard.press("Escape");
    await confirm.waitFor({ state: "detached", ...T });
    await item.waitFor(T);
    await page.keyboard.press("Enter");
    await confirm.waitFor(T);
    // The safe answer has the focus; Shift+Tab reaches Forget all.
    await page.keyboard.press("Shift+Tab");
    await page.keyboard.press("Enter");
    await dialog.getByText("Sonde holds no authorizations.").waitFor(T);
    if (await item.count()) throw new Error("the credential is still listed");
  });
}
