/**
 * `/storage/v1`: the part of Supabase Storage the product calls, as storage-js sends it: upload
 * (POST, with `x-upsert`) and update (PUT) of an object, public download, and listing. Bucket
 * limits (size, content types) are enforced before anything is written; the object's row in
 * `storage.objects` is written as the caller's role with the JWT's claims, so the bucket's
 * policies decide, exactly as on Supabase; the bytes go to `<data>/storage/<bucket>/<name>`
 * only once that row is written, and a failed write leaves neither. Errors carry Storage's
 * `{ statusCode, error, message }`. Dev and test only: production is Supabase Storage.
 */
import { createHash, randomUUID } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { asRole, type Database } from "./db.ts";
import { BodyTooLarge, type Context, gateway, json, readBody, requestClaims } from "./http.ts";

interface Bucket {
  id: string;
  public: boolean;
  file_size_limit: number | null;
  allowed_mime_types: string[] | null;
}

interface ObjectRow {
  id: string;
  name: string;
  metadata: { mimetype: string; size: number; cacheControl: string; eTag: string; lastModified: string } | null;
  created_at: string;
  updated_at: string;
  last_accessed_at: string;
}

const storageError = (status: number, error: string, message: string) =>
  json({ statusCode: String(status), error, message }, status);

/** Bytes of objects of stacks without a data folder. */
const memory = new WeakMap<Database, Map<string, Uint8Array>>();

function fileStore(context: Context) {
  if (!context.dataDir) {
    let files = memory.get(context.db);
    if (!files) memory.set(context.db, (files = new Map()));
    return {
      write: (key: string, bytes: Uint8Array) => void files.set(key, bytes),
      read: (key: string) => files.get(key),
    };
  }
  const root = join(context.dataDir, "storage");
  return {
    /** Writes next to the target, then renames: a reader never sees half a file. */
    write(key: string, bytes: Uint8Array) {
      const file = join(root, key);
      mkdirSync(dirname(file), { recursive: true });
      const temp = `${file}.${randomUUID()}.part`;
      writeFileSync(temp, bytes);
      renameSync(temp, file);
    },
    read(key: string) {
      try {
        return readFileSync(join(root, key));
      } catch {
        return undefined;
      }
    },
  };
}

/** Object names Storage accepts: relative, no empty, `.` or `..` segments, no control characters. */
function validName(name: string): boolean {
  if (!name || name.length > 1024 || name.includes("\\")) return false;
  if ([...name].some((char) => char.charCodeAt(0) < 0x20 || char.charCodeAt(0) === 0x7f)) return false;
  return name.split("/").every((segment) => segment !== "" && segment !== "." && segment !== "..");
}

async function bucketOf(context: Context, id: string): Promise<Bucket | undefined> {
  const { rows } = await context.db.query<Bucket>(
    "select id, public, file_size_limit, allowed_mime_types from storage.buckets where id = $1",
    [id],
  );
  return rows[0];
}

/** Splits `/storage/v1/object/<rest>` into the bucket and the object name. */
function target(rest: string): { bucket: string; name: string } | null {
  const decoded = rest.split("/").map((part) => {
    try {
      return decodeURIComponent(part);
    } catch {
      return "\u0000";
    }
  });
  const [bucket, ...name] = decoded;
  if (!bucket) return null;
  return { bucket, name: name.join("/") };
}

export async function handleStorage(request: Request, context: Context): Promise<Response> {
  const url = new URL(request.url);
  const path = url.pathname.slice("/storage/v1".length);

  const publicRead = /^\/object\/public\/(.+)$/.exec(path);
  if (publicRead && (request.method === "GET" || request.method === "HEAD")) {
    return download(publicRead[1]!, context);
  }

  const key = gateway(request, context);
  if (key instanceof Response) return key;
  const verified = requestClaims(request, context);
  if (!verified.ok) {
    return storageError(403, "Unauthorized", verified.reason === "expired" ? "jwt expired" : "invalid signature");
  }

  const list = /^\/object\/list\/([^/]+)$/.exec(path);
  if (list && request.method === "POST")
    return listObjects(decodeURIComponent(list[1]!), request, context, verified.claims);
  const write = /^\/object\/(.+)$/.exec(path);
  if (write && (request.method === "POST" || request.method === "PUT")) {
    return upload(write[1]!, request, context, verified.claims);
  }
  return storageError(404, "not_found", "Not found");
}

async function upload(rest: string, request: Request, context: Context, claims: Parameters<typeof asRole>[1]) {
  const where = target(rest);
  if (!where || !validName(where.name)) return storageError(400, "InvalidKey", `Invalid key: ${where?.name ?? rest}`);
  const bucket = await bucketOf(context, where.bucket);
  if (!bucket) return storageError(404, "Bucket not found", "Bucket not found");

  const limit = Math.min(Number(bucket.file_size_limit ?? context.config.maxBodyBytes), context.config.maxBodyBytes);
  const tooLarge = () => storageError(413, "Payload too large", "The object exceeded the maximum allowed size");
  const contentType = request.headers.get("content-type") ?? "";
  let bytes: Uint8Array;
  let mimetype: string;
  let cacheControl = "3600";
  try {
    // A multipart body carries a little more than the file: allow for its envelope, then check the file.
    const body = await readBody(request, contentType.startsWith("multipart/form-data") ? limit + 64 * 1024 : limit);
    if (contentType.startsWith("multipart/form-data")) {
      const form = await new Response(body as BodyInit, { headers: { "content-type": contentType } }).formData();
      const file = [...form.values()].find((value): value is File => typeof value !== "string");
      if (!file) return storageError(400, "InvalidRequest", "No file in the request");
      bytes = new Uint8Array(await file.arrayBuffer());
      mimetype = file.type || "application/octet-stream";
      const requested = form.get("cacheControl");
      if (typeof requested === "string" && /^\d+$/.test(requested)) cacheControl = requested;
    } else {
      bytes = body;
      mimetype = contentType || "application/octet-stream";
      const maxAge = /max-age=(\d+)/.exec(request.headers.get("cache-control") ?? "");
      if (maxAge) cacheControl = maxAge[1]!;
    }
  } catch (error) {
    if (error instanceof BodyTooLarge) return tooLarge();
    return storageError(400, "InvalidRequest", "The request body could not be read");
  }
  if (bytes.byteLength > limit) return tooLarge();
  mimetype = mimetype.split(";")[0]!.trim().toLowerCase();
  if (bucket.allowed_mime_types?.length && !bucket.allowed_mime_types.includes(mimetype)) {
    return storageError(415, "invalid_mime_type", `mime type ${mimetype} is not supported`);
  }

  const upsert = request.method === "PUT" || request.headers.get("x-upsert") === "true";
  const metadata = {
    mimetype,
    size: bytes.byteLength,
    cacheControl: `max-age=${cacheControl}`,
    eTag: `"${createHash("md5").update(bytes).digest("hex")}"`,
    lastModified: new Date().toISOString(),
    contentLength: bytes.byteLength,
    httpStatusCode: 200,
  };
  const files = fileStore(context);
  try {
    const id = await asRole(context.db, claims, async (tx) => {
      const sql =
        request.method === "PUT"
          ? `update storage.objects set metadata = $3::jsonb, updated_at = now(), owner = $4::uuid, owner_id = $5
             where bucket_id = $1 and name = $2 returning id`
          : `insert into storage.objects (bucket_id, name, metadata, owner, owner_id)
             values ($1, $2, $3::jsonb, $4::uuid, $5)
             ${upsert ? "on conflict (bucket_id, name) do update set metadata = excluded.metadata, updated_at = now(), owner = excluded.owner, owner_id = excluded.owner_id" : ""}
             returning id`;
      const { rows } = await tx.query<{ id: string }>(sql, [
        where.bucket,
        where.name,
        JSON.stringify(metadata),
        claims.sub ?? null,
        claims.sub ?? null,
      ]);
      if (!rows[0]) return null;
      files.write(`${where.bucket}/${where.name}`, bytes);
      return rows[0].id;
    });
    if (!id) return storageError(404, "not_found", "Object not found");
    return json({ Key: `${where.bucket}/${where.name}`, Id: id });
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "42501") return storageError(403, "Unauthorized", "new row violates row-level security policy");
    if (code === "23505") return storageError(409, "Duplicate", "The resource already exists");
    console.error(error);
    return storageError(500, "internal", "Internal server error");
  }
}

/** Public objects are served without a policy check, as Supabase serves them. */
async function download(rest: string, context: Context): Promise<Response> {
  const where = target(rest);
  if (!where || !validName(where.name)) return storageError(400, "InvalidKey", "Invalid key");
  const bucket = await bucketOf(context, where.bucket);
  if (!bucket || !bucket.public) return storageError(404, "Bucket not found", "Bucket not found");
  const { rows } = await context.db.query<ObjectRow>(
    "select id, name, metadata, created_at, updated_at, last_accessed_at from storage.objects where bucket_id = $1 and name = $2",
    [where.bucket, where.name],
  );
  const bytes = rows[0] ? fileStore(context).read(`${where.bucket}/${where.name}`) : undefined;
  if (!rows[0] || !bytes) return storageError(404, "not_found", "Object not found");
  const meta = rows[0].metadata;
  return new Response(bytes as BodyInit, {
    headers: {
      "content-type": meta?.mimetype ?? "application/octet-stream",
      "content-length": String(bytes.byteLength),
      "cache-control": meta?.cacheControl ?? "max-age=3600",
      etag: meta?.eTag ?? "",
      "last-modified": new Date(rows[0].updated_at).toUTCString(),
      "x-content-type-options": "nosniff",
    },
  });
}

/** `list()`: the entries under a prefix the caller's select policy lets them see, by name. */
async function listObjects(bucket: string, request: Request, context: Context, claims: Parameters<typeof asRole>[1]) {
  let options: { prefix?: unknown; limit?: unknown; offset?: unknown };
  try {
    options = JSON.parse(new TextDecoder().decode(await readBody(request, 64 * 1024)) || "{}");
  } catch {
    return storageError(400, "InvalidRequest", "Body is not valid JSON");
  }
  const prefix = typeof options.prefix === "string" ? options.prefix.replace(/^\/+|\/+$/g, "") : "";
  const limit = Number.isInteger(options.limit) ? Math.min(Number(options.limit), 1000) : 100;
  const offset = Number.isInteger(options.offset) ? Number(options.offset) : 0;
  const { rows } = await asRole(context.db, claims, (tx) =>
    tx.query<ObjectRow>(
      `select id, name, metadata, created_at, updated_at, last_accessed_at from storage.objects
       where bucket_id = $1 and ($2 = '' or name like $2 || '/%') order by name`,
      [bucket, prefix.replace(/[\\%_]/g, (c) => `\\${c}`)],
    ),
  );
  const entries = new Map<string, unknown>();
  for (const row of rows) {
    const rest = prefix ? row.name.slice(prefix.length + 1) : row.name;
    const [first, ...deeper] = rest.split("/");
    if (deeper.length) {
      if (!entries.has(first!)) {
        entries.set(first!, {
          name: first,
          id: null,
          updated_at: null,
          created_at: null,
          last_accessed_at: null,
          metadata: null,
        });
      }
    } else entries.set(first!, { ...row, name: first });
  }
  const sorted = [...entries.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, entry]) => entry);
  return json(sorted.slice(offset, offset + limit));
}
