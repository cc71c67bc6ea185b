/**
 * Where sign-in returns to: the portal page, or the checkout of a program (`/checkout/<key>`, which
 * asks a visitor whose address has an account to sign in), that sent the visitor to /login
 * (`?next=`); else /portal. Only those paths of this site are followed, so a crafted login link
 * cannot send a customer who just signed in to another site (an open redirect) or to a page that
 * is not theirs.
 */
export const PORTAL_HOME = "/portal";

/** A program's checkout page: /checkout/<checkout key>. */
const CHECKOUT = /^\/checkout\/[A-Za-z0-9_-]+$/;

export function returnPath(next: string | null | undefined): string {
  if (!next) return PORTAL_HOME;
  // Resolve against a fixed origin: "//evil.example", "https://…" and "/\evil" land elsewhere and are refused.
  const base = "https://site.invalid";
  let url: URL;
  try {
    url = new URL(next, base);
  } catch {
    return PORTAL_HOME;
  }
  if (url.origin !== base || !next.startsWith("/")) return PORTAL_HOME;
  const portal = url.pathname === PORTAL_HOME || url.pathname.startsWith(`${PORTAL_HOME}/`);
  if (!portal && !CHECKOUT.test(url.pathname)) return PORTAL_HOME;
  return `${url.pathname}${url.search}${url.hash}`;
}

/** The login address that brings the visitor back to `path` (a portal or checkout page) after sign-in. */
export function loginPath(path: string): string {
  const back = returnPath(path);
  return back === PORTAL_HOME ? "/login" : `/login?next=${encodeURIComponent(back)}`;
}
