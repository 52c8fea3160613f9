// For the jsdom suites of the chat components: rendering inside the
// ChatSession the pane would provide.

import { act, type ReactElement } from "react";
import type { Root } from "react-dom/client";
import { ChatSessionContext, type ChatSession } from "../chat/session";

/** Renders el into root (inside act) with session as its ChatSession. */
export function renderInSession(root: Root, el: ReactElement, session: ChatSession): void {
  act(() => root.render(<ChatSessionContext.Provider value={session}>{el}</ChatSessionContext.Provider>));
}
