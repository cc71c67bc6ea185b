/**
 * PATCH on a table: the payload's columns set on the filtered rows, or nothing for an empty
 * payload. Without any filter it is refused as Supabase's pg-safeupdate refuses an UPDATE
 * without a WHERE clause, and nothing changes.
 */
import { payloadColumns, writeSql } from "./insert.ts";
import { contentRange, counts, type RestRequest, rootWhere, runWrite, safeUpdate, writeAnswer } from "./request.ts";
import { ident, jsonBodySql, Params, qualified, returningSql } from "./sql.ts";

export async function update(request: RestRequest): Promise<Response> {
  const { relation, query, prefs, payload } = request;
  const columns = payloadColumns(request);
  const table = qualified(relation.schema, relation.name);
  const params = new Params();
  const wanted = prefs.return !== undefined && prefs.return !== "minimal";
  let mutation: string;
  if (columns.length === 0) {
    // `UPDATE … SET` needs a column: an empty payload selects no row instead, naming the returned columns.
    const returning = returningSql(ident(relation.name), query.select, relation, wanted).replace(/^RETURNING /, "");
    mutation = `SELECT ${returning === "1" ? "NULL" : returning} FROM ${table} WHERE false`;
  } else {
    const where = rootWhere(request, table, params);
    if (where === "") throw safeUpdate("UPDATE");
    const sets = columns.map((c) => `${ident(c.name)} = "pgrst_body".${ident(c.name)}`).join(", ");
    const body = jsonBodySql(payload!.json, payload!.isObject, columns, params, prefs.missing === "default");
    mutation = `UPDATE ${table} SET ${sets} ${body}${where} ${returningSql(table, query.select, relation, wanted)}`;
  }
  const row = await runWrite(request, writeSql(request, mutation, params), params);
  return writeAnswer(request, row, contentRange(0, row.count - 1, counts(prefs) ? row.count : undefined), {
    missing: prefs.missing,
    return: prefs.return,
    count: prefs.count,
    handling: prefs.handling,
    timezone: prefs.timezone,
    maxAffected: prefs.maxAffected,
  });
}
