// @vitest-environment happy-dom
// The tool form in the Tools panel against the in-memory demo server: what goes to the backend
// is what was typed, fields the form has no place for included, and nothing goes when a field
// does not parse.
import { afterEach, describe, expect, it, vi } from "vitest";
import { backend } from "../ipc";
import { ToolsPanel } from "../panels/ToolsPanel";
import { button, click, described, labelled, mount, type, unmount, until } from "./testing";
import { layOutToolList } from "../panels/testing";

afterEach(() => {
  unmount();
  vi.restoreAllMocks();
});

async function toolsOfDemo() {
  expect(backend.kind).toBe("memory");
  layOutToolList();
  const conn = await backend.connect("demo");
  const line = (await backend.connectionsFollow(() => {})).find((l) => l.event.conn === conn)!;
  const host = mount(<ToolsPanel line={line} />);
  await until("the tools are listed", () => host.querySelector("button.tool") !== null);
  const pick = (title: string) =>
    click([...host.querySelectorAll("button.tool")].find((b) => b.querySelector("strong")?.textContent === title)!);
  const raw = () => host.querySelector<HTMLTextAreaElement>("textarea[aria-label='Arguments as JSON']");
  return { host, conn, pick, raw };
}

describe("the tool form", () => {
  it("keeps a nested field typed in the raw JSON through the form, says so, and sends it", async () => {
    const call = vi.spyOn(backend, "toolCall");
    const { host, conn, pick, raw } = await toolsOfDemo();
    pick("Ship a parcel");
    click(button(host, "Raw JSON"));
    const typed = `{"to": {"city": "Oslo", "floor": 3, "door": {"code": "12 34"}},
 "speed": "express",   "gift": {"wrap": true, "note": {"text": "Happy birthday"}}, "n": 1.50}`;
    type(raw()!, typed);
    click(button(host, "Form"));
    expect(raw()).toBeNull();
    expect(labelled(host, "city").value).toBe("Oslo");
    const note = host.querySelector("[role=note][aria-label='Kept from the JSON']")!;
    expect([...note.querySelectorAll("li")].map((li) => li.textContent)).toEqual([
      "to.floor = 3",
      'to.door = {"code":"12 34"}',
      'gift = {"wrap":true,"note":{"text":"Happy birthday"}}',
      "n = 1.5",
    ]);
    // Back in Raw JSON with nothing changed, the text is exactly as typed: spacing, order, "1.50".
    click(button(host, "Raw JSON"));
    expect(raw()!.value).toBe(typed);
    // Through the form again, one field changed: every field typed is still there, and sent.
    click(button(host, "Form"));
    type(labelled(host, "zip"), "0150");
    click(button(host, "Raw JSON"));
    const back = JSON.parse(raw()!.value);
    expect(back.to).toEqual({ city: "Oslo", floor: 3, door: { code: "12 34" }, zip: "0150" });
    expect(back.gift).toEqual({ wrap: true, note: { text: "Happy birthday" } });
    click(button(host, "Form"));
    await click(button(host, "Call"));
    await until("the call", () => call.mock.calls.length === 1);
    expect(call.mock.calls[0][0]).toBe(conn);
    expect(call.mock.calls[0][2]).toEqual({
      to: { city: "Oslo", floor: 3, door: { code: "12 34" }, zip: "0150" },
      speed: "express",
      gift: { wrap: true, note: { text: "Happy birthday" } },
      n: 1.5,
    });
  });

  it("says by the editor why raw JSON that does not parse cannot go back to the form", async () => {
    const { host, pick, raw } = await toolsOfDemo();
    pick("Ship a parcel");
    click(button(host, "Raw JSON"));
    type(raw()!, '{"to": {"city": "Oslo"');
    click(button(host, "Form"));
    expect(raw()!.value).toBe('{"to": {"city": "Oslo"');
    expect(raw()!.getAttribute("aria-invalid")).toBe("true");
    expect(described(raw()!)[0]).toMatch(/^The JSON does not parse \(.*\): fix it to go back to the form\./);
  });

  it("refuses a blank and a hexadecimal number by their fields, and calls nothing", async () => {
    const call = vi.spyOn(backend, "toolCall");
    const { host, pick } = await toolsOfDemo();
    pick("Add");
    type(labelled(host, "a"), " ");
    type(labelled(host, "b"), "0x10");
    await click(button(host, "Call"));
    expect(call).not.toHaveBeenCalled();
    expect(labelled(host, "a").getAttribute("aria-invalid")).toBe("true");
    expect(described(labelled(host, "a"))).toEqual(["a is blank: type a number, or empty the field to leave it out"]);
    expect(described(labelled(host, "b"))).toEqual(['b is "0x10", not a JSON number: write it in decimal digits (16)']);
    expect(host.querySelector(".tool-call [role=alert]")!.textContent).toBe(
      'Not sent: a is blank: type a number, or empty the field to leave it out; b is "0x10", not a JSON number: write it in decimal digits (16).',
    );
    // As the fields are fixed, their notes go; then the call goes, with the numbers typed.
    type(labelled(host, "a"), "1");
    expect(labelled(host, "a").getAttribute("aria-invalid")).toBeNull();
    type(labelled(host, "b"), "16");
    await click(button(host, "Call"));
    await until("the call", () => call.mock.calls.length === 1);
    expect(call.mock.calls[0][2]).toEqual({ a: 1, b: 16 });
  });
});
