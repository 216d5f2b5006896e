// UI tests of the server panels beyond tools (resources, templates, prompts, the server's
// details, notifications) against the in-memory demo server; ui.mjs runs them with its harness.
// Each leaves a screenshot of its panel in e2e-shots/ for a person to look at.
import { mkdirSync } from "node:fs";

const SHOTS = "e2e-shots";

export async function panelTests(test, url, T) {
  mkdirSync(SHOTS, { recursive: true });
  const connect = async (page) => {
    await page.goto(url);
    await page.getByRole("button", { name: "Connect" }).first().click();
    await page.getByText("ready · pid").waitFor(T);
  };

  await test("resources: list, read by kind, a template completed and expanded, a subscription's updates", async (page) => {
    await connect(page);
    await page.keyboard.press("Control+2");
    const list = page.getByRole("list", { name: "Resources" });
    await list.getByRole("button", { name: /README/ }).click();
    await page.getByRole("button", { name: "Read", exact: true }).click();
    const contents = page.getByLabel("Resource contents");
    await contents.getByText("# Sonde demo").waitFor(T);
    await list.getByRole("button", { name: /Configuration/ }).click();
    await page.getByRole("button", { name: "Read", exact: true }).click();
    await contents.getByText('"retries": 3').waitFor(T);
    await contents.getByText("JSON, pretty-printed").waitFor(T);
    await list.getByRole("button", { name: /Logo/ }).click();
    await page.getByRole("button", { name: "Read", exact: true }).click();
    await contents.locator("img").waitFor(T);
    // A template: the server's completions as the person types, the core's expansion, a read.
    await page
      .getByRole("list", { name: "Resource templates" })
      .getByRole("button", { name: /Greeting/ })
      .click();
    await page.getByRole("combobox").fill("gr");
    await page.getByRole("listbox", { name: "Suggestions for name" }).getByText("Grace").waitFor(T);
    await page.getByRole("combobox").press("ArrowDown");
    await page.getByRole("combobox").press("Enter");
    await page.getByLabel("Expanded URI").getByText("demo://greeting/Grace").waitFor(T);
    await page.getByRole("combobox").press("Enter");
    await contents.getByText("Hello, Grace!").waitFor(T);
    await list.getByRole("button", { name: /Clock/ }).click();
    await page.getByLabel("Subscribe to updates").check();
    await page.getByLabel("Updates").getByText("notifications/resources/updated").first().waitFor(T);
    await contents.getByText(/tick [1-9]/).waitFor(T);
    await page.screenshot({ path: `${SHOTS}/resources.png` });
    await page.getByLabel("Subscribe to updates").uncheck();
    await page.getByLabel("Subscription").getByText("not subscribed").waitFor(T);
  });

  await test("prompts: arguments completed in context, then the rendered messages", async (page) => {
    await connect(page);
    await page.keyboard.press("Control+3");
    await page
      .getByRole("list", { name: "Prompts" })
      .getByRole("button", { name: /Code review/ })
      .click();
    // Enter with a required argument empty says what is missing instead of asking the server.
    await page.getByRole("button", { name: "Get prompt" }).click();
    await page.getByText("Fill in language first.").waitFor(T);
    const language = page.getByRole("combobox", { name: /language/ });
    await language.fill("ru");
    await page.getByRole("listbox", { name: "Suggestions for language" }).getByText("rust").click();
    // The style's suggestions depend on the language already chosen (context.arguments).
    const style = page.getByRole("combobox", { name: /style/ });
    await style.fill("c");
    await page.getByRole("listbox", { name: "Suggestions for style" }).getByText("clippy").waitFor(T);
    await style.press("Escape");
    await style.press("Enter");
    const messages = page.getByLabel("Prompt messages");
    await messages.getByText("Review this rust code in a c style.").waitFor(T);
    await messages.getByText("Embedded resource").waitFor(T);
    await messages.getByText("# Sonde demo").waitFor(T);
    await messages.getByText("Send me the code.").waitFor(T);
    // A message's resource link opens in this line's Resources panel.
    await messages.getByRole("button", { name: "Open in Resources" }).click();
    await page.getByRole("tab", { name: "Resources", selected: true }).waitFor(T);
    await page.getByLabel("Resource contents").getByText("# Sonde demo").waitFor(T);
    await page.keyboard.press("Control+3");
    await page.screenshot({ path: `${SHOTS}/prompts.png` });
  });

  await test("server: details, a log level that brings log messages, ping; notifications list them", async (page) => {
    await connect(page);
    await page.keyboard.press("Control+5");
    await page.getByRole("list", { name: "Capabilities" }).getByText("resources: subscribe, listChanged").waitFor(T);
    await page.getByText("server/discover", { exact: true }).waitFor(T);
    await page.getByLabel("Server log level").selectOption("info");
    await page.getByRole("button", { name: "Ping" }).click();
    await page
      .getByLabel("Round trip")
      .getByText(/server\/discover answered in [0-9.]+ ms/)
      .waitFor(T);
    await page.screenshot({ path: `${SHOTS}/server.png` });
    // A read now brings the demo's log message; it waits in the Notifications panel.
    await page.keyboard.press("Control+2");
    await page
      .getByRole("list", { name: "Resources" })
      .getByRole("button", { name: /README/ })
      .click();
    await page.getByRole("button", { name: "Read", exact: true }).click();
    await page.getByLabel("Resource contents").waitFor(T);
    await page.keyboard.press("Control+6");
    const notices = page.getByRole("list", { name: "Notifications" });
    await notices.getByText("resources/read demo://readme").waitFor(T);
    await notices.locator(".level.info").first().waitFor(T);
    await page.getByRole("group", { name: "Kinds shown" }).getByLabel("Log messages").uncheck();
    await notices.getByText("resources/read demo://readme").waitFor({ state: "detached", ...T });
    await page.screenshot({ path: `${SHOTS}/notifications.png` });
  });
}
