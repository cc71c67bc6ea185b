/**
 * The functions of the schema cache, as PostgREST 14 reads them (SchemaCache.hs `funcsSqlQuery`):
 * every function of the exposed schemas with its input parameters (name, type, required, variadic),
 * its return type (scalar or composite, single or set), volatility, isolation level and hoisted
 * settings; and how a call picks one (Plan.hs `findProc`), with PostgREST's errors when none or
 * several fit. On Supabase event triggers reload the cache after DDL (`pgrst_ddl_watch`,
 * `pgrst_drop_watch`); here the same triggers count DDL commands
 * (packages/local-stack/src/sql/platform.sql), and a call whose transaction sees a newer count than
 * the cache's reads the functions again and is planned anew.
 */
import type { Database } from "../db.ts";
import { ambiguousFunction, functionNotFound } from "./errors.ts";
import { closestMatch } from "./schema.ts";

export interface RoutineParam {
  /** Empty for an unnamed parameter. */
  name: string;
  type: string;
  /** The type a value is cast to: `character` and `bit` widened to their varying forms, which take any length. */
  castType: string;
  required: boolean;
  variadic: boolean;
}

export interface Routine {
  schema: string;
  name: string;
  description: string | null;
  params: RoutineParam[];
  returns: { schema: string; name: string; setOf: boolean; composite: boolean };
  volatility: "i" | "s" | "v";
  /** From `set default_transaction_isolation` on the function. */
  isolationLevel: string | null;
  /** The function's `set` settings PostgREST hoists into the transaction (`db-hoisted-tx-settings`). */
  settings: [string, string][];
}

/** What a call's body is, for the unnamed single parameter it may fill (Plan.hs `hasSingleUnnamedParam`). */
export type BodyKind = "json" | "text" | "xml" | "bytea" | "other";

/** PostgREST's default `db-hoisted-tx-settings`, which Supabase keeps. */
const HOISTED = ["statement_timeout", "plan_filter.statement_cost_limit", "default_transaction_isolation"];

/** PostgREST's query, with the parameters and settings as JSON rather than composite arrays. */
const ROUTINES_SQL = `
  WITH
  base_types AS (
    WITH RECURSIVE
    recurse AS (
      SELECT oid, typbasetype, typnamespace AS base_namespace, COALESCE(NULLIF(typbasetype, 0), oid) AS base_type
      FROM pg_type
      UNION
      SELECT t.oid, b.typbasetype, b.typnamespace AS base_namespace, COALESCE(NULLIF(b.typbasetype, 0), b.oid) AS base_type
      FROM recurse t
      JOIN pg_type b ON t.typbasetype = b.oid
    )
    SELECT oid, base_namespace, base_type FROM recurse WHERE typbasetype = 0
  ),
  arguments AS (
    SELECT
      oid,
      json_agg(json_build_object(
        'name', COALESCE(name, ''),
        'type', type::regtype::text,
        'castType', CASE type
          WHEN 'bit'::regtype THEN 'bit varying'
          WHEN 'bit[]'::regtype THEN 'bit varying[]'
          WHEN 'character'::regtype THEN 'character varying'
          WHEN 'character[]'::regtype THEN 'character varying[]'
          ELSE type::regtype::text
        END,
        'required', idx <= (pronargs - pronargdefaults),
        'variadic', COALESCE(mode = 'v', FALSE)
      ) ORDER BY idx) AS args,
      CASE COUNT(*) - COUNT(name)
        WHEN 0 THEN true
        WHEN 1 THEN (array_agg(type))[1] IN ('bytea'::regtype, 'json'::regtype, 'jsonb'::regtype, 'text'::regtype, 'xml'::regtype)
        ELSE false
      END AS callable
    FROM pg_proc,
         unnest(proargnames, proargtypes, proargmodes) WITH ORDINALITY AS _ (name, type, mode, idx)
    WHERE type IS NOT NULL
    GROUP BY oid
  )
  SELECT
    pn.nspname AS schema,
    p.proname AS name,
    d.description,
    COALESCE(a.args, '[]')::text AS params,
    tn.nspname AS return_schema,
    COALESCE(comp.relname, t.typname) AS return_name,
    p.proretset AS set_of,
    (t.typtype = 'c' OR COALESCE(proargmodes::text[] && '{t,b,o}', false)) AS composite,
    p.provolatile AS volatility,
    (regexp_split_to_array((regexp_split_to_array(iso_config, '='))[2], ','))[1] AS isolation_level,
    COALESCE((
      SELECT json_agg(json_build_array(
        substr(setting, 1, strpos(setting, '=') - 1),
        substr(setting, strpos(setting, '=') + 1)))
      FROM unnest(proconfig) setting
      WHERE setting ~ ANY($2)
    ), '[]')::text AS settings
  FROM pg_proc p
  LEFT JOIN arguments a ON a.oid = p.oid
  JOIN pg_namespace pn ON pn.oid = p.pronamespace
  JOIN base_types bt ON bt.oid = p.prorettype
  JOIN pg_type t ON t.oid = bt.base_type
  JOIN pg_namespace tn ON tn.oid = t.typnamespace
  LEFT JOIN pg_class comp ON comp.oid = t.typrelid
  LEFT JOIN pg_description AS d ON d.objoid = p.oid AND d.classoid = 'pg_proc'::regclass
  LEFT JOIN LATERAL unnest(proconfig) iso_config ON iso_config LIKE 'default_transaction_isolation%'
  WHERE t.oid <> 'trigger'::regtype AND COALESCE(a.callable, true)
  AND prokind = 'f'
  AND pn.nspname = ANY($1)`;

/**
 * The count of DDL commands, kept by packages/local-stack/src/sql/platform.sql's `pgrst_ddl_watch`
 * and `pgrst_drop_watch` event triggers: the cache is current while it has not moved.
 */
export const SCHEMA_VERSION_SQL = "(SELECT version FROM local_stack.schema_version)";

export interface RoutineCache {
  /** The schema version the routines were read at. */
  version: string;
  /** By `schema.name`, overloads ordered as PostgREST orders them. */
  routines: Map<string, Routine[]>;
}

/** Thrown inside a call's transaction when DDL moved the schema version since the cache was read. */
export class StaleRoutines extends Error {
  constructor() {
    super("The function cache is older than the schema");
  }
}

const caches = new WeakMap<Database, RoutineCache>();

interface RoutineRow {
  schema: string;
  name: string;
  description: string | null;
  params: string;
  return_schema: string;
  return_name: string;
  set_of: boolean;
  composite: boolean;
  volatility: "i" | "s" | "v";
  isolation_level: string | null;
  settings: string;
}

/** The functions as last read, if they have been. A call checks the version in its transaction. */
export function cachedRoutines(db: Database): RoutineCache | undefined {
  return caches.get(db);
}

/**
 * Reads the functions of the exposed schemas again. The version is read first: DDL committed
 * between the two reads leaves the cache marked older than it is, so the next call reads again.
 */
export async function loadRoutines(db: Database, schemas: readonly string[]): Promise<RoutineCache> {
  const { rows } = await db.query<{ version: number | string }>(`SELECT ${SCHEMA_VERSION_SQL} AS version`);
  const version = String(rows[0]!.version);
  const loaded = await db.query<RoutineRow>(ROUTINES_SQL, [schemas, HOISTED]);
  const routines = new Map<string, Routine[]>();
  for (const row of loaded.rows) {
    const routine: Routine = {
      schema: row.schema,
      name: row.name,
      description: row.description,
      params: JSON.parse(row.params) as RoutineParam[],
      returns: { schema: row.return_schema, name: row.return_name, setOf: row.set_of, composite: row.composite },
      volatility: row.volatility,
      isolationLevel: row.isolation_level,
      settings: JSON.parse(row.settings) as [string, string][],
    };
    const key = `${row.schema}.${row.name}`;
    routines.set(key, [...(routines.get(key) ?? []), routine]);
  }
  for (const overloads of routines.values()) overloads.sort(compareRoutines);
  const cache = { version, routines };
  caches.set(db, cache);
  return cache;
}

/** Haskell's ordering of `Text`: by code point. */
const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** PostgREST's `Ord Routine`: fewer parameters first, then description, then the parameters field by field. */
export function compareRoutines(a: Routine, b: Routine): number {
  if (a.params.length !== b.params.length) return a.params.length - b.params.length;
  if (a.description !== b.description) {
    if (a.description === null) return -1;
    if (b.description === null) return 1;
    return compareText(a.description, b.description);
  }
  for (let i = 0; i < a.params.length; i++) {
    const x = a.params[i]!;
    const y = b.params[i]!;
    const order =
      compareText(x.name, y.name) ||
      compareText(x.type, y.type) ||
      compareText(x.castType, y.castType) ||
      Number(x.required) - Number(y.required) ||
      Number(x.variadic) - Number(y.variadic);
    if (order !== 0) return order;
  }
  return 0;
}

export const returnsScalar = (routine: Routine) => !routine.returns.composite;
export const returnsSingle = (routine: Routine) => !routine.returns.setOf;
export const returnsVoid = (routine: Routine) =>
  !routine.returns.setOf &&
  !routine.returns.composite &&
  routine.returns.schema === "pg_catalog" &&
  routine.returns.name === "void";

/**
 * Plan.hs `findProc`: the one function of that name whose parameters the argument names fit
 * (all required ones, any optional ones, nothing else); failing that, for a POST, the one whose
 * single unnamed parameter takes the body as it is. None is PGRST202, several PGRST203.
 */
export function findRoutine(
  routines: Map<string, Routine[]>,
  schema: string,
  name: string,
  keys: ReadonlySet<string>,
  post: boolean,
  body: BodyKind,
): Routine {
  const overloads = routines.get(`${schema}.${name}`) ?? [];
  const rawBody = post && (body === "text" || body === "xml" || body === "bytea");
  const fits = (routine: Routine) => {
    const { params } = routine;
    if (params.length === 0) return keys.size === 0 && !rawBody;
    const required = new Set(params.filter((p) => p.required).map((p) => p.name));
    const optional = new Set(params.filter((p) => !p.required).map((p) => p.name));
    const given = [...keys].filter((key) => !optional.has(key));
    return given.length === required.size && given.every((key) => required.has(key));
  };
  const takesBody = (routine: Routine) => {
    const [only, ...rest] = routine.params;
    if (!post || !only || rest.length > 0 || only.name !== "") return false;
    if (body === "json") return only.type === "json" || only.type === "jsonb";
    return body === only.type && rawBody;
  };
  const matching = overloads.filter(fits);
  const fallback = overloads.filter((routine) => !fits(routine) && takesBody(routine));
  if (matching.length === 1) return matching[0]!;
  if (matching.length === 0 && fallback.length === 1) return fallback[0]!;
  const ambiguous = matching.length > 0 ? matching : fallback;
  if (ambiguous.length > 0) {
    throw ambiguousFunction(
      ambiguous.map((r) => `${r.schema}.${r.name}(${r.params.map((p) => `${p.name} => ${p.type}`).join(", ")})`),
    );
  }
  const sortedKeys = [...keys].sort(compareText);
  const single = rawBody ? (body as "text" | "xml" | "bytea") : undefined;
  throw functionNotFound(
    schema,
    name,
    sortedKeys,
    { single, json: post && body === "json" },
    single ? undefined : noRpcHint(routines, schema, name, sortedKeys, overloads),
  );
}

/**
 * Error.hs `noRpcHint`: with no function of that name, the closest function name of the schema
 * (score 0.75 or more); with some, the closest list of their parameter names (score 0.33 or more).
 */
function noRpcHint(
  routines: Map<string, Routine[]>,
  schema: string,
  name: string,
  keys: string[],
  overloads: Routine[],
): string | undefined {
  const listToText = (names: string[]) => `(${[...names].sort(compareText).join(", ")})`;
  if (overloads.length === 0) {
    const names = [...routines.values()].flatMap((list) => (list[0]!.schema === schema ? [list[0]!.name] : []));
    return closestMatch(name, names, 0.75);
  }
  const lists = overloads.map((routine) => listToText(routine.params.map((p) => p.name)));
  const closest = closestMatch(listToText(keys), lists, 0.33);
  return closest === undefined ? undefined : `${name}${closest}`;
}
