// The session's approval mode in the chat header: ask, auto-approve edits,
// auto-approve all (shown as a warning while on), plan (only what reads
// runs). Shift+Tab in the window cycles them (nextMode).

import { APPROVAL_MODES, type ApprovalMode } from "../protocol";

/** Each mode's label, its short form for a narrow header, and its explanation. */
const MODES: Record<ApprovalMode, { label: string; short: string; title: string }> = {
  ask: { label: "Ask", short: "Ask", title: "Ask before commands, file edits and workers run" },
  "auto-edits": { label: "Auto edits", short: "Edits", title: "Auto-approve edits: file edits run without asking; commands still ask" },
  "auto-all": { label: "Auto all", short: "All", title: "Auto-approve all: every call runs without asking (deny rules still apply)" },
  plan: { label: "Plan", short: "Plan", title: "Plan: only what reads runs; the agent presents a plan for you to build (Shift+Tab cycles modes)" },
};

/** The mode after mode in the order Shift+Tab cycles them. */
export function nextMode(mode: ApprovalMode): ApprovalMode {
  return APPROVAL_MODES[(APPROVAL_MODES.indexOf(mode) + 1) % APPROVAL_MODES.length]!;
}

/** The mode a record's approval_mode names (ask when absent or unknown). */
export function approvalModeOf(mode: string | undefined): ApprovalMode {
  return APPROVAL_MODES.find((m) => m === mode) ?? "ask";
}

/** Props of ApprovalModeSwitch. */
export interface ApprovalModeSwitchProps {
  mode: ApprovalMode;
  onChange: (mode: ApprovalMode) => void;
  disabled?: boolean;
}

/** A four-way switch; choosing the current mode does nothing. */
export function ApprovalModeSwitch({ mode, onChange, disabled = false }: ApprovalModeSwitchProps) {
  return (
    <div className={`mode-switch${mode === "auto-all" ? " is-warning" : ""}`} role="radiogroup" aria-label="Approval mode" data-mode={mode}>
      {APPROVAL_MODES.map((m) => (
        <button
          key={m}
          type="button"
          role="radio"
          aria-checked={m === mode}
          className={`mode-opt${m === mode ? " is-on" : ""}${m === "auto-all" ? " mode-warn" : ""}${m === "plan" ? " mode-plan" : ""}`}
          title={MODES[m].title}
          disabled={disabled}
          onClick={() => m !== mode && onChange(m)}
        >
          {m === "auto-all" && m === mode ? "⚠ " : ""}
          <span className="mode-label">{MODES[m].label}</span>
          <span className="mode-label-short" aria-hidden="true">
            {MODES[m].short}
          </span>
        </button>
      ))}
    </div>
  );
}
