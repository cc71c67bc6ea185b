/**
 * `/rest/v1`: the part of PostgREST the product calls, as postgrest-js sends it: select with
 * columns, filters (eq, neq, gt, gte, lt, lte, like, ilike, is, in, and `not.`), order, limit
 * and offset, a single object by Accept header, insert and upsert by Prefer header, update and
 * delete; with PostgREST's status codes, Content-Range and error JSON.
 *
 * Like PostgREST it decides nothing about access: every request runs in one transaction as the
 * JWT's role with its claims set (local/db.ts `asRole`), so grants and row level security
 * decide, and a failed request changes nothing. Identifiers are always quoted and values always
 * bound as parameters. Dev and test only: production is Supabase's PostgREST.
 */
import { asRole, type Database, type Sql } from "./db.ts";
import { BodyTooLarge, type Context, gateway, json, readBody, requestClaims } from "./http.ts";
import type { TokenClaims } from "./jwt.ts";

interface Relation {
  columns: Set<string>;
  primaryKey: string[];
}

/** PostgREST's error answer. */
class RestError extends Error {
  readonly status: number;
  readonly body: { code: string; details: string | null; hint: string | null; message: string };
  constructor(
    status: number,
    code: string,
    message: string,
    details: string | null = null,
    hint: string | null = null,
  ) {
    super(message);
    this.status = status;
    this.body = { code, details, hint, message };
  }
}

const quote = (identifier: string) => `"${identifier.replace(/"/g, '""')}"`;

// Schema cache -------------------------------------------------------------------------------

const caches = new WeakMap<Database, Map<string, Relation>>();

/** The tables and views of `public` with their columns, read with the stack's own connection. */
async function loadRelations(db: Database): Promise<Map<string, Relation>> {
  const { rows } = await db.query<{ relation: string; columns: string[]; primary_key: string[] | null }>(`
    select c.relname as relation,
      array_agg(a.attname::text order by a.attnum) as columns,
      (select array_agg(k.attname::text order by k.attnum)
         from pg_index i join pg_attribute k on k.attrelid = i.indrelid and k.attnum = any(i.indkey)
         where i.indrelid = c.oid and i.indisprimary) as primary_key
    from pg_class c
    join pg_namespace n on n.oid = c.relnamespace
    join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
    where n.nspname = 'public' and c.relkind in ('r', 'v', 'm', 'p', 'f')
    group by c.oid, c.relname`);
  const relations = new Map<string, Relation>();
  for (const row of rows) {
    relations.set(row.relation, { columns: new Set(row.columns), primaryKey: row.primary_key ?? [] });
  }
  caches.set(db, relations);
  return relations;
}

async function relation(db: Database, name: string): Promise<Relation> {
  const found = (caches.get(db) ?? (await loadRelations(db))).get(name) ?? (await loadRelations(db)).get(name);
  if (!found) {
    throw new RestError(404, "PGRST205", `Could not find the table 'public.${name}' in the schema cache`, null, null);
  }
  return found;
}

// Query string --------------------------------------------------------------------------------

const RESERVED = new Set(["select", "order", "limit", "offset", "columns", "on_conflict", "apikey"]);
const OPERATORS: Record<string, string> = {
  eq: "=",
  neq: "<>",
  gt: ">",
  gte: ">=",
  lt: "<",
  lte: "<=",
  like: "like",
  ilike: "ilike",
};

/** Splits on commas outside double quotes, dropping the quotes postgrest-js adds. */
function splitList(value: string): string[] {
  const items: string[] = [];
  let current = "";
  let quoted = false;
  for (const char of value) {
    if (char === '"') quoted = !quoted;
    else if (char === "," && !quoted) {
      items.push(current);
      current = "";
    } else current += char;
  }
  items.push(current);
  return items.map((item) => item.trim());
}

/** `select=*` or `a,b,alias:c`: the select list, in SQL. */
function selectList(param: string | null, table: string): string {
  const value = param ?? "*";
  const items = splitList(value);
  const sql: string[] = [];
  for (const item of items) {
    if (item === "*") {
      sql.push(`${quote(table)}.*`);
      continue;
    }
    const match = /^(?:([A-Za-z_][A-Za-z0-9_]*):)?([A-Za-z_][A-Za-z0-9_ ]*)$/.exec(item);
    if (!match)
      throw new RestError(400, "PGRST100", `failed to parse select parameter (${value})`, `unexpected "${item}"`);
    const [, alias, column] = match;
    sql.push(`${quote(table)}.${quote(column!)}${alias ? ` as ${quote(alias)}` : ""}`);
  }
  return sql.join(", ");
}

/** The WHERE clause of the request's filters, adding their values to `params`. */
function whereClause(url: URL, table: string, params: unknown[]): string {
  const conditions: string[] = [];
  for (const [column, raw] of url.searchParams) {
    if (RESERVED.has(column)) continue;
    let expression = raw;
    let negate = false;
    if (expression.startsWith("not.")) {
      negate = true;
      expression = expression.slice(4);
    }
    const dot = expression.indexOf(".");
    const operator = dot > 0 ? expression.slice(0, dot) : "";
    const value = dot > 0 ? expression.slice(dot + 1) : "";
    const target = `${quote(table)}.${quote(column)}`;
    let condition: string;
    if (OPERATORS[operator]) {
      params.push(operator === "like" || operator === "ilike" ? value.replace(/\*/g, "%") : value);
      condition = `${target} ${OPERATORS[operator]} $${params.length}`;
    } else if (operator === "is" && ["null", "true", "false", "unknown"].includes(value.toLowerCase())) {
      condition = `${target} is ${value.toLowerCase()}`;
    } else if (operator === "in" && /^\(.*\)$/.test(value)) {
      const items = splitList(value.slice(1, -1)).filter((item) => item !== "");
      if (items.length === 0) condition = "false";
      else {
        const placeholders = items.map((item) => {
          params.push(item);
          return `$${params.length}`;
        });
        condition = `${target} in (${placeholders.join(", ")})`;
      }
    } else {
      throw new RestError(400, "PGRST100", `failed to parse filter (${raw})`, `unexpected "${raw}"`);
    }
    conditions.push(negate ? `not (${condition})` : condition);
  }
  return conditions.length ? `where ${conditions.join(" and ")}` : "";
}

function orderClause(param: string | null, table: string): string {
  if (!param) return "";
  const terms = splitList(param).map((term) => {
    const [column, ...modifiers] = term.split(".");
    let sql = `${quote(table)}.${quote(column ?? "")}`;
    for (const modifier of modifiers) {
      if (modifier === "asc" || modifier === "desc") sql += ` ${modifier}`;
      else if (modifier === "nullsfirst") sql += " nulls first";
      else if (modifier === "nullslast") sql += " nulls last";
      else throw new RestError(400, "PGRST100", `failed to parse order (${param})`, `unexpected "${modifier}"`);
    }
    return sql;
  });
  return `order by ${terms.join(", ")}`;
}

function integerParam(url: URL, name: "limit" | "offset"): number | undefined {
  const raw = url.searchParams.get(name);
  if (raw === null) return undefined;
  if (!/^\d+$/.test(raw)) throw new RestError(400, "PGRST100", `failed to parse ${name} parameter (${raw})`, null);
  return Number(raw);
}

/** The Prefer header's tokens, as a map (`return` → `representation`, `resolution` → …). */
function preferences(request: Request): Map<string, string> {
  const prefer = new Map<string, string>();
  for (const token of (request.headers.get("prefer") ?? "").split(",")) {
    const [name, value] = token.trim().split("=");
    if (name) prefer.set(name, value ?? "");
  }
  return prefer;
}

// Errors from Postgres -------------------------------------------------------------------------

interface PgError {
  code?: string;
  message?: string;
  detail?: string;
  hint?: string;
}

/** PostgREST's mapping of SQLSTATE to HTTP status. */
function statusOf(code: string, role: TokenClaims["role"]): number {
  if (code === "42501") return role === "anon" ? 401 : 403;
  if (code === "23503" || code === "23505") return 409;
  if (code === "42P01" || code === "42883") return 404;
  if (code === "25006") return 405;
  if (code === "P0001") return 400;
  const byClass: Record<string, number> = {
    "08": 503,
    "09": 500,
    "0L": 403,
    "0P": 403,
    "25": 500,
    "28": 403,
    "2D": 500,
    "38": 500,
    "39": 500,
    "3B": 500,
    "40": 500,
    "53": 503,
    "54": 413,
    "55": 500,
    "57": 500,
    "58": 500,
    F0: 500,
    HV: 500,
    P0: 500,
    XX: 500,
    "42": 400,
  };
  return byClass[code.slice(0, 2)] ?? 400;
}

function fromPostgres(error: unknown, role: TokenClaims["role"]): RestError {
  if (error instanceof RestError) return error;
  const pg = error as PgError;
  if (!pg || typeof pg.code !== "string") {
    console.error(error);
    return new RestError(500, "PGRST000", "Internal server error");
  }
  return new RestError(statusOf(pg.code, role), pg.code, pg.message ?? "", pg.detail ?? null, pg.hint ?? null);
}

// The handler ---------------------------------------------------------------------------------

const OBJECT = "application/vnd.pgrst.object+json";
/** `[api] max_rows` in supabase/config.toml. */
const MAX_ROWS = 1000;

export async function handleRest(request: Request, context: Context): Promise<Response> {
  const key = gateway(request, context);
  if (key instanceof Response) return key;
  const verified = requestClaims(request, context);
  if (!verified.ok) {
    const message =
      verified.reason === "expired"
        ? "JWT expired"
        : verified.reason === "signature"
          ? "JWSError JWSInvalidSignature"
          : "JWT could not be decoded";
    return json(
      { code: verified.reason === "expired" ? "PGRST303" : "PGRST301", details: null, hint: null, message },
      401,
      {
        "www-authenticate": `Bearer error="invalid_token", error_description="${message}"`,
      },
    );
  }
  const claims = verified.claims;
  try {
    return await answer(request, context, claims);
  } catch (error) {
    const failure = fromPostgres(error, claims.role);
    return json(failure.body, failure.status);
  }
}

async function answer(request: Request, context: Context, claims: TokenClaims): Promise<Response> {
  const url = new URL(request.url);
  const name = decodeURIComponent(url.pathname.slice("/rest/v1/".length));
  const profile = request.headers.get(
    request.method === "GET" || request.method === "HEAD" ? "accept-profile" : "content-profile",
  );
  if (profile && profile !== "public") {
    throw new RestError(406, "PGRST106", "The schema must be one of the following: public", null);
  }
  if (!name || name.includes("/")) throw new RestError(404, "PGRST125", `Invalid path specified in request URL`);
  const table = await relation(context.db, name);
  const target = `${quote("public")}.${quote(name)}`;
  const single = (request.headers.get("accept") ?? "").startsWith(OBJECT);
  const prefer = preferences(request);
  const params: unknown[] = [];

  /** Runs `sql` (which answers `body`, `one`, `n`) as the caller; refuses a non-single result for an object. */
  const run = (sql: string, count?: (tx: Sql) => Promise<number>) =>
    asRole(context.db, claims, async (tx) => {
      const { rows } = await tx.query<{ body: string; one: string | null; n: number }>(sql, params);
      const result = rows[0] ?? { body: "[]", one: null, n: 0 };
      if (single && Number(result.n) !== 1) {
        throw new RestError(
          406,
          "PGRST116",
          "JSON object requested, multiple (or no) rows returned",
          `The result contains ${result.n} rows`,
        );
      }
      return { ...result, n: Number(result.n), total: count ? await count(tx) : undefined };
    });
  const aggregate = (source: string, select: string) =>
    `select coalesce(json_agg(_r), '[]')::text as body, (json_agg(_r) -> 0)::text as one, count(*)::int as n
     from (select ${select} from ${source}) _r`;
  const answerRows = (status: number, result: { body: string; one: string | null; n: number }, range: string) =>
    new Response(single ? result.one : result.body, {
      status,
      headers: {
        "content-type": `application/${single ? "vnd.pgrst.object+json" : "json"}; charset=utf-8`,
        "content-range": range,
      },
    });

  if (request.method === "GET" || request.method === "HEAD") {
    const select = selectList(url.searchParams.get("select"), name);
    const where = whereClause(url, name, params);
    // PostgREST never answers more than max_rows (supabase/config.toml) rows.
    const limit = Math.min(integerParam(url, "limit") ?? MAX_ROWS, MAX_ROWS);
    const offset = integerParam(url, "offset") ?? 0;
    const paging = `limit ${limit} offset ${offset}`;
    const sql = `select coalesce(json_agg(_r), '[]')::text as body, (json_agg(_r) -> 0)::text as one, count(*)::int as n
      from (select ${select} from ${target} ${quote(name)} ${where} ${orderClause(url.searchParams.get("order"), name)} ${paging}) _r`;
    const exact = prefer.get("count") === "exact";
    const result = await run(
      sql,
      exact
        ? async (tx) =>
            Number(
              (
                await tx.query<{ n: number }>(
                  `select count(*)::int as n from ${target} ${quote(name)} ${where}`,
                  params,
                )
              ).rows[0]!.n,
            )
        : undefined,
    );
    const total = result.total ?? "*";
    const range = result.n > 0 ? `${offset}-${offset + result.n - 1}/${total}` : `*/${total}`;
    return answerRows(200, result, range);
  }

  const returning = prefer.get("return") === "representation";
  const written = (status: number, result: { body: string; one: string | null; n: number }) =>
    returning
      ? answerRows(status === 204 ? 200 : status, result, "*/*")
      : new Response(null, { status, headers: { "content-range": "*/*" } });

  if (request.method === "POST") {
    const body = await jsonBody(request, context);
    const rows = Array.isArray(body) ? body : [body];
    if (!rows.every((row) => row && typeof row === "object" && !Array.isArray(row))) {
      throw new RestError(400, "PGRST102", "Empty or invalid json", null);
    }
    const columns = url.searchParams.has("columns")
      ? splitList(url.searchParams.get("columns")!)
      : [...new Set(rows.flatMap((row) => Object.keys(row as object)))];
    checkColumns(columns, table, name);
    params.push(JSON.stringify(rows));
    const list = columns.map(quote).join(", ");
    let conflict = "";
    const resolution = prefer.get("resolution");
    const keys = url.searchParams.has("on_conflict")
      ? splitList(url.searchParams.get("on_conflict")!)
      : table.primaryKey;
    if ((resolution === "merge-duplicates" || resolution === "ignore-duplicates") && keys.length > 0) {
      checkColumns(keys, table, name);
      const updates = columns.filter((c) => !keys.includes(c)).map((c) => `${quote(c)} = excluded.${quote(c)}`);
      conflict =
        resolution === "ignore-duplicates" || updates.length === 0
          ? `on conflict (${keys.map(quote).join(", ")}) do nothing`
          : `on conflict (${keys.map(quote).join(", ")}) do update set ${updates.join(", ")}`;
    }
    const insert = columns.length
      ? `insert into ${target} as ${quote(name)} (${list}) select ${list} from json_populate_recordset(null::${target}, $1::json) ${conflict} returning ${quote(name)}.*`
      : `insert into ${target} as ${quote(name)} default values returning ${quote(name)}.*`;
    const select = selectList(url.searchParams.get("select"), name);
    const result = await run(`with ${quote(name)} as (${insert}) ${aggregate(quote(name), select)}`);
    return written(201, result);
  }

  if (request.method === "PATCH") {
    const body = await jsonBody(request, context);
    if (!body || typeof body !== "object" || Array.isArray(body))
      throw new RestError(400, "PGRST102", "Empty or invalid json", null);
    const columns = Object.keys(body);
    checkColumns(columns, table, name);
    params.push(JSON.stringify(body));
    const where = whereClause(url, name, params);
    if (columns.length === 0) return written(204, { body: "[]", one: null, n: 0 });
    const sets = columns.map((c) => `${quote(c)} = _v.${quote(c)}`).join(", ");
    const update = `update ${target} as ${quote(name)} set ${sets} from json_populate_record(null::${target}, $1::json) _v ${where} returning ${quote(name)}.*`;
    const result = await run(
      `with _changed as (${update}) ${aggregate(`_changed ${quote(name)}`, selectList(url.searchParams.get("select"), name))}`,
    );
    return written(204, result);
  }

  if (request.method === "DELETE") {
    const where = whereClause(url, name, params);
    const remove = `delete from ${target} as ${quote(name)} ${where} returning ${quote(name)}.*`;
    const result = await run(
      `with _gone as (${remove}) ${aggregate(`_gone ${quote(name)}`, selectList(url.searchParams.get("select"), name))}`,
    );
    return written(204, result);
  }

  throw new RestError(405, "PGRST117", `Unsupported HTTP method: ${request.method}`);
}

function checkColumns(columns: string[], table: Relation, name: string) {
  for (const column of columns) {
    if (!table.columns.has(column)) {
      throw new RestError(400, "PGRST204", `Could not find the '${column}' column of '${name}' in the schema cache`);
    }
  }
}

async function jsonBody(request: Request, context: Context): Promise<unknown> {
  let bytes: Uint8Array;
  try {
    bytes = await readBody(request, context.config.maxBodyBytes);
  } catch (error) {
    if (error instanceof BodyTooLarge) throw new RestError(413, "PGRST413", "Payload too large");
    throw error;
  }
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw new RestError(400, "PGRST102", "Empty or invalid json", null);
  }
}
