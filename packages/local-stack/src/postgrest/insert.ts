/**
 * POST (insert, and upsert by `Prefer: resolution=…`) and PUT (upsert of the one row its
 * primary key filters name) on a table: the payload's rows, with PostgREST's statuses, counts
 * of inserted rows, Location and Content-Range.
 */
import { columnNotFound, invalidFilters, putMatchingPk } from "./errors.ts";
import type { Filter, LogicTree, QueryParams } from "./parse.ts";
import {
  appliedHeader,
  checkSingular,
  contentHeaders,
  contentRange,
  counts,
  type ResultRow,
  type RestRequest,
  run,
} from "./request.ts";
import type { Column, Relation } from "./schema.ts";
import {
  bodySql,
  conditionsSql,
  ident,
  jsonBodySql,
  orderSql,
  Params,
  qualified,
  returningSql,
  selectSql,
} from "./sql.ts";

/** The payload's columns (alphabetical, as PostgREST orders them), each known to the table, or PGRST204. */
export function payloadColumns(request: Pick<RestRequest, "payload" | "relation">): Column[] {
  const names = [...new Set(request.payload?.columns ?? [])].sort();
  return names.map((name) => {
    const column = request.relation.columns.get(name);
    if (!column) throw columnNotFound(request.relation.name, name);
    return column;
  });
}

/** The representation a write answers with: its returned rows, selected and ordered as asked. */
export function representationSql(request: RestRequest, params: Params): string {
  if (request.handler === "none") return "SELECT * FROM pgrst_source";
  const alias = ident(request.relation.name);
  const select = selectSql(alias, request.query.select, request.relation, params);
  const order = orderSql(
    alias,
    request.query.order.find((o) => o.path.length === 0)?.terms ?? [],
    request.relation,
    params,
  );
  return `SELECT ${select} FROM pgrst_source AS ${alias}${order}`;
}

/** `set_config('pgrst.inserted', …)`: counts the rows an upsert inserted (+1 offered, -1 updated instead). */
const countInserted = (add: boolean) =>
  `set_config('pgrst.inserted', (coalesce(nullif(current_setting('pgrst.inserted', true), '')::int, 0) ${add ? "+" : "-"} 1)::text, true) <> '${add ? "0" : "-1"}'`;

interface InsertShape {
  conflict?: { resolution: "merge-duplicates" | "ignore-duplicates"; keys: string[] };
  /** PUT: the row must match the URL's primary key filters. */
  putConditions?: { filters: Filter[]; logic: LogicTree[] };
}

function insertSql(request: RestRequest, columns: Column[], params: Params, shape: InsertShape): string {
  const { relation, payload } = request;
  const table = qualified(relation.schema, relation.name);
  const names = columns.map((c) => ident(c.name));
  const merge = shape.conflict?.resolution === "merge-duplicates";
  const defaults = !shape.putConditions && request.prefs.missing === "default";
  const body = jsonBodySql(payload!.json, payload!.isObject, columns, params, defaults);
  let sql = `INSERT INTO ${table}${names.length ? `(${names.join(", ")}) ` : " "}SELECT ${names
    .map((n) => `"pgrst_body".${n}`)
    .join(", ")} ${body}`;
  if (shape.putConditions) {
    const { filters, logic } = shape.putConditions;
    const conditions = conditionsSql('"pgrst_body"', filters, logic, relation, params);
    sql += `WHERE ${[countInserted(true), ...conditions].join(" AND ")}`;
  } else if (merge) sql += `WHERE ${countInserted(true)}`;
  const conflict = shape.conflict;
  if (conflict && conflict.keys.length > 0) {
    sql += ` ON CONFLICT(${conflict.keys.map(ident).join(", ")}) `;
    if (conflict.resolution === "ignore-duplicates" || names.length === 0) sql += "DO NOTHING";
    else {
      sql += `DO UPDATE SET ${names.map((n) => `${n} = EXCLUDED.${n}`).join(", ")}`;
      if (shape.putConditions || merge) sql += `WHERE ${countInserted(false)}`;
    }
  }
  return `${sql} ${returningSql(table, request.query.select, relation, request.prefs.return !== undefined && request.prefs.return !== "minimal")}`;
}

/** The statement around a write: its rows counted, the body built, and for an upsert the rows it inserted. */
export function writeSql(
  request: RestRequest,
  mutation: string,
  params: Params,
  extra: { inserted?: boolean; location?: string } = {},
) {
  const representation = representationSql(request, params);
  return (
    `WITH pgrst_source AS (${mutation}) SELECT '' AS total_result_set, pg_catalog.count(_postgrest_t) AS page_total, ` +
    `${extra.location ?? "array[]::text[]"} AS header, ${bodySql(request.handler)} AS body, ` +
    `${extra.inserted ? "nullif(current_setting('pgrst.inserted', true),'')::int" : "null::int"} AS response_inserted ` +
    `FROM (${representation}) _postgrest_t`
  );
}

/** `Prefer: return=headers-only`: the inserted row's primary key, as the Location's filters. */
function locationSql(relation: Relation, params: Params): string {
  const keys = relation.primaryKey.map((key) => `${params.add(key)}::text`).join(", ");
  return `CASE WHEN pg_catalog.count(_postgrest_t) = 1 THEN coalesce((
    WITH data AS (SELECT row_to_json(_) AS row FROM pgrst_source AS _ LIMIT 1)
    SELECT array_agg(json_data.key || '=' || coalesce('eq.' || json_data.value, 'is.null'))
    FROM data CROSS JOIN json_each_text(data.row) AS json_data
    WHERE json_data.key IN (${keys || "NULL"})), array[]::text[]) ELSE array[]::text[] END`;
}

/** Percent-encoding of a query string's key or value, as PostgREST's HTTP library writes a Location. */
const encodeQuery = (text: string) =>
  Array.from(new TextEncoder().encode(text))
    .map((byte) =>
      /[A-Za-z0-9\-_.~]/.test(String.fromCharCode(byte))
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`,
    )
    .join("");

export async function insert(request: RestRequest): Promise<Response> {
  const { relation, prefs, query } = request;
  const columns = payloadColumns(request);
  const keys = query.onConflict ?? relation.primaryKey;
  const conflict = prefs.resolution ? { resolution: prefs.resolution, keys } : undefined;
  const params = new Params();
  const mutation = insertSql(request, columns, params, { conflict });
  const merge = prefs.resolution === "merge-duplicates";
  const location = prefs.return === "headers-only" ? locationSql(relation, params) : undefined;
  const sql = writeSql(request, mutation, params, { inserted: merge, location });
  const row = await run(request, sql, params, (row: ResultRow) => {
    checkSingular(request, row);
    return row;
  });
  // 201 Created, except an upsert that only updated rows: 200.
  const status = merge && row.inserted !== null && row.inserted <= 0 ? 200 : 201;
  const full = prefs.return === "representation";
  const headers: Record<string, string> = {
    ...(row.location && row.location.length > 0
      ? {
          location: `/${relation.name}?${row.location
            .map((pair) => {
              const at = pair.indexOf("=");
              return `${encodeQuery(pair.slice(0, at))}=${encodeQuery(pair.slice(at + 1))}`;
            })
            .join("&")}`,
        }
      : {}),
    "content-range": contentRange(1, 0, counts(prefs) ? row.count : undefined),
    ...appliedHeader({
      // The resolution is reported only where it could apply: a primary key or on_conflict.
      resolution: relation.primaryKey.length > 0 || query.onConflict ? prefs.resolution : undefined,
      missing: prefs.missing,
      return: prefs.return,
      count: prefs.count,
      handling: prefs.handling,
      timezone: prefs.timezone,
    }),
    ...(full ? contentHeaders(request) : {}),
  };
  return new Response(full ? row.body : null, { status, headers });
}

/** PUT's filters: `eq` on each primary key column and nothing else, or PGRST105. */
export function putFilters(relation: Relation, query: QueryParams): Filter[] {
  const keys = new Set(query.filters.map((f) => [...f.path, f.filter.field.name].join(".")));
  const primaryKey = relation.primaryKey;
  const rootFilters = query.filters.filter((f) => f.path.length === 0).map((f) => f.filter);
  const onlyKeyEquals =
    query.logic.length === 0 &&
    primaryKey.length > 0 &&
    keys.size === primaryKey.length &&
    primaryKey.every((key) => keys.has(key)) &&
    query.filters.every((f) => f.filter.field.jsonPath.length === 0) &&
    rootFilters.every(
      (f) => !f.negate && f.operation.kind === "quant" && f.operation.op === "eq" && !f.operation.quantifier,
    );
  if (!onlyKeyEquals) throw invalidFilters();
  return rootFilters;
}

/** PUT: upserts the one row the URL's key filters name; a payload that differs is PGRST115 and changes nothing. */
export async function put(request: RestRequest): Promise<Response> {
  const { relation, query, prefs } = request;
  const rootFilters = putFilters(relation, query);
  const columns = payloadColumns(request);
  const params = new Params();
  const mutation = insertSql(request, columns, params, {
    conflict: { resolution: "merge-duplicates", keys: relation.primaryKey },
    putConditions: { filters: rootFilters, logic: [] },
  });
  const sql = writeSql(request, mutation, params, { inserted: true });
  const row = await run(request, sql, params, (row: ResultRow) => {
    if (row.count !== 1) throw putMatchingPk();
    return row;
  });
  const full = prefs.return === "representation";
  const headers = {
    ...appliedHeader({ return: prefs.return, count: prefs.count, handling: prefs.handling, timezone: prefs.timezone }),
    ...(full ? contentHeaders(request) : {}),
  };
  if (!full) return new Response(null, { status: 204, headers });
  return new Response(row.body, { status: row.inserted !== null && row.inserted > 0 ? 201 : 200, headers });
}
