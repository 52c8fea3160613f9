// The help dialog (? or the sidebar's help button): the keyboard shortcuts,
// and About — the version, build commit, data folder, what confines bash
// here (on Windows and macOS: that nothing does) and this launch's log file.

import { useEffect, useRef } from "react";
import { Icon } from "./Icon";
import type { AppInfo } from "./info";
import { LOCAL_KEYS, SHORTCUTS } from "./shortcuts";
import { useModal } from "../chat/modals";

/** The help dialog; Esc or the backdrop closes it. */
export function HelpDialog({ onClose, info }: { onClose: () => void; info?: AppInfo }) {
  useModal();
  const close = useRef<HTMLButtonElement>(null);
  useEffect(() => close.current?.focus(), []);
  const rows = [...SHORTCUTS.map((s) => ({ keys: s.keys, description: s.description })), ...LOCAL_KEYS];
  return (
    <div className="modal-backdrop" onMouseDown={(e) => e.target === e.currentTarget && onClose()} onKeyDown={(e) => e.key === "Escape" && onClose()}>
      <div className="modal help-dialog" role="dialog" aria-modal="true" aria-labelledby="help-title">
        <div className="modal-head">
          <h2 id="help-title">Keyboard shortcuts</h2>
          <button ref={close} type="button" className="icon-btn" aria-label="Close" onClick={onClose}>
            <Icon name="close" />
          </button>
        </div>
        <table className="help-keys">
          <tbody>
            {rows.map((r) => (
              <tr key={r.keys}>
                <td>
                  <kbd>{r.keys}</kbd>
                </td>
                <td>{r.description}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {info && (
          <section className="help-about" aria-labelledby="about-title" data-testid="about">
            <h3 id="about-title">About {info.name}</h3>
            <dl>
              <dt>Version</dt>
              <dd>
                {info.version}
                {info.commit ? ` (commit ${info.commit})` : ""}
              </dd>
              <dt>Data folder</dt>
              <dd>
                <code>{info.data_dir}</code>
              </dd>
              {info.sandbox && (
                <>
                  <dt>Bash sandbox</dt>
                  <dd data-testid="about-sandbox">{info.sandbox}</dd>
                </>
              )}
              {info.log_file && (
                <>
                  <dt>Log file</dt>
                  <dd>
                    <code>{info.log_file}</code>
                  </dd>
                </>
              )}
            </dl>
          </section>
        )}
      </div>
    </div>
  );
}
