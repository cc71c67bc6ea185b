/**
 * SHA-256 in hex, with the Web Crypto API both runtimes have (Node for the local stack and the
 * tests, Deno on Supabase Edge). The functions key things on digests where they need to tell
 * values apart without keeping them: idempotency keys, rate-limit keys, order references.
 */
export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}
