/**
 * The one way tests and the bench run the local stack: on embedded Postgres (PGlite, in a
 * temporary data folder) or on a throw-away PostgreSQL server (local/postgres-server.ts), with
 * real supabase-js clients pointed at it over HTTP, and everything removed afterwards: `stop()`
 * when done, `stopSync()` from a signal handler (it stops the server and removes the folders).
 * Dev and test only.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient, type SupabaseClient } from "@supabase/supabase-js";
import { type Database, migrate, openPglite, openPostgres } from "./db.ts";
import { type PostgresServer, startPostgres } from "./postgres-server.ts";
import { type Stack, type StackOptions, startStack } from "./stack.ts";

export interface Backend {
  name: "PGlite" | "PostgreSQL";
}
export const BACKENDS: Backend[] = [{ name: "PGlite" }, { name: "PostgreSQL" }];

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

/**
 * Starts the stack on `backend`. A given `dataDir` or `databaseUrl` is the caller's and is kept;
 * what the harness makes (a temporary folder, a PostgreSQL server) it removes.
 */
export async function startTestStack(backend: Backend, options: StackOptions = {}): Promise<TestStack> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), "stack-"));
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
  const server = backend.name === "PostgreSQL" ? startPostgres() : undefined;
  const stopSync = cleanup(server, []);
  try {
    const db = server ? await openPostgres(server.url) : await openPglite();
    await migrate(db);
    return {
      db,
      async stop() {
        try {
          await db.close();
        } finally {
          stopSync();
        }
      },
    };
  } catch (error) {
    stopSync();
    throw error;
  }
}
