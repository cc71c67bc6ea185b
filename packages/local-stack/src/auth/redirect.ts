/**
 * Where Supabase Auth may send a browser back to (GoTrue's `IsRedirectURLValid`): the site
 * (`site_url`: same scheme, host and port, any port on a loopback host), any loopback IP address,
 * or a URL matching one of `additional_redirect_urls`. Those are glob patterns in which `*`
 * matches within one host label or path segment (not `.` or `/`), `**` matches across them, and
 * `?` matches one such character. A redirect that is not allowed falls back to `site_url`. Pure.
 */
import { isIP } from "node:net";

const LOCALHOST = new Set(["localhost", "127.0.0.1", "::1", "0.0.0.0", "::"]);
const REGULAR_HOSTNAME = /^[a-zA-Z0-9]([a-zA-Z0-9.-]*[a-zA-Z0-9])?$/;

/** A URL's host name as Go's `url.Hostname()` gives it: IPv6 without brackets, lowercase is not applied. */
const hostname = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, "$1");

export function isRedirectAllowed(
  target: string | null | undefined,
  siteUrl: string,
  patterns: readonly string[],
): boolean {
  if (!target) return false;
  let base: URL;
  let url: URL;
  try {
    base = new URL(siteUrl);
    url = new URL(target);
  } catch {
    return false;
  }
  if (
    hostname(base) === hostname(url) &&
    base.protocol === url.protocol &&
    (base.port === url.port || LOCALHOST.has(hostname(url).toLowerCase()))
  ) {
    return true;
  }
  const host = hostname(url);
  const http = url.protocol === "http:" || url.protocol === "https:";
  if (/^[0-9]+$/.test(host)) return false;
  if (isIP(host)) return isLoopbackIp(host);
  if (http && !REGULAR_HOSTNAME.test(host)) return false;
  const withoutFragment = target.split("#")[0]!;
  return patterns.some((pattern) => globMatches(pattern, withoutFragment));
}

function isLoopbackIp(ip: string): boolean {
  return ip.startsWith("127.") || ip === "::1" || /^::ffff:127\./i.test(ip);
}

/** The redirect GoTrue uses: the requested one when allowed, else the Referer when allowed, else `site_url`. */
export function referrer(
  requested: string | null | undefined,
  refererHeader: string | null | undefined,
  siteUrl: string,
  patterns: readonly string[],
): string {
  if (isRedirectAllowed(requested, siteUrl, patterns)) return requested!;
  if (isRedirectAllowed(refererHeader, siteUrl, patterns)) return refererHeader!;
  return siteUrl;
}

/** Matches `text` against a glob whose separators are `.` and `/`. */
export function globMatches(pattern: string, text: string): boolean {
  let regex = "";
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i]!;
    if (char === "*" && pattern[i + 1] === "*") {
      regex += ".*";
      i++;
    } else if (char === "*") regex += "[^./]*";
    else if (char === "?") regex += "[^./]";
    else if (char === "\\" && i + 1 < pattern.length) regex += escape(pattern[++i]!);
    else regex += escape(char);
  }
  return new RegExp(`^${regex}$`, "s").test(text);
}

const escape = (char: string) => char.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
