// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from "vitest";
import { blankServer, type SavedServer } from "../ipc";
import { ServerDialog } from "../components/ServerDialog";
import { notSaved, serverProblems } from "./server";
import { button, click, described, labelled, mount, type, unmount } from "./testing";

afterEach(unmount);

function dialog(server: SavedServer = blankServer()) {
  const saved: SavedServer[] = [];
  const host = mount(
    <ServerDialog
      server={server}
      onSave={async (s) => void saved.push(s)}
      onCancel={() => {
        throw new Error("cancelled");
      }}
    />,
  );
  const save = () => click(button(host, "Save"));
  return { host, saved, save };
}

const kind = (host: Element, label: string) =>
  [...host.querySelectorAll<HTMLInputElement>("input[type=radio]")].find((r) =>
    r.parentElement?.textContent?.includes(label),
  )!;

describe("the server dialog's Save", () => {
  it("with the name and the command line empty says so by each field, and saves nothing", async () => {
    const { host, saved, save } = dialog();
    await save();
    expect(saved).toEqual([]);
    const name = labelled(host, "Name");
    const command = labelled(host, "Command line");
    expect(name.getAttribute("aria-invalid")).toBe("true");
    expect(command.getAttribute("aria-invalid")).toBe("true");
    expect(described(name)).toEqual(["Give the server a name: the sidebar and the log show it by this name."]);
    expect(described(command)[0]).toMatch(/^Type the command line that starts the server/);
    expect(host.querySelector("[role=alert]")!.textContent).toBe("Not saved: the name and the command line are empty.");
    expect(document.activeElement).toBe(name);
  });

  it("keeps what was typed, drops each note as its field is filled, then saves", async () => {
    const { host, saved, save } = dialog();
    type(labelled(host, "Command line"), "npx -y @modelcontextprotocol/server-everything stdio");
    await save();
    expect(saved).toEqual([]);
    expect(labelled(host, "Command line").value).toBe("npx -y @modelcontextprotocol/server-everything stdio");
    expect(labelled(host, "Command line").getAttribute("aria-invalid")).toBeNull();
    expect(host.querySelector("[role=alert]")!.textContent).toBe("Not saved: the name is empty.");
    type(labelled(host, "Name"), "   ");
    expect(labelled(host, "Name").getAttribute("aria-invalid")).toBe("true");
    type(labelled(host, "Name"), "Everything");
    expect(labelled(host, "Name").getAttribute("aria-invalid")).toBeNull();
    expect(host.querySelector("[role=alert]")).toBeNull();
    await save();
    expect(saved.map((s) => [s.name, s.command])).toEqual([
      ["Everything", "npx -y @modelcontextprotocol/server-everything stdio"],
    ]);
  });

  it("over HTTP asks for the URL, not the command line", async () => {
    const { host, saved, save } = dialog({ ...blankServer(), name: "Remote" });
    click(kind(host, "URL (HTTP)"));
    await save();
    expect(saved).toEqual([]);
    const url = labelled(host, "URL");
    expect(url.getAttribute("aria-invalid")).toBe("true");
    expect(described(url)).toEqual(["Type the server's URL, like http://127.0.0.1:3001/mcp."]);
    expect(document.activeElement).toBe(url);
    type(url, "http://127.0.0.1:3001/mcp");
    await save();
    expect(saved.map((s) => s.url)).toEqual(["http://127.0.0.1:3001/mcp"]);
  });
});

describe("what a saved server cannot do without", () => {
  it("is a name and the command line or URL of its kind, blank counted as empty", () => {
    const stdio = { ...blankServer(), name: " ", command: "", url: "http://x/mcp" };
    expect(Object.keys(serverProblems(stdio, false))).toEqual(["name", "command"]);
    expect(Object.keys(serverProblems(stdio, true))).toEqual(["name"]);
    expect(notSaved(serverProblems({ ...stdio, name: "n", command: "c" }, false))).toBeNull();
    expect(notSaved({ name: "x", command: "y", url: "z" })).toBe(
      "Not saved: the name, the command line and the URL are empty.",
    );
  });
});

describe("the server dialog's OAuth client", () => {
  it("is saved with an HTTP server, folded until something is set, and left out of a command", async () => {
    const { host, saved, save } = dialog();
    type(labelled(host, "Name"), "Protected");
    click(kind(host, "URL (HTTP)"));
    type(labelled(host, "URL"), "https://mcp.example.com/mcp");
    const fold = host.querySelector<HTMLDetailsElement>("details.oauth-fields")!;
    expect(fold.open).toBe(false);
    type(labelled(host, "Client ID"), "sonde-app");
    type(labelled(host, "Client secret (kept in servers.json, never recorded)"), "s3cret");
    expect(labelled(host, "Client secret (kept in servers.json, never recorded)").type).toBe("password");
    await save();
    expect(saved[0].oauth).toEqual({ clientId: "sonde-app", clientSecret: "s3cret" });

    // Reopened, the fold shows what is set; switched to a command, nothing of it is saved.
    unmount();
    const again = dialog(saved[0]);
    expect(again.host.querySelector<HTMLDetailsElement>("details.oauth-fields")!.open).toBe(true);
    click(kind(again.host, "Command (stdio)"));
    type(labelled(again.host, "Command line"), "uvx mcp-server-time");
    await again.save();
    expect(again.saved[0].oauth).toBeUndefined();
  });
});
