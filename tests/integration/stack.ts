/**
 * Starts the local stack in-process for an integration suite, on embedded Postgres (PGlite, in a
 * temporary data folder) or on a throw-away PostgreSQL server, and gives real supabase-js
 * clients pointed at it over HTTP.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient, type SupabaseClient } from "@supabase/supabase-js";
import { startPostgres } from "../../local/postgres-server.ts";
import { type Stack, type StackOptions, startStack } from "../../local/stack.ts";

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
}

export async function startTestStack(backend: Backend, options: StackOptions = {}): Promise<TestStack> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), "stack-"));
  const postgres = backend.name === "PostgreSQL" && !options.databaseUrl ? startPostgres() : undefined;
  const stack = await startStack({ ...options, dataDir, databaseUrl: options.databaseUrl ?? postgres?.url });
  const make = (key: string) =>
    createClient(stack.url, key, {
      auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    });
  return Object.assign(stack, {
    dataDir,
    databaseUrl: options.databaseUrl ?? postgres?.url,
    client: () => make(stack.anonKey),
    admin: () => make(stack.serviceKey),
    async stop() {
      await stack.close();
      postgres?.stop();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  });
}
