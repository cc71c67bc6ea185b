/**
 * `/rpc/<name>`: calling a function as PostgREST 14 calls it. POST takes the arguments as a JSON
 * object (or form fields, or the raw body for one unnamed parameter), GET and HEAD as query
 * parameters; the function is found by schema, name and argument names (Plan.hs `findProc`),
 * called with named arguments in one transaction as the caller, read-only for GET/HEAD and for
 * stable or immutable functions (Plan.hs `callReadPlan`), under the function's isolation level
 * and hoisted settings. The answer is PostgREST's: a scalar as its bare JSON value, a set as an
 * array, a composite as an object, void as 204 (Response.hs). Filters, column selection and
 * ordering of a function's result are answered with PGRST127.
 */
import { type Context, MAX_BODY_BYTES, readBody } from "../http.ts";
import { type Claims, ROLES } from "../jwt.ts";
import {
  invalidBody,
  invalidPreferences,
  invalidRange,
  maxAffectedRpcViolation,
  maxAffectedViolation,
  mediaTypeError,
  notImplemented,
  RestError,
  singularity,
} from "./errors.ts";
import {
  decodeMediaType,
  hasLimitZero,
  mimeOf,
  parseAccept,
  parsePayload,
  parsePrefer,
  parseQuery,
  queryPairs,
  restrictRange,
  topLevelRange,
  type MediaType,
} from "./parse.ts";
import { appliedHeader, contentHeaders, contentRange, counts, requestSettings } from "./request.ts";
import {
  type BodyKind,
  findRoutine,
  type Routine,
  cachedRoutines,
  loadRoutines,
  returnsScalar,
  returnsSingle,
  returnsVoid,
  SCHEMA_VERSION_SQL,
  StaleRoutines,
} from "./routines.ts";
import { schemaCache } from "./schema.ts";
import { ident, jsonBodySql, limitSql, Params, qualified } from "./sql.ts";

/** How the arguments reach the function: named from a JSON body, named from text values, or the body as the one unnamed parameter. */
type Arguments =
  | { kind: "json"; json: string; isObject: boolean }
  | { kind: "direct"; values: [string, string][] }
  | { kind: "raw"; body: string | Uint8Array };

/** The one result row of the call's statement. */
interface CallRow {
  total_result_set: number | string | null;
  page_total: number | string;
  body: string;
  response_headers: string | null;
  response_status: string | null;
}

type Handler = "json" | "object" | "object-stripped" | "json-stripped";

export async function callRoutine(
  request: Request,
  context: Context,
  claims: Claims,
  schema: string,
  name: string,
): Promise<Response> {
  const url = new URL(request.url);
  const method = request.method;
  const post = method === "POST";
  const path = url.pathname.slice("/rest/v1".length);
  const { api } = context.config;

  // The request's parts, in PostgREST's order: query string, range, payload.
  const query = parseQuery(
    queryPairs(url.search).filter(([key]) => key !== "apikey"),
    !post,
  );
  const range = topLevelRange(method, query, request.headers.get("range"));
  if (range instanceof RestError) throw range;
  const { args, keys, body } = post
    ? await payload(request, query.columns)
    : {
        args: { kind: "direct", values: query.args } as Arguments,
        keys: new Set(query.args.map(([key]) => key)),
        body: "other" as BodyKind,
      };

  // The plan: the function, then the result's shape, media type and preferences.
  const cache = await schemaCache(context.db, api.schemas);
  const prefs = parsePrefer(request.headers.get("prefer"), cache.timezones);
  const plan = (routines: Map<string, Routine[]>) => {
    const routine = findRoutine(routines, schema, name, keys, post, body);
    checkResultPlan(query);
    const media = negotiate(parseAccept(request.headers.get("accept")));
    if (prefs.handling === "strict" && prefs.invalid.length > 0) throw invalidPreferences(prefs.invalid);
    if (prefs.handling === "strict" && prefs.maxAffected !== undefined && returnsSingle(routine)) {
      throw maxAffectedRpcViolation();
    }
    const params = new Params();
    const call = callSql(routine, keys, args, params);
    // PostgREST never answers more than max_rows rows; `limit=0` stays zero rows.
    const limited = hasLimitZero(range) ? range : restrictRange(api.maxRows, range);
    const counted = counts(prefs);
    const handler: Handler | "none" = method === "HEAD" ? "none" : media.handler;
    const sql =
      `WITH pgrst_source AS (${call})` +
      (counted ? ", pgrst_source_count AS (SELECT 1 FROM pgrst_source)" : "") +
      ` SELECT ${counted ? "(SELECT pg_catalog.count(*) FROM pgrst_source_count)" : "null::bigint"} AS total_result_set, ` +
      `${returnsSingle(routine) ? "1" : "pg_catalog.count(_postgrest_t)"} AS page_total, ` +
      `${bodySql(routine, handler)}::text AS body, ` +
      "nullif(current_setting('response.headers', true), '') AS response_headers, " +
      "nullif(current_setting('response.status', true), '') AS response_status " +
      `FROM (SELECT "pgrst_source".* FROM "pgrst_source"${limitSql(limited)}) _postgrest_t`;
    const settings = {
      ...requestSettings({ headers: request.headers, schema, api, method, path, prefs }),
      ...Object.fromEntries(routine.settings),
    };
    return { routine, media, sql, params, settings, readOnly: !post || routine.volatility !== "v" };
  };

  // The cached functions, read again when a plan fails on them (the function may be new) or when
  // the call's transaction sees DDL newer than the cache
  // (packages/local-stack/src/postgrest/routines.ts).
  let routines = cachedRoutines(context.db);
  let fresh = false;
  let planned: ReturnType<typeof plan> | undefined;
  let row: CallRow | undefined;
  for (let attempt = 1; row === undefined; attempt++) {
    if (!routines) {
      routines = await loadRoutines(context.db, api.schemas);
      fresh = true;
    }
    try {
      planned = plan(routines.routines);
    } catch (error) {
      if (fresh) throw error;
      routines = undefined;
      continue;
    }
    const { media } = planned;
    try {
      row = await inTransaction(context, claims, planned, attempt < 3 ? routines.version : undefined, (row) => {
        const rows = Number(row.page_total);
        if (media.media.kind === "object" && rows !== 1) throw singularity(rows);
        if (prefs.handling === "strict" && prefs.maxAffected !== undefined && rows > prefs.maxAffected) {
          throw maxAffectedViolation(rows);
        }
        if (row.response_headers !== null || row.response_status !== null) {
          throw notImplemented("Setting response.headers or response.status from a function");
        }
      });
    } catch (error) {
      if (!(error instanceof StaleRoutines)) throw error;
      routines = undefined;
    }
  }
  const { routine, media } = planned!;

  const lower = range.lower;
  const rows = Number(row.page_total);
  const total = row.total_result_set === null ? null : Number(row.total_result_set);
  const headers: Record<string, string> = {
    "content-range": contentRange(lower, lower + rows - 1, total),
    ...appliedHeader({
      count: prefs.count,
      handling: prefs.handling,
      timezone: prefs.timezone,
      maxAffected: prefs.maxAffected,
    }),
  };
  if (returnsVoid(routine)) return new Response(null, { status: 204, headers });
  Object.assign(headers, contentHeaders({ media: media.media, schema, headers: request.headers, method, api }));
  if (total !== null && lower > total) {
    // Past the last row: 416 with PostgREST's error as the body.
    return new Response(JSON.stringify(invalidRange({ offset: lower, total }).body), { status: 416, headers });
  }
  const status = total !== null && rows < total ? 206 : 200;
  return new Response(method === "HEAD" ? null : row.body, { status, headers });
}

/**
 * The POST body as PostgREST reads it for a function (ApiRequest/Payload.hs `getPayload`): a
 * JSON object's keys name the arguments (an empty body is `{}`; an array's first object is
 * used), form fields are arguments as text, and a text, XML or binary body can only fill a
 * single unnamed parameter.
 */
async function payload(request: Request, columns: string[] | undefined) {
  const bytes = await readBody(request, MAX_BODY_BYTES);
  const contentType = request.headers.get("content-type");
  const media: MediaType = contentType === null ? { kind: "json" } : decodeMediaType(contentType);
  const text = () => new TextDecoder().decode(bytes);
  if (media.kind === "urlencoded") {
    const values = queryPairs(text()).map(([key, value]): [string, string] => [key, value ?? ""]);
    return {
      args: { kind: "direct", values } as Arguments,
      keys: new Set(values.map(([key]) => key)),
      body: "other" as BodyKind,
    };
  }
  if (media.kind === "json") {
    if (bytes.length === 0 && columns === undefined) {
      return {
        args: { kind: "json", json: "", isObject: false } as Arguments,
        keys: new Set<string>(),
        body: "json" as BodyKind,
      };
    }
    const parsed = parsePayload(text(), contentType, columns);
    return {
      args: { kind: "json", json: parsed.json, isObject: parsed.isObject } as Arguments,
      keys: new Set(parsed.columns),
      body: "json" as BodyKind,
    };
  }
  if (media.kind === "csv") throw notImplemented("A CSV payload");
  const raw: Record<string, BodyKind> = {
    "text/plain": "text",
    "text/xml": "xml",
    "application/octet-stream": "bytea",
  };
  const kind = media.kind === "other" ? raw[media.mime] : undefined;
  if (!kind) throw invalidBody(`Content-Type not acceptable: ${mimeOf(media)}`);
  return {
    args: { kind: "raw", body: kind === "bytea" ? Buffer.from(bytes) : text() } as Arguments,
    keys: new Set<string>(),
    body: kind,
  };
}

/** What the result plan of a call may hold here: limit and offset only. */
function checkResultPlan(query: ReturnType<typeof parseQuery>) {
  const star = query.select.length === 1 && query.select[0]!.kind === "field" && query.select[0]!.field.name === "*";
  if (!star) throw notImplemented("Selecting columns or embedding in a function's result");
  if (query.filters.length > 0 || query.logic.length > 0) throw notImplemented("Filtering a function's result");
  if (query.order.length > 0) throw notImplemented("Ordering a function's result");
  if ([...query.ranges.keys()].some((key) => key !== "limit")) throw notImplemented("Embedding a related resource");
}

/** Plan.hs `negotiateContent` for a function: JSON, a single object or nulls stripped; CSV and GeoJSON are not implemented here. */
function negotiate(accepts: MediaType[]): { media: MediaType; handler: Handler } {
  for (const media of accepts) {
    switch (media.kind) {
      case "json":
      case "any":
        return { media: { kind: "json" }, handler: "json" };
      case "object":
        return { media, handler: media.stripNulls ? "object-stripped" : "object" };
      case "array-stripped":
        return { media, handler: "json-stripped" };
      case "csv":
      case "geojson":
        throw notImplemented(`A function's result as ${mimeOf(media)}`);
      default:
        // Query plans are off on Supabase; other media types have no handler for a function.
        continue;
    }
  }
  throw mediaTypeError(accepts.map(mimeOf));
}

/**
 * QueryBuilder.hs `callPlanToQuery`: the call with the arguments given (the others keep their
 * defaults), a scalar result as the column `pgrst_scalar`, a composite one as its columns.
 */
function callSql(routine: Routine, keys: ReadonlySet<string>, args: Arguments, params: Params): string {
  const fn = qualified(routine.schema, routine.name);
  const only = routine.params.length === 1 && routine.params[0]!.name === "" ? routine.params[0]! : undefined;
  const given = routine.params.filter((p) => keys.has(p.name));
  let from = "";
  let argument = "";
  if (only) {
    // One unnamed parameter: the body as it came, typed as the parameter (bytea as bytes).
    const value =
      args.kind === "raw"
        ? args.body
        : args.kind === "json"
          ? args.json
          : JSON.stringify(Object.fromEntries(args.values));
    argument = only.type === "bytea" ? params.add(value) : `${params.add(value)}::${only.type}`;
  } else if (given.length > 0 && args.kind === "json") {
    // jsonBodySql writes the FROM of the payload and its typed row, `pgrst_body`.
    from = `${jsonBodySql(
      args.json,
      args.isObject,
      given.map((p) => ({ name: p.name, type: p.castType, default: null })),
      params,
      false,
      true,
    )}, LATERAL `;
    argument = given
      .map((p) => `${p.variadic ? "VARIADIC " : ""}${ident(p.name)} := pgrst_body.${ident(p.name)}`)
      .join(", ");
  } else if (given.length > 0 && args.kind === "direct") {
    argument = given
      .map((p) => {
        const values = args.values.filter(([key]) => key === p.name).map(([, value]) => value);
        // A repeated argument is a VARIADIC one's elements; any other takes its first value.
        const value = p.variadic ? arrayLiteral(values) : values[0]!;
        return `${p.variadic ? "VARIADIC " : ""}${ident(p.name)} := ${params.add(value)}::${p.castType}`;
      })
      .join(", ");
  }
  const scalar = returnsScalar(routine);
  const callIt = scalar ? `(SELECT ${fn}(${argument}) pgrst_scalar) pgrst_call` : `${fn}(${argument}) pgrst_call`;
  return `SELECT ${scalar ? "pgrst_call.pgrst_scalar" : '"pgrst_call".*'} ${from || "FROM "}${callIt}`;
}

/** Postgres' array literal of text values, as PostgREST builds it for VARIADIC arguments. */
const arrayLiteral = (values: string[]) =>
  `{${values.map((v) => `"${v.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`).join(",")}}`;

/** SqlFragment.hs `asJsonF` and `asJsonSingleF` for a function's result. */
function bodySql(routine: Routine, handler: Handler | "none"): string {
  if (handler === "none") return "''";
  const strip = (sql: string) =>
    handler === "object-stripped" || handler === "json-stripped" ? `json_strip_nulls(${sql})` : sql;
  const scalar = returnsScalar(routine);
  const values = scalar ? "json_agg(_postgrest_t.pgrst_scalar)" : "json_agg(_postgrest_t)";
  if (handler === "object" || handler === "object-stripped" || returnsSingle(routine)) {
    return `coalesce(${strip(`${values}->0`)}, 'null')`;
  }
  return `coalesce(${strip(values)}, '[]')`;
}

/** Hasql's isolation levels, from the function's `default_transaction_isolation` (Config/Database.hs `toIsolationLevel`). */
function isolationOf(routine: Routine): string {
  const level = routine.isolationLevel?.toLowerCase();
  return level === "repeatable read" || level === "serializable" ? level.toUpperCase() : "READ COMMITTED";
}

/**
 * The call's transaction as PostgREST begins it (MainTx.hs): its isolation level and, for a
 * read, READ ONLY; then the role, the claims and the request's settings, in one statement with
 * the schema version the plan must match (`version`, unless the check is waived); then the
 * call. `check` may refuse the result, which undoes the call.
 */
async function inTransaction(
  context: Context,
  claims: Claims,
  planned: { routine: Routine; readOnly: boolean; settings: Record<string, string>; sql: string; params: Params },
  version: string | undefined,
  check: (row: CallRow) => void,
): Promise<CallRow> {
  const { routine, readOnly, settings, sql, params } = planned;
  if (!ROLES.includes(claims.role)) throw new Error(`Unknown role ${String(claims.role)}`);
  const all: [string, string][] = [
    ["role", claims.role],
    ["request.jwt.claims", JSON.stringify(claims)],
    ...Object.entries(settings),
  ];
  return context.db.transaction(
    async (tx) => {
      const { rows: prelude } = await tx.query<{ version: number | string }>(
        `select ${all.map((_, i) => `set_config($${2 * i + 1}, $${2 * i + 2}, true)`).join(", ")}, ` +
          `${SCHEMA_VERSION_SQL} as version`,
        all.flat(),
      );
      if (version !== undefined && String(prelude[0]!.version) !== version) throw new StaleRoutines();
      const { rows } = await tx.query<CallRow>(sql, params.values);
      const row = rows[0]!;
      check(row);
      return row;
    },
    `ISOLATION LEVEL ${isolationOf(routine)} ${readOnly ? "READ ONLY" : "READ WRITE"}`,
  );
}
