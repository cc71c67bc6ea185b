/**
 * `/storage/v1`: the part of Supabase Storage the product calls, as storage-js sends it: upload
 * (POST; `x-upsert: true` replaces) and update (PUT, which Storage treats as an upsert) of one
 * object, public download, and listing. As Storage does, an upload first tests the caller's right
 * to write the object's row in `storage.objects` (as the JWT's role with its claims, so the
 * bucket's policies decide), then checks the bucket's content types and size limit, then writes
 * the row as the caller and, in the same transaction, the bytes to `<data>/storage/<bucket>/<name>`
 * (in memory without a data folder): a refused or failed upload leaves neither.
 * Errors are Storage's: HTTP 400 for every refusal (500 for its own faults), the meaningful
 * status in the body, `{ statusCode: "403", code, error, message }`; storage-js reads both.
 * Dev and test only: production is Supabase Storage.
 */
import { createHash, randomUUID } from "node:crypto";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { asRole, type Claims, type Database, type Sql } from "./db.ts";
import { BodyTooLarge, type Context, gateway, type Handler, json, readBody, requestClaims } from "./http.ts";

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

/** Where an upload goes, and whether it may replace an object already there. */
interface Target {
  bucket: string;
  name: string;
  upsert: boolean;
}

interface IncomingFile {
  bytes: Uint8Array;
  mimetype: string;
  cacheControl: string;
}

/** Storage's error answer: the real status goes in the body, the HTTP status is 400 (or 500). */
function storageError(statusCode: number, code: string, error: string, message: string): Response {
  return json({ statusCode: String(statusCode), code, error, message }, statusCode === 500 ? 500 : 400);
}

const ERRORS = {
  noSuchBucket: () => storageError(404, "NoSuchBucket", "Bucket not found", "Bucket not found"),
  noSuchKey: () => storageError(404, "NoSuchKey", "not_found", "Object not found"),
  invalidKey: (name: string) => storageError(400, "InvalidKey", "InvalidKey", `Invalid key: ${name}`),
  accessDenied: (message: string) => storageError(403, "AccessDenied", "Unauthorized", message),
  duplicate: () => storageError(409, "ResourceAlreadyExists", "Duplicate", "The resource already exists"),
  tooLarge: () =>
    storageError(413, "EntityTooLarge", "Payload too large", "The object exceeded the maximum allowed size"),
  invalidMimeType: (mimetype: string) =>
    storageError(415, "InvalidMimeType", "invalid_mime_type", `mime type ${mimetype} is not supported`),
  invalidRequest: (message: string) => storageError(400, "InvalidRequest", "InvalidRequest", message),
  internal: () => storageError(500, "InternalError", "InternalError", "Internal server error"),
};

/** Storage verifies tokens with jose; a refused token is answered with jose's message. */
const JWT_MESSAGES = {
  malformed: "Invalid Compact JWS",
  signature: "signature verification failed",
  expired: '"exp" claim timestamp check failed',
};

/** Room for the form fields around the file in a multipart upload (storage-js sends `cacheControl`). */
const FORM_ENVELOPE = 64 * 1024;

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

/** Besides controls: the characters S3 asks to avoid, and invisible ones that can disguise a name. */
const AVOIDED = new Set([...'#[]{}^`"<>\\|%~\u034f\u061c\u200b\u200e\u200f\u2060\ufeff']);

function unsafe(char: string): boolean {
  const code = char.codePointAt(0)!;
  return (
    code < 0x20 ||
    (code >= 0x7f && code <= 0x9f) ||
    (code >= 0x2028 && code <= 0x202e) ||
    (code >= 0x2066 && code <= 0x2069) ||
    AVOIDED.has(char)
  );
}

/**
 * Object names Storage accepts (its `isValidKey`): no control, avoided or invisible character, no
 * `.` or `..` segment, at most 1024 bytes. Stricter here because names become paths on disk: no
 * empty segment either, so no leading, trailing or doubled `/`.
 */
function validName(name: string): boolean {
  return (
    name !== "" &&
    ![...name].some(unsafe) &&
    Buffer.byteLength(name) <= 1024 &&
    name.split("/").every((segment) => segment !== "" && segment !== "." && segment !== "..")
  );
}

async function upload(rest: string, request: Request, context: Context, claims: Claims): Promise<Response> {
  const where = target(rest);
  if (!where) return ERRORS.invalidKey(rest);
  const { rows } = await context.db.query<Bucket>(
    "select id, file_size_limit, allowed_mime_types from storage.buckets where id = $1",
    [where.bucket],
  );
  const bucket = rows[0];
  if (!bucket) return ERRORS.noSuchBucket();
  if (!validName(where.name)) return ERRORS.invalidKey(where.name);
  const at: Target = {
    bucket: bucket.id,
    name: where.name,
    upsert: request.method === "PUT" || request.headers.get("x-upsert") === "true",
  };

  try {
    // Storage's `canUpload`: the row write is tried as the caller and undone, before the body is read.
    await asRole(context.db, claims, async (tx) => {
      await putRow(tx, claims, at, null);
      throw ROLLBACK;
    }).catch((error: unknown) => {
      if (error !== ROLLBACK) throw error;
    });

    const limit = Math.min(Number(bucket.file_size_limit ?? Infinity), context.config.maxBodyBytes);
    const file = await receiveFile(request, bucket, limit);
    if (file instanceof Response) return file;

    const metadata: ObjectMetadata = {
      eTag: `"${createHash("md5").update(file.bytes).digest("hex")}"`,
      size: file.bytes.byteLength,
      mimetype: file.mimetype,
      cacheControl: file.cacheControl,
      lastModified: new Date().toISOString(),
      contentLength: file.bytes.byteLength,
      httpStatusCode: 200,
    };
    const store = objectStore(context);
    const id = await asRole(context.db, claims, async (tx) => {
      const written = await putRow(tx, claims, at, metadata);
      await store.write(`${at.bucket}/${at.name}`, file.bytes);
      return written;
    });
    return json({ Id: id, Key: `${at.bucket}/${at.name}` });
  } catch (error) {
    return refusal(error, at.name);
  }
}

/** Thrown to undo the write `canUpload` tries. */
const ROLLBACK = new Error("rollback");

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Inserts the object's row (for an upsert, inserts or replaces it) as the caller; answers its id. */
async function putRow(tx: Sql, claims: Claims, at: Target, metadata: ObjectMetadata | null): Promise<string> {
  const replace = at.upsert
    ? `on conflict (bucket_id, name) do update set owner = excluded.owner, owner_id = excluded.owner_id,
         metadata = excluded.metadata, updated_at = now()`
    : "";
  const { rows } = await tx.query<{ id: string }>(
    `insert into storage.objects (bucket_id, name, owner, owner_id, metadata)
     values ($1, $2, $3, $4, $5::jsonb) ${replace} returning id`,
    [
      at.bucket,
      at.name,
      claims.sub && UUID.test(claims.sub) ? claims.sub : null,
      claims.sub ?? null,
      metadata && JSON.stringify(metadata),
    ],
  );
  return rows[0]!.id;
}

/** Storage's answers to the database's refusals; on disk, a name that is already a folder (or a file) is refused. */
function refusal(error: unknown, name: string): Response {
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (code === "42501") {
    const policy = String(message).includes("row-level security");
    return ERRORS.accessDenied(policy ? "new row violates row-level security policy" : String(message));
  }
  if (code === "23505") return ERRORS.duplicate();
  if (code === "EISDIR" || code === "ENOTDIR" || code === "EEXIST") return ERRORS.invalidKey(name);
  throw error;
}

/**
 * The uploaded file as Storage takes it: the form's file part (its type, or a `contentType` field;
 * `cacheControl` field) or the raw body (`content-type`, `cache-control` headers). The content
 * type is checked before the size, as Storage checks them; the body is never read past the limit.
 */
async function receiveFile(request: Request, bucket: Bucket, limit: number): Promise<IncomingFile | Response> {
  const contentType = request.headers.get("content-type") ?? "";
  let file: IncomingFile;
  if (contentType.startsWith("multipart/form-data")) {
    let form: FormData;
    try {
      const body = await readBody(request, limit + FORM_ENVELOPE);
      form = await new Response(body as BodyInit, { headers: { "content-type": contentType } }).formData();
    } catch (error) {
      return error instanceof BodyTooLarge ? ERRORS.tooLarge() : ERRORS.invalidRequest("No content provided");
    }
    const part = [...form.values()].find((value): value is File => typeof value !== "string");
    if (!part) return ERRORS.invalidRequest("No content provided");
    const field = (name: string) => {
      const value = form.get(name);
      return typeof value === "string" && value !== "" ? value : undefined;
    };
    // A part without a type is text/plain to Storage's form parser (busboy), which drops parameters.
    const partType = part.type.split(";")[0]!.trim().toLowerCase() || "text/plain";
    const maxAge = field("cacheControl");
    file = {
      bytes: new Uint8Array(await part.arrayBuffer()),
      mimetype: field("contentType") ?? partType,
      cacheControl: maxAge ? `max-age=${maxAge}` : "no-cache",
    };
    if (!mimeTypeAllowed(file.mimetype, bucket.allowed_mime_types)) return ERRORS.invalidMimeType(file.mimetype);
    if (file.bytes.byteLength > limit) return ERRORS.tooLarge();
  } else {
    const mimetype = contentType || "application/octet-stream";
    if (!mimeTypeAllowed(mimetype, bucket.allowed_mime_types)) return ERRORS.invalidMimeType(mimetype);
    try {
      file = {
        bytes: await readBody(request, limit),
        mimetype,
        cacheControl: request.headers.get("cache-control") ?? "no-cache",
      };
    } catch (error) {
      if (error instanceof BodyTooLarge) return ERRORS.tooLarge();
      throw error;
    }
  }
  // The value is sent back as a header of every download: refuse what no header may carry.
  if (!/^[\x20-\x7e]*$/.test(file.cacheControl)) return ERRORS.invalidRequest("Invalid cache-control value");
  return file;
}

/** Storage's `validateMimeType`: the bucket lists `type/subtype` or `type/*`; no list allows all. */
function mimeTypeAllowed(mimetype: string, allowed: string[] | null): boolean {
  if (!allowed) return true;
  const [type, subtype] = mimetype.split("/");
  if (subtype === undefined) return false;
  return allowed.some((entry) => {
    const [allowedType, allowedSubtype] = entry.split("/");
    return allowedType === type && (allowedSubtype === "*" || allowedSubtype === subtype);
  });
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
    options = JSON.parse(new TextDecoder().decode(await readBody(request, FORM_ENVELOPE)) || "{}");
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

interface ObjectStore {
  write(key: string, bytes: Uint8Array): Promise<void>;
  read(key: string): Promise<Uint8Array | undefined>;
}

/** Bytes of the objects of stacks without a data folder, by stack. */
const memory = new WeakMap<Database, Map<string, Uint8Array>>();

/** Where object bytes live: `<data>/storage/<bucket>/<name>`, or memory without a data folder. */
function objectStore(context: Context): ObjectStore {
  if (!context.dataDir) {
    let files = memory.get(context.db);
    if (!files) memory.set(context.db, (files = new Map()));
    const store = files;
    return {
      write: async (key, bytes) => void store.set(key, bytes),
      read: async (key) => store.get(key),
    };
  }
  const root = join(context.dataDir, "storage");
  return {
    /** Writes beside the target, then renames over it: a reader never sees half a file. */
    async write(key, bytes) {
      const file = join(root, key);
      await mkdir(dirname(file), { recursive: true });
      const temp = join(dirname(file), `.${randomUUID()}.part`);
      try {
        await writeFile(temp, bytes);
        await rename(temp, file);
      } finally {
        await rm(temp, { force: true });
      }
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
