// UI tests of what a call leaves and what a server asks (issue 21, items 4, 5 and 9) against the
// in-memory demo server; ui.mjs runs them with its harness (pages of 1280×800). A tall question
// answered with a real mouse click on its Accept; dialogs that fit a short window; a question
// whose connection ended; Cancel ending the progress; an attempt not sent beside the previous
// call's result; a result's resource link opened in the Resources panel, its embedded blobs shown
// by MIME type and saved, its annotations shown.

/** Whether `locator`'s element is inside the window and nothing lies over its middle: a person
 * can click it where it is, without scrolling. */
async function inView(locator) {
  return locator.evaluate((el) => {
    const r = el.getBoundingClientRect();
    const x = r.x + r.width / 2;
    const y = r.y + r.height / 2;
    const inside = r.top >= 0 && r.left >= 0 && r.bottom <= window.innerHeight && r.right <= window.innerWidth;
    return inside && el.contains(document.elementFromPoint(x, y));
  });
}

/** A real mouse click at the middle of `locator`'s element, where it is now (Playwright's own
 * click would scroll it into view first). */
async function clickWhereItIs(page, locator) {
  const box = await locator.boundingBox();
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
}

export async function resultTests(test, url, T) {
  const connect = async (page) => {
    await page.goto(url);
    await page.getByRole("button", { name: "Connect" }).first().click();
    await page.getByText("ready · pid").waitFor(T);
  };
  const callTool = async (page, tool) => {
    await page.getByRole("button", { name: new RegExp(`^${tool}`) }).click();
    await page.getByRole("button", { name: "Call", exact: true }).click();
  };

  await test("a question taller than its panel keeps Accept in view, and a mouse click on it answers", async (page) => {
    await connect(page);
    await callTool(page, "Profile");
    const dialog = page.getByRole("dialog", { name: "Server request" });
    await dialog.getByText("Tell us about yourself:").waitFor(T);
    // The form is taller than the panel it is shown in: the panel scrolls.
    const [scrolled, shown] = await dialog.evaluate((el) => [el.scrollHeight, el.clientHeight]);
    if (!(scrolled > shown + 100)) throw new Error(`the form is not taller than its panel: ${scrolled} / ${shown}`);
    const accept = dialog.getByRole("button", { name: "Accept" });
    if (!(await inView(accept))) throw new Error("Accept is out of view at the top of the form");
    // Halfway down the form, the buttons are still there.
    await dialog.evaluate((el) => el.scrollTo(0, el.scrollHeight / 2));
    if (!(await inView(accept))) throw new Error("Accept is out of view halfway down the form");
    if (!(await inView(dialog.getByRole("button", { name: "Decline", exact: true }))))
      throw new Error("Decline is out of view");
    await clickWhereItIs(page, accept);
    await page.getByLabel("Tool result").getByText("Thanks, Ada.").waitFor(T);
    if (await dialog.count()) throw new Error("the question is still shown");
  });

  await test("a dialog in a short window fits it and keeps its buttons in view", async (page) => {
    await page.setViewportSize({ width: 1280, height: 420 });
    await page.goto(url);
    await page.getByText("No server selected").waitFor(T);
    await page.keyboard.press("Control+n");
    const dialog = page.getByRole("form", { name: "New server" });
    await dialog.waitFor(T);
    const box = await dialog.boundingBox();
    if (box.y < 0 || box.y + box.height > 420)
      throw new Error(`the dialog overflows the window: ${JSON.stringify(box)}`);
    const save = dialog.getByRole("button", { name: "Save", exact: true });
    if (!(await inView(save))) throw new Error("Save is out of view");
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await dialog.waitFor({ state: "detached", ...T });
  });

  await test("a question whose connection ended closes with a note saying why", async (page) => {
    await connect(page);
    await callTool(page, "Greet");
    const dialog = page.getByRole("dialog", { name: "Server request" });
    await dialog.getByText("Who are you?").waitFor(T);
    await page.locator(".connections li").first().getByRole("button", { name: "Stop" }).click();
    await dialog.waitFor({ state: "detached", ...T });
    const note = page.getByRole("status").filter({ hasText: "before its question" });
    await note.waitFor(T);
    const said = await note.innerText();
    for (const words of ["Demo server's connection ", "ended (", "elicitation/create", "Who are you?"])
      if (!said.includes(words)) throw new Error(`the note does not say "${words}": ${said}`);
  });

  await test("Cancel ends the progress; an attempt not sent leaves the result marked as the previous call's", async (page) => {
    await connect(page);
    await page.getByRole("button", { name: /^Slow task/ }).click();
    const form = page.locator(".tool-call form");
    await form.getByRole("textbox", { name: "seconds", exact: true }).fill("20");
    await form.getByRole("textbox", { name: "steps", exact: true }).fill("10");
    await form.getByRole("button", { name: "Call", exact: true }).click();
    await page.getByLabel("Progress", { exact: true }).getByText("step 1 of 10").waitFor(T);
    await form.getByRole("button", { name: "Cancel" }).click();
    const last = page.getByLabel("Last call");
    await last.getByRole("alert").getByText("cancelled").waitFor(T);
    if (await page.locator(".tool-call progress").count()) throw new Error("the progress bar stays after Cancel");
    await last
      .getByLabel("Progress when the call ended")
      .getByText(/step \d+ of 10/)
      .waitFor(T);

    // A call that answers, then an attempt that cannot be sent: its result is the previous call's.
    await page.getByRole("button", { name: /^Echo/ }).click();
    await page.locator(".tool-call form").getByRole("textbox").first().fill("the first call");
    await page.getByRole("button", { name: "Call", exact: true }).click();
    await page.getByLabel("Tool result").getByText("the first call").waitFor(T);
    await page.getByRole("button", { name: "Raw JSON" }).click();
    await page.getByLabel("Arguments as JSON").fill('{"text": ');
    await page.getByRole("button", { name: "Call", exact: true }).click();
    await page.locator(".tool-call > [role='alert']").getByText("Not sent:").waitFor(T);
    const previous = page.getByRole("region", { name: "Previous call" });
    await previous.getByText("The previous call (the attempt above was not sent)").waitFor(T);
    await previous.getByLabel("Tool result").getByText("the first call").waitFor(T);
  });

  await test("a result's resource link opens in the Resources panel; embedded blobs by type, saved; annotations", async (page) => {
    await connect(page);
    await callTool(page, "Bundle");
    const result = page.getByLabel("Tool result");
    await result.getByText("Here is the README").waitFor(T);
    // Annotations on each block that has them.
    const annotations = await result.getByLabel("Annotations").allInnerTexts();
    const want = ["for user", "priority 0.9", "for assistant", "modified 2025-06-18T12:00:00Z", "priority 0.2"];
    for (const words of want)
      if (!annotations.some((a) => a.includes(words))) throw new Error(`no annotation "${words}": ${annotations}`);
    // Embedded: text bytes decoded, an image shown, other bytes as their size; each can be saved.
    const notes = result.getByLabel("Embedded resource demo://notes.txt");
    await notes.getByText("Notes kept as bytes: café.").waitFor(T);
    await notes.getByText("decoded from its blob").waitFor(T);
    await result.getByLabel("Embedded resource demo://logo.png").locator("img").waitFor(T);
    const archive = result.getByLabel("Embedded resource demo://archive.bin");
    await archive.getByText("4 B of application/octet-stream, not shown.").waitFor(T);
    page.once("dialog", (d) => d.accept("archive-from-e2e.bin"));
    await archive.getByRole("button", { name: "Save as…" }).click();
    await archive.getByRole("status").getByText("Saved to /home/you/Downloads/archive-from-e2e.bin").waitFor(T);
    // The link, opened from the keyboard: the Resources panel shows and reads it.
    const link = result.getByLabel("Resource link demo://readme");
    await link.getByText("The demo server's README").waitFor(T);
    await link.getByRole("button", { name: "Open in Resources" }).focus();
    await page.keyboard.press("Enter");
    await page.getByRole("tab", { name: "Resources", selected: true }).waitFor(T);
    const linked = page.getByLabel("Linked resource");
    await linked.getByText("Opened from a resource link in a tool result").waitFor(T);
    await linked.getByLabel("Resource contents").getByText("# Sonde demo").waitFor(T);
    // Back in Tools, the result is still there; the link opens again.
    await page.getByRole("tab", { name: "Tools" }).click();
    await link.getByRole("button", { name: "Open in Resources" }).click();
    await linked.getByLabel("Resource contents").getByText("# Sonde demo").waitFor(T);
  });
}
