// What tests of the Tools panel share under happy-dom, which has no layout engine.
import { vi } from "vitest";

/** happy-dom lays nothing out: the tool list's scroller is given a panel's height and each of
 * its rows a row's, as the window would, so the list draws what a panel shows. */
export function layOutToolList() {
  const scroller = (e: Element) => e.classList.contains("tool-scroll");
  vi.spyOn(HTMLElement.prototype, "clientHeight", "get").mockImplementation(function (this: HTMLElement) {
    return scroller(this) ? 600 : 0;
  });
  vi.spyOn(HTMLElement.prototype, "clientWidth", "get").mockImplementation(function (this: HTMLElement) {
    return scroller(this) ? 320 : 0;
  });
  vi.spyOn(HTMLElement.prototype, "offsetHeight", "get").mockImplementation(function (this: HTMLElement) {
    return this.matches(".tool-scroll li[data-index]") ? 46 : 0;
  });
}
