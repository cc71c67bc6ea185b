/**
 * The local stack: one HTTP server that serves the built site and the Supabase API the product
 * calls (`/auth/v1`, `/rest/v1`, `/storage/v1`, `/functions/v1`) plus the mail outbox, over
 * embedded Postgres (PGlite) in a data folder, or a PostgreSQL server when a URL is given.
 * `npm start` runs it through local/start.ts; the integration tests start it in-process.
 * Dev and test only: production is Supabase.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { Readable } from "node:stream";
import bcrypt from "bcryptjs";
import { handleAuth } from "./auth.ts";
import { type Database, migrate, openDatabase } from "./db.ts";
import { handleFunctions } from "./functions.ts";
import { type Context, json, type StackConfig } from "./http.ts";
import { createSigner, type Signer } from "./jwt.ts";
import { createMailer, type Mailer, OUTBOX_PATH, outboxPage } from "./mail.ts";
import { handleRest } from "./postgrest.ts";
import { handleStorage } from "./storage.ts";
import { staticHandler } from "../scripts/serve.mjs";

const root = join(import.meta.dirname, "..");

/** The demo customer seeded into a new database (supabase/seed.sql); the stack sets the password. */
export const DEMO_USER = { email: "demo@advisoraccelerator.com", password: "advisor-demo-2026" };

export interface StackOptions {
  /** Port to listen on; 0 picks a free one. */
  port?: number;
  /** Host name in the public URL; default localhost. */
  host?: string;
  /** Data folder for PGlite, bucket files, mail and keys; without one everything is in memory. */
  dataDir?: string;
  /** PostgreSQL server to use instead of PGlite. */
  databaseUrl?: string;
  /** The built site to serve; without one, non-API paths answer 404. */
  siteDir?: string;
  /** Folder of the functions `/functions/v1/<name>` runs; default `functions/`. */
  functionsDir?: string;
  /** Apply supabase/seed.sql to a new database; default true. */
  seed?: boolean;
  config?: Partial<Omit<StackConfig, "url">>;
}

export interface Stack {
  url: string;
  port: number;
  anonKey: string;
  serviceKey: string;
  db: Database;
  mail: Mailer;
  signer: Signer;
  outboxUrl: string;
  close(): Promise<void>;
}

const API_PREFIXES = ["/auth/v1", "/rest/v1", "/storage/v1", "/functions/v1"];

/** Headers Supabase's gateway adds to every API answer, and answers preflight requests with. */
function corsHeaders(request: Request): Record<string, string> {
  return {
    "access-control-allow-origin": "*",
    "access-control-allow-methods": "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS",
    "access-control-allow-headers":
      request.headers.get("access-control-request-headers") ??
      "authorization, x-client-info, apikey, content-type, x-upsert, prefer, accept-profile, content-profile",
    "access-control-expose-headers": "content-range, content-location, x-supabase-api-version",
    "access-control-max-age": "86400",
  };
}

export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const dataDir = options.dataDir ?? "";
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const unlock = dataDir ? lockDataDir(dataDir) : () => undefined;
  const db = await openDatabase({
    url: options.databaseUrl,
    dataDir: dataDir ? join(dataDir, "pglite") : undefined,
  }).catch((error: unknown) => {
    unlock();
    throw error;
  });
  const applied = await migrate(db);
  if (options.seed !== false && applied.length > 0 && applied[0] === (await firstMigration())) {
    await db.exec(await readFile(join(root, "supabase/seed.sql"), "utf8"));
  }
  await setDemoPassword(db);

  const signer = createSigner({ dataDir: dataDir || undefined });
  const mail = createMailer(dataDir || undefined);
  const serveSite = options.siteDir ? staticHandler(options.siteDir) : undefined;
  const functionsDir = options.functionsDir ?? join(root, "functions");

  const server = createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(options.port ?? 0, "0.0.0.0", () => resolve());
    });
  } catch (error) {
    await db.close();
    unlock();
    throw error;
  }
  const port = (server.address() as AddressInfo).port;
  const url = `http://${options.host ?? "localhost"}:${port}`;
  const config: StackConfig = {
    url,
    redirectOrigins: [],
    jwtExpiry: 3600,
    otpExpiry: 3600,
    rateLimits: { signInPerWindow: 30, signInWindowSeconds: 300, recoverWindowSeconds: 60 },
    maxBodyBytes: 50 * 1024 * 1024,
    ...options.config,
  };

  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? "/").split("?")[0]!;
    const api = API_PREFIXES.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
    if (!api && !path.startsWith(OUTBOX_PATH)) {
      if (serveSite) serveSite(req, res);
      else res.writeHead(404, { "content-type": "text/plain" }).end("Not found");
      return;
    }
    const context: Context = { db, signer, mail, config, dataDir, ip: req.socket.remoteAddress ?? "" };
    void answer(req, res, async (request) => {
      if (!api) return outboxPage(path, mail) ?? new Response("Not found", { status: 404 });
      const cors = corsHeaders(request);
      if (request.method === "OPTIONS") return new Response(null, { status: 204, headers: cors });
      const response = await route(path, request, context, functionsDir);
      for (const [name, value] of Object.entries(cors))
        if (!response.headers.has(name)) response.headers.set(name, value);
      return response;
    });
  });

  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    anonKey: signer.anonKey,
    serviceKey: signer.serviceKey,
    db,
    mail,
    signer,
    outboxUrl: `${url}${OUTBOX_PATH}`,
    /** Stops serving and closes the database; calling it again does nothing. */
    close() {
      closing ??= (async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
        await db.close();
        unlock();
      })();
      return closing;
    },
  };
}

function route(path: string, request: Request, context: Context, functionsDir: string): Promise<Response> {
  if (path.startsWith("/auth/v1")) return handleAuth(request, context);
  if (path.startsWith("/rest/v1")) return handleRest(request, context);
  if (path.startsWith("/storage/v1")) return handleStorage(request, context);
  return handleFunctions(request, context, functionsDir);
}

/** Turns the Node request into a Web Request, and the handler's Response back. */
async function answer(req: IncomingMessage, res: ServerResponse, handle: (request: Request) => Promise<Response>) {
  let response: Response;
  try {
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (Array.isArray(value)) value.forEach((v) => headers.append(name, v));
      else if (value !== undefined) headers.set(name, value);
    }
    const hasBody = req.method !== "GET" && req.method !== "HEAD";
    const request = new Request(`http://${req.headers.host ?? "localhost"}${req.url ?? "/"}`, {
      method: req.method,
      headers,
      body: hasBody ? (Readable.toWeb(req) as ReadableStream) : undefined,
      duplex: "half",
    } as RequestInit);
    response = await handle(request);
  } catch (error) {
    console.error(error);
    response = json({ message: "Internal server error" }, 500);
  }
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  res.writeHead(response.status, headers);
  if (!response.body || req.method === "HEAD") {
    res.end();
    return;
  }
  Readable.fromWeb(response.body as never).pipe(res);
}

/**
 * Embedded Postgres must have one process at a time: refuses a data folder another live stack
 * holds (a lock left by a process that died is taken over). Answers the unlock.
 */
function lockDataDir(dataDir: string): () => void {
  const file = join(dataDir, "stack.lock");
  let holder = 0;
  try {
    holder = Number(readFileSync(file, "utf8"));
  } catch {
    // No lock: the folder is free.
  }
  if (holder && holder !== process.pid && alive(holder)) {
    throw new Error(
      `${dataDir} is in use by another local stack (process ${holder}). Stop it first, or use another data folder (DATA_DIR).`,
    );
  }
  writeFileSync(file, String(process.pid));
  return () => rmSync(file, { force: true });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

async function firstMigration(): Promise<string> {
  return (await readdir(join(root, "supabase/migrations"))).filter((f) => /^\d+_.+\.sql$/.test(f)).sort()[0]!;
}

/** Gives the seeded demo customer its documented password, once. */
async function setDemoPassword(db: Database) {
  const { rows } = await db.query<{ id: string }>(
    "select id from auth.users where email = $1 and encrypted_password is null",
    [DEMO_USER.email],
  );
  if (rows.length === 0) return;
  await db.query("update auth.users set encrypted_password = $1 where id = $2", [
    await bcrypt.hash(DEMO_USER.password, 10),
    rows[0]!.id,
  ]);
}
