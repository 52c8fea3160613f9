// The new-session view: pick a model and folder, type the first message.
// Nothing is stored until that message is sent (controller.sendNew), so
// "New session" clicked twice makes no empty sessions.

import { useMemo, useState } from "react";
import { useStore } from "zustand";
import { Composer } from "../chat";
import type { AttachmentInfo } from "../protocol";
import type { AppController } from "./controller";
import { modelProblem, SessionOptionsFields, type SessionChoice } from "./SessionOptions";

/** Props of NewSession. */
export interface NewSessionProps {
  ctl: AppController;
  defaultModel: string;
  /** The folder new sessions use by default (--workspace), shown in the field. */
  defaultWorkspace: string;
  chooseFolder?: ((start: string) => Promise<string>) | undefined;
  /** Uploads a pasted or dropped file (Backend.uploadAttachment). */
  upload?: ((file: File) => Promise<AttachmentInfo>) | undefined;
}

const NO_QUEUE: never[] = [];

/** The new-session view. */
export function NewSession({ ctl, defaultModel, defaultWorkspace, chooseFolder, upload }: NewSessionProps) {
  const models = useStore(ctl.store, (st) => st.ui.models);
  const [choice, setChoice] = useState<SessionChoice>({ model: "", workspace: defaultWorkspace });
  // @-completion before the session exists: the chosen folder's files.
  const folder = choice.workspace === defaultWorkspace ? "" : choice.workspace;
  const complete = useMemo(() => (q: string) => ctl.listFolderFiles(folder, q), [ctl, folder]);
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
      </div>
      <Composer
        busy={false}
        queued={NO_QUEUE}
        onSend={(text, attachments) =>
          // A model the field marks as wrong sends nothing (the message stays in the box).
          modelProblem(choice.model) !== null ? Promise.resolve(false) : ctl.sendNew(text, { model: choice.model, workspace_path: choice.workspace === defaultWorkspace ? "" : choice.workspace }, attachments)
        }
        onCancel={() => undefined}
        complete={complete}
        upload={upload}
      />
    </section>
  );
}
