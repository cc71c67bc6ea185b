/**
 * The schema cache: the tables and views of the exposed schemas with their columns, types,
 * defaults and primary keys, and the time zones Postgres knows, read with the stack's own
 * connection as PostgREST reads them at start. Also the "Perhaps you meant" table hint.
 */
import type { Database } from "../db.ts";

export interface Column {
  name: string;
  /** The declared type, with its modifier (`character varying(20)`): how a payload is read. */
  type: string;
  /** The type itself, a domain's base type when the domain is over a built-in type. */
  baseType: string;
  /** The default as SQL, for `Prefer: missing=default`. */
  default: string | null;
}

export interface Relation {
  schema: string;
  name: string;
  columns: Map<string, Column>;
  /** Primary key columns, by name, as PostgREST orders them. */
  primaryKey: string[];
}

export interface SchemaCache {
  relations: Map<string, Relation>;
  timezones: Set<string>;
}

const caches = new WeakMap<Database, SchemaCache>();

const RELATIONS_SQL = `
  select n.nspname as schema, c.relname as name,
    coalesce((
      select array_agg(a.attname::text order by a.attname)
      from pg_constraint k join pg_attribute a on a.attrelid = c.oid and a.attnum = any(k.conkey)
      where k.conrelid = c.oid and k.contype = 'p' and c.relkind in ('r', 'p')
    ), '{}') as primary_key,
    (
      select coalesce(json_agg(json_build_object(
        'name', a.attname,
        'type', format_type(a.atttypid, a.atttypmod),
        'baseType', case when t.typtype = 'd' and bt.typnamespace = 'pg_catalog'::regnamespace
          then format_type(t.typbasetype, null) else format_type(a.atttypid, null) end,
        'default', case
          when t.typbasetype <> 0 and ad.adbin is null then pg_get_expr(t.typdefaultbin, 0)
          when a.attidentity = 'd' then (
            select format('nextval(%L)', d.objid::regclass) from pg_depend d
            where d.refobjid = a.attrelid and d.refobjsubid = a.attnum and d.deptype = 'i' limit 1)
          when a.attgenerated = 's' then null
          else pg_get_expr(ad.adbin, ad.adrelid) end
      ) order by a.attnum), '[]')
      from pg_attribute a
      join pg_type t on t.oid = a.atttypid
      left join pg_type bt on bt.oid = t.typbasetype
      left join pg_attrdef ad on ad.adrelid = a.attrelid and ad.adnum = a.attnum
      where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
    )::text as columns
  from pg_class c
  join pg_namespace n on n.oid = c.relnamespace
  where n.nspname = any($1) and c.relkind in ('r', 'v', 'm', 'f', 'p')`;

/** Reads the schema cache again, as PostgREST does when the schema changes. */
export async function loadSchemaCache(db: Database, schemas: readonly string[]): Promise<SchemaCache> {
  const { rows } = await db.query<{ schema: string; name: string; primary_key: string[]; columns: string }>(
    RELATIONS_SQL,
    [schemas],
  );
  const relations = new Map<string, Relation>();
  for (const row of rows) {
    const columns = (JSON.parse(row.columns) as Column[]).map((c) => [c.name, c] as const);
    relations.set(`${row.schema}.${row.name}`, {
      schema: row.schema,
      name: row.name,
      columns: new Map(columns),
      primaryKey: row.primary_key,
    });
  }
  const zones = await db.query<{ name: string }>("select name from pg_timezone_names").catch(() => ({ rows: [] }));
  const cache = { relations, timezones: new Set(zones.rows.map((z) => z.name)) };
  caches.set(db, cache);
  return cache;
}

export async function schemaCache(db: Database, schemas: readonly string[]): Promise<SchemaCache> {
  return caches.get(db) ?? (await loadSchemaCache(db, schemas));
}

/** The relation `schema.name`; a miss reloads the cache once, as the table may be new. */
export async function findRelation(
  db: Database,
  schemas: readonly string[],
  schema: string,
  name: string,
): Promise<Relation | undefined> {
  const key = `${schema}.${name}`;
  return (await schemaCache(db, schemas)).relations.get(key) ?? (await loadSchemaCache(db, schemas)).relations.get(key);
}

// "Perhaps you meant": the fuzzy string set PostgREST's hint uses --------------------------------

const normalized = (value: string) =>
  Array.from(value.toLowerCase())
    .filter((c) => /[\p{L}\p{N}\s,]/u.test(c))
    .join("");

function gramVector(value: string, size: number): Map<string, number> {
  const chars = Array.from(`-${normalized(value)}-`);
  const grams = new Map<string, number>();
  for (let i = 0; i <= chars.length - size; i++) {
    const gram = chars.slice(i, i + size).join("");
    grams.set(gram, (grams.get(gram) ?? 0) + 1);
  }
  return grams;
}

const magnitude = (vector: Map<string, number>) => Math.sqrt([...vector.values()].reduce((s, n) => s + n * n, 0));

function levenshtein(a: string[], b: string[]): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** Similarity 0..1 of two strings by edit distance, as the hint's library scores it. */
function similarity(a: string, b: string): number {
  const x = Array.from(a);
  const y = Array.from(b);
  const longest = Math.max(x.length, y.length);
  return longest === 0 ? 1 : 1 - levenshtein(x, y) / longest;
}

/** The table name closest to `name` (score 0.75 or more), found the way PostgREST's fuzzy set finds it. */
export function similarTable(name: string, tables: string[]): string | undefined {
  if (tables.length >= 500) return undefined;
  return closestMatch(name, tables, 0.75);
}

/** The entry closest to `name` with at least `minScore`, as the fuzzy set's `getOneWithMinScore` finds it. */
export function closestMatch(name: string, entries: string[], minScore: number): string | undefined {
  const key = name.toLowerCase();
  const exact = entries.find((entry) => entry.toLowerCase() === key);
  if (exact !== undefined) return exact;
  for (const size of [3, 2]) {
    const query = gramVector(key, size);
    const scored = entries
      .map((entry) => {
        const vector = gramVector(entry.toLowerCase(), size);
        let dot = 0;
        for (const [gram, count] of query) dot += count * (vector.get(gram) ?? 0);
        return { entry, cosine: dot === 0 ? 0 : dot / (magnitude(query) * magnitude(vector)) };
      })
      .filter((candidate) => candidate.cosine > 0)
      .sort((a, b) => b.cosine - a.cosine)
      .slice(0, 50)
      .map(({ entry }) => ({ entry, score: similarity(key, entry.toLowerCase()) }))
      .sort((a, b) => b.score - a.score)
      .filter((candidate) => candidate.score >= minScore);
    if (scored.length > 0) return scored[0]!.entry;
  }
  return undefined;
}
