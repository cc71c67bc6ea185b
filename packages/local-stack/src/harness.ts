/**
 * The one way tests and the bench run the local stack: on embedded Postgres (PGlite, in a temporary
 * data folder) or on a throw-away PostgreSQL server (packages/local-stack/src/postgres-server.ts),
 * with real supabase-js clients pointed at it over HTTP, and everything removed afterwards:
 * `stop()` when done, `stopSync()` from a signal handler (it stops the server and removes the
 * folders). Dev and test only.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient, type SupabaseClient } from "@supabase/supabase-js";
import pg from "pg";
import { tightenFolder } from "./data-folder.ts";
import { type Database, migrate, openPglite, openPostgres } from "./db.ts";
import { type PostgresServer, startPostgres } from "./postgres-server.ts";
import { PROJECT_ROOT } from "./project.ts";
import { type Stack, type StackOptions, startStack } from "./stack.ts";

/**
 * A test's own functions folder (`functionsDir`) with the project's shared modules linked in as
 * `_shared/`: the stack reads what the functions sell and their clients from there when it starts
 * (packages/local-stack/src/product.ts), as it does from the project's own folder.
 */
export function linkProduct(functionsDir: string): void {
  mkdirSync(functionsDir, { recursive: true });
  symlinkSync(join(PROJECT_ROOT, "functions", "_shared"), join(functionsDir, "_shared"), "dir");
}

export interface Backend {
  name: "PGlite" | "PostgreSQL";
  /**
   * A running PostgreSQL server to use instead of a throw-away one: openTestDatabase makes a fresh
   * database of its own there and drops it afterwards.
   */
  server?: string;
}
export const BACKENDS: Backend[] = [{ name: "PGlite" }, { name: "PostgreSQL" }];

/**
 * BACKENDS, plus the server CHECK_DATABASE_URL names when it is set: CI's PostgreSQL service, on
 * the major version hosted projects run (supabase/config.toml `[db] major_version`), so the
 * migrations are also proven on it and not only on the machine's own binaries.
 */
export function checkBackends(env: Record<string, string | undefined> = process.env): Backend[] {
  const server = env.CHECK_DATABASE_URL?.trim();
  return server ? [...BACKENDS, { name: "PostgreSQL", server }] : BACKENDS;
}

/** A new, empty database on `server` (a URL), and how to drop it. */
async function freshDatabase(server: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `check_${process.pid}_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(server);
  url.pathname = `/${name}`;
  return {
    url: url.href,
    async drop() {
      const client = new pg.Client({ connectionString: server });
      await client.connect();
      try {
        await client.query(`drop database if exists ${name} with (force)`);
      } finally {
        await client.end();
      }
    },
  };
}

export interface TestStack extends Stack {
  dataDir: string;
  /** The throw-away PostgreSQL server's URL on that backend, to start a second stack on the same data. */
  databaseUrl?: string;
  /** A supabase-js client as the browser makes it: anon key, no persisted session between clients. */
  client(): SupabaseClient;
  /** A supabase-js client with the service role key, as server functions make it. */
  admin(): SupabaseClient;
  /** Stops the stack and removes its data (and its PostgreSQL server). */
  stop(): Promise<void>;
  /** Stops the PostgreSQL server and removes the data at once, for a signal handler. */
  stopSync(): void;
}

/** Removes what a run made, once each, whatever state it reached. */
function cleanup(server: PostgresServer | undefined, dirs: string[]) {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    try {
      server?.stop();
    } finally {
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    }
  };
}

let emptyCluster: Promise<string> | undefined;

/**
 * A new, empty PGlite cluster, made once per test process: PGlite takes about 2.4 s to unpack and
 * initialise one in a folder, where copying a made one takes about 0.5 s, and the integration
 * suite starts a stack on a new folder dozens of times. Nothing is migrated in it: each stack
 * still migrates and seeds its copy as `npm start` does a new folder (packages/local-stack/src/stack.ts).
 */
function pgliteCluster(): Promise<string> {
  emptyCluster ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), "pglite-cluster-"));
    process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
    const db = await openPglite(join(dir, "pglite"));
    await db.close();
    return join(dir, "pglite");
  })();
  return emptyCluster;
}

/**
 * Starts the stack on `backend`. A given `dataDir` or `databaseUrl` is the caller's and is kept;
 * what the harness makes (a temporary folder, a PostgreSQL server) it removes. A folder it makes
 * for PGlite starts from a copy of an empty cluster (`pgliteCluster`).
 */
export async function startTestStack(backend: Backend, options: StackOptions = {}): Promise<TestStack> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), "stack-"));
  if (!options.dataDir && backend.name === "PGlite" && !options.databaseUrl) {
    const pglite = join(dataDir, "pglite");
    cpSync(await pgliteCluster(), pglite, { recursive: true });
    // Private as the stack keeps its data (packages/local-stack/src/data-folder.ts).
    tightenFolder(pglite);
  }
  const server = backend.name === "PostgreSQL" && !options.databaseUrl ? startPostgres() : undefined;
  const stopSync = cleanup(server, options.dataDir ? [] : [dataDir]);
  let stack: Stack;
  try {
    stack = await startStack({ ...options, dataDir, databaseUrl: options.databaseUrl ?? server?.url });
  } catch (error) {
    stopSync();
    throw error;
  }
  const make = (key: string) =>
    createClient(stack.url, key, {
      auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    });
  return Object.assign(stack, {
    dataDir,
    databaseUrl: options.databaseUrl ?? server?.url,
    client: () => make(stack.anonKey),
    admin: () => make(stack.serviceKey),
    async stop() {
      try {
        await stack.close();
      } finally {
        stopSync();
      }
    },
    stopSync,
  });
}

/** The project's migrations on `backend` without the HTTP stack, for probing the database directly. */
export async function openTestDatabase(backend: Backend): Promise<{ db: Database; stop(): Promise<void> }> {
  const fresh = backend.server ? await freshDatabase(backend.server) : undefined;
  const server = backend.name === "PostgreSQL" && !fresh ? startPostgres() : undefined;
  const stopSync = cleanup(server, []);
  const remove = async () => {
    try {
      await fresh?.drop();
    } finally {
      stopSync();
    }
  };
  let db: Database | undefined;
  try {
    const url = fresh?.url ?? server?.url;
    db = url ? await openPostgres(url) : await openPglite();
    await migrate(db);
    const opened = db;
    return {
      db: opened,
      async stop() {
        try {
          await opened.close();
        } finally {
          await remove();
        }
      },
    };
  } catch (error) {
    await db?.close().catch(() => {});
    await remove();
    throw error;
  }
}
