/** The form parts the account pages share: fields, the password field with show/hide, the submit button, messages. */
import { useId, useState, useSyncExternalStore, type InputHTMLAttributes, type ReactNode } from "react";

export const inputClass =
  "block w-full rounded-lg border border-white/15 bg-slate-950 px-4 py-3 text-base text-white placeholder:text-slate-500 focus:border-violet-400 focus:outline-none focus:ring-2 focus:ring-violet-500/40 read-only:text-slate-400 disabled:opacity-60";

/**
 * True once React runs the island. Until then the forms' buttons stay disabled: a form sent
 * before its script runs would go out as a plain GET, with the password in the address.
 */
export function useHydrated(): boolean {
  // The server's answer (false) is what hydration renders; the browser's (true) follows at once.
  return useSyncExternalStore(
    noSubscription,
    () => true,
    () => false,
  );
}

const noSubscription = () => () => {};

interface FieldProps extends InputHTMLAttributes<HTMLInputElement> {
  label: string;
}

export function TextField({ label, id, ...input }: FieldProps) {
  const fallbackId = useId();
  const inputId = id ?? fallbackId;
  return (
    <div>
      <label htmlFor={inputId} className="mb-2 block text-sm font-medium text-slate-200">
        {label}
      </label>
      <input id={inputId} className={inputClass} {...input} />
    </div>
  );
}

/** A password input with a button that shows or hides what was typed. */
export function PasswordField({ label, id, ...input }: FieldProps) {
  const fallbackId = useId();
  const inputId = id ?? fallbackId;
  const [visible, setVisible] = useState(false);
  return (
    <div>
      <label htmlFor={inputId} className="mb-2 block text-sm font-medium text-slate-200">
        {label}
      </label>
      <div className="relative">
        <input id={inputId} type={visible ? "text" : "password"} className={`${inputClass} pr-20`} {...input} />
        <button
          type="button"
          onClick={() => setVisible((v) => !v)}
          aria-pressed={visible}
          aria-controls={inputId}
          className="absolute inset-y-1.5 right-1.5 rounded-md px-3 text-sm font-medium text-violet-300 hover:bg-white/10 hover:text-violet-200"
        >
          {visible ? "Hide" : "Show"}
          <span className="sr-only"> password</span>
        </button>
      </div>
    </div>
  );
}

export function Spinner({ className = "size-5" }: { className?: string }) {
  return (
    <svg className={`${className} animate-spin motion-reduce:animate-none`} viewBox="0 0 24 24" aria-hidden="true">
      <circle cx="12" cy="12" r="10" fill="none" stroke="currentColor" strokeOpacity="0.25" strokeWidth="4" />
      <path d="M22 12a10 10 0 0 0-10-10" fill="none" stroke="currentColor" strokeWidth="4" strokeLinecap="round" />
    </svg>
  );
}

interface SubmitProps {
  children: ReactNode;
  busy: boolean;
  disabled?: boolean;
}

/** The form's main button: disabled with a spinner while the request runs. */
export function SubmitButton({ children, busy, disabled = false }: SubmitProps) {
  return (
    <button
      type="submit"
      disabled={busy || disabled}
      aria-busy={busy}
      className="inline-flex w-full items-center justify-center gap-2 rounded-lg bg-violet-600 px-5 py-3 text-base font-semibold text-white shadow-sm transition-colors hover:bg-violet-700 disabled:cursor-not-allowed disabled:opacity-60"
    >
      {busy && <Spinner />}
      {children}
    </button>
  );
}

/**
 * A message region present from the first render, so screen readers announce what appears in it:
 * errors as alerts, other news politely.
 */
export function Message({ text, tone }: { text: string | null; tone: "error" | "success" }) {
  const look =
    tone === "error"
      ? "border-red-400/40 bg-red-950/60 text-red-100"
      : "border-emerald-400/40 bg-emerald-950/60 text-emerald-100";
  return (
    <div role={tone === "error" ? "alert" : "status"} className="empty:hidden">
      {text && <p className={`rounded-lg border px-4 py-3 text-sm ${look}`}>{text}</p>}
    </div>
  );
}

/** The id of the account pages' h1 (AuthLayout.astro), which an island may reword. */
export const AUTH_HEADING_ID = "auth-heading";
