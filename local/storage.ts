/**
 * `/storage/v1`: the part of Supabase Storage the product calls, as storage-js sends it: upload
 * (POST; `x-upsert: true` replaces) and update (PUT, which Storage treats as an upsert) of one
 * object, public download, and listing. An upload takes storage-api's steps in its order
 * (storage-api's src/storage/object.ts `uploadFromRequest` and src/storage/uploader.ts):
 *  1. the bucket, read with the stack's own connection (NoSuchBucket);
 *  2. the file, as `fileUploadFromRequest` takes it: its content type against the bucket's
 *     (InvalidMimeType), then, for a raw body, the declared Content-Length against the limit
 *     (EntityTooLarge); a form is read only up to its file's headers, a raw body not at all;
 *  3. the object name (`mustBeValidKey`: InvalidKey);
 *  4. `canUpload`: the object's row written as the caller (the JWT's role and claims, so the
 *     bucket's policies decide) in a transaction that is rolled back, with the declared content
 *     type and length as its metadata: a plain INSERT for an upload, INSERT … ON CONFLICT DO
 *     UPDATE … RETURNING * for an upsert (so the caller's select policy must admit the row too);
 *  5. the bytes, read and staged; a file past the limit is EntityTooLarge;
 *  6. `completeUpload`: the row upserted with the object's full metadata by the stack's own
 *     connection, as storage-api writes it as its superuser (no policy applies), and the staged
 *     bytes moved to `<data>/storage/<bucket>/<name>` (memory without a data folder) in the same
 *     transaction.
 * A refused or failed upload leaves neither row nor bytes.
 * Errors are Storage's (storage-api's src/internal/errors/codes.ts): HTTP 400 for every refusal (500 for its own
 * faults), the meaningful status in the body, `{ statusCode: "403", code, error, message }`;
 * storage-js reads both. Dev and test only: production is Supabase Storage.
 */
import { createHash, randomUUID } from "node:crypto";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { asRole, type Database, type Sql } from "./db.ts";
import { type Context, gateway, type Handler, json, readBody, requestClaims } from "./http.ts";
import type { Claims } from "./jwt.ts";

interface Bucket {
  id: string;
  file_size_limit: number | string | null;
  allowed_mime_types: string[] | null;
}

/** What Storage keeps in `storage.objects.metadata` for an uploaded object. */
interface ObjectMetadata {
  eTag: string;
  size: number;
  mimetype: string;
  cacheControl: string;
  lastModified: string;
  contentLength: number;
  httpStatusCode: number;
}

/** The uploaded file as `fileUploadFromRequest` describes it, its bytes still unread. */
interface IncomingFile {
  mimetype: string;
  cacheControl: string;
  /** The request's Content-Length, when known: for a form, the whole body's. */
  declaredLength: number | undefined;
  /** The form's `metadata` field or the `x-metadata` header, as JSON. */
  userMetadata: unknown;
  /** The file's bytes; undefined when they run past the limit. */
  read(): Promise<Uint8Array | undefined>;
}

/** Where an upload goes, by whom, and whether it may replace an object already there. */
interface Upload {
  bucket: string;
  name: string;
  /** The JWT's `sub`: Storage's `owner`. */
  owner: string | undefined;
  upsert: boolean;
}

/** Storage's error answer: the real status goes in the body, the HTTP status is 400 (or 500). */
function storageError(statusCode: number, code: string, error: string, message: string): Response {
  return json({ statusCode: String(statusCode), code, error, message }, statusCode === 500 ? 500 : 400);
}

/** storage-api's errors (src/internal/errors/codes.ts) as its error handler renders them. */
const ERRORS = {
  noSuchBucket: () => storageError(404, "NoSuchBucket", "Bucket not found", "Bucket not found"),
  noSuchKey: () => storageError(404, "NoSuchKey", "not_found", "Object not found"),
  invalidKey: (name: string) => storageError(400, "InvalidKey", "InvalidKey", `Invalid key: ${name}`),
  accessDenied: (message: string) => storageError(403, "AccessDenied", "Unauthorized", message),
  /** A plain upload onto an existing object (`createObject`). */
  keyAlreadyExists: () => storageError(409, "KeyAlreadyExists", "Duplicate", "The resource already exists"),
  /** Any other unique violation. */
  resourceAlreadyExists: () => storageError(409, "ResourceAlreadyExists", "Duplicate", "The resource already exists"),
  relatedResourceNotFound: () =>
    storageError(404, "InvalidRequest", "InvalidRequest", "The related resource does not exist"),
  tooLarge: (entity = "object") =>
    storageError(413, "EntityTooLarge", "Payload too large", `The ${entity} exceeded the maximum allowed size`),
  invalidMimeType: (mimetype: string) =>
    storageError(415, "InvalidMimeType", "invalid_mime_type", `mime type ${mimetype} is not supported`),
  noContent: (message = "No content provided") => storageError(400, "InvalidRequest", "InvalidRequest", message),
  invalidRequest: (message: string) => storageError(400, "InvalidRequest", "InvalidRequest", message),
  databaseError: (code: string) => storageError(500, "DatabaseError", "DatabaseError", `database error, code: ${code}`),
  internal: () => storageError(500, "InternalError", "InternalError", "Internal server error"),
};

/** A refusal decided deep in an upload, carried out to its answer. */
class Refusal extends Error {
  readonly response: Response;
  constructor(response: Response) {
    super("refused");
    this.response = response;
  }
}

/** Storage verifies tokens with jose; a refused token is answered with jose's message. */
const JWT_MESSAGES = {
  malformed: "Invalid Compact JWS",
  signature: "signature verification failed",
  expired: '"exp" claim timestamp check failed',
};

/** The largest listing request read: a few options. */
const LIST_BODY_LIMIT = 64 * 1024;

export const handleStorage: Handler = async (request, context) => {
  const path = new URL(request.url).pathname.slice("/storage/v1".length);
  const { method } = request;
  try {
    const publicObject = /^\/object\/public\/(.*)$/.exec(path);
    if (publicObject && (method === "GET" || method === "HEAD")) return await download(publicObject[1]!, context);

    const listing = /^\/object\/list\/([^/]+)$/.exec(path);
    const object = /^\/object\/(.+)$/.exec(path);
    if (!(listing && method === "POST") && !(object && (method === "POST" || method === "PUT"))) {
      return json({ statusCode: 404, error: "Not Found", message: `Route ${method}:${path} not found` }, 404);
    }
    const claims = caller(request, context);
    if (claims instanceof Response) return claims;
    return listing
      ? await list(listing[1]!, request, context, claims)
      : await upload(object![1]!, request, context, claims);
  } catch (error) {
    console.error(error);
    return ERRORS.internal();
  }
};

/** The gateway's key check, then the caller's JWT (or the key's role), as Storage verifies it. */
function caller(request: Request, context: Context): Claims | Response {
  const key = gateway(request, context);
  if (key instanceof Response) return key;
  const verified = requestClaims(request, context);
  return verified.ok ? verified.claims : ERRORS.accessDenied(JWT_MESSAGES[verified.reason]);
}

/** A URL path segment decoded, or undefined for a malformed escape. */
function decode(part: string): string | undefined {
  try {
    return decodeURIComponent(part);
  } catch {
    return undefined;
  }
}

/** `<bucket>/<name>` of an object URL, decoded as Storage's router decodes it. */
function target(rest: string): { bucket: string; name: string } | undefined {
  const slash = rest.indexOf("/");
  const bucket = decode(slash < 0 ? rest : rest.slice(0, slash));
  const name = slash < 0 ? "" : decode(rest.slice(slash + 1));
  return bucket === undefined || name === undefined ? undefined : { bucket, name };
}

/** storage-api's `isValidKey` (src/storage/limits.ts): S3's safe characters and a few more, ASCII only. */
const VALID_KEY = /^[A-Za-z0-9_/!.*'() &$=@;:+,?-]+$/;

/**
 * Object names Storage accepts (`isValidKey`). Stricter here because names become paths on disk:
 * at most 1024 bytes (S3's limit), and no empty, `.` or `..` segment, so no leading, trailing or
 * doubled `/` either.
 */
function validName(name: string): boolean {
  return (
    VALID_KEY.test(name) &&
    name.length <= 1024 &&
    name.split("/").every((segment) => segment !== "" && segment !== "." && segment !== "..")
  );
}

/**
 * An upload, its request body read as it goes. Whatever the answer, the rest of the body is read
 * and dropped afterwards, as Node does with a body nobody read (`req._dump()`), so that the
 * client's connection stays usable.
 */
async function upload(rest: string, request: Request, context: Context, claims: Claims): Promise<Response> {
  const body = new BodyReader(request.body);
  try {
    return await uploadFrom(body, rest, request, context, claims);
  } finally {
    void body.drain();
  }
}

async function uploadFrom(
  body: BodyReader,
  rest: string,
  request: Request,
  context: Context,
  claims: Claims,
): Promise<Response> {
  const where = target(rest);
  if (!where) return ERRORS.invalidKey(rest);
  const { rows } = await context.db.query<Bucket>(
    "select id, file_size_limit, allowed_mime_types from storage.buckets where id = $1 limit 1",
    [where.bucket],
  );
  const bucket = rows[0];
  if (!bucket) return ERRORS.noSuchBucket();
  const file = await receiveFile(request, body, bucket, where.name, context.config.storage.fileSizeLimit);
  if (file instanceof Response) return file;
  if (!validName(where.name)) return ERRORS.invalidKey(where.name);

  const object: Upload = {
    bucket: bucket.id,
    name: where.name,
    owner: claims.sub,
    upsert: request.method === "PUT" || request.headers.get("x-upsert") === "true",
  };
  let staged: Staged | undefined;
  try {
    await canUpload(context.db, claims, object, file);
    const bytes = await file.read();
    if (!bytes) return ERRORS.tooLarge();
    staged = await objectStore(context).stage(`${object.bucket}/${object.name}`, bytes);
    const metadata: ObjectMetadata = {
      eTag: `"${createHash("md5").update(bytes).digest("hex")}"`,
      size: bytes.byteLength,
      mimetype: file.mimetype,
      cacheControl: file.cacheControl,
      lastModified: new Date().toISOString(),
      contentLength: bytes.byteLength,
      httpStatusCode: 200,
    };
    const id = await completeUpload(context.db, object, metadata, file.userMetadata, staged);
    return json({ Id: id, Key: `${object.bucket}/${object.name}` }, metadata.httpStatusCode);
  } catch (error) {
    return refusal(error, object.name);
  } finally {
    await staged?.discard();
  }
}

/** Thrown to undo the write `canUpload` tries. */
const ROLLBACK = new Error("rollback");

/**
 * storage-api's `canUpload`: the row the upload would make, written as the caller and undone
 * (`testPermission`), with what is known before the bytes: the declared type and length.
 */
async function canUpload(db: Database, claims: Claims, object: Upload, file: IncomingFile): Promise<void> {
  const row = {
    bucket: object.bucket,
    name: object.name,
    owner: object.owner,
    metadata: { mimetype: file.mimetype, contentLength: file.declaredLength },
    userMetadata: file.userMetadata,
    version: "1",
  };
  try {
    await asRole(db, claims, async (tx) => {
      if (object.upsert) await upsertObject(tx, row);
      else await createObject(tx, row);
      throw ROLLBACK;
    });
  } catch (error) {
    if (error !== ROLLBACK) throw error;
  }
}

/**
 * storage-api's `completeUpload`: the row written with the stack's own connection (storage-api's
 * `asSuperUser`), with the object's metadata; the bytes take their place in the same transaction.
 * Answers the object's id.
 */
async function completeUpload(
  db: Database,
  object: Upload,
  metadata: ObjectMetadata,
  userMetadata: unknown,
  staged: Staged,
): Promise<string> {
  return db.transaction(async (tx) => {
    const row = await upsertObject(tx, {
      bucket: object.bucket,
      name: object.name,
      owner: object.owner,
      metadata,
      // storage-api passes `{ ...request.userMetadata }`: an empty object when none was sent.
      userMetadata: { ...(userMetadata as object) },
      version: randomUUID(),
    });
    await staged.publish();
    return row.id;
  });
}

interface ObjectRow {
  bucket: string;
  name: string;
  owner: string | undefined;
  metadata: object;
  userMetadata: unknown;
  version: string;
}

/** storage-api's `isUuid` (src/storage/limits.ts): a `sub` that is not one is kept in owner_id only. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-5][0-9a-f]{3}-[089ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/** A jsonb parameter: JSON text, or null. */
const jsonb = (value: unknown) => (value === undefined ? undefined : value === null ? null : JSON.stringify(value));

/** Each column of an object row as storage-api fills it. */
const COLUMN = {
  name: (row: ObjectRow) => row.name,
  owner: (row: ObjectRow) => (row.owner && UUID.test(row.owner) ? row.owner : undefined),
  owner_id: (row: ObjectRow) => row.owner,
  bucket_id: (row: ObjectRow) => row.bucket,
  metadata: (row: ObjectRow) => jsonb(row.metadata),
  user_metadata: (row: ObjectRow) => jsonb(row.userMetadata),
  version: (row: ObjectRow) => row.version,
};

/** The row's columns in `order` with their values, leaving out undefined ones as storage-api's `buildInsert` does. */
function columns(row: ObjectRow, order: readonly (keyof typeof COLUMN)[]): [string, unknown][] {
  return order
    .map((column): [string, unknown] => [column, COLUMN[column](row)])
    .filter(([, value]) => value !== undefined);
}

/** storage-api's `createObject`: a plain INSERT, no RETURNING, so no select policy is involved. */
async function createObject(tx: Sql, row: ObjectRow): Promise<void> {
  const values = columns(row, ["name", "owner", "owner_id", "bucket_id", "metadata", "version", "user_metadata"]);
  try {
    await tx.query(
      `insert into storage.objects (${values.map(([column]) => column).join(", ")})
       values (${values.map((_, i) => `$${i + 1}`).join(", ")})`,
      values.map(([, value]) => value),
    );
  } catch (error) {
    if ((error as { code?: unknown }).code === "23505") throw new Refusal(ERRORS.keyAlreadyExists());
    throw error;
  }
}

/**
 * storage-api's `upsertObject`: INSERT … ON CONFLICT (name, bucket_id) DO UPDATE of the metadata,
 * version and owner, RETURNING *. updated_at is the `update_objects_updated_at` trigger's.
 */
async function upsertObject(tx: Sql, row: ObjectRow): Promise<{ id: string }> {
  const values = columns(row, ["name", "owner", "owner_id", "bucket_id", "metadata", "user_metadata", "version"]);
  const updates = columns(row, ["metadata", "user_metadata", "version", "owner", "owner_id"]).map(
    ([column]) => `${column} = excluded.${column}`,
  );
  const { rows } = await tx.query<{ id: string }>(
    `insert into storage.objects (${values.map(([column]) => column).join(", ")})
     values (${values.map((_, i) => `$${i + 1}`).join(", ")})
     on conflict (name, bucket_id) do update set ${updates.join(", ")}
     returning *`,
    values.map(([, value]) => value),
  );
  return rows[0]!;
}

/**
 * Storage's answers to the database's refusals (storage-api's src/storage/database/errors.ts `fromDBError`);
 * on disk, a name that is already a folder (or under a file) is refused.
 */
function refusal(error: unknown, name: string): Response {
  if (error instanceof Refusal) return error.response;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (code === "42501") {
    const policy = String(message).includes("row-level security");
    return ERRORS.accessDenied(policy ? "new row violates row-level security policy" : String(message));
  }
  if (code === "23505") return ERRORS.resourceAlreadyExists();
  if (code === "23503") return ERRORS.relatedResourceNotFound();
  if (code === "EISDIR" || code === "ENOTDIR" || code === "EEXIST") return ERRORS.invalidKey(name);
  // Any other error of the database's (it has a severity; Node's own errors have none).
  if (typeof code === "string" && typeof (error as { severity?: unknown }).severity === "string") {
    console.error(error);
    return ERRORS.databaseError(code);
  }
  throw error;
}

/** The request's Content-Length, when it states one (`getKnownRequestContentLength`). */
function declaredLength(request: Request): number | undefined {
  const length = Number(request.headers.get("content-length") ?? NaN);
  return Number.isFinite(length) && length >= 0 ? length : undefined;
}

/** The largest `metadata` field storage-api takes (`MAX_CUSTOM_METADATA_SIZE`). */
const MAX_USER_METADATA = 1024 * 1024;

/**
 * storage-api's `fileUploadFromRequest`: the form's first file part (its type, or a `contentType`
 * field before it; `cacheControl` and `metadata` fields before it) or the raw body (`content-type`,
 * `cache-control` and base64 `x-metadata` headers). The type is checked against the bucket's, then
 * a raw body's declared length against the limit, the smaller of the bucket's and the stack's
 * (`getStandardMaxFileSizeLimit`); Studio's `.emptyFolderPlaceholder` takes no bytes and any type.
 */
async function receiveFile(
  request: Request,
  body: BodyReader,
  bucket: Bucket,
  name: string,
  stackLimit: number,
): Promise<IncomingFile | Response> {
  const contentType = request.headers.get("content-type") ?? "";
  const emptyFolder = name.endsWith(".emptyFolderPlaceholder");
  const limit = emptyFolder ? 0 : Math.min(Number(bucket.file_size_limit ?? Infinity), stackLimit);
  const typeAllowed = (mimetype: string) =>
    emptyFolder || !bucket.allowed_mime_types?.length || mimeTypeAllowed(mimetype, bucket.allowed_mime_types);
  let file: IncomingFile;

  if (contentType.startsWith("multipart/form-data")) {
    const form = await readFormToFile(body, contentType);
    if (form instanceof Response) return form;
    const maxAge = form.fields.get("cacheControl");
    const custom = form.fields.get("metadata") ?? form.fields.get("userMetadata");
    file = {
      mimetype: form.fields.get("contentType") || form.mimetype,
      cacheControl: maxAge ? `max-age=${maxAge}` : "no-cache",
      declaredLength: declaredLength(request),
      userMetadata: undefined,
      read: () => form.readFile(limit),
    };
    if (!typeAllowed(file.mimetype)) return ERRORS.invalidMimeType(file.mimetype);
    if (custom !== undefined) {
      if (Buffer.byteLength(custom) > MAX_USER_METADATA) return ERRORS.tooLarge("user_metadata");
      file.userMetadata = parseJson(custom);
    }
  } else {
    const custom = request.headers.get("x-metadata");
    file = {
      mimetype: contentType || "application/octet-stream",
      cacheControl: request.headers.get("cache-control") ?? "no-cache",
      declaredLength: declaredLength(request),
      userMetadata: custom === null ? undefined : parseJson(Buffer.from(custom, "base64").toString("utf8")),
      read: () => body.readAll(limit),
    };
    if (!typeAllowed(file.mimetype)) return ERRORS.invalidMimeType(file.mimetype);
    if (file.declaredLength !== undefined && file.declaredLength > limit) return ERRORS.tooLarge();
  }
  // The value is sent back as a header of every download: refuse what no header may carry.
  if (!/^[\x20-\x7e]*$/.test(file.cacheControl)) return ERRORS.invalidRequest("Invalid cache-control value");
  return file;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * storage-api's `validateMimeType`: `type/subtype` or `type/*` of the bucket's list. Only the
 * first two parts of the given type are compared: `image/png/x` passes where image/png does.
 */
function mimeTypeAllowed(mimetype: string, allowed: string[]): boolean {
  const [type, subtype] = mimetype.split("/");
  if (subtype === undefined) return false;
  return allowed.some((entry) => {
    const [allowedType, allowedSubtype] = entry.split("/");
    return allowedType === type && (allowedSubtype === "*" || allowedSubtype === subtype);
  });
}

/** A form read up to its first file's headers, as @fastify/multipart's `request.file()` answers it. */
interface FormFile {
  /** The fields before the file; a field given twice has no value, as `fields.<name>.value` has none. */
  fields: Map<string, string | undefined>;
  /** The file part's type as busboy gives it: lower-cased, without parameters; text/plain when absent. */
  mimetype: string;
  /** The file's bytes, or undefined when they run past `limit`. */
  readFile(limit: number): Promise<Uint8Array | undefined>;
}

/** busboy's limits as Storage sets them (createObject.ts: 10 fields, 1 file) and its defaults. */
const FORM_LIMITS = { fields: 10, fieldSize: 1024 * 1024, headerSize: 80 * 1024 };
const CRLF = Buffer.from("\r\n");
const HEADERS_END = Buffer.from("\r\n\r\n");

/**
 * Reads a multipart body up to its first file part (a part with a file name, or of type
 * application/octet-stream), keeping the fields before it; the file's bytes are read later.
 */
async function readFormToFile(body: BodyReader, contentType: string): Promise<FormFile | Response> {
  const boundary = headerValue(contentType).params.get("boundary");
  if (!boundary) return ERRORS.noContent("Multipart: Boundary not found");
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  // The first boundary may open the body, with no line break before it.
  if ((await body.until(delimiter.subarray(2))) !== "found") return ERRORS.noContent();
  const fields = new Map<string, string | undefined>();
  let fieldCount = 0;
  for (;;) {
    if ((await body.peek(2)).toString("latin1") === "--") return ERRORS.noContent();
    if ((await body.until(CRLF)) !== "found") return ERRORS.noContent();
    const headers = await readPartHeaders(body);
    if (!headers) return ERRORS.noContent();
    const disposition = headerValue(headers.get("content-disposition") ?? "");
    const type = headerValue(headers.get("content-type") ?? "").value.toLowerCase() || "text/plain";
    const fieldName = disposition.params.get("name") ?? "";
    const isFile = disposition.params.has("filename") || type === "application/octet-stream";

    if (disposition.value.toLowerCase() === "form-data" && isFile) {
      return {
        fields,
        mimetype: type,
        async readFile(limit) {
          const chunks: Buffer[] = [];
          let size = 0;
          const end = await body.until(delimiter, (bytes) => {
            size += bytes.byteLength;
            chunks.push(bytes);
            return size <= limit;
          });
          if (end === "stopped") return undefined;
          if (end === "ended") throw new Refusal(ERRORS.noContent("Unexpected end of form"));
          return Buffer.concat(chunks);
        },
      };
    }
    const keep = disposition.value.toLowerCase() === "form-data" && fieldCount < FORM_LIMITS.fields;
    const value: Buffer[] = [];
    let size = 0;
    const end = await body.until(delimiter, (bytes) => {
      if (keep && size < FORM_LIMITS.fieldSize) value.push(bytes.subarray(0, FORM_LIMITS.fieldSize - size));
      size += bytes.byteLength;
      return true;
    });
    if (end !== "found") return ERRORS.noContent();
    if (keep) {
      fieldCount += 1;
      fields.set(fieldName, fields.has(fieldName) ? undefined : Buffer.concat(value).toString("utf8"));
    }
  }
}

/** A part's header lines, by lower-cased name (the first of each); undefined when malformed. */
async function readPartHeaders(body: BodyReader): Promise<Map<string, string> | undefined> {
  const headers = new Map<string, string>();
  // A part without headers: its blank line follows the boundary's at once.
  if ((await body.peek(2)).equals(CRLF)) {
    await body.until(CRLF);
    return headers;
  }
  const raw: Buffer[] = [];
  let size = 0;
  const end = await body.until(HEADERS_END, (bytes) => {
    raw.push(bytes);
    size += bytes.byteLength;
    return size <= FORM_LIMITS.headerSize;
  });
  if (end !== "found") return undefined;
  for (const line of Buffer.concat(raw).toString("utf8").split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    if (!headers.has(name)) headers.set(name, line.slice(colon + 1).trim());
  }
  return headers;
}

/** A header's value and its parameters (`form-data; name="a"; filename="b"`), names lower-cased. */
function headerValue(header: string): { value: string; params: Map<string, string> } {
  const semicolon = header.indexOf(";");
  const params = new Map<string, string>();
  const rest = semicolon < 0 ? "" : header.slice(semicolon);
  for (const match of rest.matchAll(/;\s*([^\s=;]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]*))/g)) {
    const name = match[1]!.toLowerCase().replace(/\*$/, "");
    const value = match[2] !== undefined ? match[2].replace(/\\(.)/g, "$1") : match[3]!.trim();
    if (!params.has(name)) params.set(name, value);
  }
  return { value: (semicolon < 0 ? header : header.slice(0, semicolon)).trim(), params };
}

/** A request body read step by step: up to a delimiter, or all of it up to a limit. */
class BodyReader {
  private buffered: Buffer = Buffer.alloc(0);
  private ended: boolean;
  private readonly reader: ReadableStreamDefaultReader<Uint8Array> | undefined;

  constructor(body: ReadableStream<Uint8Array> | null) {
    this.reader = body?.getReader();
    this.ended = !this.reader;
  }

  /** The next chunk off the wire; undefined at the end. */
  private async next(): Promise<Buffer | undefined> {
    if (this.ended) return undefined;
    const { done, value } = await this.reader!.read();
    if (done) this.ended = true;
    return done ? undefined : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  }

  private async more(): Promise<boolean> {
    const chunk = await this.next();
    if (chunk) this.buffered = this.buffered.byteLength ? Buffer.concat([this.buffered, chunk]) : chunk;
    return chunk !== undefined;
  }

  /** The next `count` bytes (fewer at the end of the body), not consumed. */
  async peek(count: number): Promise<Buffer> {
    while (this.buffered.byteLength < count && (await this.more()));
    return this.buffered.subarray(0, count);
  }

  /**
   * Consumes the body up to and including `delimiter`, handing the bytes before it to `sink` as
   * they arrive: "found", "ended" (the body ended first) or "stopped" (the sink answered false).
   */
  async until(
    delimiter: Buffer,
    sink: (bytes: Buffer) => boolean = () => true,
  ): Promise<"found" | "ended" | "stopped"> {
    for (;;) {
      const at = this.buffered.indexOf(delimiter);
      const ready = at >= 0 ? at : Math.max(0, this.buffered.byteLength - delimiter.byteLength + 1);
      const bytes = this.buffered.subarray(0, ready);
      this.buffered = this.buffered.subarray(at >= 0 ? at + delimiter.byteLength : ready);
      if (bytes.byteLength > 0 && !sink(bytes)) return "stopped";
      if (at >= 0) return "found";
      if (!(await this.more())) {
        if (this.buffered.byteLength > 0) sink(this.buffered);
        this.buffered = Buffer.alloc(0);
        return "ended";
      }
    }
  }

  /** The rest of the body; undefined, and read no further, once it runs past `limit` bytes. */
  async readAll(limit: number): Promise<Buffer | undefined> {
    const chunks: Buffer[] = [this.buffered];
    let size = this.buffered.byteLength;
    this.buffered = Buffer.alloc(0);
    for (let chunk = await this.next(); chunk; chunk = await this.next()) {
      chunks.push(chunk);
      size += chunk.byteLength;
      if (size > limit) return undefined;
    }
    return size > limit ? undefined : Buffer.concat(chunks);
  }

  /** Reads what is left and drops it; a client that went away ends it. */
  async drain(): Promise<void> {
    this.buffered = Buffer.alloc(0);
    try {
      while (await this.next());
    } catch {
      // The connection closed: nothing left to read.
    }
  }
}

/**
 * A public bucket's object, read with the stack's own connection as Storage serves public
 * objects (no policy applies), with the type, cache policy and entity tag stored at upload.
 */
async function download(rest: string, context: Context): Promise<Response> {
  const where = target(rest);
  if (!where) return ERRORS.noSuchBucket();
  const { rows: buckets } = await context.db.query("select id from storage.buckets where id = $1 and public", [
    where.bucket,
  ]);
  if (!buckets[0]) return ERRORS.noSuchBucket();
  if (!validName(where.name)) return ERRORS.noSuchKey();
  const { rows } = await context.db.query<{ metadata: Partial<ObjectMetadata> | null }>(
    "select metadata from storage.objects where bucket_id = $1 and name = $2",
    [where.bucket, where.name],
  );
  if (!rows[0]) return ERRORS.noSuchKey();
  const bytes = await objectStore(context).read(`${where.bucket}/${where.name}`);
  if (!bytes) {
    // A row without its file: Storage answers the backend's 404 this way.
    return json({ error: "Not found", message: "The resource was not found", statusCode: "404" }, 400, {
      "cache-control": "no-store",
    });
  }
  const metadata = rows[0].metadata ?? {};
  const mimetype = metadata.mimetype ?? "application/octet-stream";
  const headers: Record<string, string> = {
    // Storage never serves HTML from a bucket as HTML.
    "content-type": mimetype.includes("text/html") ? "text/plain" : mimetype,
    "content-length": String(bytes.byteLength),
    "cache-control": metadata.cacheControl ?? "no-cache",
    "x-content-type-options": "nosniff",
  };
  if (metadata.eTag) headers.etag = metadata.eTag;
  if (metadata.lastModified) headers["last-modified"] = new Date(metadata.lastModified).toUTCString();
  return new Response(bytes as BodyInit, { headers });
}

interface ListEntry {
  name: string;
  id: string | null;
  updated_at: string | null;
  created_at: string | null;
  last_accessed_at: string | null;
  metadata: Partial<ObjectMetadata> | null;
}

/**
 * `list(prefix)`: the files and folders directly under the prefix, of the objects the caller's
 * select policy lets them see (run as the caller), by name; `limit` (default 100) and `offset`.
 * Sorting by another column and `search` are not offered.
 */
async function list(rawBucket: string, request: Request, context: Context, claims: Claims): Promise<Response> {
  let options: { prefix?: unknown; limit?: unknown; offset?: unknown };
  try {
    options = JSON.parse(new TextDecoder().decode(await readBody(request, LIST_BODY_LIMIT)) || "{}");
  } catch {
    return ERRORS.invalidRequest("Body is not valid JSON");
  }
  const bucket = decode(rawBucket);
  if (bucket === undefined) return json([]);
  let prefix = typeof options.prefix === "string" ? options.prefix : "";
  if (prefix !== "" && !prefix.endsWith("/")) prefix += "/";
  const limit = Number.isInteger(options.limit) && Number(options.limit) > 0 ? Number(options.limit) : 100;
  const offset = Number.isInteger(options.offset) && Number(options.offset) > 0 ? Number(options.offset) : 0;

  const { rows } = await asRole(context.db, claims, (tx) =>
    tx.query<ListEntry>(
      `select name, id, updated_at, created_at, last_accessed_at, metadata from storage.objects
       where bucket_id = $1 and starts_with(name, $2)`,
      [bucket, prefix],
    ),
  );
  const entries = new Map<string, ListEntry>();
  for (const row of rows) {
    const [first, ...deeper] = row.name.slice(prefix.length).split("/");
    if (deeper.length === 0) entries.set(first!, { ...row, name: first! });
    else if (!entries.has(first!)) {
      entries.set(first!, {
        name: first!,
        id: null,
        updated_at: null,
        created_at: null,
        last_accessed_at: null,
        metadata: null,
      });
    }
  }
  const sorted = [...entries.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return json(sorted.slice(offset, offset + limit));
}

/** An upload's bytes, kept aside until its row is written. */
interface Staged {
  /** Puts the bytes in the object's place. */
  publish(): Promise<void>;
  /** Drops the bytes if they were not published. */
  discard(): Promise<void>;
}

interface ObjectStore {
  stage(key: string, bytes: Uint8Array): Promise<Staged>;
  read(key: string): Promise<Uint8Array | undefined>;
}

/** Bytes of the objects of stacks without a data folder, by stack. */
const memory = new WeakMap<Database, Map<string, Uint8Array>>();

/**
 * Where object bytes live: `<data>/storage/<bucket>/<name>`, or memory without a data folder.
 * On disk an upload is staged in `<data>/storage/#uploads` (`#` is in no bucket name Storage
 * accepts), and its folders are made only when it is published.
 */
function objectStore(context: Context): ObjectStore {
  if (!context.dataDir) {
    let files = memory.get(context.db);
    if (!files) memory.set(context.db, (files = new Map()));
    const store = files;
    return {
      stage: async (key, bytes) => ({
        publish: async () => void store.set(key, bytes),
        discard: async () => undefined,
      }),
      read: async (key) => store.get(key),
    };
  }
  const root = join(context.dataDir, "storage");
  return {
    async stage(key, bytes) {
      const staging = join(root, "#uploads");
      await mkdir(staging, { recursive: true });
      const temp = join(staging, randomUUID());
      try {
        await writeFile(temp, bytes);
      } catch (error) {
        await rm(temp, { force: true });
        throw error;
      }
      return {
        /** A rename: a reader never sees half a file. */
        async publish() {
          const file = join(root, key);
          await mkdir(dirname(file), { recursive: true });
          await rename(temp, file);
        },
        discard: () => rm(temp, { force: true }),
      };
    },
    async read(key) {
      try {
        return await readFile(join(root, key));
      } catch (error) {
        if (["ENOENT", "EISDIR", "ENOTDIR"].includes((error as NodeJS.ErrnoException).code ?? "")) return undefined;
        throw error;
      }
    },
  };
}
