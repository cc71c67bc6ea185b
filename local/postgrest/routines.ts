/**
 * The functions of the schema cache, as PostgREST 14 reads them (SchemaCache.hs `funcsSqlQuery`):
 * every function of the exposed schemas with its input parameters (name, type, required,
 * variadic), its return type (scalar or composite, single or set), volatility, isolation level
 * and hoisted settings; and how a call picks one (Plan.hs `findProc`), with PostgREST's errors
 * when none or several fit. On Supabase an event trigger reloads the cache after any function
 * DDL (`pgrst_ddl_watch`), so the cache here is read again whenever the exposed schemas'
 * functions change.
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

/** Changes whenever a function of the exposed schemas is created, dropped or altered. */
const FINGERPRINT_SQL = `
  SELECT count(*)::text || ':' || coalesce(md5(string_agg(
    concat_ws(':', p.oid, p.provolatile, p.proretset, p.prorettype, p.pronargdefaults, p.proargnames, p.proargmodes,
      p.proconfig, p.prokind, obj_description(p.oid, 'pg_proc')),
    ',' ORDER BY p.oid)), '') AS fingerprint
  FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
  WHERE n.nspname = ANY($1)`;

interface RoutineCache {
  fingerprint: string;
  /** By `schema.name`, overloads ordered as PostgREST orders them. */
  routines: Map<string, Routine[]>;
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

/** The functions of the exposed schemas, read again when they changed since the last read. */
export async function routineCache(db: Database, schemas: readonly string[]): Promise<Map<string, Routine[]>> {
  const { rows } = await db.query<{ fingerprint: string }>(FINGERPRINT_SQL, [schemas]);
  const fingerprint = rows[0]!.fingerprint;
  const cached = caches.get(db);
  if (cached?.fingerprint === fingerprint) return cached.routines;
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
  caches.set(db, { fingerprint, routines });
  return routines;
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
