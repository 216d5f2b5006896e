// What the forms' DOM tests share: a React root in happy-dom, typing as a person does, and
// waiting with a deadline. Test code only.
import { act, type ReactNode } from "react";
import { createRoot, type Root } from "react-dom/client";

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

let root: Root | null = null;

export function mount(node: ReactNode): HTMLElement {
  const host = document.createElement("div");
  document.body.append(host);
  root = createRoot(host);
  act(() => root!.render(node));
  return host;
}

export function unmount() {
  act(() => root?.unmount());
  root = null;
  document.body.innerHTML = "";
}

/** Types into a React-controlled input or text area as a person would: the value, then the
 * input event. */
export function type(field: Element, value: string) {
  const proto = field instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
  Object.getOwnPropertyDescriptor(proto, "value")!.set!.call(field, value);
  act(() => void field.dispatchEvent(new Event("input", { bubbles: true })));
}

export function choose(select: HTMLSelectElement, value: string) {
  Object.getOwnPropertyDescriptor(HTMLSelectElement.prototype, "value")!.set!.call(select, value);
  act(() => void select.dispatchEvent(new Event("change", { bubbles: true })));
}

export const click = (el: Element) => act(() => (el as HTMLElement).click());

export const button = (host: Element, text: string) => {
  const found = [...host.querySelectorAll("button")].find((b) => b.textContent === text);
  if (!found) throw new Error(`no button "${text}"`);
  return found;
};

/** The control a label names (`<label for>` or a label wrapping it). */
export function labelled(host: Element, text: string): HTMLInputElement {
  const label = [...host.querySelectorAll("label")].find((l) => l.textContent?.replace(" *", "").trim() === text);
  if (!label) throw new Error(`no label "${text}"`);
  const control = label.htmlFor ? host.ownerDocument.getElementById(label.htmlFor) : label.querySelector("input");
  if (!control) throw new Error(`no control for "${text}"`);
  return control as HTMLInputElement;
}

/** The words a control's aria-describedby points at. */
export const described = (control: Element) =>
  (control.getAttribute("aria-describedby") ?? "")
    .split(" ")
    .filter(Boolean)
    .map((id) => control.ownerDocument.getElementById(id)?.textContent ?? `(missing #${id})`);

export async function until(what: string, cond: () => boolean) {
  const deadline = Date.now() + 5000;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await act(() => new Promise((r) => setTimeout(r, 20)));
  }
}
