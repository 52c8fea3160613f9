// The session's todo list, pinned above the composer in the window and the
// dashboard: what the agent keeps with todo_write, live (todo.updated), and
// what the user changes — tick an item, add one, remove one (setTodos; the
// model reads the edit on its next step). Kept with the session, so it is
// there again after a reload or a restart. An empty list is one small
// "Todo list" button.

import { useState } from "react";
import { useStore } from "zustand";
import type { Todo } from "../../protocol";
import { sessionRecord } from "../../state";
import type { AppController } from "../controller";
import { added, progress, removed, toggled } from "./todos";

const NONE: Todo[] = [];

/** The status mark of an item. */
function mark(t: Todo): string {
  switch (t.status) {
    case "done":
      return "✓";
    case "in_progress":
      return "◐";
    case "cancelled":
      return "–";
  }
  return "";
}

/** The todo panel of the open session. */
export function TodoPanel({ ctl, sessionId }: { ctl: AppController; sessionId: string }) {
  const todos = useStore(ctl.store, (st) => sessionRecord(st, sessionId)?.todos ?? NONE);
  const byUser = useStore(ctl.store, (st) => sessionRecord(st, sessionId)?.todos_by === "user");
  const [open, setOpen] = useState(true);
  const [adding, setAdding] = useState(false);
  const [text, setText] = useState("");
  const save = (next: Todo[]) => void ctl.workflows.setTodos(next);
  if (todos.length === 0 && !adding)
    return (
      <div className="todo-empty">
        <button type="button" className="btn btn-xs" data-testid="todo-start" onClick={() => setAdding(true)}>
          + Todo list
        </button>
      </div>
    );
  return (
    <section className="todo-panel" aria-label="Todo list" data-testid="todo-panel">
      <header className="todo-head">
        <button type="button" className="todo-toggle" aria-expanded={open} onClick={() => setOpen(!open)}>
          <span aria-hidden="true">{open ? "▾" : "▸"}</span> Todo
        </button>
        <span className="todo-progress" data-testid="todo-progress">
          {progress(todos)}
        </span>
        {byUser && <span className="todo-by muted">edited by you</span>}
      </header>
      {open && (
        <>
          <ul className="todo-items">
            {todos.map((t) => (
              <li key={t.id} className={`todo-item todo-${t.status}`} data-testid="todo-item" data-status={t.status}>
                <label>
                  <input type="checkbox" checked={t.status === "done"} onChange={() => save(toggled(todos, t.id))} aria-label={`Done: ${t.text}`} />
                  <span className="todo-mark" aria-hidden="true">
                    {mark(t)}
                  </span>
                  <span className="todo-text">{t.text}</span>
                </label>
                <button type="button" className="icon-btn todo-remove" aria-label={`Remove: ${t.text}`} onClick={() => save(removed(todos, t.id))}>
                  ×
                </button>
              </li>
            ))}
          </ul>
          <form
            className="todo-add"
            onSubmit={(e) => {
              e.preventDefault();
              if (text.trim() === "") return;
              save(added(todos, text));
              setText("");
            }}
          >
            <input aria-label="Add a todo" placeholder="Add an item…" value={text} autoFocus={adding} onChange={(e) => setText(e.target.value)} onKeyDown={(e) => e.key === "Escape" && setAdding(false)} />
          </form>
        </>
      )}
    </section>
  );
}
