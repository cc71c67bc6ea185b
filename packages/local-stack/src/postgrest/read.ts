/**
 * GET and HEAD on a table or view: the selected columns of the filtered, ordered rows, at most
 * `max_rows` of them, with the total when a count is asked for; the status and Content-Range
 * as PostgREST answers them.
 */
import { invalidRange } from "./errors.ts";
import { hasLimitZero, restrictRange } from "./parse.ts";
import {
  appliedHeader,
  checkSingular,
  contentHeaders,
  contentRange,
  counts,
  type RestRequest,
  rootWhere,
  run,
} from "./request.ts";
import { bodySql, limitSql, orderSql, Params, qualified, selectSql } from "./sql.ts";

export async function read(request: RestRequest): Promise<Response> {
  const { relation, query, prefs } = request;
  const table = qualified(relation.schema, relation.name);
  const params = new Params();
  // The filters' parameters come first, so the count and its EXPLAIN can reuse them alone.
  const where = rootWhere(request, table, params);
  const whereParams = params.values.slice();
  const select = selectSql(table, query.select, relation, params);
  const order = orderSql(table, query.order.find((o) => o.path.length === 0)?.terms ?? [], relation, params);
  // PostgREST never answers more than max_rows rows; `limit=0` stays zero rows.
  const range = hasLimitZero(request.range) ? request.range : restrictRange(request.api.maxRows, request.range);
  const countQuery = `SELECT 1 FROM ${table}${where}`;
  const counted = counts(prefs)
    ? `, pgrst_source_count AS (${countQuery}${prefs.count === "estimated" ? ` LIMIT ${request.api.maxRows + 1}` : ""})`
    : "";
  const total = counted ? "(SELECT pg_catalog.count(*) FROM pgrst_source_count)" : "null::bigint";
  const sql =
    `WITH pgrst_source AS ( SELECT ${select} FROM ${table}${where}${order}${limitSql(range)} )${counted} ` +
    `SELECT ${total} AS total_result_set, pg_catalog.count(_postgrest_t) AS page_total, ` +
    `${bodySql(request.handler)} AS body FROM ( SELECT * FROM pgrst_source ) _postgrest_t`;

  const { row, total: tableTotal } = await run(request, sql, params, async (row, tx) => {
    checkSingular(request, row);
    if (prefs.count !== "planned" && prefs.count !== "estimated") return { row, total: row.total };
    // The planner's estimate of the rows, as `EXPLAIN` gives it.
    const { rows } = await tx.query<{ "QUERY PLAN": unknown }>(`EXPLAIN (FORMAT JSON) ${countQuery}`, whereParams);
    const plan = rows[0]?.["QUERY PLAN"];
    const parsed = (typeof plan === "string" ? JSON.parse(plan) : plan) as { Plan?: { "Plan Rows"?: number } }[];
    const planned = parsed?.[0]?.Plan?.["Plan Rows"] ?? null;
    if (prefs.count === "planned") return { row, total: planned };
    const exact = row.total;
    return {
      row,
      total: exact !== null && exact > request.api.maxRows && planned !== null ? Math.max(exact, planned) : exact,
    };
  });

  const lower = request.range.lower;
  const upper = lower + row.count - 1;
  const headers = {
    "content-range": contentRange(lower, upper, tableTotal),
    ...contentHeaders(request),
    ...appliedHeader({ count: prefs.count, handling: prefs.handling, timezone: prefs.timezone }),
  };
  if (tableTotal !== null && lower > tableTotal) {
    // Past the last row: 416 with PostgREST's error as the body, and the answer's own headers.
    const error = invalidRange({ offset: lower, total: tableTotal });
    return new Response(JSON.stringify(error.body), { status: 416, headers });
  }
  const status = tableTotal !== null && upper - lower + 1 < tableTotal ? 206 : 200;
  return new Response(request.method === "HEAD" ? null : row.body, { status, headers });
}
