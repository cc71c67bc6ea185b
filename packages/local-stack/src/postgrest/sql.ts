/**
 * SQL fragments shaped like the statements PostgREST 14.12 writes: quoted identifiers, fields
 * with JSON paths, filters, and/or trees, select lists, order, limit/offset, the JSON body a
 * write reads its rows from, and the body of the answer. Values are always bound parameters.
 */
import type { Field, Filter, LogicTree, OrderTerm, Range, SelectItem } from "./parse.ts";
import { ALL_ROWS, rangeLimit, sameRange } from "./parse.ts";
import type { Column, Relation } from "./schema.ts";

export const ident = (name: string) => `"${name.replace(/\0/g, "").replace(/"/g, '""')}"`;
export const qualified = (schema: string, name: string) => (schema ? `${ident(schema)}.${ident(name)}` : ident(name));

/** The statement's parameters: each value added answers its placeholder. */
export class Params {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/** A field as a SQL expression: a column of `table`, read through its JSON path. */
export function fieldSql(
  table: string,
  field: Field,
  relation: Relation,
  params: Params,
  tsvector?: { language?: string },
): string {
  const column = relation.columns.get(field.name);
  const base = field.name === "*" ? `${table}.*` : `${table}.${ident(field.name)}`;
  let sql = base;
  if (field.jsonPath.length > 0) {
    // Arrows read json and jsonb directly; any other type is read as jsonb first.
    const isJson = column?.type === "json" || column?.type === "jsonb";
    sql = isJson ? base : `to_jsonb(${base})`;
    for (const op of field.jsonPath) {
      sql += "key" in op ? `${op.arrow}${params.add(op.key)}` : `${op.arrow}${params.add(op.index)}::int`;
    }
  }
  if (tsvector && column?.baseType !== "tsvector") {
    const language = tsvector.language === undefined ? "" : `${params.add(tsvector.language)}, `;
    sql = `to_tsvector(${language}${sql})`;
  }
  return sql;
}

/** Postgres' array literal of the values, as an unknown-typed parameter takes it. */
const arrayLiteral = (values: string[]) =>
  `{${values.map((v) => `"${v.replace(/\0/g, "").replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`).join(",")}}`;

const SIMPLE: Record<string, string> = {
  neq: "<>",
  cs: "@>",
  cd: "<@",
  ov: "&&",
  sl: "<<",
  sr: ">>",
  nxr: "&<",
  nxl: "&>",
  adj: "-|-",
};
const QUANT: Record<string, string> = {
  eq: "=",
  gte: ">=",
  gt: ">",
  lte: "<=",
  lt: "<",
  like: "like",
  ilike: "ilike",
  match: "~",
  imatch: "~*",
};
const FTS: Record<string, string> = {
  fts: "to_tsquery",
  plfts: "plainto_tsquery",
  phfts: "phraseto_tsquery",
  wfts: "websearch_to_tsquery",
};

export function filterSql(table: string, filter: Filter, relation: Relation, params: Params): string {
  const { operation } = filter;
  const not = filter.negate ? "NOT " : "";
  const field = (tsvector?: { language?: string }) => fieldSql(table, filter.field, relation, params, tsvector);
  switch (operation.kind) {
    case "op":
      return `${not}${field()} ${SIMPLE[operation.op]} ${params.add(operation.value)}`;
    case "quant": {
      const like = operation.op === "like" || operation.op === "ilike";
      const lhs = field();
      const value = params.add(like ? operation.value.replace(/\*/g, "%") : operation.value);
      const rhs = operation.quantifier ? `${operation.quantifier.toUpperCase()}(${value})` : value;
      return `${not}${lhs} ${QUANT[operation.op]} ${rhs}`;
    }
    case "in": {
      const lhs = field();
      const empty = operation.values.length === 1 && operation.values[0] === "";
      return `${not}${lhs} = ANY(${empty ? "'{}'" : params.add(arrayLiteral(operation.values))})`;
    }
    case "is":
      return `${not}${field()} IS ${operation.value === "not_null" ? "NOT NULL" : operation.value.toUpperCase()}`;
    case "isdistinct":
      return `${not}${field()} IS DISTINCT FROM ${params.add(operation.value)}`;
    case "fts": {
      const lhs = field({ language: operation.language });
      const language = operation.language === undefined ? "" : `${params.add(operation.language)}, `;
      return `${not}${lhs} @@ ${FTS[operation.op]}(${language}${params.add(operation.value)})`;
    }
  }
}

export function logicSql(table: string, tree: LogicTree, relation: Relation, params: Params): string {
  if (tree.kind === "filter") return filterSql(table, tree.filter, relation, params);
  const children = tree.children.map((child) => logicSql(table, child, relation, params));
  return `${tree.negate ? "NOT " : ""}(${children.join(tree.operator === "and" ? " AND " : " OR ")})`;
}

/** The conditions of root filters and and/or trees, each a SQL boolean. */
export function conditionsSql(
  table: string,
  filters: Filter[],
  logic: LogicTree[],
  relation: Relation,
  params: Params,
): string[] {
  return [
    ...filters.map((f) => filterSql(table, f, relation, params)),
    ...logic.map((t) => logicSql(table, t, relation, params)),
  ];
}

/** The WHERE clause of root filters and and/or trees, or nothing. */
export function whereSql(
  table: string,
  filters: Filter[],
  logic: LogicTree[],
  relation: Relation,
  params: Params,
): string {
  const conditions = conditionsSql(table, filters, logic, relation, params);
  return conditions.length ? ` WHERE ${conditions.join(" AND ")}` : "";
}

/** The alias a select item gets without one: a JSON path's last key, as PostgREST names it. */
function defaultAlias(field: Field): string | undefined {
  const last = field.jsonPath[field.jsonPath.length - 1];
  if (!last) return undefined;
  if ("key" in last) return last.key;
  const key = [...field.jsonPath].reverse().find((op) => "key" in op);
  return key && "key" in key ? key.key : field.name;
}

/** The select list; an empty one is every column. */
export function selectSql(table: string, items: SelectItem[], relation: Relation, params: Params): string {
  const fields = items.filter((item) => item.kind === "field");
  if (fields.length === 0) return `${table}.*`;
  return fields
    .map((item) => {
      let sql = fieldSql(table, item.field, relation, params);
      // Casts come from the parser's identifier characters only, so they are written as they are.
      if (item.cast) sql = `CAST( ${sql} AS ${item.cast} )`;
      const alias = item.alias ?? defaultAlias(item.field);
      return alias === undefined ? sql : `${sql} AS ${ident(alias)}`;
    })
    .join(", ");
}

export function orderSql(table: string, terms: OrderTerm[], relation: Relation, params: Params): string {
  if (terms.length === 0) return "";
  const sql = terms.map((term) => {
    const parts = [fieldSql(table, term.field, relation, params)];
    if (term.direction) parts.push(term.direction.toUpperCase());
    if (term.nulls) parts.push(term.nulls === "first" ? "NULLS FIRST" : "NULLS LAST");
    return parts.join(" ");
  });
  return ` ORDER BY ${sql.join(", ")}`;
}

export function limitSql(range: Range): string {
  if (sameRange(range, ALL_ROWS)) return "";
  const limit = rangeLimit(range);
  return ` LIMIT ${limit === undefined ? "ALL" : limit} OFFSET ${range.lower}`;
}

/** The columns a write returns: none, or the selected ones and the primary key (`*` if selected). */
export function returningSql(table: string, items: SelectItem[], relation: Relation, wanted: boolean): string {
  if (!wanted) return "RETURNING 1";
  const names = new Set(
    items.filter((item) => item.kind === "field").map((item) => (item.kind === "field" ? item.field.name : "")),
  );
  if (names.size === 0 || names.has("*")) return `RETURNING ${table}.*`;
  for (const key of relation.primaryKey) names.add(key);
  return `RETURNING ${[...names].map((name) => `${table}.${ident(name)}`).join(", ")}`;
}

/**
 * A JSON payload's rows as `pgrst_body`, typed by the columns; with `defaults`, missing keys take
 * defaults; with `limitOne`, only the first row (a function's arguments).
 */
export function jsonBodySql(
  json: string,
  isObject: boolean,
  columns: Pick<Column, "name" | "type" | "default">[],
  params: Params,
  defaults: boolean,
  limitOne = false,
): string {
  const payload = `FROM (SELECT ${params.add(json)}::${defaults ? "jsonb" : "json"} AS json_data) pgrst_payload, `;
  const defaultsObject = () =>
    `jsonb_build_object(${columns
      .filter((c) => c.default !== null)
      .map((c) => `${params.add(c.name)}::text, ${c.default}`)
      .join(", ")})`;
  const defaultsClause = !defaults
    ? ""
    : isObject
      ? `LATERAL (SELECT ${defaultsObject()} || pgrst_payload.json_data AS val) pgrst_json_defs, `
      : `LATERAL (SELECT jsonb_agg(${defaultsObject()} || elem) AS val from jsonb_array_elements(pgrst_payload.json_data) elem) pgrst_json_defs, `;
  const body = defaults ? "pgrst_json_defs.val" : "pgrst_payload.json_data";
  const prefix = defaults ? "jsonb" : "json";
  const source =
    columns.length === 0
      ? isObject
        ? "(values(1)) _ "
        : `${prefix}_array_elements(${body}) _ `
      : `${prefix}_to_record${isObject ? "" : "set"}(${body}) AS _(${columns
          .map((c) => `${ident(c.name)} ${c.type}`)
          .join(", ")}) ${limitOne ? "LIMIT 1" : ""}`;
  const names = columns.map((c) => ident(c.name)).join(", ");
  return `${payload}${defaultsClause}LATERAL (SELECT ${names} FROM ${source}) pgrst_body `;
}

export type Handler = "json" | "json-stripped" | "object" | "object-stripped" | "csv" | "geojson" | "none";

/** The answer's body from the rows of `_postgrest_t`, as text. */
export function bodySql(handler: Handler): string {
  switch (handler) {
    case "json":
      return "coalesce(json_agg(_postgrest_t), '[]')::text";
    case "json-stripped":
      return "coalesce(json_strip_nulls(json_agg(_postgrest_t)), '[]')::text";
    case "object":
      return "coalesce(json_agg(_postgrest_t)->0, 'null')::text";
    case "object-stripped":
      return "coalesce(json_strip_nulls(json_agg(_postgrest_t)->0), 'null')::text";
    case "geojson":
      return "json_build_object('type', 'FeatureCollection', 'features', coalesce(json_agg(ST_AsGeoJSON(_postgrest_t)::json), '[]'))::text";
    case "csv":
      return (
        "(SELECT coalesce(string_agg(a.k, ','), '') FROM (SELECT json_object_keys(r)::text as k FROM " +
        "(SELECT row_to_json(hh) as r from pgrst_source as hh limit 1) s) a) || '\n' || " +
        "coalesce(string_agg(substring(_postgrest_t::text, 2, length(_postgrest_t::text) - 2), '\n'), '')"
      );
    case "none":
      return "''::text";
  }
}
