/**
 * A request body read with a ceiling. `request.text()` and `request.json()` buffer whatever is
 * sent before anything checks it, and a hosted Edge Function's worker has 256 MB: a few posts of
 * tens of megabytes would take it down for every buyer. So the body is streamed and the read
 * stops at the first chunk past the limit; a declared Content-Length over it is refused unread.
 */

/** The body as text, or null when it is larger than `limit` bytes. */
export async function readCapped(request: Request, limit: number): Promise<string | null> {
  const declared = Number(request.headers.get("content-length") ?? NaN);
  if (declared > limit) return null;
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}

/** The 413 message for a body over `limit` bytes. */
export const tooLarge = (limit: number) =>
  `The request is larger than ${limit >= 1024 * 1024 ? `${limit / 1024 / 1024} MB` : `${limit / 1024} KB`}.`;

/** A JSON body as parsed, or the refusal to answer: 413 over `limit` bytes, 400 when it is not JSON. */
export async function readJson(
  request: Request,
  limit: number,
): Promise<{ ok: true; body: unknown } | { ok: false; status: 400 | 413; error: string }> {
  const text = await readCapped(request, limit);
  if (text === null) return { ok: false, status: 413, error: tooLarge(limit) };
  try {
    return { ok: true, body: JSON.parse(text) };
  } catch {
    return { ok: false, status: 400, error: "The request body must be JSON." };
  }
}
