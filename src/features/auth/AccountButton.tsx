import { useStore } from "@nanostores/react";
import { $auth } from "../../stores/session";

export type ButtonTheme = "purple" | "orange" | "green" | "blue";

/** White text on each of these passes WCAG AA contrast. */
const THEMES: Record<ButtonTheme, string> = {
  purple: "bg-violet-600 hover:bg-violet-500",
  orange: "bg-orange-700 hover:bg-orange-600",
  green: "bg-green-700 hover:bg-green-600",
  blue: "bg-blue-600 hover:bg-blue-500",
};

const BASE =
  "inline-flex h-10 min-w-24 items-center justify-center rounded-full px-5 text-sm font-semibold text-white shadow-sm transition-colors";

/** The header's account button: an ellipsis while the session loads, then Login or Portal. */
export default function AccountButton({ theme = "purple" }: { theme?: ButtonTheme }) {
  // Hydrate with the server-rendered "loading" state, then switch to what the session says.
  const auth = useStore($auth, { ssr: "initial" });
  const look = `${BASE} ${THEMES[theme]}`;
  if (auth.status === "loading") {
    return (
      <span role="status" aria-label="Loading account" className={`${look} cursor-progress`}>
        <span aria-hidden="true">…</span>
      </span>
    );
  }
  return auth.status === "signed-in" ? (
    <a href="/portal" className={look}>
      Portal
    </a>
  ) : (
    <a href="/login" className={look}>
      Login
    </a>
  );
}
