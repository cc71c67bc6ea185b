/**
 * The local stack's stand-in for Resend, the mail provider the functions send their own e-mails
 * through (functions/_shared/mail.ts, with the `resend` library): `POST /emails` of Resend's API,
 * answered at `/_local/resend/emails` on the stack (RESEND_API_URL is `<stack>/_local/resend`, the
 * library's `baseUrl`), to this machine only like every `/_local` page. Every accepted e-mail lands
 * in the outbox (packages/local-stack/src/mail.ts) with its sender and reply-to. It answers as
 * Resend does:
 * - a `User-Agent` is required (Resend's edge refuses a request without one with 403, error code
 *   1010), then the team's API key as a bearer token: none is 401 `missing_api_key`, another is
 *   400 `validation_error` "API key is invalid" (what the live API answers; the error reference
 *   once listed a 403 `invalid_api_key`, which its current version no longer names);
 * - a per-team rate limit of `rateLimit` requests a second (Resend's documented default: 10),
 *   with the `ratelimit-limit`, `ratelimit-policy` (`10;w=1`), `ratelimit-remaining` and
 *   `ratelimit-reset` headers on every answer to the team, and 429 `rate_limit_exceeded` with
 *   `retry-after` past it;
 * - `Idempotency-Key` (1 to 256 characters, else 400 `invalid_idempotency_key`): the same key
 *   with the same payload within 24 hours answers the first send's `{ id }` and sends nothing;
 *   with another payload 409 `invalid_idempotent_request`; while the first request with the key
 *   is still being answered, 409 `concurrent_idempotent_requests`. Only accepted sends are kept,
 *   so a refused request may be retried under its key. The keys are kept in the data folder
 *   (`resend/idempotency.jsonl`), so a restarted stack does not send again;
 * - the fields: `from`, `to` (a string or up to 50), `subject`, and `html` or `text`, with 422
 *   `missing_required_field` or `validation_error` and Resend's messages; addresses as
 *   `addr@domain` or `Name <addr@domain>`; `reply_to`; `tags` of ASCII letters, digits, `_`, `-`.
 *   `text` left out is made from `html`, as Resend does. What the product does not send (cc, bcc,
 *   templates, scheduling, custom headers, topics) is refused naming the stand-in;
 * - `attachments` (`readAttachments`), each `{ filename, content }` with `content` the file in
 *   base64, as the library sends it (it turns a Buffer or Uint8Array into base64 itself), and an
 *   optional `content_type`, derived from the file name when not set; at most 40 MB of base64 in
 *   all (422 past it). An attachment without `filename` or `content`, or whose content is not
 *   base64, is refused with 422 `validation_error` in the stand-in's own words (Resend's are not
 *   documented). What the product does not send is refused naming the stand-in: `path` (a file
 *   Resend would fetch from a URL), `content_id` (an inline image) and content that is not a
 *   base64 string. The files land in the outbox with the message, to download from its page.
 * Errors are Resend's `{ statusCode, message, name }`. Dev and test only: production is Resend.
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { existsSync, readFileSync, renameSync } from "node:fs";
import { join } from "node:path";
import { htmlToText } from "./auth/template.ts";
import { appendPrivateFileSync, makePrivateFolder, writePrivateFileSync } from "./data-folder.ts";
import { BodyTooLarge, canonical, MAX_BODY_BYTES, readBody } from "./http.ts";
import type { MailAttachment, Mailer } from "./mail.ts";

/** Where the API answers on the stack: RESEND_API_URL. */
export const RESEND_PATH = "/_local/resend";

/** Resend's default rate limit: "10 requests per second per team" (API reference, Rate limit). */
export const DEFAULT_RATE_LIMIT = 10;

/** "Idempotency keys expire after 24 hours" (Send Email, Headers). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** "Max 50" recipients (Send Email, `to`). */
const MAX_RECIPIENTS = 50;

const ADDRESS_FORMAT =
  "The email address needs to follow the `email@example.com` or `Name <email@example.com>` format.";

export interface ResendOptions {
  /** Requests a second the team may make; default Resend's 10. Tests lower or raise it. */
  rateLimit?: number;
  /**
   * How long an accepted send takes to answer, in milliseconds; default 0. Tests of concurrent
   * requests under one key give it a moment in which the first is still in progress.
   */
  latencyMs?: number;
}

/** The stand-in as the stack, tests and the functions' environment see it. */
export interface ResendStandIn {
  /** The team's API key: RESEND_API_KEY. */
  apiKey: string;
  /** The API's address: RESEND_API_URL, the `resend` library's `baseUrl`. */
  apiUrl: string;
}

export interface ResendService {
  handle: ResendStandIn;
  /** Answers `/_local/resend/...`; null for other paths. */
  answer(request: Request): Promise<Response | null>;
}

/** One accepted send under an idempotency key, as `resend/idempotency.jsonl` keeps it. */
interface Kept {
  key: string;
  fingerprint: string;
  body: string;
  at: number;
}

/** A refusal, answered as Resend's error body. */
export class ResendError extends Error {
  readonly status: number;
  /** Resend's error type: the body's `name`. */
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** Resend's error body: `{"statusCode":404,"message":"API key not found","name":"not_found"}` (resend-node's recorded answers). */
const errorBody = (error: ResendError) =>
  JSON.stringify({ statusCode: error.status, message: error.message, name: error.code });

const JSON_TYPE = "application/json; charset=utf-8";

/** Random letters and digits, as Resend's keys are made of. */
function randomKeyPart(length: number): string {
  const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  return [...randomBytes(length)].map((byte) => alphabet[byte % alphabet.length]).join("");
}

/** The team's key: made once per data folder (kept in `resend/keys.json`), or per in-memory stack. */
function loadKey(dir: string | undefined): string {
  const file = dir ? join(dir, "keys.json") : undefined;
  if (file && existsSync(file)) return (JSON.parse(readFileSync(file, "utf8")) as { apiKey: string }).apiKey;
  // Resend's keys are `re_` and letters; `re_local_` says where this one works.
  const apiKey = `re_local_${randomKeyPart(32)}`;
  if (file) writePrivateFileSync(file, JSON.stringify({ apiKey }, null, 2));
  return apiKey;
}

/**
 * The keys of the last 24 hours: the lines of `idempotency.jsonl`, written again without the
 * expired ones at start (a line torn by a kill mid-write is skipped).
 */
function loadKept(file: string | undefined): Map<string, Kept> {
  const kept = new Map<string, Kept>();
  if (!file || !existsSync(file)) return kept;
  const now = Date.now();
  for (const line of readFileSync(file, "utf8").split("\n")) {
    try {
      const record = JSON.parse(line) as Kept;
      if (now - record.at < IDEMPOTENCY_TTL_MS) kept.set(record.key, record);
    } catch {
      // An empty or torn line.
    }
  }
  const temporary = `${file}.${process.pid}.tmp`;
  writePrivateFileSync(temporary, [...kept.values()].map((record) => `${JSON.stringify(record)}\n`).join(""));
  renameSync(temporary, file);
  return kept;
}

const ADDRESS = /^[^\s@<>",;:()[\]\\]+@[^\s@<>",;:()[\]\\]+\.[^\s@<>",;:()[\]\\]+$/;

/** An address as Resend takes it: `addr@domain`, or `Name <addr@domain>` (the name may be quoted). */
export function parseAddress(value: string): { name: string | null; address: string } | null {
  const named = /^\s*(?:"([^"]*)"|([^"<>]*?))\s*<\s*([^<>\s]+)\s*>\s*$/.exec(value);
  if (named) {
    const address = named[3]!;
    return ADDRESS.test(address) ? { name: (named[1] ?? named[2] ?? "").trim() || null, address } : null;
  }
  const bare = value.trim();
  return ADDRESS.test(bare) ? { name: null, address: bare } : null;
}

const missing = (field: string) => new ResendError(422, "missing_required_field", `Missing \`${field}\` field.`);
const invalid = (message: string) => new ResendError(422, "validation_error", message);

/** A `string | string[]` field of addresses, each checked; refused with Resend's "Invalid `<field>` field." */
function addresses(body: Record<string, unknown>, field: string, max = Infinity): string[] {
  const value = body[field];
  const list = typeof value === "string" ? [value] : value;
  if (!Array.isArray(list) || list.some((item) => typeof item !== "string" || !parseAddress(item))) {
    throw invalid(`Invalid \`${field}\` field. ${ADDRESS_FORMAT}`);
  }
  // The stand-in's own wording: Resend's message for more than 50 recipients is not documented.
  if (list.length > max) throw invalid(`Invalid \`${field}\` field. The maximum number of recipients is ${max}.`);
  return list as string[];
}

const present = (value: unknown) => value !== undefined && value !== null && value !== "";

/** Fields Resend takes that the product never sends: refused rather than dropped from the outbox. */
const NOT_IMPLEMENTED = ["cc", "bcc", "template", "scheduled_at", "headers", "topic_id"];

const notImplemented = (field: string, what = "") =>
  invalid(`The local Resend stand-in does not implement \`${field}\`${what}: the product does not send it.`);

/**
 * "Filename and content of attachments (max 40MB per email, after Base64 encoding of the
 * attachments)" (Send Email, `attachments`): the base64 of every attachment, added up. The
 * reference does not say whether its MB is 10^6 or 2^20 bytes; the stand-in takes the smaller, so
 * nothing it accepts can be refused for its size in production. It fits under the stand-in's own
 * cap on a request body (MAX_BODY_BYTES in http.ts, 50 MiB), so an e-mail just over it is still
 * read and gets this 422; only a body over the cap is refused unread (400, see `send`).
 */
export const MAX_ATTACHMENTS_BYTES = 40_000_000;

/**
 * Media types by extension, for an attachment without `content_type`: "if not set will be derived
 * from the filename property" (the `resend` library's Attachment type; Send Email,
 * `content_type`). The types are IANA's registered ones for the extensions; any other extension,
 * or none, is `application/octet-stream`, the type of bytes of no known kind (RFC 2046).
 */
const TYPES: Record<string, string> = {
  ics: "text/calendar",
  ifb: "text/calendar",
  vcf: "text/vcard",
  txt: "text/plain",
  csv: "text/csv",
  htm: "text/html",
  html: "text/html",
  md: "text/markdown",
  pdf: "application/pdf",
  json: "application/json",
  xml: "application/xml",
  zip: "application/zip",
  gz: "application/gzip",
  doc: "application/msword",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  xls: "application/vnd.ms-excel",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  ppt: "application/vnd.ms-powerpoint",
  pptx: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  svg: "image/svg+xml",
  mp3: "audio/mpeg",
  mp4: "video/mp4",
};

/** The media type of a file by its name's extension, in any case: `cohort.ics` is `text/calendar`. */
export function contentTypeFor(filename: string): string {
  const extension = /\.([^./\\]+)$/.exec(filename)?.[1]?.toLowerCase();
  return (extension && Object.hasOwn(TYPES, extension) ? TYPES[extension] : undefined) ?? "application/octet-stream";
}

/**
 * A media type as a header carries it, `type/subtype` and parameters (RFC 6838, RFC 9110), in
 * printable ASCII: the stand-in's own check, so the download's `content-type` is one.
 */
const MEDIA_TYPE = /^[A-Za-z0-9!#$&^_.+-]+\/[A-Za-z0-9!#$&^_.+-]+(?:[ \t]*;[\x20-\x7e]*)?$/;

/**
 * The bytes of `content` if it is base64 (RFC 4648, section 4: the standard alphabet, padded to
 * whole groups of four as section 3.2 requires), line breaks and spaces between the characters
 * allowed (as `base64` wraps its output, RFC 2045); null otherwise. Checked by decoding and
 * encoding again, which gives the text back only when it is such base64: Node's decoder skips what
 * is not of the alphabet rather than refusing it.
 */
export function decodeBase64(content: string): { bytes: Buffer; base64: string } | null {
  const base64 = content.replace(/[\t\n\r ]/g, "");
  const bytes = Buffer.from(base64, "base64");
  return bytes.toString("base64") === base64 ? { bytes, base64 } : null;
}

/**
 * The `attachments` of a send, as the outbox keeps them; refused with 422 `validation_error`.
 * Resend documents the fields (Send Email, `attachments`: `content`, `filename`, `path`,
 * `content_type`, `content_id`) and the 40 MB limit, not its messages: each below is the
 * stand-in's own, naming the attachment (`attachments[1].filename`) as Resend's name a field.
 * Checked in order: the list, then each attachment's fields, then the total size, then each
 * content's base64 (the one check that reads the whole of every file).
 */
export function readAttachments(value: unknown): MailAttachment[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    throw invalid("Invalid `attachments` field. It must be a list of attachments, each with `filename` and `content`.");
  }
  const read = value.map((item: unknown, i) => {
    const name = `attachments[${i}]`;
    if (!item || typeof item !== "object" || Array.isArray(item)) {
      throw invalid(`Invalid \`${name}\` field. An attachment is an object with \`filename\` and \`content\`.`);
    }
    const attachment = item as Record<string, unknown>;
    // A remote file Resend would fetch, and an inline image the html shows by `cid:`: the product
    // sends files it made, as attachments.
    if (present(attachment.path)) throw notImplemented(`${name}.path`, " (a file fetched from a URL)");
    if (present(attachment.content_id)) throw notImplemented(`${name}.content_id`, " (an inline image)");
    if (!present(attachment.filename)) throw invalid(`Missing \`${name}.filename\` field.`);
    if (typeof attachment.filename !== "string") {
      throw invalid(`Invalid \`${name}.filename\` field. It must be the file's name, a string.`);
    }
    if (!present(attachment.content)) throw invalid(`Missing \`${name}.content\` field.`);
    // Over JSON, a "buffer" could only be Node's `{ type: "Buffer", data: [...] }`; the library
    // sends every file as base64, and so does the product.
    if (typeof attachment.content !== "string") {
      throw notImplemented(`${name}.content`, " other than a base64 string");
    }
    let contentType: string | undefined;
    if (present(attachment.content_type)) {
      if (typeof attachment.content_type !== "string" || !MEDIA_TYPE.test(attachment.content_type)) {
        throw invalid(`Invalid \`${name}.content_type\` field. It must be a media type, such as \`text/calendar\`.`);
      }
      contentType = attachment.content_type;
    }
    return { name, filename: attachment.filename, content: attachment.content, contentType };
  });
  const total = read.reduce((sum, attachment) => sum + attachment.content.length, 0);
  if (total > MAX_ATTACHMENTS_BYTES) {
    throw invalid(
      `Attachments may be at most 40MB per email (${MAX_ATTACHMENTS_BYTES} bytes), after Base64 encoding; these are ${total} bytes.`,
    );
  }
  return read.map(({ name, filename, content, contentType }) => {
    const decoded = decodeBase64(content);
    if (!decoded) {
      throw invalid(`Invalid \`${name}.content\` field. It must be the file's bytes in base64 (RFC 4648, padded).`);
    }
    // Spaces alone are no more content than an empty string.
    if (decoded.base64 === "") throw invalid(`Missing \`${name}.content\` field.`);
    return { filename, contentType: contentType ?? contentTypeFor(filename), content: decoded.base64 };
  });
}

const TAG = /^[A-Za-z0-9_-]{1,256}$/;

/**
 * The e-mail a valid `POST /emails` body describes. Missing fields are named in the order the
 * live API was seen to check them (`to` before `from`, `html`/`text` before `subject`).
 */
function readEmail(body: Record<string, unknown>) {
  if (!present(body.to)) throw missing("to");
  if (!present(body.from)) throw missing("from");
  if (!present(body.html) && !present(body.text)) throw invalid("Missing `html` or `text` field.");
  if (!present(body.subject)) throw missing("subject");
  if (typeof body.from !== "string" || !parseAddress(body.from))
    throw invalid(`Invalid \`from\` field. ${ADDRESS_FORMAT}`);
  const to = addresses(body, "to", MAX_RECIPIENTS);
  if (to.length === 0) throw missing("to");
  const replyTo = present(body.reply_to) ? addresses(body, "reply_to") : [];
  if (typeof body.subject !== "string") throw invalid("Invalid `subject` field.");
  for (const field of ["html", "text"]) {
    if (body[field] !== undefined && typeof body[field] !== "string") throw invalid(`Invalid \`${field}\` field.`);
  }
  if (body.tags !== undefined) {
    const tags = body.tags;
    if (
      !Array.isArray(tags) ||
      tags.some(
        (tag: { name?: unknown; value?: unknown } | null) =>
          !tag ||
          typeof tag.name !== "string" ||
          typeof tag.value !== "string" ||
          !TAG.test(tag.name) ||
          !TAG.test(tag.value),
      )
    ) {
      throw invalid("Tags should only contain ASCII letters, numbers, underscores, or dashes.");
    }
  }
  const unsupported = NOT_IMPLEMENTED.find((field) => present(body[field]));
  if (unsupported) throw notImplemented(unsupported);
  const attachments = readAttachments(body.attachments);
  const html = (body.html as string | undefined) ?? "";
  // "If not provided, the HTML will be used to generate a plain text version. You can opt out of
  // this behavior by setting value to an empty string." (Send Email, `text`)
  const text = body.text === undefined ? htmlToText(html) : (body.text as string);
  return { from: body.from, to, replyTo, subject: body.subject, html, text, attachments };
}

/** A fixed one-second window per team, as Resend's `ratelimit-policy: N;w=1` describes. */
function rateLimiter(limit: number) {
  let windowStart = 0;
  let used = 0;
  return (): { allowed: boolean; headers: Record<string, string> } => {
    const now = Date.now();
    if (now - windowStart >= 1000) {
      windowStart = now;
      used = 0;
    }
    const allowed = used < limit;
    if (allowed) used++;
    const reset = String(Math.max(1, Math.ceil((windowStart + 1000 - now) / 1000)));
    const headers: Record<string, string> = {
      "ratelimit-limit": String(limit),
      "ratelimit-policy": `${limit};w=1`,
      "ratelimit-remaining": String(limit - used),
      "ratelimit-reset": reset,
    };
    if (!allowed) headers["retry-after"] = reset;
    return { allowed, headers };
  };
}

export function createResend(options: ResendOptions & { url: string; dataDir?: string; mail: Mailer }): ResendService {
  const dir = options.dataDir ? join(options.dataDir, "resend") : undefined;
  if (dir) makePrivateFolder(dir);
  const apiKey = loadKey(dir);
  const keptFile = dir ? join(dir, "idempotency.jsonl") : undefined;
  const kept = loadKept(keptFile);
  const inFlight = new Set<string>();
  const limit = options.rateLimit ?? DEFAULT_RATE_LIMIT;
  if (!Number.isInteger(limit) || limit < 1)
    throw new Error(`resend.rateLimit must be a whole number ≥ 1, not ${limit}`);
  const take = rateLimiter(limit);
  const latencyMs = options.latencyMs ?? 0;

  const keep = (record: Kept) => {
    kept.set(record.key, record);
    if (keptFile) appendPrivateFileSync(keptFile, `${JSON.stringify(record)}\n`);
  };

  async function send(request: Request, idempotencyKey: string | null): Promise<string> {
    if (idempotencyKey !== null && (idempotencyKey.length < 1 || idempotencyKey.length > 256)) {
      throw new ResendError(
        400,
        "invalid_idempotency_key",
        "Idempotency keys, if present, must have between 1 and 256 characters.",
      );
    }
    let body: unknown;
    try {
      body = JSON.parse(new TextDecoder().decode(await readBody(request, MAX_BODY_BYTES)));
    } catch (error) {
      // The stand-in's own cap on what it reads (MAX_BODY_BYTES in http.ts), above Resend's 40 MB
      // of attachments and the rest of an e-mail: refused unread, with the status and name of a
      // body it cannot take, and a message of its own that says why.
      if (error instanceof BodyTooLarge) {
        throw new ResendError(
          400,
          "validation_error",
          `The local Resend stand-in reads request bodies of at most ${MAX_BODY_BYTES} bytes; this one is larger.`,
        );
      }
      throw new ResendError(400, "validation_error", "Request body must be valid JSON.");
    }
    const fields = body && typeof body === "object" && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
    // The key is the team's for this method and endpoint; the payload is compared as parsed,
    // the whole of it: attachments too, their names, types and every byte of their content.
    const fingerprint = createHash("sha256")
      .update(`POST /emails ${canonical(fields)}`)
      .digest("hex");
    if (idempotencyKey !== null) {
      const earlier = kept.get(idempotencyKey);
      if (earlier && Date.now() - earlier.at >= IDEMPOTENCY_TTL_MS) kept.delete(idempotencyKey);
      else if (earlier) {
        if (earlier.fingerprint !== fingerprint) {
          throw new ResendError(
            409,
            "invalid_idempotent_request",
            "This idempotency key has been used with this HTTP method and endpoint within the last 24 hours, but the request body was modified and doesn't match the original request.",
          );
        }
        return earlier.body;
      }
      if (inFlight.has(idempotencyKey)) {
        throw new ResendError(
          409,
          "concurrent_idempotent_requests",
          "There is another request in progress with the same idempotency key.",
        );
      }
    }
    const email = readEmail(fields);
    if (idempotencyKey !== null) inFlight.add(idempotencyKey);
    try {
      if (latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, latencyMs));
      options.mail.send({
        from: email.from,
        to: email.to.join(", "),
        ...(email.replyTo.length ? { replyTo: email.replyTo.join(", ") } : {}),
        subject: email.subject,
        html: email.html,
        text: email.text,
        ...(email.attachments.length ? { attachments: email.attachments } : {}),
      });
      const answer = JSON.stringify({ id: randomUUID() });
      if (idempotencyKey !== null) keep({ key: idempotencyKey, fingerprint, body: answer, at: Date.now() });
      return answer;
    } finally {
      if (idempotencyKey !== null) inFlight.delete(idempotencyKey);
    }
  }

  return {
    handle: { apiKey, apiUrl: `${options.url}${RESEND_PATH}` },
    async answer(request) {
      const { pathname } = new URL(request.url);
      if (pathname !== RESEND_PATH && !pathname.startsWith(`${RESEND_PATH}/`)) return null;
      let headers: Record<string, string> = { "content-type": JSON_TYPE };
      const fail = (error: ResendError) => new Response(errorBody(error), { status: error.status, headers });
      // Resend's edge refuses a request without a User-Agent before the API sees it (API
      // reference, User-Agent: "rejected with a 403 status code", error code 1010).
      if (!request.headers.get("user-agent")) {
        return new Response("error code: 1010", {
          status: 403,
          headers: { "content-type": "text/plain; charset=UTF-8" },
        });
      }
      const token = /^bearer\s+(\S+)\s*$/i.exec(request.headers.get("authorization") ?? "")?.[1];
      if (!token) return fail(new ResendError(401, "missing_api_key", "Missing API Key"));
      if (token !== apiKey) return fail(new ResendError(400, "validation_error", "API key is invalid"));
      const rate = take();
      headers = { ...headers, ...rate.headers };
      if (!rate.allowed) {
        return fail(
          new ResendError(
            429,
            "rate_limit_exceeded",
            `Too many requests. You can only make ${limit} requests per second. See rate limit response headers for more information. Or contact support to increase rate limit.`,
          ),
        );
      }
      const path = pathname.slice(RESEND_PATH.length);
      if (path !== "/emails") {
        return fail(new ResendError(404, "not_found", "The requested endpoint does not exist."));
      }
      if (request.method !== "POST") {
        return fail(new ResendError(405, "method_not_allowed", "Method is not allowed for the requested path."));
      }
      try {
        const answer = await send(request, request.headers.get("idempotency-key"));
        return new Response(answer, { status: 200, headers });
      } catch (error) {
        if (error instanceof ResendError) return fail(error);
        throw error;
      }
    },
  };
}
