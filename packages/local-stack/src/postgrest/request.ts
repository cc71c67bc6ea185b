/**
 * What every verb's handler shares: the parsed request, running its statement in one transaction as
 * the caller (packages/local-stack/src/db.ts `asRole`) with the settings PostgREST sets, and the
 * headers of the answer (Content-Type, Content-Range, Preference-Applied).
 */
import type { StackConfig } from "../config.ts";
import { asRole, type Database, type Sql } from "../db.ts";
import type { Claims } from "../jwt.ts";
import { maxAffectedViolation, type PgError, singularity } from "./errors.ts";
import { type MediaType, mimeOf, type Preferences, preferenceApplied, type QueryParams, type Range } from "./parse.ts";
import type { Payload } from "./parse.ts";
import type { Relation } from "./schema.ts";
import { type Handler, ident, type Params, whereSql } from "./sql.ts";

export interface RestRequest {
  method: string;
  /** The path as PostgREST sees it, without `/rest/v1`. */
  path: string;
  headers: Headers;
  db: Database;
  claims: Claims;
  schema: string;
  relation: Relation;
  query: QueryParams;
  prefs: Preferences;
  /** The rows asked for (limit/offset, Range). */
  range: Range;
  payload?: Payload;
  /** The negotiated media type and how the body is built. */
  media: MediaType;
  handler: Handler;
  /** `[api]` in supabase/config.toml: exposed schemas, extra search path, max_rows. */
  api: StackConfig["api"];
}

/** The result row PostgREST's statements answer with. */
export interface ResultRow {
  total: number | null;
  count: number;
  body: string;
  inserted: number | null;
  location: string[] | null;
}

const cookies = (header: string | null) =>
  Object.fromEntries(
    (header ?? "")
      .split(";")
      .map((part) => part.trim())
      .filter((part) => part.includes("="))
      .map((part) => [part.slice(0, part.indexOf("=")), part.slice(part.indexOf("=") + 1)]),
  );

/** The settings PostgREST gives each request's transaction (PreQuery.hs `txVarQuery`), besides the role and claims. */
export function requestSettings(
  request: Pick<RestRequest, "headers" | "schema" | "api" | "method" | "path" | "prefs">,
): Record<string, string> {
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    if (name !== "cookie") headers[name] = value;
  });
  const settings: Record<string, string> = {
    search_path: [request.schema, ...request.api.extraSearchPath].map(ident).join(", "),
    "request.method": request.method,
    "request.path": request.path,
    "request.headers": JSON.stringify(headers),
    "request.cookies": JSON.stringify(cookies(request.headers.get("cookie"))),
  };
  if (request.prefs.timezone) settings.timezone = request.prefs.timezone;
  return settings;
}

/** Runs `sql`, then `after`, in one transaction as the caller with PostgREST's settings; an error undoes both. */
export function run<T>(
  request: RestRequest,
  sql: string,
  params: Params,
  after: (row: ResultRow, tx: Sql) => Promise<T> | T,
): Promise<T> {
  const settings = requestSettings(request);
  return asRole(
    request.db,
    request.claims,
    async (tx) => {
      const { rows } = await tx.query<Record<string, unknown>>(sql, params.values);
      const raw = rows[0] ?? {};
      const number = (value: unknown) => (value === null || value === undefined || value === "" ? null : Number(value));
      const row: ResultRow = {
        total: number(raw.total_result_set),
        count: number(raw.page_total) ?? 0,
        body: typeof raw.body === "string" ? raw.body : "",
        inserted: number(raw.response_inserted),
        location: Array.isArray(raw.header) ? (raw.header as string[]) : null,
      };
      return after(row, tx);
    },
    settings,
  );
}

/** The WHERE clause of the request's own filters (not an embedded resource's), its values added to `params`. */
export function rootWhere(request: RestRequest, table: string, params: Params): string {
  const { query, relation } = request;
  return whereSql(
    table,
    query.filters.filter((f) => f.path.length === 0).map((f) => f.filter),
    query.logic.filter((l) => l.path.length === 0).map((l) => l.tree),
    relation,
    params,
  );
}

/** Runs an UPDATE or DELETE: a single object or `max-affected` that the result breaks undoes it. */
export function runWrite(request: RestRequest, sql: string, params: Params): Promise<ResultRow> {
  return run(request, sql, params, (row) => {
    checkSingular(request, row);
    checkMaxAffected(request, row);
    return row;
  });
}

/** The answer to an UPDATE or DELETE: the rows with `return=representation` (200), else none (204). */
export function writeAnswer(
  request: RestRequest,
  row: ResultRow,
  contentRangeValue: string,
  applied: Partial<Preferences>,
): Response {
  const full = request.prefs.return === "representation";
  const headers = {
    "content-range": contentRangeValue,
    ...appliedHeader(applied),
    ...(full ? contentHeaders(request) : {}),
  };
  return new Response(full ? row.body : null, { status: full ? 200 : 204, headers });
}

/** A single object was asked for (Accept: application/vnd.pgrst.object+json): exactly one row, or PGRST116. */
export function checkSingular(request: RestRequest, row: ResultRow) {
  if (request.media.kind === "object" && row.count !== 1) throw singularity(row.count);
}

/** `Prefer: handling=strict, max-affected=n`: more rows than n undo the write (PGRST124). */
export function checkMaxAffected(request: RestRequest, row: ResultRow) {
  const { maxAffected, handling } = request.prefs;
  if (maxAffected !== undefined && handling === "strict" && row.count > maxAffected) {
    throw maxAffectedViolation(row.count);
  }
}

/** Content-Type of the answer, with Content-Profile when the schema was negotiated. */
export function contentHeaders(
  request: Pick<RestRequest, "media" | "schema" | "headers" | "method" | "api">,
): Record<string, string> {
  const mime = mimeOf(request.media);
  // PostgREST leaves the charset off only for media types it does not know.
  const charset = request.media.kind === "other" ? "" : "; charset=utf-8";
  return { "content-type": `${mime}${charset}`, ...profileHeader(request) };
}

/** With more than one exposed schema (supabase/config.toml), every answer with a body names its schema. */
export const profileHeader = (
  request: Pick<RestRequest, "schema" | "headers" | "method" | "api">,
): Record<string, string> =>
  request.api.schemas.length !== 1 || profileRequested(request) ? { "content-profile": request.schema } : {};

const profileRequested = (request: Pick<RestRequest, "headers" | "method">) =>
  request.headers.has(
    ["DELETE", "PATCH", "POST", "PUT"].includes(request.method) ? "content-profile" : "accept-profile",
  );

/** PostgREST's Content-Range: `first-last/total`, `*` for no rows, `*` for an unknown total. */
export function contentRange(lower: number, upper: number, total: number | null | undefined): string {
  const rows = total !== 0 && lower <= upper ? `${lower}-${upper}` : "*";
  return `${rows}/${total ?? "*"}`;
}

/** The Preference-Applied header of a write or read, with the preferences that kind of answer honours. */
export function appliedHeader(prefs: Partial<Preferences>): Record<string, string> {
  const applied = preferenceApplied(prefs);
  return applied === undefined ? {} : { "preference-applied": applied };
}

/** `count=exact`/`estimated` ask the write's or read's total to be counted. */
export const counts = (prefs: Preferences) => prefs.count === "exact" || prefs.count === "estimated";

/** The error pg-safeupdate, which Supabase loads for PostgREST, raises for an UPDATE or DELETE without WHERE. */
export const safeUpdate = (statement: "UPDATE" | "DELETE"): PgError => ({
  code: "21000",
  message: `${statement} requires a WHERE clause`,
});
