// The todo list's pure edits (the user's: add, tick, remove) and its
// progress line; the hub keeps the list (setTodos, todo.updated).

import type { Todo } from "../../protocol";

/** The list with id ticked (done) or unticked (pending). */
export function toggled(todos: Todo[], id: string): Todo[] {
  return todos.map((t) => (t.id === id ? { ...t, status: t.status === "done" ? "pending" : "done" } : t));
}

/** The list with a new pending item of text (an id not yet used); the same list for blank text. */
export function added(todos: Todo[], text: string): Todo[] {
  const t = text.trim();
  if (t === "") return todos;
  let n = todos.length + 1;
  while (todos.some((x) => x.id === `u${n}`)) n++;
  return [...todos, { id: `u${n}`, text: t, status: "pending" }];
}

/** The list without id. */
export function removed(todos: Todo[], id: string): Todo[] {
  return todos.filter((t) => t.id !== id);
}

/** "2 of 5 done" (cancelled items do not count). */
export function progress(todos: Todo[]): string {
  const live = todos.filter((t) => t.status !== "cancelled");
  return `${live.filter((t) => t.status === "done").length} of ${live.length} done`;
}
