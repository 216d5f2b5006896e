// UI tests of the window with more than one connection and of the View menu (issue 21), against
// the in-memory backend; ui.mjs runs them with its harness. The browser preview has no native
// menu: its items are chosen through the hook the in-memory backend puts on the page.
export async function windowTests(test, url, T) {
  const connect = async (page) => {
    await page.goto(url);
    await page.getByRole("button", { name: "Connect" }).first().click();
    await page.getByText("ready · pid").waitFor(T);
  };
  const menu = (page, id) => page.evaluate((id) => globalThis.sondeMenu(id), id);
  const checked = (page, id) => page.evaluate((id) => globalThis.sondeMenuChecks[id], id);
  const filterIs = async (page, want) => {
    const box = page.getByLabel("Filter the log");
    for (const deadline = Date.now() + T.timeout; Date.now() < deadline; await page.waitForTimeout(50))
      if ((await box.inputValue()) === want) return;
    throw new Error(`the filter is "${await box.inputValue()}", not "${want}"`);
  };
  const checkIs = async (page, id, want) => {
    for (const deadline = Date.now() + T.timeout; Date.now() < deadline; await page.waitForTimeout(50))
      if ((await checked(page, id)) === want) return;
    throw new Error(`the check mark of ${id} is ${await checked(page, id)}, not ${want}`);
  };

  await test("View's Show toggles hide and show their rows, keep what was typed, and carry check marks", async (page) => {
    await connect(page);
    // Shown at first: the check marks say what the log shows.
    await checkIs(page, "toggle-lifecycle", true);
    await checkIs(page, "toggle-stderr", true);
    const lifecycleRows = page.locator(".rows .row .c-kind", { hasText: "lifecycle" });
    await lifecycleRows.first().waitFor(T);
    await menu(page, "toggle-lifecycle");
    await filterIs(page, "hide:lifecycle");
    await checkIs(page, "toggle-lifecycle", false);
    for (const deadline = Date.now() + T.timeout; (await lifecycleRows.count()) > 0; await page.waitForTimeout(50))
      if (Date.now() > deadline) throw new Error("lifecycle rows still shown after hiding them");
    // A typed filter is kept, and a second toggle joins the first.
    await page.getByLabel("Filter the log").fill("method:tools/list hide:lifecycle");
    await menu(page, "toggle-stderr");
    await filterIs(page, "method:tools/list hide:lifecycle,stderr");
    await checkIs(page, "toggle-stderr", false);
    await page.getByRole("tab", { name: "Wire log", selected: true }).waitFor(T);
    await menu(page, "toggle-lifecycle");
    await filterIs(page, "method:tools/list hide:stderr");
    await checkIs(page, "toggle-lifecycle", true);
    await menu(page, "toggle-stderr");
    await filterIs(page, "method:tools/list");
    await checkIs(page, "toggle-stderr", true);
    await checkIs(page, "toggle-follow", true);
    await menu(page, "toggle-follow");
    await checkIs(page, "toggle-follow", false);
  });

  await test("Connect on a connected server says so and opens a second connection only when asked", async (page) => {
    await connect(page);
    const connectDemo = page
      .locator("ul.servers li", { hasText: "Demo server" })
      .getByRole("button", { name: "Connect" });
    await connectDemo.click();
    const offer = page.getByRole("alertdialog", { name: "Already connected" });
    await offer.getByText("Demo server is already connected").waitFor(T);
    await offer.getByRole("button", { name: "Cancel" }).click();
    if ((await page.locator("ul.connections > li").count()) !== 1) throw new Error("a connection was opened unasked");
    await connectDemo.click();
    await offer.getByRole("button", { name: "Open a second connection" }).click();
    await page.locator("ul.connections > li").nth(1).getByText("ready · pid").waitFor(T);
  });

  await test("a line keeps its tool, its form and a call's result that arrived while another line was shown", async (page) => {
    await connect(page);
    await page.locator("ul.servers li", { hasText: "Demo server" }).getByRole("button", { name: "Connect" }).click();
    await page
      .getByRole("alertdialog", { name: "Already connected" })
      .getByRole("button", { name: "Open a second connection" })
      .click();
    const cards = page.locator("ul.connections > li");
    await cards.nth(1).getByText("ready · pid").waitFor(T);
    await cards.nth(0).click();
    await page.getByRole("button", { name: /Slow task/ }).click();
    await page.getByLabel(/seconds/).fill("1");
    await page.getByRole("button", { name: "Call", exact: true }).click();
    await page.getByRole("button", { name: "Calling…" }).waitFor(T);
    // The other line shows its own panel, with nothing chosen.
    await cards.nth(1).click();
    await page.getByText("Choose a tool to call it.").waitFor(T);
    if (await page.getByLabel("Tool result").count()) throw new Error("the other line shows a result");
    // The call's reply arrives while the other line is shown (the log says so) ...
    await page
      .locator(".rows .row .c-sum", { hasText: /^tools\/call #\S+ result/ })
      .first()
      .waitFor(T);
    // ... and waits on its own line.
    await cards.nth(0).click();
    await page.getByLabel("Tool result").getByText("done in 5 steps").waitFor(T);
    if ((await page.getByLabel(/seconds/).inputValue()) !== "1") throw new Error("the form lost what was typed");
  });
}
