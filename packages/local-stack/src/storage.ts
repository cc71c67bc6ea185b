/**
 * `/storage/v1`: the part of Supabase Storage the product calls, as storage-js sends it: upload
 * (POST; `x-upsert: true` replaces) and update (PUT, which Storage treats as an upsert) of one
 * object, public download, listing, signed URLs (`createSignedUrl`, `createSignedUrls`) and the
 * downloads through them, and `remove`. An upload takes storage-api's steps in its order
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
 * Signing a URL (storage-api's src/storage/object.ts `signObjectUrl`, `signObjectUrls`) looks the object up AS
 * THE CALLER, so the bucket's select policies decide (what the caller cannot see, a missing
 * object and a missing bucket are all NoSuchKey), then signs `{ url: "<bucket>/<name>", scope:
 * "download", iat, exp }` with the project's JWT secret (HS256, the stack's signer). A signed URL
 * needs no API key: its token must verify (InvalidJWT, with jose's message) and name this very
 * object for download (`verifyObjectSignature`: InvalidSignature), and the object is then served
 * as a public one is, read with the stack's own connection, with `Expires` at the token's expiry.
 * `remove` (`deleteObjects`) deletes, as the caller, what its delete policies let it (RETURNING *:
 * its select policies too), at most 1000 names, and the deleted objects' bytes with them.
 * A JSON body is parsed and checked against the route's schema as Fastify does (its messages),
 * before the caller's JWT, which storage-api checks in a preHandler.
 * Requests are routed as storage-api's router routes them (`ROUTES`), so a route's own word
 * (`move`, `copy`, `sign`…) is never taken for a bucket's name where storage-api would not take
 * it; storage-api's routes the product does not call (move, copy, signed uploads, object info,
 * the bucket API, image transformations, TUS, S3…) answer 501 NotImplemented, naming the route.
 * Errors are Storage's (storage-api's src/internal/errors/codes.ts): HTTP 400 for every refusal
 * (500 for its own faults), the meaningful status in the body, `{ statusCode: "403", error,
 * message }` as the routes' `errorSchema` serializes it; storage-js reads both. Dev and test
 * only: production is Supabase Storage.
 */
import { createHash, randomUUID } from "node:crypto";
import { readFile, rename, rm, rmdir } from "node:fs/promises";
import { dirname, join, sep } from "node:path";
import { makePrivateFolderAsync, writePrivateFile } from "./data-folder.ts";
import { asRole, type Database, type Sql } from "./db.ts";
import { BodyTooLarge, type Context, gateway, type Handler, json, readBody, requestClaims } from "./http.ts";
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

/**
 * Storage's error answer: the real status goes in the body, the HTTP status is 400 (or 500). Every
 * object route declares storage-api's `errorSchema` (src/http/schemas/error.ts: statusCode, error,
 * message) for its 4xx answers and Fastify serializes them with it, so `code` reaches the client
 * only in a 500 answer.
 */
function storageError(
  statusCode: number,
  code: string,
  error: string,
  message: string,
  status = statusCode === 500 ? 500 : 400,
): Response {
  const body = { statusCode: String(statusCode), error, message };
  return json(status >= 500 ? { statusCode: body.statusCode, code, error, message } : body, status);
}

/** storage-api's errors (src/internal/errors/codes.ts) as its error handler renders them. */
const ERRORS = {
  noSuchBucket: () => storageError(404, "NoSuchBucket", "Bucket not found", "Bucket not found"),
  noSuchKey: () => storageError(404, "NoSuchKey", "not_found", "Object not found"),
  invalidKey: (name: string) => storageError(400, "InvalidKey", "InvalidKey", `Invalid key: ${name}`),
  invalidBucketName: () => storageError(400, "InvalidBucketName", "Invalid Input", "Bucket name invalid"),
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
  invalidParameter: (name: string) =>
    storageError(400, "InvalidParameter", "InvalidParameter", `Invalid Parameter ${name}`),
  /** A signed URL's token that does not verify (`InvalidJWT`, with jose's message). */
  invalidJwt: (message: string) => storageError(400, "InvalidJWT", "InvalidJWT", message),
  invalidSignature: (message = "Invalid signature") =>
    storageError(400, "InvalidSignature", "InvalidSignature", message),
  /**
   * A request the route's schema refuses: Fastify's validation error (`FST_ERR_VALIDATION`, an
   * `Error` whose message is ajv's first error as `body/<field> <message>`), as the error handler
   * renders a Fastify error: `error` is its name.
   */
  invalidSchema: (message: string) => storageError(400, "InvalidRequest", "Error", message),
  /** Fastify's own refusals of a body (`FST_ERR_CTP_*`), with their status. */
  badBody: (status: number, message: string) => storageError(status, "InvalidRequest", "FastifyError", message, status),
  databaseError: (code: string) => storageError(500, "DatabaseError", "DatabaseError", `database error, code: ${code}`),
  internal: () => storageError(500, "InternalError", "InternalError", "Internal server error"),
  /**
   * A route of storage-api's the stand-in does not implement (packages/local-stack/README.md,
   * What still differs from hosted Supabase): HTTP 501 and the error body, `code` and all, as
   * storage-api renders its own 5xx.
   */
  notImplemented: (route: string) =>
    storageError(
      501,
      "NotImplemented",
      "Not Implemented",
      `${route} is not implemented by the local stack (packages/local-stack/README.md, What still differs from hosted Supabase)`,
      501,
    ),
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

/** Fastify's default `bodyLimit`, which storage-api keeps for its JSON bodies. */
const JSON_BODY_LIMIT = 1024 * 1024;

type Route = (request: Request, context: Context, parts: string[]) => Promise<Response>;

/** A route of storage-api's: its methods, its path as a regular expression, and its handler here. */
interface RouteEntry {
  methods: readonly string[];
  path: RegExp;
  route: Route;
  /** Let through without an API key, as the platform's gateway lets public and signed URLs through. */
  open: boolean;
}

/** A GET route answers HEAD too (Fastify's `exposeHeadRoutes`), unless a HEAD route of its own comes first. */
const GET = ["GET", "HEAD"] as const;

/**
 * A route in storage-api's path syntax (find-my-way's): `:name` is one segment, possibly empty;
 * `*` the rest of the path, possibly empty. The regular expression captures each in order.
 */
function route(methods: readonly string[], pattern: string, handler: Route, open = false): RouteEntry {
  const source = pattern
    .split("/")
    .map((segment) => (segment === "*" ? "(.*)" : segment.startsWith(":") ? "([^/]*)" : segment))
    .join("/");
  return { methods, path: new RegExp(`^${source}$`), route: handler, open };
}

/**
 * A route of storage-api's that the stand-in does not implement: 501 NotImplemented naming the
 * route, the handler storage-api answers it with and the storage-js call that reaches it. It is
 * answered after the gateway's key check and before anything else: no body read, no JWT, nothing
 * written, and the route's first word never taken for a bucket's name.
 */
function notImplemented(handler: string, call?: string): Route {
  return async (request) => {
    const path = new URL(request.url).pathname.slice("/storage/v1".length);
    const via = call ? `, storage-js \`${call}\`` : "";
    return ERRORS.notImplemented(`${request.method} ${path} (storage-api's ${handler}${via})`);
  };
}

const uploadRoute: Route = (request, context, [bucket, name]) => upload(`${bucket}/${name}`, request, context);

/**
 * storage-api's REST routes (the prefixes in its src/app.ts; src/http/routes/object/, bucket/,
 * render/), each method's in the order its router (find-my-way) tries them: a static segment
 * before a parameter, a parameter before the wildcard, and the next one when a longer path does
 * not fit. So `POST /object/move` is moveObject, never an upload to a bucket named `move`, while
 * `POST /object/move/a.png` is createObject in bucket `move`, in storage-api too; `POST
 * /object/sign/<bucket>` signs many paths and `POST /object/sign` is no route. What the product
 * calls is implemented; every other route answers 501 (`notImplemented`). An implemented route
 * checks the caller's JWT itself, at the point storage-api's `jwt` plugin does (a preHandler:
 * after the body is parsed and validated).
 */
const ROUTES: RouteEntry[] = [
  route(
    GET,
    "/object/public/:bucketName/*",
    (request, context, [b, n]) => download(`${b}/${n}`, request, context),
    true,
  ),
  route(
    GET,
    "/object/sign/:bucketName/*",
    (request, context, [b, n]) => signedDownload(b!, n!, request, context),
    true,
  ),
  route(["HEAD"], "/object/authenticated/:bucketName/*", notImplemented("getObjectInfo")),
  route(GET, "/object/authenticated/:bucketName/*", notImplemented("getObject")),
  route(GET, "/object/info/public/:bucketName/*", notImplemented("getObjectInfo"), true),
  route(GET, "/object/info/authenticated/:bucketName/*", notImplemented("getObjectInfo")),
  route(GET, "/object/info/:bucketName/*", notImplemented("getObjectInfo", "info")),
  route(["HEAD"], "/object/:bucketName/*", notImplemented("getObjectInfo", "exists")),
  route(GET, "/object/:bucketName/*", notImplemented("getObject", "download")),

  route(["POST"], "/object/copy", notImplemented("copyObject", "copy")),
  route(["POST"], "/object/move", notImplemented("moveObject", "move")),
  route(["POST"], "/object/sign/:bucketName/*", signUrl),
  route(["POST"], "/object/sign/:bucketName", signUrls),
  route(["POST"], "/object/upload/sign/:bucketName/*", notImplemented("getSignedUploadURL", "createSignedUploadUrl")),
  route(["POST"], "/object/list/:bucketName", (request, context, [bucket]) => list(bucket!, request, context)),
  route(["POST"], "/object/list-v2/:bucketName", notImplemented("listObjectsV2", "listV2")),
  route(["POST"], "/object/:bucketName/*", uploadRoute),

  route(["PUT"], "/object/upload/sign/:bucketName/*", notImplemented("uploadSignedObject", "uploadToSignedUrl"), true),
  route(["PUT"], "/object/:bucketName/*", uploadRoute),

  route(["DELETE"], "/object/:bucketName/*", notImplemented("deleteObject")),
  route(["DELETE"], "/object/:bucketName", removeObjects),

  // A prefix's `/` route answers with and without the trailing slash (Fastify's prefixTrailingSlash).
  route(GET, "/bucket", notImplemented("getAllBuckets", "listBuckets")),
  route(GET, "/bucket/", notImplemented("getAllBuckets", "listBuckets")),
  route(["POST"], "/bucket", notImplemented("createBucket", "createBucket")),
  route(["POST"], "/bucket/", notImplemented("createBucket", "createBucket")),
  route(GET, "/bucket/:bucketId", notImplemented("getBucket", "getBucket")),
  route(["PUT"], "/bucket/:bucketId", notImplemented("updateBucket", "updateBucket")),
  route(["DELETE"], "/bucket/:bucketId", notImplemented("deleteBucket", "deleteBucket")),
  route(["POST"], "/bucket/:bucketId/empty", notImplemented("emptyBucket", "emptyBucket")),

  route(GET, "/render/image/authenticated/:bucketName/*", notImplemented("renderAuthenticatedImage", "download")),
  route(GET, "/render/image/public/:bucketName/*", notImplemented("renderPublicImage"), true),
  route(GET, "/render/image/sign/:bucketName/*", notImplemented("renderSignedImage"), true),
];

/** storage-api's other services, by prefix (src/app.ts): none is implemented, so any of their routes is 501. */
const SERVICES: [prefix: string, name: string][] = [
  ["/upload/resumable", "resumable uploads (TUS)"],
  ["/s3", "S3 protocol"],
  ["/cdn", "CDN cache purge"],
  ["/iceberg", "analytics buckets (Iceberg)"],
  ["/vector", "vector buckets"],
  ["/health", "health check"],
];

/** The route a request takes, with the path's parameters, as storage-api's router picks it; undefined for none. */
function findRoute(method: string, path: string): { route: Route; open: boolean; parts: string[] } | undefined {
  const service = SERVICES.find(([prefix]) => path === prefix || path.startsWith(`${prefix}/`));
  if (service) return { route: notImplemented(service[1]), open: false, parts: [] };
  for (const entry of ROUTES) {
    const match = entry.methods.includes(method) ? entry.path.exec(path) : null;
    if (match) return { route: entry.route, open: entry.open, parts: match.slice(1) };
  }
  return undefined;
}

export const handleStorage: Handler = async (request, context) => {
  const url = new URL(request.url);
  const path = url.pathname.slice("/storage/v1".length) || "/";
  try {
    const found = findRoute(request.method, path);
    if (!found) {
      // Fastify's default answer to a request no route takes, which storage-api 1.60 keeps.
      const message = `Route ${request.method}:${path}${url.search} not found`;
      return json({ statusCode: 404, error: "Not Found", message }, 404);
    }
    if (!found.open) {
      const key = gateway(request, context);
      if (key instanceof Response) return key;
    }
    return await found.route(request, context, found.parts);
  } catch (error) {
    console.error(error);
    return ERRORS.internal();
  }
};

/** The caller's JWT (or the API key's role), as Storage's `jwt` plugin verifies it. */
function caller(request: Request, context: Context): Claims | Response {
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

/** storage-api's `isValidBucketName` (src/storage/limits.ts): the same without `/`, at most 100 characters. */
const VALID_BUCKET = /^[A-Za-z0-9_!.*'() &$=@;:+,?-]{1,100}$/;

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
async function upload(rest: string, request: Request, context: Context): Promise<Response> {
  const claims = caller(request, context);
  if (claims instanceof Response) return claims;
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
 * A public bucket's object (storage-api's getPublicObject route), read with the stack's own
 * connection as Storage serves public objects (no policy applies).
 */
async function download(rest: string, request: Request, context: Context): Promise<Response> {
  const where = target(rest);
  if (!where) return ERRORS.noSuchBucket();
  const { rows: buckets } = await context.db.query("select id from storage.buckets where id = $1 and public", [
    where.bucket,
  ]);
  if (!buckets[0]) return ERRORS.noSuchBucket();
  if (!validName(where.name)) return ERRORS.noSuchKey();
  const object = await findObject(context.db, where.bucket, where.name);
  if (!object) return ERRORS.noSuchKey();
  return render(context, where, object, { download: new URL(request.url).searchParams.get("download") ?? undefined });
}

/** storage-api's `findObject` (src/storage/database/pg.ts): the row by name and bucket, as `db` may see it. */
async function findObject(db: Sql, bucket: string, name: string): Promise<StoredObject | undefined> {
  const { rows } = await db.query<StoredObject>(
    "select id, metadata from storage.objects where name = $1 and bucket_id = $2 limit 1",
    [name, bucket],
  );
  return rows[0];
}

interface StoredObject {
  id: string;
  metadata: Partial<ObjectMetadata> | null;
}

/**
 * storage-api's asset renderer (src/storage/renderer/renderer.ts `render`, `setHeaders`): the
 * bytes with the type, length, entity tag and date stored at upload, `X-Robots-Tag: none`; the
 * stored cache policy, or `Expires` instead for a signed URL; `download` makes an attachment
 * (`handleDownload`: `attachment;` when empty, else the name percent-encoded as both `filename`
 * and `filename*`).
 */
async function render(
  context: Context,
  where: { bucket: string; name: string },
  object: StoredObject,
  options: { download?: string; expires?: string },
): Promise<Response> {
  // A name that is no path on disk has no file here (storage-api would ask its backend).
  const bytes = validName(where.name) ? await objectStore(context).read(`${where.bucket}/${where.name}`) : undefined;
  if (!bytes) {
    // A row without its file: Storage answers the backend's 404 this way.
    return json({ error: "Not found", message: "The resource was not found", statusCode: "404" }, 400, {
      "cache-control": "no-store",
    });
  }
  const metadata = object.metadata ?? {};
  const mimetype = metadata.mimetype ?? "application/octet-stream";
  const headers: Record<string, string> = {
    // Storage never serves HTML from a bucket as HTML.
    "content-type": mimetype.includes("text/html") ? "text/plain" : mimetype,
    "content-length": String(bytes.byteLength),
    "x-content-type-options": "nosniff",
    "x-robots-tag": "none",
  };
  if (metadata.eTag) headers.etag = metadata.eTag;
  if (metadata.lastModified) headers["last-modified"] = new Date(metadata.lastModified).toUTCString();
  if (options.expires) headers.expires = options.expires;
  else headers["cache-control"] = metadata.cacheControl ?? "no-cache";
  if (options.download !== undefined) {
    const file = encodeURIComponent(options.download);
    headers["content-disposition"] =
      options.download === "" ? "attachment;" : `attachment; filename=${file}; filename*=UTF-8''${file}`;
  }
  return new Response(bytes as BodyInit, { headers });
}

/** The claim a signed URL's token carries for reading (storage-api's src/internal/auth/jwt.ts `SIGNED_URL_SCOPE_DOWNLOAD`). */
const DOWNLOAD_SCOPE = "download";

/**
 * A signed URL's object: storage-api's getSignedObject route and `verifyObjectSignature`
 * (src/storage/object.ts). The bucket name is checked, then the token: it must verify with the
 * project's keys (`verifyJWT`; else InvalidJWT with jose's message, expired from its `exp` second
 * on), be scoped for download (or be an unscoped token without `upsert`, as tokens were before
 * scopes), and name this very `<bucket>/<name>` (else InvalidSignature). The object is then read
 * with the stack's own connection (`asSuperUser`), whatever the bucket's policies, and rendered
 * with `Expires` at the token's expiry. No API key is needed.
 */
async function signedDownload(
  rawBucket: string,
  rawName: string,
  request: Request,
  context: Context,
): Promise<Response> {
  const query = new URL(request.url).searchParams;
  const [token, ...moreTokens] = query.getAll("token");
  const [download, ...moreDownloads] = query.getAll("download");
  // The route's querystring schema: token required; each a single string.
  if (token === undefined) return ERRORS.invalidSchema("querystring must have required property 'token'");
  if (moreDownloads.length) return ERRORS.invalidSchema("querystring/download must be string");
  if (moreTokens.length) return ERRORS.invalidSchema("querystring/token must be string");
  const where = target(`${rawBucket}/${rawName}`);
  if (!where) return ERRORS.invalidKey(rawName);
  if (!VALID_BUCKET.test(where.bucket)) return ERRORS.invalidBucketName();

  // jose counts a token expired from its `exp` second on: a leeway of -1 second.
  const verified = context.signer.verify(token, { role: false, leeway: -1 });
  if (!verified.ok) return ERRORS.invalidJwt(JWT_MESSAGES[verified.reason]);
  const claims = verified.claims;
  const scoped = claims.scope === DOWNLOAD_SCOPE || (claims.scope === undefined && !("upsert" in claims));
  if (!scoped) return ERRORS.invalidSignature(`Token is not scoped for ${DOWNLOAD_SCOPE}`);
  if (claims.url !== `${where.bucket}/${where.name}`) return ERRORS.invalidSignature();

  if (!VALID_KEY.test(where.name)) return ERRORS.invalidKey(where.name);
  const object = await findObject(context.db, where.bucket, where.name);
  if (!object) return ERRORS.noSuchKey();
  const expires = new Date(Number(claims.exp) * 1000).toUTCString();
  return render(context, where, object, { download, expires });
}

/**
 * storage-api's `assertValidNumericJWTExpiration` (src/internal/auth/jwt.ts): whole seconds from
 * 1 up to what keeps the expiry a safe integer in milliseconds.
 */
function validExpiry(expiresIn: number, now = Date.now()): boolean {
  if (!Number.isFinite(expiresIn)) return false;
  const seconds = Math.floor(expiresIn);
  const max = Math.max(0, Math.floor(Number.MAX_SAFE_INTEGER / 1000) - Math.floor(now / 1000));
  return Number.isSafeInteger(seconds) && seconds >= 1 && seconds <= max;
}

/**
 * A download token as storage-api's `signJWT` makes it with the project's `urlSigningKey` (its JWT
 * secret): jose's SignJWT, HS256, `{ url, scope, iat, exp }`, expiring `expiresIn` seconds from now.
 */
function downloadToken(context: Context, url: string, expiresIn: number): string {
  const iat = Math.floor(Date.now() / 1000);
  return context.signer.signWithSecret({ url, scope: DOWNLOAD_SCOPE, iat, exp: iat + Math.floor(expiresIn) });
}

/** The route's body schema for `createSignedUrl` (getSignedURL.ts). */
const SIGN_BODY: Schema = {
  type: "object",
  required: ["expiresIn"],
  properties: { expiresIn: { type: "integer", minimum: 1 }, transform: { type: "object" } },
};

/** The route's body schema for `createSignedUrls` (getSignedURLs.ts; `MAX_OBJECTS_PER_REQUEST`). */
const SIGN_MANY_BODY: Schema = {
  type: "object",
  required: ["expiresIn", "paths"],
  properties: {
    expiresIn: { type: "integer", minimum: 1 },
    paths: { type: "array", items: { type: "string" }, minItems: 1, maxItems: 1000 },
  },
};

/** The route's body schema for `remove` (deleteObjects.ts). */
const DELETE_BODY: Schema = {
  type: "object",
  required: ["prefixes"],
  properties: { prefixes: { type: "array", items: { type: "string" }, minItems: 1 } },
};

/** The most objects one `remove` may name, as the platform caps it (`enforceDeleteObjectsLimit`). */
const DELETE_LIMIT = 1000;

/** storage-api deletes in batches of half an S3 delete (`MAX_OBJECTS_PER_DELETE_BATCH`), one transaction each. */
const DELETE_BATCH = 500;

/**
 * `createSignedUrl`: storage-api's getSignedURL route and `signObjectUrl`. After the body's
 * schema and the caller's JWT: `expiresIn` (`assertValidNumericJWTExpiration`: InvalidParameter),
 * the bucket name (InvalidBucketName), the object name (`mustBeValidKey`: InvalidKey), then the
 * object looked up AS THE CALLER (`findObject`: the bucket's select policies decide; a missing
 * bucket, a missing object and an unreadable one are all NoSuchKey). The token's `url` is the
 * request's path after `/object/sign/`, `decodeURI`d as storage-api takes it from `request.url`.
 * A transformation is not applied (image transformations are off, as on the Free plan).
 */
async function signUrl(request: Request, context: Context, [rawBucket, rawName]: string[]): Promise<Response> {
  const body = await jsonBody(request, SIGN_BODY);
  if (body instanceof Response) return body;
  const claims = caller(request, context);
  if (claims instanceof Response) return claims;
  const { expiresIn } = body as { expiresIn: number };
  if (!validExpiry(expiresIn)) return ERRORS.invalidParameter("expiresIn");
  const raw = `${rawBucket}/${rawName}`;
  const where = target(raw);
  if (!where) return ERRORS.invalidKey(raw);
  // What target() decodes, decodeURI does too (it only leaves reserved characters escaped).
  const url = decodeURI(raw);
  if (!VALID_BUCKET.test(where.bucket)) return ERRORS.invalidBucketName();
  if (!VALID_KEY.test(where.name)) return ERRORS.invalidKey(where.name);
  const object = await asRole(context.db, claims, (tx) => findObject(tx, where.bucket, where.name));
  if (!object) return ERRORS.noSuchKey();
  return json({ signedURL: `/object/sign/${url}?token=${downloadToken(context, url, expiresIn)}` });
}

/**
 * `createSignedUrls`: storage-api's getSignedURLs route and `signObjectUrls`. The paths are looked
 * up AS THE CALLER by exact name (`findObjects`, no name check, no bucket check), and each answers
 * `{ error, path, signedURL }`: a URL for the ones the caller can see, storage-api's message for
 * the rest.
 */
async function signUrls(request: Request, context: Context, [rawBucket]: string[]): Promise<Response> {
  const body = await jsonBody(request, SIGN_MANY_BODY);
  if (body instanceof Response) return body;
  const claims = caller(request, context);
  if (claims instanceof Response) return claims;
  const { expiresIn, paths } = body as { expiresIn: number; paths: string[] };
  if (!validExpiry(expiresIn)) return ERRORS.invalidParameter("expiresIn");
  const bucket = decode(rawBucket!);
  if (bucket === undefined || !VALID_BUCKET.test(bucket)) return ERRORS.invalidBucketName();
  const { rows } = await asRole(context.db, claims, (tx) =>
    tx.query<{ name: string }>("select name from storage.objects where bucket_id = $1 and name = any($2::text[])", [
      bucket,
      paths,
    ]),
  );
  const visible = new Set(rows.map((row) => row.name));
  return json(
    paths.map((path) =>
      visible.has(path)
        ? {
            error: null,
            path,
            signedURL: `/object/sign/${bucket}/${path}?token=${downloadToken(context, `${bucket}/${path}`, expiresIn)}`,
          }
        : { error: "Either the object does not exist or you do not have access to it", path, signedURL: null },
    ),
  );
}

/**
 * `remove`: storage-api's deleteObjects route and `deleteObjects` (src/storage/object.ts). At most
 * 1000 names (InvalidRequest), then, 500 at a time, one transaction AS THE CALLER:
 * `DELETE … WHERE bucket_id = $1 AND name = ANY($2) RETURNING *` (so the delete policies decide,
 * and the select policies too, RETURNING and WHERE reading the rows), with
 * `storage.allow_delete_query` set as storage-api's `setScope` sets it; the deleted rows' bytes
 * are removed before it commits. Answers the deleted rows as `objectSchema` serializes them; a
 * name nobody may delete, or that is no object, is left out without an error.
 */
async function removeObjects(request: Request, context: Context, [rawBucket]: string[]): Promise<Response> {
  const body = await jsonBody(request, DELETE_BODY);
  if (body instanceof Response) return body;
  const claims = caller(request, context);
  if (claims instanceof Response) return claims;
  const { prefixes } = body as { prefixes: string[] };
  if (prefixes.length > DELETE_LIMIT) {
    return ERRORS.invalidRequest(`Bulk object requests are limited to ${DELETE_LIMIT} objects per request.`);
  }
  const bucket = decode(rawBucket!);
  if (bucket === undefined || !VALID_BUCKET.test(bucket)) return ERRORS.invalidBucketName();
  const deleted: Record<string, unknown>[] = [];
  try {
    for (let start = 0; start < prefixes.length; start += DELETE_BATCH) {
      const batch = prefixes.slice(start, start + DELETE_BATCH);
      await asRole(
        context.db,
        claims,
        async (tx) => {
          const { rows } = await tx.query<Record<string, unknown> & { name: string }>(
            "delete from storage.objects where bucket_id = $1 and name = any($2::text[]) returning *",
            [bucket, batch],
          );
          await objectStore(context).remove(
            bucket,
            rows.map((row) => row.name),
          );
          deleted.push(...rows);
        },
        { "storage.allow_delete_query": "true" },
      );
    }
  } catch (error) {
    return refusal(error, bucket);
  }
  return json(deleted.map(objectJson));
}

/**
 * A row as storage-api's `objectSchema` (src/storage/schemas/object.ts) serializes it: these
 * columns in this order, no others; a null in a plain string column (owner, version…) becomes "".
 */
function objectJson(row: Record<string, unknown>): Record<string, unknown> {
  const text = (value: unknown) => (value === null ? "" : value);
  return {
    name: text(row.name),
    bucket_id: text(row.bucket_id),
    owner: text(row.owner),
    owner_id: text(row.owner_id),
    version: text(row.version),
    id: row.id,
    updated_at: row.updated_at,
    created_at: row.created_at,
    last_accessed_at: row.last_accessed_at,
    metadata: row.metadata,
    user_metadata: row.user_metadata,
  };
}

/** The part of JSON Schema the routes' bodies use. */
type Schema =
  | { type: "object"; required?: string[]; properties?: Record<string, Schema> }
  | { type: "integer"; minimum?: number }
  | { type: "string" }
  | { type: "array"; items: Schema; minItems?: number; maxItems?: number };

/** What ajv makes of a value for a type under `coerceTypes: "array"`; NONE when it cannot. */
const NONE = Symbol("none");

function coerce(type: Schema["type"], value: unknown): unknown {
  if (type === "object") return typeof value === "object" && value !== null && !Array.isArray(value) ? value : NONE;
  if (type === "array") {
    if (Array.isArray(value)) return value;
    return ["string", "number", "boolean"].includes(typeof value) || value === null ? [value] : NONE;
  }
  // A one-item array stands for its item.
  if (Array.isArray(value) && value.length === 1) value = value[0];
  if (type === "string") {
    if (typeof value === "string") return value;
    if (typeof value === "number" || typeof value === "boolean") return String(value);
    return value === null ? "" : NONE;
  }
  if (typeof value === "number") return Number.isInteger(value) ? value : NONE;
  if (typeof value === "boolean" || value === null) return Number(value);
  const number = Number(value);
  return typeof value === "string" && value !== "" && !Number.isNaN(number) && !(number % 1) ? number : NONE;
}

/**
 * Checks `value` against `schema` as Fastify's ajv does (coerceTypes "array", first error only:
 * the type, then `required` in order, then each property in the schema's order; an array's
 * length before its items), answering the coerced value or ajv's message as Fastify words it.
 */
function check(schema: Schema, value: unknown, path: string): { value: unknown } | { error: string } {
  const coerced = coerce(schema.type, value);
  if (coerced === NONE) return { error: `${path} must be ${schema.type}` };
  if (schema.type === "integer") {
    const minimum = schema.minimum ?? -Infinity;
    return (coerced as number) < minimum ? { error: `${path} must be >= ${minimum}` } : { value: coerced };
  }
  if (schema.type === "array") {
    const items = coerced as unknown[];
    if (schema.maxItems !== undefined && items.length > schema.maxItems) {
      return { error: `${path} must NOT have more than ${schema.maxItems} items` };
    }
    if (schema.minItems !== undefined && items.length < schema.minItems) {
      return { error: `${path} must NOT have fewer than ${schema.minItems} items` };
    }
    const checked: unknown[] = [];
    for (const [index, item] of items.entries()) {
      const result = check(schema.items, item, `${path}/${index}`);
      if ("error" in result) return result;
      checked.push(result.value);
    }
    return { value: checked };
  }
  if (schema.type === "object") {
    const object = { ...(coerced as Record<string, unknown>) };
    const missing = schema.required?.find((name) => object[name] === undefined);
    if (missing !== undefined) return { error: `${path} must have required property '${missing}'` };
    for (const [name, property] of Object.entries(schema.properties ?? {})) {
      if (object[name] === undefined) continue;
      const result = check(property, object[name], `${path}/${name}`);
      if ("error" in result) return result;
      object[name] = result.value;
    }
    return { value: object };
  }
  return { value: coerced };
}

/**
 * A route's JSON body as Fastify takes it, then checked against the route's schema: parsed when
 * the content type is application/json (an empty or broken body is Fastify's 400, more than its
 * 1 MiB `bodyLimit` its 413), no body otherwise.
 */
async function jsonBody(request: Request, schema: Schema): Promise<unknown> {
  const type = (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  let bytes: Uint8Array;
  try {
    bytes = await readBody(request, JSON_BODY_LIMIT);
  } catch (error) {
    if (error instanceof BodyTooLarge) return ERRORS.badBody(413, "Request body is too large");
    throw error;
  }
  let body: unknown = null;
  if (type === "application/json") {
    if (bytes.byteLength === 0) {
      return ERRORS.badBody(400, "Body cannot be empty when content-type is set to 'application/json'");
    }
    try {
      body = JSON.parse(new TextDecoder().decode(bytes));
    } catch {
      return ERRORS.badBody(400, "Body is not valid JSON but content-type is set to 'application/json'");
    }
  }
  const checked = check(schema, body, "body");
  return "error" in checked ? ERRORS.invalidSchema(checked.error) : checked.value;
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
async function list(rawBucket: string, request: Request, context: Context): Promise<Response> {
  const claims = caller(request, context);
  if (claims instanceof Response) return claims;
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
  /** Removes the bytes of a bucket's objects; names that are no path here have none. */
  remove(bucket: string, names: string[]): Promise<void>;
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
      remove: async (bucket, names) => names.forEach((name) => store.delete(`${bucket}/${name}`)),
    };
  }
  const root = join(context.dataDir, "storage");
  return {
    async stage(key, bytes) {
      const staging = join(root, "#uploads");
      await makePrivateFolderAsync(staging);
      const temp = join(staging, randomUUID());
      try {
        await writePrivateFile(temp, bytes);
      } catch (error) {
        await rm(temp, { force: true });
        throw error;
      }
      return {
        /** A rename: a reader never sees half a file. */
        async publish() {
          const file = join(root, key);
          await makePrivateFolderAsync(dirname(file));
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
    /** As storage-api's file backend (`deleteObjects`): the files, then the folders they leave empty. */
    async remove(bucket, names) {
      const files = names
        .filter((name) => validName(bucket) && validName(name))
        .map((name) => join(root, bucket, name));
      await Promise.all(files.map((file) => rm(file, { force: true })));
      for (const folder of new Set(files.map(dirname))) {
        for (let dir = folder; dir.startsWith(root + sep); dir = dirname(dir)) {
          try {
            await rmdir(dir);
          } catch {
            break; // not empty (or gone): the folders above it stay too
          }
        }
      }
    },
  };
}
