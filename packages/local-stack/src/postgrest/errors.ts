/**
 * PostgREST 14.12's error answers: the request errors (PGRST1xx), the schema cache errors
 * (PGRST2xx), the JWT errors (PGRST3xx) and Postgres errors with its SQLSTATE to HTTP status
 * mapping, each with the headers PostgREST sends. Pure; dev and test only.
 */
import type { Role } from "../jwt.ts";
import { showString } from "./parsec.ts";

export interface ErrorBody {
  code: string;
  details: string | null;
  hint: string | null;
  message: string;
}

/** An error answer: status, PostgREST's JSON body and its headers. */
export class RestError extends Error {
  readonly status: number;
  readonly body: ErrorBody;
  readonly headers: Record<string, string>;
  constructor(
    status: number,
    code: string,
    message: string,
    details: string | null = null,
    hint: string | null = null,
    headers: Record<string, string> = {},
  ) {
    super(message);
    this.status = status;
    // Keys in the order PostgREST's JSON encoder writes them.
    this.body = { code, details, hint, message };
    this.headers = { "proxy-status": `PostgREST; error=${code}`, ...headers };
  }

  toResponse(): Response {
    return new Response(JSON.stringify(this.body), {
      status: this.status,
      headers: { "content-type": "application/json; charset=utf-8", ...this.headers },
    });
  }
}

// Request errors -------------------------------------------------------------------------------

export const queryParamError = (message: string, details: string) => new RestError(400, "PGRST100", message, details);
export const invalidRpcMethod = (method: string) =>
  new RestError(405, "PGRST101", `Cannot use the ${method} method on RPC`);
export const invalidBody = (message: string) => new RestError(400, "PGRST102", message);

export type RangeProblem = "negative-limit" | "lower-gt-upper" | { offset: number; total: number };
export function invalidRange(problem: RangeProblem): RestError {
  const details =
    problem === "negative-limit"
      ? "Limit should be greater than or equal to zero."
      : problem === "lower-gt-upper"
        ? "The lower boundary must be lower than or equal to the upper boundary in the Range header."
        : `An offset of ${problem.offset} was requested, but there are only ${problem.total} rows.`;
  return new RestError(416, "PGRST103", "Requested range not satisfiable", details);
}

export const invalidFilters = () =>
  new RestError(405, "PGRST105", "Filters must include all and only primary key columns with 'eq' operators");
export const unacceptableSchema = (schema: string, schemas: readonly string[]) =>
  new RestError(
    406,
    "PGRST106",
    `Invalid schema: ${schema}`,
    null,
    `Only the following schemas are exposed: ${schemas.join(", ")}`,
  );
export const mediaTypeError = (mimes: string[]) =>
  new RestError(406, "PGRST107", `None of these media types are available: ${mimes.join(", ")}`);
export const notEmbedded = (resource: string) =>
  new RestError(
    400,
    "PGRST108",
    `'${resource}' is not an embedded resource in this request`,
    null,
    `Verify that '${resource}' is included in the 'select' query parameter.`,
  );
export const putLimitNotAllowed = () =>
  new RestError(400, "PGRST114", "limit/offset querystring parameters are not allowed for PUT");
export const putMatchingPk = () =>
  new RestError(400, "PGRST115", "Payload values do not match URL in primary key column(s)");
export const singularity = (rows: number) =>
  new RestError(
    406,
    "PGRST116",
    "Cannot coerce the result to a single JSON object",
    `The result contains ${rows} rows`,
  );
export const unsupportedMethod = (method: string) =>
  new RestError(405, "PGRST117", `Unsupported HTTP method: ${method}`);
export const invalidPreferences = (prefs: string[]) =>
  new RestError(
    400,
    "PGRST122",
    "Invalid preferences given with handling=strict",
    `Invalid preferences: ${prefs.join(", ")}`,
  );
export const aggregatesNotAllowed = () => new RestError(400, "PGRST123", "Use of aggregate functions is not allowed");
export const maxAffectedViolation = (rows: number) =>
  new RestError(
    400,
    "PGRST124",
    "Query result exceeds max-affected preference constraint",
    `The query affects ${rows} rows`,
  );
export const invalidResourcePath = () => new RestError(404, "PGRST125", "Invalid path specified in request URL");
export const maxAffectedRpcViolation = () =>
  new RestError(
    400,
    "PGRST128",
    "Function must return SETOF or TABLE when max-affected preference is used with handling=strict",
  );

/** PostgREST's "Feature not implemented", for what it does and this stand-in does not. */
export const notImplemented = (feature: string) =>
  new RestError(
    400,
    "PGRST127",
    "Feature not implemented",
    `${feature} is not implemented by the local stand-in for PostgREST (packages/local-stack/src/postgrest/)`,
  );

// Schema cache errors --------------------------------------------------------------------------

export const columnNotFound = (table: string, column: string) =>
  new RestError(400, "PGRST204", `Could not find the '${column}' column of '${table}' in the schema cache`);
/**
 * PGRST202: no function of that name takes these arguments. `single` names the one unnamed
 * parameter a text, XML or binary body looks for; `json` adds the unnamed json/jsonb parameter
 * a JSON body may also fill.
 */
export function functionNotFound(
  schema: string,
  name: string,
  keys: string[],
  body: { single?: "text" | "xml" | "bytea"; json: boolean },
  hint: string | undefined,
): RestError {
  const func = `${schema}.${name}`;
  const none = keys.length === 0;
  const message = body.single
    ? `Could not find the function ${func} in the schema cache`
    : `Could not find the function ${func}${none ? " without parameters" : `(${keys.join(", ")})`} in the schema cache`;
  const searched = body.single
    ? ` with a single unnamed ${body.single} parameter`
    : (none ? " without parameters" : ` with parameter${keys.length > 1 ? "s" : ""} ${keys.join(", ")}`) +
      (body.json ? " or with a single unnamed json/jsonb parameter" : "");
  return new RestError(
    404,
    "PGRST202",
    message,
    `Searched for the function ${func}${searched}, but no matches were found in the schema cache.`,
    body.single || hint === undefined ? null : `Perhaps you meant to call the function ${schema}.${hint}`,
  );
}
/** PGRST203: more than one overloaded function takes these arguments; each is listed with its parameters. */
export const ambiguousFunction = (candidates: string[]) =>
  new RestError(
    300,
    "PGRST203",
    `Could not choose the best candidate function between: ${candidates.join(", ")}`,
    null,
    "Try renaming the parameters or the function itself in the database so function overloading can be resolved",
  );
export const tableNotFound = (schema: string, table: string, similar: string | undefined) =>
  new RestError(
    404,
    "PGRST205",
    `Could not find the table '${schema}.${table}' in the schema cache`,
    null,
    similar === undefined ? null : `Perhaps you meant the table '${schema}.${similar}'`,
  );

// JWT errors -----------------------------------------------------------------------------------

export type JwtProblem =
  | { kind: "empty" }
  | { kind: "parts"; parts: number }
  | { kind: "key"; details: string }
  | { kind: "algorithm"; details: string }
  | { kind: "crypto" }
  | { kind: "claims"; message: string };

/** PGRST301 when the token cannot be decoded or verified, PGRST303 when its claims are refused. */
export function jwtError(problem: JwtProblem): RestError {
  const [code, message, details] =
    problem.kind === "empty"
      ? ["PGRST301", "Empty JWT is sent in Authorization header", null]
      : problem.kind === "parts"
        ? ["PGRST301", `Expected 3 parts in JWT; got ${problem.parts}`, null]
        : problem.kind === "key"
          ? ["PGRST301", "No suitable key or wrong key type", problem.details]
          : problem.kind === "algorithm"
            ? ["PGRST301", "Wrong or unsupported encoding algorithm", problem.details]
            : problem.kind === "crypto"
              ? ["PGRST301", "JWT cryptographic operation failed", null]
              : ["PGRST303", problem.message, null];
  return new RestError(401, code, message, details, null, {
    "www-authenticate": `Bearer error="invalid_token", error_description=${showString(message)}`,
  });
}

// Postgres errors ------------------------------------------------------------------------------

export interface PgError {
  code: string;
  message?: string;
  detail?: string;
  hint?: string;
}

/** True for an error Postgres raised (a five-character SQLSTATE), which the client may see. */
export const isPgError = (error: unknown): error is PgError =>
  typeof error === "object" &&
  error !== null &&
  typeof (error as PgError).code === "string" &&
  /^[0-9A-Z]{5}$/.test((error as PgError).code);

const BY_CLASS: Record<string, number> = {
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

/** PostgREST's HTTP status for a Postgres error; `authenticated` is "the role is not anon". */
export function pgErrorStatus(code: string, message: string, authenticated: boolean): number {
  switch (code) {
    case "23503":
    case "23505":
      return 409;
    case "25006":
      return 405;
    // pg-safeupdate's refusal is the client's mistake; any other cardinality error is the server's.
    case "21000":
      return message.endsWith("requires a WHERE clause") ? 400 : 500;
    // A JWT naming a role the database does not have.
    case "22023":
      return message.startsWith("role") && message.endsWith("does not exist") ? 401 : 400;
    case "53400":
      return 500;
    case "57P01":
      return 503;
    case "P0001":
      return 400;
    case "42883":
      return message.startsWith("function xmlagg(") ? 406 : 404;
    case "42P01":
      return 404;
    case "42P17":
      return 500;
    case "42501":
      return authenticated ? 403 : 401;
  }
  if (code.startsWith("PT")) {
    const status = /^\d+$/.test(code.slice(2)) ? Number(code.slice(2)) : 500;
    // A status a Response cannot carry is answered as the server's error.
    return status >= 200 && status <= 599 ? status : 500;
  }
  return BY_CLASS[code.slice(0, 2)] ?? 400;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const optionalString = (value: unknown) => value === undefined || value === null || typeof value === "string";
const parseJson = (text: string | undefined): unknown => {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/** `RAISE SQLSTATE 'PGRST'`: the message and detail are JSON that set the whole answer. */
function raisedPgrst(error: PgError): RestError {
  const parseError = (details: string, hint: string) =>
    new RestError(500, "PGRST121", `Could not parse JSON in the "RAISE SQLSTATE 'PGRST'" error`, details, hint);
  const messageHint =
    "MESSAGE must be a JSON object with obligatory keys: 'code', 'message' and optional keys: 'details', 'hint'.";
  const detailHint =
    "DETAIL must be a JSON object with obligatory keys: 'status', 'headers' and optional key: 'status_text'.";
  const message = parseJson(error.message);
  if (
    !isObject(message) ||
    typeof message.code !== "string" ||
    typeof message.message !== "string" ||
    !optionalString(message.details) ||
    !optionalString(message.hint)
  ) {
    return parseError(`Invalid JSON value for MESSAGE: '${error.message ?? ""}'`, messageHint);
  }
  if (error.detail === undefined || error.detail === null) {
    return parseError("DETAIL is missing in the RAISE statement", detailHint);
  }
  const detail = parseJson(error.detail);
  if (
    !isObject(detail) ||
    !Number.isInteger(detail.status) ||
    !optionalString(detail.status_text) ||
    !isObject(detail.headers) ||
    !Object.values(detail.headers).every((v) => typeof v === "string")
  ) {
    return parseError(`Invalid JSON value for DETAIL: '${error.detail}'`, detailHint);
  }
  const status = detail.status as number;
  return new RestError(
    status >= 200 && status <= 599 ? status : 500,
    message.code,
    message.message,
    (message.details as string | null | undefined) ?? null,
    (message.hint as string | null | undefined) ?? null,
    detail.headers as Record<string, string>,
  );
}

/** PostgREST's answer for an error Postgres raised while running the request as `role`. */
export function fromPgError(error: PgError, role: Role | string): RestError {
  if (error.code === "PGRST") return raisedPgrst(error);
  const message = error.message ?? "";
  const status = pgErrorStatus(error.code, message, role !== "anon");
  // A 401 from the database asks for credentials, as PostgREST's does.
  const headers: Record<string, string> = status === 401 ? { "www-authenticate": "Bearer" } : {};
  return new RestError(status, error.code, message, error.detail ?? null, error.hint ?? null, headers);
}
