/**
 * The islands' panel parts: the panel itself, its buttons, the empty state, what stands in while
 * data loads, status badges and the progress bar. The portal and the member area are built of them.
 */
import type { AllHTMLAttributes, ReactNode } from "react";

/**
 * The portal's and the member area's buttons, pills, for a <button> or a link. Their radius is 3xl,
 * not full: on one line (min-h-11) the two draw the same, and a long label ("Continue: <lesson>")
 * wraps into a rounded box rather than a lozenge.
 */
export const pillButtonClass = {
  /** The way on. */
  primary:
    "inline-flex min-h-11 max-w-full items-center justify-center gap-2 rounded-3xl bg-violet-600 px-6 py-2.5 text-center text-sm font-semibold text-white hover:bg-violet-500 disabled:cursor-wait disabled:opacity-70",
  /** Beside the way on, or alone where it is not one: outlined. */
  secondary:
    "inline-flex min-h-11 max-w-full items-center justify-center gap-2 rounded-3xl border border-white/20 px-6 py-2.5 text-center text-sm font-semibold text-white hover:bg-white/10 disabled:cursor-wait",
};

interface PanelProps extends AllHTMLAttributes<HTMLElement> {
  /** The element the panel is: a section with its heading, a list item, a paragraph that says one thing. */
  as?: "div" | "section" | "article" | "li" | "p" | "a";
  /** Half-transparent: a panel that sits back (a list of modules, an order awaiting payment). */
  muted?: boolean;
}

/** A rounded, bordered box on the panel colour; `className` adds its padding and layout. */
export function Panel({ as: Element = "div", muted = false, className = "", ...rest }: PanelProps) {
  return (
    <Element
      className={`rounded-2xl border border-white/10 ${muted ? "bg-panel/60" : "bg-panel"} ${className}`}
      {...rest}
    />
  );
}

/** Where a list has nothing in it yet: what would be there, and the way to change that. */
export function EmptyState({
  title,
  text,
  action,
}: {
  title: string;
  text: string;
  action: { href: string; label: string };
}) {
  return (
    <div className="rounded-2xl border border-dashed border-white/15 bg-panel/60 p-8 text-center">
      <p className="text-lg font-semibold text-white">{title}</p>
      <p className="mt-2 text-slate-300">{text}</p>
      <a href={action.href} className={`${pillButtonClass.primary} mt-6`}>
        {action.label}
      </a>
    </div>
  );
}

/**
 * A grey block standing in for text or a picture while data loads. It pulses only for visitors
 * who allow motion (motion-safe); assistive technology skips it (the section says it is busy).
 */
export function Skeleton({ className = "" }: { className?: string }) {
  return <span aria-hidden="true" className={`block rounded-md bg-white/10 motion-safe:animate-pulse ${className}`} />;
}

/** Said once where a section is loading, for screen readers. */
export function LoadingNote({ children = "Loading…" }: { children?: ReactNode }) {
  return <span className="sr-only">{children}</span>;
}

const TONES = {
  green: "bg-green-500/15 text-green-300 ring-green-400/30",
  yellow: "bg-yellow-400/15 text-yellow-200 ring-yellow-300/30",
  red: "bg-red-500/15 text-red-300 ring-red-400/30",
  grey: "bg-slate-500/20 text-slate-300 ring-slate-400/30",
};

/** A status badge: its tone is its colour, its label the status in words. */
export function Badge({ tone, children }: { tone: keyof typeof TONES; children: ReactNode }) {
  return (
    <span
      data-tone={tone}
      className={`inline-flex items-center rounded-full px-2.5 py-0.5 text-xs font-semibold ring-1 ring-inset ${TONES[tone]}`}
    >
      {children}
    </span>
  );
}

/** A course's completion as a bar, with its percentage for assistive technology. */
export function ProgressBar({ percent, label }: { percent: number; label: string }) {
  return (
    <div
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={percent}
      className="mt-3 h-2 w-full overflow-hidden rounded-full bg-white/10"
    >
      <div
        className="h-full rounded-full bg-gradient-to-r from-violet-500 to-sky-400"
        style={{ width: `${percent}%` }}
      />
    </div>
  );
}
