/** Small pieces the portal's islands share: skeletons, status badges, the avatar. */
import type { ReactNode } from "react";
import type { AuthState } from "../../stores/session";
import type { BadgeTone } from "./logic";

/** The session store's value on the server and in the render that hydrates it. */
export const AUTH_LOADING: AuthState = { status: "loading" };

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

const TONES: Record<BadgeTone, string> = {
  green: "bg-green-500/15 text-green-300 ring-green-400/30",
  yellow: "bg-yellow-400/15 text-yellow-200 ring-yellow-300/30",
  red: "bg-red-500/15 text-red-300 ring-red-400/30",
  grey: "bg-slate-500/20 text-slate-300 ring-slate-400/30",
};

/** A status badge: its tone is its colour, its label the status in words. */
export function Badge({ tone, children }: { tone: BadgeTone; children: ReactNode }) {
  return (
    <span
      data-tone={tone}
      className={`inline-flex items-center rounded-full px-2.5 py-0.5 text-xs font-semibold ring-1 ring-inset ${TONES[tone]}`}
    >
      {children}
    </span>
  );
}

/**
 * The customer's picture, or the first letter of their name on a violet disc. `label` is its
 * alternative text; leave it empty where the name is said next to it.
 */
export function Avatar({
  url,
  name,
  size,
  label = "",
}: {
  url?: string | null;
  name: string;
  size: "sm" | "lg";
  label?: string;
}) {
  const box = size === "lg" ? "size-24 text-3xl" : "size-14 text-xl";
  const pixels = size === "lg" ? 96 : 56;
  if (url)
    return (
      <img
        src={url}
        alt={label}
        width={pixels}
        height={pixels}
        className={`${box} shrink-0 rounded-full border border-white/15 bg-slate-800 object-cover`}
      />
    );
  const initial = name.trim().charAt(0).toUpperCase() || "?";
  return (
    <span
      role={label ? "img" : undefined}
      aria-label={label || undefined}
      aria-hidden={label ? undefined : true}
      className={`${box} flex shrink-0 items-center justify-center rounded-full bg-gradient-to-br from-violet-600 to-blue-600 font-bold text-white`}
    >
      {initial}
    </span>
  );
}
