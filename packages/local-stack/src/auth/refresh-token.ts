/**
 * Refresh tokens as Supabase Auth's second algorithm makes them: no row per token, but a per-session
 * HMAC key and counter. A token is `base64url(version 0 · session id · uvarint(counter) ·
 * HMAC-SHA-256(key, those bytes)[0..16] · SHA-256(all of it)[0..4])`, so the server can tell a
 * current token (its counter equals the session's), the one just before it (a client that did not
 * save the last answer), and an older one (a leaked token). Pure: no database.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";

const SIGNATURE = 16;
const CHECKSUM = 4;
const MIN_LENGTH = 1 + 16 + 1 + SIGNATURE + CHECKSUM;

export interface RefreshToken {
  sessionId: string;
  counter: number;
}

/** A new session's HMAC key, as stored in `auth.sessions.refresh_token_hmac_key`. */
export function newHmacKey(): string {
  return randomBytes(32).toString("base64url");
}

const uuidBytes = (id: string) => Buffer.from(id.replace(/-/g, ""), "hex");
const uuidString = (bytes: Buffer) => {
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
};

function uvarint(value: number): Buffer {
  const bytes: number[] = [];
  let rest = BigInt(value);
  do {
    let byte = Number(rest & 0x7fn);
    rest >>= 7n;
    if (rest > 0n) byte |= 0x80;
    bytes.push(byte);
  } while (rest > 0n);
  return Buffer.from(bytes);
}

const sign = (key: string, bytes: Buffer) =>
  createHmac("sha256", Buffer.from(key, "base64url")).update(bytes).digest().subarray(0, SIGNATURE);

/** The token for `counter` of the session. The same inputs always give the same token. */
export function encodeRefreshToken(token: RefreshToken, key: string): string {
  const body = Buffer.concat([Buffer.from([0]), uuidBytes(token.sessionId), uvarint(token.counter)]);
  const signed = Buffer.concat([body, sign(key, body)]);
  const checksum = createHash("sha256").update(signed).digest().subarray(0, CHECKSUM);
  return Buffer.concat([signed, checksum]).toString("base64url");
}

/** The session and counter a token claims, or undefined when it is not a well-formed token. Its signature is not checked. */
export function parseRefreshToken(text: string): (RefreshToken & { raw: Buffer }) | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(text)) return undefined;
  const raw = Buffer.from(text, "base64url");
  if (raw.length < MIN_LENGTH || raw[0] !== 0) return undefined;
  const signed = raw.subarray(0, raw.length - CHECKSUM);
  const checksum = createHash("sha256").update(signed).digest().subarray(0, CHECKSUM);
  if (!checksum.equals(raw.subarray(raw.length - CHECKSUM))) return undefined;
  let counter = 0n;
  let shift = 0n;
  let at = 17;
  for (; at < signed.length - SIGNATURE; at++) {
    const byte = signed[at]!;
    counter |= BigInt(byte & 0x7f) << shift;
    shift += 7n;
    if ((byte & 0x80) === 0) break;
  }
  if (at !== signed.length - SIGNATURE - 1) return undefined;
  return { sessionId: uuidString(raw.subarray(1, 17)), counter: Number(counter), raw };
}

/** True when the token was signed with the session's key. */
export function signedWith(token: { raw: Buffer }, key: string): boolean {
  const end = token.raw.length - CHECKSUM - SIGNATURE;
  const expected = sign(key, token.raw.subarray(0, end));
  return timingSafeEqual(expected, token.raw.subarray(end, end + SIGNATURE));
}
