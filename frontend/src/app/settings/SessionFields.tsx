// What new sessions get: an automatic title, and desktop notifications
// (a page setting, kept in localStorage, not in settings.json).

import { useState } from "react";
import { NOTIFY_KEY, notificationsEnabled, pageNotifications } from "../attention";
import type { FormProps } from "./fields";

/** The Sessions fieldset. */
export function SessionFields({ form, setForm }: FormProps) {
  const [notify, setNotify] = useState(notificationsEnabled);
  const toggleNotify = async (on: boolean) => {
    const api = pageNotifications();
    if (on && api && api.permission === "default") await api.requestPermission().catch(() => "denied");
    localStorage.setItem(NOTIFY_KEY, on ? "on" : "off");
    setNotify(on);
  };
  return (
    <fieldset>
      <legend>Sessions</legend>
      <label className="check">
        <input type="checkbox" checked={form.auto_title ?? true} onChange={(e) => setForm({ ...form, auto_title: e.target.checked })} />
        Name new sessions after their first answer (one short model call)
      </label>
      <label className="check">
        <input type="checkbox" data-testid="notify-toggle" checked={notify} onChange={(e) => void toggleNotify(e.target.checked)} />
        Desktop notification when a turn finishes or a tool call waits while this window is in the background
      </label>
    </fieldset>
  );
}
