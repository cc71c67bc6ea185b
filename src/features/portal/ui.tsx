/**
 * What the portal's islands share beyond the panel parts (src/components/ui/panel.tsx): the
 * session's loading value and the customer's avatar.
 */
import type { AuthState } from "~/stores/session";

/** The session store's value on the server and in the render that hydrates it. */
export const AUTH_LOADING: AuthState = { status: "loading" };

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
