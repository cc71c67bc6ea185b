/**
 * `/rest/v1`: the local stand-in for Supabase's PostgREST (14.12): tables and views here, functions
 * (`/rpc`) in packages/local-stack/src/postgrest/rpc.ts. A request goes the way PostgREST takes it:
 * the gateway's key check, the JWT, the request's parts (path, schema, method, query string, range,
 * payload), the schema cache, then the checks of its plan, and only then the database, in one
 * transaction as the caller, where grants and row level security decide. Its answers and errors are
 * PostgREST's. Dev and test only.
 */
import { BodyTooLarge, type Context, gateway, json, MAX_BODY_BYTES, readBody } from "../http.ts";
import type { Claims } from "../jwt.ts";
import { authenticate } from "./auth.ts";
import { remove } from "./delete.ts";
import {
  aggregatesNotAllowed,
  fromPgError,
  invalidPreferences,
  invalidResourcePath,
  invalidRpcMethod,
  isPgError,
  mediaTypeError,
  notEmbedded,
  notImplemented,
  RestError,
  tableNotFound,
  unacceptableSchema,
  unsupportedMethod,
} from "./errors.ts";
import { insert, payloadColumns, put, putFilters } from "./insert.ts";
import {
  type MediaType,
  mimeOf,
  parseAccept,
  parsePayload,
  parsePrefer,
  parseQuery,
  parseTreePath,
  queryPairs,
  type QueryParams,
  type SelectItem,
  topLevelRange,
} from "./parse.ts";
import { read } from "./read.ts";
import { callRoutine } from "./rpc.ts";
import type { RestRequest } from "./request.ts";
import { findRelation, schemaCache, similarTable } from "./schema.ts";
import type { Handler } from "./sql.ts";
import { update } from "./update.ts";

const TABLE_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"];
const WRITES = ["POST", "PUT", "PATCH"];

export async function handleRest(request: Request, context: Context): Promise<Response> {
  const key = gateway(request, context);
  if (key instanceof Response) return key;
  const caller = await authenticate(request, context, context.db);
  if ("error" in caller) return caller.error.toResponse();
  if ("pgError" in caller) return fromPgError(caller.pgError, caller.role).toResponse();
  try {
    return await answer(request, context, caller.claims);
  } catch (error) {
    if (error instanceof RestError) return error.toResponse();
    if (isPgError(error)) return fromPgError(error, caller.claims.role).toResponse();
    // The stand-in's own guard (packages/local-stack/src/http.ts): PostgREST itself has no body
    // limit and no error for one.
    if (error instanceof BodyTooLarge) return json({ message: error.message }, 413);
    if (isConnectionError(error)) {
      const message = error instanceof Error ? error.message : String(error);
      return new RestError(503, "PGRST001", "Database client error. Retrying the connection.", message).toResponse();
    }
    throw error;
  }
}

/** A failure of the connection to the database rather than of the request. */
const isConnectionError = (error: unknown) =>
  error instanceof Error &&
  (/^E[A-Z]+$/.test(String((error as { code?: unknown }).code)) || /connection/i.test(error.message));

/** The path's segments after `/rest/v1`, percent-decoded, as PostgREST splits them. */
function pathSegments(pathname: string): string[] {
  const path = pathname.slice("/rest/v1".length);
  if (path === "" || path === "/") return [];
  return path
    .replace(/^\//, "")
    .split("/")
    .map((segment) => {
      try {
        return decodeURIComponent(segment);
      } catch {
        return segment;
      }
    });
}

async function answer(request: Request, context: Context, claims: Claims): Promise<Response> {
  const url = new URL(request.url);
  const method = request.method;
  const segments = pathSegments(url.pathname);

  // The resource, the schema, the action: PostgREST's first checks, in its order.
  if (segments.length > 2 || (segments.length === 2 && segments[0] !== "rpc")) throw invalidResourcePath();
  const write = ["DELETE", "PATCH", "POST", "PUT"].includes(method);
  const profile = request.headers.get(write ? "content-profile" : "accept-profile");
  const { schemas } = context.config.api;
  if (profile !== null && !schemas.includes(profile)) throw unacceptableSchema(profile, schemas);
  const schema = profile ?? schemas[0]!;
  if (segments.length === 0) {
    if (method === "GET" || method === "HEAD") throw notImplemented("The OpenAPI description at the root");
    throw unsupportedMethod(method);
  }
  if (segments.length === 2) {
    if (["GET", "HEAD", "POST"].includes(method)) return callRoutine(request, context, claims, schema, segments[1]!);
    throw invalidRpcMethod(method);
  }
  if (!TABLE_METHODS.includes(method)) throw unsupportedMethod(method);

  // The gateway keeps the API key out of what PostgREST sees.
  const query = parseQuery(queryPairs(url.search).filter(([name]) => name !== "apikey"));
  const range = topLevelRange(method, query, request.headers.get("range"));
  if (range instanceof RestError) throw range;
  const body = WRITES.includes(method) ? new TextDecoder().decode(await readBody(request, MAX_BODY_BYTES)) : undefined;
  const payload =
    body === undefined ? undefined : parsePayload(body, request.headers.get("content-type"), query.columns);

  const cache = await schemaCache(context.db, schemas);
  const name = segments[0]!;
  const relation = await findRelation(context.db, schemas, schema, name);
  if (!relation) {
    const tables = [...cache.relations.values()].filter((r) => r.schema === schema).map((r) => r.name);
    throw tableNotFound(schema, name, similarTable(name, tables));
  }
  checkReadPlan(method, query);

  const prefs = parsePrefer(request.headers.get("prefer"), cache.timezones);
  const base = {
    method,
    path: url.pathname.slice("/rest/v1".length) || "/",
    headers: request.headers,
    db: context.db,
    claims,
    schema,
    relation,
    query,
    prefs,
    range,
    payload,
    api: context.config.api,
  };
  const invalidPrefs = () => {
    if (prefs.handling === "strict" && prefs.invalid.length > 0) throw invalidPreferences(prefs.invalid);
  };
  const accepts = parseAccept(request.headers.get("accept"));
  let negotiated: { media: MediaType; handler: Handler };
  if (write) {
    // The plan of a write: for PUT its filters, its columns; then preferences, then media type.
    if (method === "PUT") putFilters(relation, query);
    if (payload) payloadColumns({ payload, relation });
    invalidPrefs();
    negotiated = negotiate(accepts, prefs.return === "representation");
  } else {
    negotiated = negotiate(accepts, method !== "HEAD");
    invalidPrefs();
  }
  const rest: RestRequest = { ...base, ...negotiated };
  switch (method) {
    case "GET":
    case "HEAD":
      return read(rest);
    case "POST":
      return insert(rest);
    case "PUT":
      return put(rest);
    case "PATCH":
      return update(rest);
    default:
      return remove(rest);
  }
}

/** The read plan's checks, in PostgREST's order: paths name an embedding (PGRST108), no aggregates (PGRST123). */
function checkReadPlan(method: string, query: QueryParams) {
  const embedded = new Set(
    query.select.flatMap((item) =>
      item.kind === "relation"
        ? [item.relation, ...(item.alias ? [item.alias] : [])]
        : item.kind === "spread"
          ? [item.relation]
          : [],
    ),
  );
  const needEmbedded = (paths: string[][]) => {
    // PostgREST applies them last to first, so the last one missing is the one reported.
    for (const path of [...paths].reverse())
      if (path.length > 0 && !embedded.has(path[0]!)) throw notEmbedded(path[0]!);
  };
  needEmbedded(query.filters.map((f) => f.path));
  needEmbedded(query.order.map((o) => o.path));
  // A write's limit/offset are not read at all.
  if (method === "GET" || method === "HEAD") needEmbedded([...query.ranges.keys()].map((k) => parseTreePath(k).path));
  needEmbedded(query.logic.map((l) => l.path));
  if (embedded.size > 0) throw notImplemented("Embedding a related resource in `select`");
  for (const { terms } of query.order.filter((o) => o.path.length === 0)) {
    for (const term of terms) if (term.relation !== undefined) throw notEmbedded(term.relation);
  }
  const aggregates = (items: SelectItem[]): boolean =>
    items.some((item) => (item.kind === "field" ? item.aggregate !== undefined : aggregates(item.children)));
  if (aggregates(query.select)) throw aggregatesNotAllowed();
}

/** The first accepted media type PostgREST has a handler for, or PGRST107; no `body` for HEAD and minimal writes. */
function negotiate(accepts: MediaType[], body: boolean): { media: MediaType; handler: Handler } {
  for (const media of accepts) {
    const handler = handlerOf(media);
    if (handler === undefined) continue;
    return { media: media.kind === "any" ? { kind: "json" } : media, handler: body ? handler : "none" };
  }
  throw mediaTypeError(accepts.map(mimeOf));
}

function handlerOf(media: MediaType): Handler | undefined {
  switch (media.kind) {
    case "json":
    case "any":
      return "json";
    case "object":
      return media.stripNulls ? "object-stripped" : "object";
    case "array-stripped":
      return "json-stripped";
    case "csv":
      return "csv";
    case "geojson":
      return "geojson";
    default:
      // Query plans are off on Supabase; other media types have no handler for a table.
      return undefined;
  }
}
