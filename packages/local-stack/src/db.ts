/**
 * The local stack's database: embedded Postgres (PGlite) in a data folder, or a PostgreSQL server,
 * with the platform stand-in (packages/local-stack/src/sql/platform.sql) and then the project's own
 * migrations applied in order, each once. Dev and test only.
 */
import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { pgcrypto } from "@electric-sql/pglite/contrib/pgcrypto";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import pg from "pg";
import { type Claims, ROLES } from "./jwt.ts";
import { PROJECT_ROOT } from "./project.ts";

export const MIGRATIONS_DIR = join(PROJECT_ROOT, "supabase/migrations");
const PLATFORM_SQL = join(import.meta.dirname, "sql/platform.sql");
/**
 * The shape of packages/local-stack/src/sql/platform.sql. A database made by another version is
 * refused with a message, rather than half-upgraded: bump this when platform.sql changes a table.
 */
export const PLATFORM_VERSION = 2;

/** What the stack needs from a database: PGlite, or a PostgreSQL server behind the same shape. */
export interface Sql {
  query<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<{ rows: T[] }>;
  exec(text: string): Promise<unknown>;
}

/**
 * A transaction's characteristics as BEGIN takes them, e.g. `ISOLATION LEVEL READ COMMITTED READ
 * WRITE`: PostgREST begins each request's transaction so (hasql-transaction).
 */
export type TransactionMode = string;

export interface Database extends Sql {
  transaction<T>(work: (tx: Sql) => Promise<T>, mode?: TransactionMode): Promise<T>;
  close(): Promise<void>;
}

/** Postgres's type oid of bytea. */
const BYTEA = 17;

/**
 * A bytea parameter in Postgres's text input form. PGlite's own serializer takes bytes only, but
 * PostgREST, and node-postgres on the PostgreSQL path, send a filter's value as text that the server
 * reads as the column's type: `token_hash=eq.\x9f…` compares bytea with bytea on both.
 */
function byteaText(value: unknown): string {
  if (typeof value === "string") return value;
  return `\\x${Buffer.from(value as Uint8Array).toString("hex")}`;
}

/**
 * Opens PGlite in `dataDir` (kept across restarts) or in memory when none is given, with the
 * extensions the migrations create that Supabase offers: pgcrypto and pg_trgm (the desk's search).
 */
export async function openPglite(dataDir?: string): Promise<Database> {
  const db = await PGlite.create({ dataDir, extensions: { pgcrypto, pg_trgm }, serializers: { [BYTEA]: byteaText } });
  return {
    query: (text, params) => db.query(text, params) as never,
    exec: (text) => db.exec(text),
    // PGlite's transaction() sends a plain BEGIN; SET TRANSACTION then gives it the mode.
    transaction: (work, mode) =>
      db.transaction(async (tx) => {
        if (mode) await tx.query(`set transaction ${mode}`);
        return work(tx as unknown as Sql);
      }),
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
  // An idle connection the server drops (a restart, an outage) is reported here; unheard, the
  // error would end the process. The pool opens new connections once the server is back.
  pool.on("error", (error) => console.error(`PostgreSQL connection lost: ${error.message}`));
  await pool.query("select 1");
  const run = (client: pg.Pool | pg.PoolClient): Sql => ({
    query: (text, params) => client.query(text, params as unknown[]) as never,
    exec: (text) => client.query(text),
  });
  return {
    ...run(pool),
    async transaction(work, mode) {
      const client = await pool.connect();
      try {
        // One round trip: BEGIN takes the mode itself.
        await client.query(mode ? `begin ${mode}` : "begin");
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
  await checkPlatformVersion(db);
  await db.exec(await readFile(PLATFORM_SQL, "utf8"));
  await db.exec(`
    create schema if not exists supabase_migrations;
    create table if not exists supabase_migrations.schema_migrations (
      version text primary key,
      name text not null,
      checksum text not null,
      applied_at timestamptz not null default now()
    );
    create table if not exists supabase_migrations.platform (version int not null);
  `);
  await db.transaction(async (tx) => {
    await tx.query("delete from supabase_migrations.platform");
    await tx.query("insert into supabase_migrations.platform (version) values ($1)", [PLATFORM_VERSION]);
  });
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

/** Refuses a database whose platform tables another version of the stack made. */
async function checkPlatformVersion(db: Database) {
  const { rows } = await db.query<{ made: boolean; versioned: boolean }>(
    "select to_regclass('auth.users') is not null as made, to_regclass('supabase_migrations.platform') is not null as versioned",
  );
  if (!rows[0]!.made) return;
  const version = rows[0]!.versioned
    ? ((await db.query<{ version: number }>("select version from supabase_migrations.platform")).rows[0]?.version ?? 1)
    : 1;
  if (version !== PLATFORM_VERSION) {
    throw new Error(
      `This database was made by another version of the local stack (platform ${version}, now ${PLATFORM_VERSION}). ` +
        "Start it again from the seed: `npm run preview -- --reset` (or delete the data folder; for DATABASE_URL, recreate the database).",
    );
  }
}

/**
 * Runs `work` in a transaction as the claims' role, with the claims set the way PostgREST sets
 * them, and any further transaction-local `settings` (search_path, request.headers…) in the same
 * statement.
 */
export function asRole<T>(
  db: Database,
  claims: Claims,
  work: (tx: Sql) => Promise<T>,
  settings: Record<string, string> = {},
): Promise<T> {
  if (!ROLES.includes(claims.role)) {
    return Promise.reject(new Error(`Unknown role ${String(claims.role)}`));
  }
  const all: [string, string][] = [
    ["role", claims.role],
    ["request.jwt.claims", JSON.stringify(claims)],
    ...Object.entries(settings),
  ];
  const sql = `select ${all.map((_, i) => `set_config($${2 * i + 1}, $${2 * i + 2}, true)`).join(", ")}`;
  return db.transaction(async (tx) => {
    await tx.query(sql, all.flat());
    return work(tx);
  });
}
