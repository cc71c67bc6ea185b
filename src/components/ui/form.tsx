/**
 * The islands' form parts: a field (a label, its input, an optional hint) in the account pages'
 * roomy look or the portal's compact one, the password field with show/hide, the submit button and
 * the account pages' other buttons, the message region, the spinner, and whether the island runs
 * yet. The account pages, checkout and the portal's settings are built of them. The looks are
 * exported as class lists too, for a form that is not React, such as the lead form
 * (src/features/leads/ConsultationForm.astro). The portal's buttons are pills, with its panels
 * (./panel.tsx).
 */
import { useId, useState, useSyncExternalStore, type InputHTMLAttributes, type ReactNode } from "react";

/** The account pages' and checkout's input: roomy, with a violet focus ring. */
export const inputClass =
  "block w-full rounded-lg border border-white/15 bg-slate-950 px-4 py-3 text-base text-white placeholder:text-slate-500 focus:border-violet-400 focus:outline-none focus:ring-2 focus:ring-violet-500/40 disabled:opacity-60 [&:is(input,textarea):read-only]:text-slate-400";

/**
 * A select's look: the input's, with its placeholder option ("Choose a range", `data-placeholder`)
 * grey while it is the one chosen (slate-400: a select's text is content, held to 4.5:1, unlike an
 * input's placeholder), and a chosen value white. (A select
 * is never read-write, so `:read-only` matches it: the input's read-only grey is kept to inputs.)
 */
export const selectClass = `${inputClass} has-[[data-placeholder]:checked]:text-slate-400`;

/** The portal's denser input (its settings form sits in two columns), with the site's focus outline. */
const compactInputClass =
  "block w-full rounded-lg border border-white/15 bg-slate-950 px-3 py-2.5 text-white placeholder:text-slate-500 focus-visible:border-violet-400 read-only:cursor-default read-only:bg-white/5";

/** A field's label, above its input. */
export const labelClass = "mb-2 block text-sm font-medium text-slate-200";

/**
 * A form's full-width submit button (the account pages, checkout). Disabled, it reads as disabled:
 * grey, not a paler violet; while its request runs it keeps its colour and shows a spinner.
 */
export const submitButtonClass =
  "inline-flex w-full items-center justify-center gap-2 rounded-lg bg-violet-600 px-5 py-3 text-base font-semibold text-white shadow-sm transition-colors hover:bg-violet-700 disabled:cursor-not-allowed disabled:not-aria-busy:bg-slate-700 disabled:not-aria-busy:text-slate-300 disabled:not-aria-busy:shadow-none aria-busy:opacity-80";

/** The account pages' other main action, a <button> or a link: Continue, or the way on from a message. */
export const blockButtonClass =
  "inline-flex items-center justify-center gap-2 rounded-lg bg-violet-600 px-5 py-3 font-semibold text-white hover:bg-violet-500 disabled:cursor-not-allowed disabled:opacity-60";

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
  /** A line under the input that describes it, read with it (aria-describedby). */
  hint?: ReactNode;
  /** The portal's denser look. */
  compact?: boolean;
  /** Classes of the field's box (its span in a grid, say); the input's look is the field's own. */
  className?: string;
}

/** The label, the input (given as children) and the hint: what every field has around its input. */
function Field({
  label,
  inputId,
  hint,
  compact,
  className,
  children,
}: Pick<FieldProps, "label" | "hint" | "compact" | "className"> & { inputId: string; children: ReactNode }) {
  return (
    <div className={className}>
      <label htmlFor={inputId} className={labelClass}>
        {label}
      </label>
      {children}
      {hint && (
        <p id={`${inputId}-hint`} className={compact ? "mt-1.5 text-xs text-slate-400" : "mt-2 text-sm text-slate-400"}>
          {hint}
        </p>
      )}
    </div>
  );
}

/** The input's id (the caller's, or one React makes) and the attributes that tie it to its hint. */
function useField(id: string | undefined, { hint, compact }: Pick<FieldProps, "hint" | "compact">) {
  const fallbackId = useId();
  const inputId = id ?? fallbackId;
  return {
    inputId,
    input: {
      id: inputId,
      className: compact ? compactInputClass : inputClass,
      "aria-describedby": hint ? `${inputId}-hint` : undefined,
    },
  };
}

export function TextField({ label, id, hint, compact = false, className, ...input }: FieldProps) {
  const field = useField(id, { hint, compact });
  return (
    <Field label={label} inputId={field.inputId} hint={hint} compact={compact} className={className}>
      <input {...field.input} {...input} />
    </Field>
  );
}

/** A password input with a button that shows or hides what was typed. */
export function PasswordField({ label, id, hint, compact = false, className, ...input }: FieldProps) {
  const field = useField(id, { hint, compact });
  const [visible, setVisible] = useState(false);
  return (
    <Field label={label} inputId={field.inputId} hint={hint} compact={compact} className={className}>
      <div className="relative">
        <input
          {...field.input}
          type={visible ? "text" : "password"}
          className={`${field.input.className} pr-20`}
          {...input}
        />
        <button
          type="button"
          onClick={() => setVisible((v) => !v)}
          aria-pressed={visible}
          aria-controls={field.inputId}
          className="absolute inset-y-1.5 right-1.5 rounded-md px-3 text-sm font-medium text-violet-300 hover:bg-white/10 hover:text-violet-200"
        >
          {visible ? "Hide" : "Show"}
          <span className="sr-only"> password</span>
        </button>
      </div>
    </Field>
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
  /** The id of the line that says what the button waits for, read with it. */
  describedBy?: string;
}

/** The form's main button: disabled with a spinner while the request runs. */
export function SubmitButton({ children, busy, disabled = false, describedBy }: SubmitProps) {
  return (
    <button
      type="submit"
      disabled={busy || disabled}
      aria-busy={busy}
      aria-describedby={describedBy}
      className={submitButtonClass}
    >
      {busy && <Spinner />}
      {children}
    </button>
  );
}

/** A full-width action outside a form (Continue, Sign Out…): disabled with a spinner while it runs. */
export function ActionButton({ children, busy, onClick }: { children: ReactNode; busy: boolean; onClick: () => void }) {
  return (
    <button
      type="button"
      onClick={onClick}
      disabled={busy}
      aria-busy={busy}
      className={`${blockButtonClass} mt-8 w-full`}
    >
      {busy && <Spinner />}
      {children}
    </button>
  );
}

/** What a message says, boxed in its tone. */
export const messageClass = {
  error: "rounded-lg border border-red-400/40 bg-red-950/60 px-4 py-3 text-sm text-red-100",
  success: "rounded-lg border border-emerald-400/40 bg-emerald-950/60 px-4 py-3 text-sm text-emerald-100",
};

/**
 * A message region present from the first render, so screen readers announce what appears in it:
 * errors as alerts, other news politely.
 */
export function Message({ text, tone }: { text: string | null; tone: keyof typeof messageClass }) {
  return (
    <div role={tone === "error" ? "alert" : "status"} className="empty:hidden">
      {text && <p className={messageClass[tone]}>{text}</p>}
    </div>
  );
}
