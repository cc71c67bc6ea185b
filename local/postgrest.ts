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
import { BodyTooLarge, bearer, type Context, gateway, json, readBody, requestClaims } from "./http.ts";
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
  // A miss reloads the cache once: the table may have been created since it was read.
  const found = caches.get(db)?.get(name) ?? (await loadRelations(db)).get(name);
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

/** PostgREST's mapping of SQLSTATE to HTTP status (its Error.hs `pgErrorStatus`). */
function statusOf(error: PgError & { code: string }, role: TokenClaims["role"]): number {
  const { code } = error;
  const exact: Record<string, number> = {
    "23503": 409,
    "23505": 409,
    "25006": 405,
    "53400": 500,
    "57P01": 503,
    P0001: 400,
    "42P01": 404,
    "42P17": 500,
    "42883": 404,
  };
  if (code === "42501") return role === "anon" ? 401 : 403;
  if (/^PT\d{3}$/.test(code)) return Number(code.slice(2));
  if (code === "21000") return error.message?.endsWith("requires a WHERE clause") ? 400 : 500;
  if (exact[code]) return exact[code];
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
    "54": 500,
    "55": 500,
    "57": 500,
    "58": 500,
    F0: 500,
    HV: 500,
    P0: 500,
    XX: 500,
  };
  return byClass[code.slice(0, 2)] ?? 400;
}

function fromPostgres(error: unknown, role: TokenClaims["role"]): RestError {
  if (error instanceof RestError) return error;
  const pg = error as PgError;
  // Only a Postgres error (a five-character SQLSTATE) is the client's to see; anything else
  // (a dropped connection, a bug here) is logged and answered without details.
  if (!pg || typeof pg.code !== "string" || !/^[0-9A-Z]{5}$/.test(pg.code)) {
    console.error(error);
    return new RestError(500, "PGRST000", "Internal server error");
  }
  return new RestError(
    statusOf(pg as PgError & { code: string }, role),
    pg.code,
    pg.message ?? "",
    pg.detail ?? null,
    pg.hint ?? null,
  );
}

// The handler ---------------------------------------------------------------------------------

/**
 * PostgREST's 401 for a token it refuses, as Supabase's PostgREST (13) words it: PGRST301 when
 * the token cannot be decoded or verified, PGRST303 when its claims are not valid.
 */
function jwtError(reason: "malformed" | "signature" | "expired", token: string): Response {
  const parts = token.split(".").length;
  const [code, message, details] =
    reason === "expired"
      ? ["PGRST303", "JWT expired", null]
      : reason === "signature"
        ? ["PGRST301", "No suitable key or wrong key type", "None of the keys was able to decode the JWT"]
        : parts !== 3
          ? ["PGRST301", `Expected 3 parts in JWT; got ${parts}`, null]
          : ["PGRST301", "JWT couldn't be decoded", null];
  return json({ code, details, hint: null, message }, 401, {
    "www-authenticate": `Bearer error="invalid_token", error_description=${JSON.stringify(message)}`,
  });
}

const OBJECT = "application/vnd.pgrst.object+json";
/** `[api] max_rows` in supabase/config.toml. */
const MAX_ROWS = 1000;

export async function handleRest(request: Request, context: Context): Promise<Response> {
  const key = gateway(request, context);
  if (key instanceof Response) return key;
  const verified = requestClaims(request, context);
  if (!verified.ok) return jwtError(verified.reason, bearer(request) ?? "");
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

  /**
   * Runs `sql` (which answers `body`, `one` and `n`, the rows' count) as the caller, then `after`
   * in the same transaction; refuses a non-single result for an object, which undoes a write.
   */
  const run = <T>(sql: string, after: (tx: Sql) => Promise<T>) =>
    asRole(context.db, claims, async (tx) => {
      const { rows } = await tx.query<{ body: string; one: string | null; n: number }>(sql, params);
      const result = rows[0] ?? { body: "[]", one: null, n: 0 };
      const n = Number(result.n);
      if (single && n !== 1) {
        throw new RestError(
          406,
          "PGRST116",
          "JSON object requested, multiple (or no) rows returned",
          `The result contains ${n} rows`,
        );
      }
      return { ...result, n, extra: await after(tx) };
    });
  const nothing = async () => undefined;
  const aggregate = (source: string, select: string) =>
    `select coalesce(json_agg(_r), '[]')::text as body, (json_agg(_r) -> 0)::text as one, count(*)::int as n
     from (select ${select} from ${source}) _r`;
  const answerRows = (status: number, result: { body: string; one: string | null }, headers: Record<string, string>) =>
    new Response(single ? result.one : result.body, {
      status,
      headers: {
        "content-type": `application/${single ? "vnd.pgrst.object+json" : "json"}; charset=utf-8`,
        ...headers,
      },
    });
  const exact = prefer.get("count") === "exact";

  if (request.method === "GET" || request.method === "HEAD") {
    const select = selectList(url.searchParams.get("select"), name);
    const where = whereClause(url, name, params);
    // PostgREST never answers more than max_rows (supabase/config.toml) rows.
    const limit = Math.min(integerParam(url, "limit") ?? MAX_ROWS, MAX_ROWS);
    const offset = integerParam(url, "offset") ?? 0;
    const paging = `limit ${limit} offset ${offset}`;
    const sql = aggregate(
      `${target} ${quote(name)} ${where} ${orderClause(url.searchParams.get("order"), name)} ${paging}`,
      select,
    );
    const result = await run(sql, async (tx) =>
      exact
        ? Number(
            (await tx.query<{ n: number }>(`select count(*)::int as n from ${target} ${quote(name)} ${where}`, params))
              .rows[0]!.n,
          )
        : undefined,
    );
    const total = result.extra;
    if (total !== undefined && offset > total) {
      throw new RestError(
        416,
        "PGRST103",
        "Requested range not satisfiable",
        `An offset of ${offset} was requested, but there are only ${total} rows.`,
      );
    }
    // With a known total, a page short of it is 206 Partial Content, as PostgREST answers.
    const status = total !== undefined && result.n < total ? 206 : 200;
    return answerRows(status, result, { "content-range": range(offset, result.n, total) });
  }

  // What a write answers with: its rows (`return=representation`), or nothing. Without
  // representation the statement returns `1` per row, as PostgREST's does, so a role that may
  // write but not read a table can still write it.
  const representation = prefer.get("return") === "representation";
  const returning = representation ? `returning ${quote(name)}.*` : "returning 1";
  const rowsOf = (statement: string) =>
    representation
      ? `with ${quote(name)} as (${statement}) ${aggregate(quote(name), selectList(url.searchParams.get("select"), name))}`
      : `with _written as (${statement}) select '[]' as body, null as one, count(*)::int as n from _written`;
  const written = (status: number, result: { body: string; one: string | null }, contentRange: string) =>
    representation
      ? answerRows(status, result, { "content-range": contentRange })
      : new Response(null, { status, headers: { "content-range": contentRange } });

  if (request.method === "POST") {
    const body = await jsonBody(request, context);
    const { rows, columns } = payload(body, url.searchParams.get("columns"));
    checkColumns(columns, table, name);
    params.push(JSON.stringify(rows));
    const list = columns.map(quote).join(", ");
    const resolution = prefer.get("resolution");
    const keys = url.searchParams.has("on_conflict")
      ? splitList(url.searchParams.get("on_conflict")!)
      : table.primaryKey;
    const merge = resolution === "merge-duplicates" && keys.length > 0;
    // PostgREST's count of the rows an upsert inserted (rather than updated): +1 for each row
    // offered, -1 for each that hit a conflict and was updated instead.
    const counted = (sign: "+" | "-") =>
      `set_config('pgrst.inserted', (coalesce(nullif(current_setting('pgrst.inserted', true), '')::int, 0) ${sign} 1)::text, true) <> '${sign === "+" ? "0" : "-1"}'`;
    let conflict = "";
    if (merge || (resolution === "ignore-duplicates" && keys.length > 0)) {
      checkColumns(keys, table, name);
      const on = `on conflict (${keys.map(quote).join(", ")})`;
      conflict =
        merge && columns.length > 0
          ? `${on} do update set ${columns.map((c) => `${quote(c)} = excluded.${quote(c)}`).join(", ")} where ${counted("-")}`
          : `${on} do nothing`;
    }
    // Rows of the payload's keys, the other columns taking their defaults; `{}` is one row of
    // defaults, `[]` no row at all.
    const source = columns.length
      ? `(${list}) select ${list} from json_populate_recordset(null::${target}, $1::json)`
      : "select from json_array_elements($1::json)";
    const insert = `insert into ${target} as ${quote(name)} ${source} ${merge ? `where ${counted("+")}` : ""} ${conflict} ${returning}`;
    const result = await run(rowsOf(insert), async (tx) =>
      merge
        ? Number(
            (await tx.query<{ n: string | null }>("select current_setting('pgrst.inserted', true) as n")).rows[0]!.n ||
              0,
          )
        : undefined,
    );
    // 201 Created, except an upsert that only updated rows: 200.
    const status = merge && result.extra === 0 ? 200 : 201;
    return written(status, result, range(1, 0, exact ? result.n : undefined));
  }

  if (request.method === "PATCH") {
    const body = await jsonBody(request, context);
    if (!body || typeof body !== "object" || Array.isArray(body))
      throw new RestError(400, "PGRST102", "Empty or invalid json", null);
    const columns = Object.keys(body);
    checkColumns(columns, table, name);
    let update: string;
    if (columns.length === 0) {
      // An empty body changes nothing: PostgREST selects no row rather than run `update … set`,
      // after checking the filters.
      whereClause(url, name, []);
      update = `select ${representation ? `${quote(name)}.*` : "1"} from ${target} ${quote(name)} where false`;
    } else {
      params.push(JSON.stringify(body));
      const sets = columns.map((c) => `${quote(c)} = _v.${quote(c)}`).join(", ");
      update = `update ${target} as ${quote(name)} set ${sets} from json_populate_record(null::${target}, $1::json) _v ${whereClause(url, name, params)} ${returning}`;
    }
    const result = await run(rowsOf(update), nothing);
    return written(representation ? 200 : 204, result, range(0, result.n, exact ? result.n : undefined));
  }

  if (request.method === "DELETE") {
    const where = whereClause(url, name, params);
    const result = await run(rowsOf(`delete from ${target} as ${quote(name)} ${where} ${returning}`), nothing);
    return written(representation ? 200 : 204, result, range(1, 0, exact ? result.n : undefined));
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

/** PostgREST's Content-Range: `first-last/total`, `*` for no rows (or a write's), `*` for an unknown total. */
function range(first: number, count: number, total: number | undefined): string {
  const rows = total !== 0 && count > 0 ? `${first}-${first + count - 1}` : "*";
  return `${rows}/${total ?? "*"}`;
}

/**
 * The rows and columns of an insert, as PostgREST reads its payload: with `columns=` those
 * columns, any JSON; otherwise one object, or an array of objects that all have the same keys
 * (anything else that is valid JSON inserts nothing).
 */
function payload(body: unknown, columnsParam: string | null): { rows: object[]; columns: string[] } {
  const isObject = (value: unknown): value is object =>
    value !== null && typeof value === "object" && !Array.isArray(value);
  const rows = Array.isArray(body) ? body : isObject(body) ? [body] : [];
  if (columnsParam !== null) return { rows, columns: splitList(columnsParam) };
  const keys = (row: object) => Object.keys(row).sort().join("\u0000");
  if (!rows.every((row) => isObject(row) && keys(row) === keys(rows[0]))) {
    throw new RestError(400, "PGRST102", "All object keys must match", null);
  }
  return { rows, columns: rows.length ? Object.keys(rows[0]!) : [] };
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
