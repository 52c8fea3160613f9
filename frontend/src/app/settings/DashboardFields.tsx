// The browser dashboard: on or off for the desktop app, and its URL (with
// the token) to copy when it runs.

import { useState } from "react";
import type { FormProps } from "./fields";

/** The Dashboard fieldset; url is the running dashboard's ("" when off). */
export function DashboardFields({ form, setForm, url }: FormProps & { url: string }) {
  const [copied, setCopied] = useState(false);
  const copy = () => {
    void navigator.clipboard?.writeText(url).then(() => setCopied(true), () => undefined);
  };
  return (
    <fieldset>
      <legend>Dashboard</legend>
      <label className="check">
        <input type="checkbox" checked={form.dashboard_enabled ?? false} onChange={(e) => setForm({ ...form, dashboard_enabled: e.target.checked })} />
        Serve the browser dashboard on localhost (desktop app, from the next start)
      </label>
      {url && (
        <div className="copy-row">
          <code data-testid="dashboard-url">{url}</code>
          <button type="button" className="btn btn-xs" onClick={copy}>
            {copied ? "Copied" : "Copy"}
          </button>
        </div>
      )}
    </fieldset>
  );
}
