/**
 * Which Host headers the stack's own pages under `/_local` answer: the outbox (password-reset and
 * invite links), the Stripe stand-in's dashboard (settle, refund, expire; the webhook signing
 * secret) and the Resend stand-in. They answer connections from this machine only
 * (packages/local-stack/src/stack.ts, `isLoopback`), but a browser here connects from loopback
 * whatever page asks: a site on an attacker's domain whose DNS answer turns to 127.0.0.1 after the
 * page has loaded (DNS rebinding) reaches the stack as its own origin, and its script could read
 * these pages and post to them. Such a request carries the attacker's name in Host. So the pages
 * answer only a Host that names this stack: `localhost`, a loopback address (127.0.0.0/8, `[::1]`),
 * or the address the stack was told to listen on (HOST, `listen`: `0.0.0.0`, a network address or
 * name), none of which a stranger's DNS can point a page at.
 *
 * On any port: rebinding cannot forge the name, while the port is whatever the browser's address
 * said, which is not the stack's behind `ssh -L 8080:localhost:4321` or a proxy; pinning it would
 * refuse those and protect nothing more.
 *
 * The API routes (`/auth/v1`, `/rest/v1`, …) keep answering any Host, as the Supabase CLI's
 * gateway does (its Kong routes match paths, not hosts): they answer every origin with CORS `*`
 * already, so rebinding reads nothing there that any page cannot, and other machines reach a stack
 * started with HOST by whatever name they know it.
 */
import { isIP } from "node:net";

/** The host part of a Host header, normalised as a browser writes it (lower case, IPv6 in brackets); null if malformed. */
export function hostOf(header: string | undefined): string | null {
  const match = /^(\[[0-9a-f:.]+\]|[a-z0-9._-]+)(?::\d{1,5})?$/i.exec(header ?? "");
  if (!match) return null;
  try {
    return new URL(`http://${match[1]}`).hostname;
  } catch {
    return null;
  }
}

/** The host name `listen` gives the stack's own address (IPv6 in brackets), as `hostOf` writes it. */
function listenHost(listen: string): string | null {
  return hostOf(isIP(listen) === 6 ? `[${listen}]` : listen);
}

/** True for a Host header that names this stack, listening on `listen`. */
export function isLocalHost(header: string | undefined, listen: string): boolean {
  const host = hostOf(header);
  if (host === null) return false;
  if (host === "localhost" || host === "[::1]") return true;
  if (isIP(host) === 4 && host.startsWith("127.")) return true;
  return host === listenHost(listen);
}

/** The answer to a `/_local` request with another Host: 421 Misdirected Request (RFC 9110), naming the rule. */
export function misdirected(header: string | undefined, listen: string): Response {
  const own = listenHost(listen);
  const names = ["localhost", "127.0.0.1", "[::1]", ...(own && !isLocalHost(own, "") ? [own] : [])];
  const message = [
    header === undefined
      ? "Misdirected request: the request has no Host header."
      : `Misdirected request: the Host header ${JSON.stringify(header)} does not name this local stack.`,
    `The stack's /_local pages answer only the Host ${names.join(", ")} (on any port), so that a web page on another domain cannot read them by pointing its name at this machine (DNS rebinding).`,
    "",
  ].join("\n");
  return new Response(message, { status: 421, headers: { "content-type": "text/plain; charset=utf-8" } });
}
