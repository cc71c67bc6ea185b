/**
 * The local stack's database: embedded Postgres (PGlite) in a data folder, with the platform
 * stand-ins and then the project's own migrations applied in order, each once.
 * Dev and test only.
 */
import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";

const root = join(import.meta.dirname, "..");
export const MIGRATIONS_DIR = join(root, "supabase/migrations");
const PLATFORM_SQL = join(import.meta.dirname, "sql/platform.sql");

/** What the stack needs from a database: PGlite, or a PostgreSQL server behind the same shape. */
export interface Sql {
  query<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<{ rows: T[] }>;
  exec(text: string): Promise<unknown>;
}

export interface Database extends Sql {
  transaction<T>(work: (tx: Sql) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** Opens PGlite in `dataDir` (kept across restarts) or in memory when none is given. */
export async function openPglite(dataDir?: string): Promise<Database> {
  const db = await PGlite.create(dataDir);
  return {
    query: (text, params) => db.query(text, params) as never,
    exec: (text) => db.exec(text),
    transaction: (work) => db.transaction((tx) => work(tx as unknown as Sql)),
    close: () => db.close(),
  };
}

/** Opens a PostgreSQL server by URL (DATABASE_URL), with the same shape as PGlite. */
export async function openPostgres(url: string): Promise<Database> {
  // bigint (int8) as a number, as PGlite and PostgREST's JSON give it: amounts in cents fit.
  const types = {
    getTypeParser: ((oid: number, format?: "text" | "binary") =>
      oid === 20 ? Number : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
  };
  const pool = new pg.Pool({ connectionString: url, max: 8, types });
  await pool.query("select 1");
  const run = (client: pg.Pool | pg.PoolClient): Sql => ({
    query: (text, params) => client.query(text, params as unknown[]) as never,
    exec: (text) => client.query(text),
  });
  return {
    ...run(pool),
    async transaction(work) {
      const client = await pool.connect();
      try {
        await client.query("begin");
        const result = await work(run(client));
        await client.query("commit");
        return result;
      } catch (error) {
        await client.query("rollback");
        throw error;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}

/** PostgreSQL when DATABASE_URL is set, otherwise PGlite in `dataDir` (or in memory). */
export function openDatabase(options: { url?: string; dataDir?: string } = {}): Promise<Database> {
  return options.url ? openPostgres(options.url) : openPglite(options.dataDir);
}

/** Applies the platform stand-ins, then every migration not applied yet. Returns the ones applied now. */
export async function migrate(db: Database, dir = MIGRATIONS_DIR): Promise<string[]> {
  await db.exec(await readFile(PLATFORM_SQL, "utf8"));
  await db.exec(`
    create schema if not exists supabase_migrations;
    create table if not exists supabase_migrations.schema_migrations (
      version text primary key,
      name text not null,
      checksum text not null,
      applied_at timestamptz not null default now()
    );
  `);
  const applied = new Map(
    (
      await db.query<{ version: string; checksum: string }>(
        "select version, checksum from supabase_migrations.schema_migrations",
      )
    ).rows.map((row) => [row.version, row.checksum]),
  );
  const files = (await readdir(dir)).filter((f) => /^\d+_.+\.sql$/.test(f)).sort();
  const now: string[] = [];
  for (const file of files) {
    const [version, ...rest] = file.replace(/\.sql$/, "").split("_");
    const sql = await readFile(join(dir, file), "utf8");
    const checksum = createHash("sha256").update(sql).digest("hex");
    const known = applied.get(version!);
    if (known === checksum) continue;
    if (known) throw new Error(`Migration ${file} changed after it was applied; add a new migration instead`);
    await db.transaction(async (tx) => {
      await tx.exec(sql);
      await tx.query(
        "insert into supabase_migrations.schema_migrations (version, name, checksum) values ($1, $2, $3)",
        [version, rest.join("_"), checksum],
      );
    });
    now.push(file);
  }
  return now;
}

/** JWT claims as PostgREST sets them for a request. */
export interface Claims {
  role: "anon" | "authenticated" | "service_role";
  sub?: string;
  [claim: string]: unknown;
}

/** Runs `work` in a transaction as the claims' role, with the claims set the way PostgREST sets them. */
export function asRole<T>(db: Database, claims: Claims, work: (tx: Sql) => Promise<T>): Promise<T> {
  if (!["anon", "authenticated", "service_role"].includes(claims.role)) {
    return Promise.reject(new Error(`Unknown role ${String(claims.role)}`));
  }
  return db.transaction(async (tx) => {
    await tx.query("select set_config('role', $1, true), set_config('request.jwt.claims', $2, true)", [
      claims.role,
      JSON.stringify(claims),
    ]);
    return work(tx);
  });
}
