/**
 * DELETE on a table: the filtered rows. Without any filter it is refused as Supabase's
 * pg-safeupdate refuses a DELETE without a WHERE clause, and nothing changes.
 */
import { writeSql } from "./insert.ts";
import { contentRange, counts, type RestRequest, rootWhere, runWrite, safeUpdate, writeAnswer } from "./request.ts";
import { Params, qualified, returningSql } from "./sql.ts";

export async function remove(request: RestRequest): Promise<Response> {
  const { relation, query, prefs } = request;
  const table = qualified(relation.schema, relation.name);
  const params = new Params();
  const where = rootWhere(request, table, params);
  if (where === "") throw safeUpdate("DELETE");
  const wanted = prefs.return !== undefined && prefs.return !== "minimal";
  const mutation = `DELETE FROM ${table}${where} ${returningSql(table, query.select, relation, wanted)}`;
  const row = await runWrite(request, writeSql(request, mutation, params), params);
  return writeAnswer(request, row, contentRange(1, 0, counts(prefs) ? row.count : undefined), {
    return: prefs.return,
    count: prefs.count,
    handling: prefs.handling,
    timezone: prefs.timezone,
    maxAffected: prefs.maxAffected,
  });
}
