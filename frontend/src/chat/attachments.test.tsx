// @vitest-environment jsdom
import { act } from "react";
import { describe, expect, it, vi } from "vitest";
import type { AttachmentInfo } from "../protocol";
import { applyEvent } from "../state/reducer";
import { emptySession } from "../state/history";
import { mountPerTest } from "../testing/mount";
import { attachmentUrl, fileBlockInfo, MAX_ATTACHMENTS } from "./Attachments";
import { Composer } from "./Composer";
import { MessageView } from "./MessageView";
import { createAppStore } from "../state";
import { renderInSession } from "../testing/session";

const dom = mountPerTest();

const PNG_ID = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";

function info(over: Partial<AttachmentInfo> = {}): AttachmentInfo {
  return { id: PNG_ID, name: "shot.png", kind: "image", media_type: "image/png", bytes: 2048, width: 640, height: 400, ...over };
}

/** A paste event carrying files, as the browser builds it from the clipboard. */
function pasteFiles(el: Element, files: File[]) {
  const e = new Event("paste", { bubbles: true, cancelable: true });
  Object.defineProperty(e, "clipboardData", { value: { files, types: ["Files"], getData: () => "" } });
  act(() => {
    el.dispatchEvent(e);
  });
  return e;
}

function png(name = "shot.png") {
  return new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], name, { type: "image/png" });
}

/** Lets the upload promises settle inside act. */
async function settle() {
  await act(async () => {
    await Promise.resolve();
    await Promise.resolve();
  });
}

function mount(upload: (f: File) => Promise<AttachmentInfo>, onSend: (text: string, a: AttachmentInfo[]) => void | Promise<boolean> = vi.fn()) {
  act(() => dom.root.render(<Composer busy={false} queued={[]} onSend={onSend} onCancel={() => undefined} upload={upload} />));
  return {
    ta: dom.host.querySelector("textarea")!,
    send: () => dom.host.querySelector<HTMLButtonElement>(".composer-send")!,
    chips: () => Array.from(dom.host.querySelectorAll<HTMLElement>("[data-testid=pending-attachment]")),
  };
}

describe("Composer attachments", () => {
  it("uploads a pasted image, shows its thumbnail and sends it with an empty text", async () => {
    let resolve: (i: AttachmentInfo) => void = () => {};
    const upload = vi.fn(() => new Promise<AttachmentInfo>((r) => (resolve = r)));
    const onSend = vi.fn();
    const c = mount(upload, onSend);
    const e = pasteFiles(c.ta, [png()]);
    expect(e.defaultPrevented).toBe(true);
    expect(upload).toHaveBeenCalledTimes(1);
    expect(c.chips()[0]!.dataset.state).toBe("uploading");
    expect(c.chips()[0]!.textContent).toContain("Uploading shot.png");
    expect(c.send().disabled).toBe(true);
    resolve(info({ resized: true, width: 1568, height: 980 }));
    await settle();
    expect(c.chips()[0]!.dataset.state).toBe("ready");
    expect(c.chips()[0]!.querySelector("img")!.getAttribute("src")).toBe(attachmentUrl(PNG_ID));
    expect(c.chips()[0]!.textContent).toContain("resized to 1568×980");
    expect(c.send().disabled).toBe(false);
    act(() => c.send().click());
    expect(onSend).toHaveBeenCalledWith("", [expect.objectContaining({ id: PNG_ID, name: "shot.png" })]);
    expect(c.chips()).toHaveLength(0);
  });

  it("shows the hub's refusal on the chip, sends nothing for it, and lets it be dismissed", async () => {
    const upload = vi.fn(() => Promise.reject(new Error('"doc.pdf" is application/pdf, which cannot be attached')));
    const c = mount(upload);
    pasteFiles(c.ta, [new File(["%PDF"], "doc.pdf", { type: "application/pdf" })]);
    await settle();
    const chip = c.chips()[0]!;
    expect(chip.dataset.state).toBe("error");
    expect(chip.getAttribute("role")).toBe("alert");
    expect(chip.textContent).toContain("cannot be attached");
    expect(c.send().disabled).toBe(true);
    act(() => chip.querySelector("button")!.click());
    expect(c.chips()).toHaveLength(0);
  });

  it(`refuses more than ${MAX_ATTACHMENTS} attachments before uploading`, async () => {
    const upload = vi.fn((f: File) => Promise.resolve(info({ id: f.name.padEnd(64, "0"), name: f.name })));
    const c = mount(upload);
    pasteFiles(c.ta, Array.from({ length: MAX_ATTACHMENTS + 1 }, (_, i) => png(`p${i}.png`)));
    await settle();
    expect(upload).toHaveBeenCalledTimes(MAX_ATTACHMENTS);
    expect(c.chips().filter((x) => x.dataset.state === "error")[0]!.textContent).toContain(`at most ${MAX_ATTACHMENTS}`);
  });

  it("takes dropped files and puts text and attachments back when sending fails", async () => {
    const upload = vi.fn(() => Promise.resolve(info({ kind: "text", name: "notes.md", media_type: "text/markdown; charset=utf-8", bytes: 20 })));
    const onSend = vi.fn(() => Promise.resolve(false));
    const c = mount(upload, onSend);
    const drop = new Event("drop", { bubbles: true, cancelable: true });
    Object.defineProperty(drop, "dataTransfer", { value: { files: [new File(["# notes"], "notes.md")], types: ["Files"] } });
    act(() => {
      dom.host.querySelector(".composer")!.dispatchEvent(drop);
    });
    await settle();
    expect(drop.defaultPrevented).toBe(true);
    expect(c.chips()[0]!.textContent).toContain("notes.md · 20 B");
    act(() => c.send().click());
    await settle();
    expect(onSend).toHaveBeenCalledTimes(1);
    expect(c.chips()).toHaveLength(1);
  });
});

describe("attachments in history", () => {
  it("turn.started shows an uploaded image as a thumbnail and an uploaded file as a chip", () => {
    const s = applyEvent(emptySession("s1"), {
      id: "01J0000000000000000000000A",
      type: "turn.started",
      ts: "2026-11-25T10:00:00Z",
      session_id: "s1",
      turn_id: "t1",
      actor: "user",
      payload: {
        user_message_id: "u1",
        input: "",
        attachments: [
          { path: "shot.png", bytes: 2048, kind: "image", id: PNG_ID, media_type: "image/png", width: 640, height: 400 },
          { path: "notes.md", bytes: 20, kind: "file" },
        ],
      },
    });
    const m = s.messages["u1"]!;
    expect(m.content.map((b) => b.type)).toEqual(["image", "text"]);
    renderInSession(dom.root, <MessageView message={m} />, { store: createAppStore(), sessionId: "s1" });
    const img = dom.host.querySelector<HTMLImageElement>("[data-testid=attached-image] img")!;
    expect(img.getAttribute("src")).toBe(`/attachments/${PNG_ID}`);
    expect(img.alt).toBe("shot.png");
    expect(dom.host.querySelector("[data-testid=attached-file]")!.textContent).toContain("notes.md · 20 B");
    act(() => dom.host.querySelector<HTMLButtonElement>("[data-testid=attached-image]")!.click());
    expect(dom.host.querySelector("dialog.image-viewer img")!.getAttribute("src")).toBe(`/attachments/${PNG_ID}`);
  });

  it("reads uploaded file blocks", () => {
    expect(fileBlockInfo('<file name="a \\"b\\".txt" bytes="3">\nabc\n</file>')).toEqual({ path: 'a "b".txt', bytes: 3, cut: false, uploaded: true });
  });
});
