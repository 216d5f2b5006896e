// UI tests of the forms (issue 21, items 2, 3 and 8) against the in-memory demo server: the raw
// JSON round trip keeps a nested field the form has no place for, a number field refuses a
// blank and hex, defaults, titled and multi-select choices, formats and an array of objects,
// and the server dialog's Save with empty fields. ui.mjs runs them with its harness; each
// leaves a screenshot in e2e-shots/ for a person to look at.
import { mkdirSync } from "node:fs";

const SHOTS = "e2e-shots";

export async function formTests(test, url, T) {
  mkdirSync(SHOTS, { recursive: true });
  const connect = async (page) => {
    await page.goto(url);
    await page.getByRole("button", { name: "Connect" }).first().click();
    await page.getByText("ready · pid").waitFor(T);
  };
  const fail = (what) => {
    throw new Error(what);
  };

  await test("raw JSON → form → raw JSON keeps a nested field the form has no place for, and sends it", async (page) => {
    await connect(page);
    await page.getByRole("button", { name: /Echo/ }).click();
    const form = page.locator(".tool-call form");
    await page.getByRole("button", { name: "Raw JSON" }).click();
    const raw = form.getByLabel("Arguments as JSON");
    const typed = '{"text": "round trip",\n  "extra": {"nested": {"kept": true}}}';
    await raw.fill(typed);
    await page.getByRole("button", { name: "Form" }).click();
    const note = form.getByRole("note", { name: "Kept from the JSON" });
    await note.getByText('{"nested":{"kept":true}}').waitFor(T);
    if ((await form.getByRole("textbox", { name: "text", exact: true }).inputValue()) !== "round trip")
      fail("the form lost the text field");
    await page.screenshot({ path: `${SHOTS}/form-kept.png` });
    await page.getByRole("button", { name: "Raw JSON" }).click();
    if ((await raw.inputValue()) !== typed) fail(`the raw JSON came back changed: ${await raw.inputValue()}`);
    await page.getByRole("button", { name: "Form" }).click();
    await form.getByRole("button", { name: "Call", exact: true }).click();
    await page.getByLabel("Tool result").getByText("round trip").waitFor(T);
    // The request as sent carries the nested field.
    await page.getByLabel("Filter the log").fill("method:tools/call dir:out kept");
    await page.locator(".rows .row", { hasText: "tools/call" }).first().click();
    await page
      .getByLabel("Entry detail")
      .locator("pre.raw", { hasText: '"extra":{"nested":{"kept":true}}' })
      .waitFor(T);
  });

  await test("a number field refuses a blank and hex by the field, and nothing is sent until fixed", async (page) => {
    await connect(page);
    await page.locator("button.tool", { has: page.locator("strong", { hasText: /^Add$/ }) }).click();
    const form = page.locator(".tool-call form");
    const a = form.getByRole("textbox", { name: "a", exact: true });
    const b = form.getByRole("textbox", { name: "b", exact: true });
    await a.fill(" ");
    await b.fill("0x10");
    await b.press("Enter");
    await form.getByText("a is blank: type a number, or empty the field to leave it out").waitFor(T);
    await form.getByText('b is "0x10", not a JSON number: write it in decimal digits (16)').waitFor(T);
    for (const field of [a, b])
      if ((await field.getAttribute("aria-invalid")) !== "true") fail("a field is not marked");
    await page.locator(".tool-call").getByRole("alert").getByText("Not sent:").waitFor(T);
    await page.screenshot({ path: `${SHOTS}/form-numbers.png` });
    await page.getByLabel("Filter the log").fill("method:tools/call");
    await page.getByText(/^0 of \d+$/).waitFor(T);
    await a.fill("1");
    await b.fill("16");
    await b.press("Enter");
    await page.getByLabel("Tool result").getByText("1 + 16 = 17").waitFor(T);
  });

  await test("the tool form: defaults, titled and multi-select choices, formats, an array of objects", async (page) => {
    await connect(page);
    await page.getByRole("button", { name: /Book a table/ }).click();
    const form = page.locator(".tool-call form");
    const guests = form.getByRole("textbox", { name: "Guests" });
    if ((await guests.inputValue()) !== "2") fail(`the default was not filled in: ${await guests.inputValue()}`);
    await form.getByText("default: 2").waitFor(T);
    await form.getByText("default: Indoors").waitFor(T);
    const seating = form.getByRole("combobox", { name: "Seating" });
    const shown = await seating.evaluate((s) => s.options[s.selectedIndex].text);
    if (shown !== "Indoors") fail(`seating shows ${shown}`);
    // Formats are checked on Call, each by its field.
    await form.getByRole("textbox", { name: "Email" }).fill("ada.example.com");
    await form.getByRole("textbox", { name: "When" }).fill("2025-13-01T19:00:00Z");
    await form.getByRole("button", { name: "Call", exact: true }).click();
    await form.getByText('email is "ada.example.com", not an email address').waitFor(T);
    await form.getByText('at is "2025-13-01T19:00:00Z", not a date: there is no month 13').waitFor(T);
    await form.getByRole("textbox", { name: "Email" }).fill("ada@example.com");
    await form.getByRole("textbox", { name: "When" }).fill("2025-06-01T19:00:00Z");
    await form.getByText("not an email address").waitFor({ state: "detached", ...T });
    // Multi-select as checkboxes, by keyboard; titles shown, consts sent.
    const diet = form.getByRole("group", { name: "Diet" });
    await diet.getByRole("checkbox", { name: "Vegetarian" }).focus();
    await page.keyboard.press("Space");
    await diet.getByRole("checkbox", { name: "No nuts" }).focus();
    await page.keyboard.press("Space");
    await form.getByRole("combobox", { name: "Menu" }).selectOption({ label: "À la carte" });
    await seating.selectOption({ label: "On the terrace" });
    // An array of objects: an editor per item.
    await form.getByRole("button", { name: "Add an item to Dishes" }).click();
    await form.getByRole("textbox", { name: "name", exact: true }).fill("Soup");
    await form.getByRole("textbox", { name: "count", exact: true }).fill("2");
    await page.screenshot({ path: `${SHOTS}/form-book.png`, fullPage: true });
    await form.getByRole("button", { name: "Call", exact: true }).click();
    const result = page.getByLabel("Tool result");
    await result.getByText('"email":"ada@example.com"').waitFor(T);
    const text = await result.innerText();
    const sent = JSON.parse(text.slice(text.indexOf("{"), text.lastIndexOf("}") + 1));
    const want = {
      guests: 2,
      seating: "out",
      email: "ada@example.com",
      at: "2025-06-01T19:00:00Z",
      diet: ["veg", "nuts"],
      menu: "m2",
      dishes: [{ name: "Soup", count: 2 }],
    };
    for (const [key, value] of Object.entries(want))
      if (JSON.stringify(sent[key]) !== JSON.stringify(value)) fail(`${key} sent as ${JSON.stringify(sent[key])}`);
  });

  await test("the server dialog's Save with empty fields says which, by each, and saves nothing", async (page) => {
    await page.goto(url);
    await page.getByRole("button", { name: "Add a server" }).click();
    const dialog = page.getByRole("form", { name: "New server" });
    await dialog.getByRole("button", { name: "Save" }).click();
    await dialog.getByRole("alert").getByText("Not saved: the name and the command line are empty.").waitFor(T);
    const name = dialog.getByRole("textbox", { name: "Name", exact: true });
    if ((await name.getAttribute("aria-invalid")) !== "true") fail("the name is not marked");
    if (!(await name.evaluate((el) => el === document.activeElement))) fail("the empty name has no focus");
    await dialog.getByText("Give the server a name").waitFor(T);
    await dialog.getByText("Type the command line that starts the server").waitFor(T);
    await page.screenshot({ path: `${SHOTS}/server-dialog-empty.png` });
    await name.fill("Forms check");
    await dialog.getByRole("textbox", { name: "Command line" }).fill("sonde demo-server");
    await dialog.getByRole("button", { name: "Save" }).click();
    await dialog.waitFor({ state: "detached", ...T });
    await page.locator(".sidebar").getByText("Forms check").waitFor(T);
  });
}
