// The new-session view: pick a model and folder, type the first message.
// Nothing is stored until that message is sent (controller.sendNew), so
// "New session" clicked twice makes no empty sessions.

import { useMemo, useState } from "react";
import { useStore } from "zustand";
import { Composer } from "../chat";
import type { AttachmentInfo, Session } from "../protocol";
import type { AppController } from "./controller";
import { modelProblem, SessionOptionsFields, type SessionChoice } from "./SessionOptions";

/** Props of NewSession. */
export interface NewSessionProps {
  ctl: AppController;
  defaultModel: string;
  /**
   * The folder new sessions use by default, shown in the field: --workspace,
   * the folder chosen last, or "" when there is none yet (a desktop launch
   * without --workspace) — then the first message asks for one.
   */
  defaultWorkspace: string;
  chooseFolder?: ((start: string) => Promise<string>) | undefined;
  /** Uploads a pasted or dropped file (Backend.uploadAttachment). */
  upload?: ((file: File) => Promise<AttachmentInfo>) | undefined;
}

const NO_QUEUE: never[] = [];

/** The folder of the newest top-level session ("" when there is none): the new-session default when the hub has none. */
export function lastFolder(records: readonly Session[]): string {
  let best: Session | undefined;
  for (const r of records) if (!r.parent_session_id && (!best || r.created_at > best.created_at)) best = r;
  return best?.workspace_path ?? "";
}

/** The new-session view. */
export function NewSession({ ctl, defaultModel, defaultWorkspace, chooseFolder, upload }: NewSessionProps) {
  const models = useStore(ctl.store, (st) => st.ui.models);
  const [choice, setChoice] = useState<SessionChoice>({ model: "", workspace: defaultWorkspace });
  const noFolder = choice.workspace.trim() === "";
  // @-completion before the session exists: the chosen folder's files.
  const folder = choice.workspace.trim();
  const complete = useMemo(() => (q: string) => ctl.listFolderFiles(folder, q), [ctl, folder]);
  // Sends the first message in the chosen folder; with none chosen it asks
  // for one first (the native dialog in the window), and sends nothing when
  // none is given. The folder is always sent: never the launch directory. A
  // model the field marks as wrong sends nothing (the message stays in the box).
  const send = async (text: string, attachments: AttachmentInfo[]): Promise<boolean> => {
    if (modelProblem(choice.model) !== null) return false;
    let workspace = choice.workspace.trim();
    if (workspace === "" && chooseFolder) {
      workspace = (await chooseFolder("").catch(() => "")).trim();
      if (workspace !== "") setChoice({ ...choice, workspace });
    }
    if (workspace === "") {
      ctl.notify("Choose the folder the agent works in first.");
      return false;
    }
    return ctl.sendNew(text, { model: choice.model, workspace_path: workspace }, attachments);
  };
  return (
    <section className="chat new-session" aria-label="New session">
      <header className="chat-head">
        <div className="chat-title">
          <h1>New session</h1>
        </div>
      </header>
      <div className="chat-body new-session-body">
        <p className="muted">The session starts with your first message. Choose where the agent works and which model answers:</p>
        <SessionOptionsFields models={models} value={choice} onChange={setChoice} defaultModel={defaultModel} chooseFolder={chooseFolder} />
        {noFolder && (
          <p className="notice notice-warn needs-folder" role="status">
            No folder yet: choose the one the agent works in{chooseFolder ? " (Browse…, or it is asked for when you send)" : ""}.
          </p>
        )}
      </div>
      <Composer
        busy={false}
        queued={NO_QUEUE}
        onSend={send}
        onCancel={() => undefined}
        complete={complete}
        upload={upload}
      />
    </section>
  );
}
