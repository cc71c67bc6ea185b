/**
 * Request parsing, as PostgREST 14.12 reads a request before it touches the database: the query
 * string (select, filters, and/or, order, limit/offset, columns, on_conflict), the Range,
 * Prefer and Accept headers and the payload, into plain descriptions. Pure, no database.
 */
import {
  invalidBody,
  invalidRange,
  notImplemented,
  putLimitNotAllowed,
  queryParamError,
  type RestError,
} from "./errors.ts";
import {
  alt,
  anyChar,
  as,
  attempt,
  between,
  bind,
  char,
  digit,
  eof,
  guard,
  label,
  lazy,
  left,
  letter,
  lookAhead,
  many,
  many1,
  map,
  noneOf,
  notFollowedBy,
  oneOf,
  option,
  optionMaybe,
  parse,
  type Parser,
  right,
  sepBy,
  sepBy1,
  sequence,
  string,
  strip,
  succeed,
} from "./parsec.ts";

// The shapes ---------------------------------------------------------------------------------

export type JsonOperation = { arrow: "->" | "->>" } & ({ key: string } | { index: string });
export interface Field {
  name: string;
  jsonPath: JsonOperation[];
}
export type Aggregate = "sum" | "avg" | "count" | "max" | "min";
export type JoinType = "inner" | "left";
export type SelectItem =
  | { kind: "field"; field: Field; alias?: string; cast?: string; aggregate?: Aggregate; aggregateCast?: string }
  | { kind: "relation"; relation: string; alias?: string; hint?: string; joinType?: JoinType; children: SelectItem[] }
  | { kind: "spread"; relation: string; hint?: string; joinType?: JoinType; children: SelectItem[] };

export type SimpleOperator = "neq" | "cs" | "cd" | "ov" | "sl" | "sr" | "nxr" | "nxl" | "adj";
export type QuantOperator = "eq" | "gte" | "gt" | "lte" | "lt" | "like" | "ilike" | "match" | "imatch";
export type FtsOperator = "fts" | "plfts" | "phfts" | "wfts";
export type IsValue = "null" | "not_null" | "true" | "false" | "unknown";
export type Operation =
  | { kind: "op"; op: SimpleOperator; value: string }
  | { kind: "quant"; op: QuantOperator; quantifier?: "any" | "all"; value: string }
  | { kind: "in"; values: string[] }
  | { kind: "is"; value: IsValue }
  | { kind: "isdistinct"; value: string }
  | { kind: "fts"; op: FtsOperator; language?: string; value: string };
export interface Filter {
  field: Field;
  negate: boolean;
  operation: Operation;
}
export type LogicTree =
  { kind: "expr"; negate: boolean; operator: "and" | "or"; children: LogicTree[] } | { kind: "filter"; filter: Filter };
export type OrderTerm = {
  field: Field;
  /** Set for `relation(column)`, an order on an embedded resource's column. */
  relation?: string;
  direction?: "asc" | "desc";
  nulls?: "first" | "last";
};

/** Rows `lower..upper` (inclusive); `upper < lower` is empty, infinities are open ends. */
export interface Range {
  lower: number;
  upper: number;
}

export interface QueryParams {
  select: SelectItem[];
  /** Filters in query order; `path` names the embedded resource (empty: the table itself). */
  filters: { path: string[]; filter: Filter }[];
  logic: { path: string[]; tree: LogicTree }[];
  order: { path: string[]; terms: OrderTerm[] }[];
  /** limit/offset by key: `limit` for the table, `<embed>.limit` for an embedded resource. */
  ranges: Map<string, Range>;
  columns?: string[];
  onConflict?: string[];
  /** A function's arguments in a GET or HEAD, by name, in query order (repeats kept, for VARIADIC). */
  args: [string, string][];
}

// The grammar, as PostgREST's query parameter parser has it ----------------------------------

const join = (chars: string[]) => chars.join("");
const ws = many(oneOf(" \t"));
const lexeme = <T>(p: Parser<T>) => right(ws, left(p, ws));
const pDelimiter = label(char("."), "delimiter (.)");

const pQuotedValue = map(right(char('"'), left(many(alt(noneOf('\\"'), right(char("\\"), anyChar))), char('"'))), join);
const pIdentifier = map(many1(alt(letter, digit, oneOf("_ $"))), (chars) => strip(join(chars)));
const dash = as(attempt(right(char("-"), notFollowedBy(char(">")))), "-");
const sepByDash = (identifier: Parser<string>) => map(sepBy1(identifier, dash), (parts) => parts.join("-"));
const pFieldName = label(alt(pQuotedValue, sepByDash(pIdentifier)), "field name (* or [a..z0..9_$])");

const pJsonKeyName = label(
  alt(pQuotedValue, sepByDash(map(many1(noneOf("(-:.,>)")), (chars) => strip(join(chars))))),
  "any non reserved character different from: .,>()",
);
const pJsonEnd = alt<unknown>(
  attempt(lookAhead(string("->"))),
  attempt(lookAhead(string("::"))),
  attempt(lookAhead(string("."))),
  attempt(lookAhead(string(","))),
  attempt(eof),
);
const pJsonIndex = left(
  bind(option("+", char("-")), (sign) => map(many1(digit), (digits) => sign + join(digits))),
  pJsonEnd,
);
const pJsonOperand = alt<{ key: string } | { index: string }>(
  attempt(map(pJsonIndex, (index) => ({ index }))),
  attempt(map(pJsonKeyName, (key) => ({ key }))),
);
const pJsonArrow = alt(attempt(as(string("->>"), "->>" as const)), attempt(as(string("->"), "->" as const)));
const pJsonPath: Parser<JsonOperation[]> = many(
  bind(pJsonArrow, (arrow) => map(pJsonOperand, (operand) => ({ arrow, ...operand }))),
);

const pField: Parser<Field> = lexeme(
  bind(pFieldName, (name) => map(option<JsonOperation[]>([], pJsonPath), (jsonPath) => ({ name, jsonPath }))),
);
const aliasSeparator = right(char(":"), notFollowedBy(char(":")));
const pAlias = optionMaybe(attempt(left(pFieldName, aliasSeparator)));
const pCast = optionMaybe(right(string("::"), pIdentifier));

const pEmbedParam = right(
  char("!"),
  alt<{ joinType: JoinType } | { hint: string }>(
    attempt(as(string("left"), { joinType: "left" as const })),
    attempt(as(string("inner"), { joinType: "inner" as const })),
    attempt(map(pFieldName, (hint) => ({ hint }))),
  ),
);
const pEmbedParams = bind(optionMaybe(pEmbedParam), (first) =>
  map(optionMaybe(pEmbedParam), (second) => {
    const hintOf = (p: typeof first) => (p && "hint" in p ? p.hint : undefined);
    const joinOf = (p: typeof first) => (p && "joinType" in p ? p.joinType : undefined);
    return { hint: hintOf(first) ?? hintOf(second), joinType: joinOf(first) ?? joinOf(second) };
  }),
);
const openParenAhead = attempt(lookAhead(string("(")));

const pRelationSelect = lexeme(
  bind(pAlias, (alias) =>
    bind(pFieldName, (relation) =>
      right(
        guard(relation !== "count"),
        bind(pEmbedParams, ({ hint, joinType }) => as(openParenAhead, { relation, alias, hint, joinType })),
      ),
    ),
  ),
);
const pSpreadRelationSelect = lexeme(
  bind(right(string("..."), pFieldName), (relation) =>
    bind(pEmbedParams, ({ hint, joinType }) => as(openParenAhead, { relation, hint, joinType })),
  ),
);

const pSelectEnd = alt<unknown>(attempt(lookAhead(string(")"))), attempt(lookAhead(string(","))), attempt(eof));
const pAggregation = alt<Aggregate>(
  as(string("sum"), "sum"),
  as(string("avg"), "avg"),
  as(string("count"), "count"),
  attempt(as(string("max"), "max")),
  attempt(as(string("min"), "min")),
);
const pFieldSelect: Parser<SelectItem> = lexeme(
  alt<SelectItem>(
    attempt(right(string("*"), as(pSelectEnd, { kind: "field", field: { name: "*", jsonPath: [] } }))),
    attempt(
      bind(pAlias, (alias) =>
        right(
          string("count()"),
          bind(pCast, (aggregateCast) =>
            as(pSelectEnd, {
              kind: "field",
              field: { name: "*", jsonPath: [] },
              aggregate: "count",
              aggregateCast,
              alias,
            } as SelectItem),
          ),
        ),
      ),
    ),
    bind(pAlias, (alias) =>
      bind(pField, (field) =>
        bind(pCast, (cast) =>
          bind(optionMaybe(attempt(right(char("."), left(pAggregation, string("()"))))), (aggregate) =>
            bind(pCast, (aggregateCast) =>
              as(pSelectEnd, { kind: "field", field, alias, cast, aggregate, aggregateCast } as SelectItem),
            ),
          ),
        ),
      ),
    ),
  ),
);

const pFieldForest: Parser<SelectItem[]> = lazy(() =>
  sepBy(
    alt<SelectItem>(
      bind(attempt(pSpreadRelationSelect), (spread) =>
        map(between(char("("), char(")"), pFieldForest), (children) => ({ kind: "spread", ...spread, children })),
      ),
      bind(attempt(pRelationSelect), (relation) =>
        map(between(char("("), char(")"), pFieldForest), (children) => ({
          kind: "relation",
          ...relation,
          children,
        })),
      ),
      pFieldSelect,
    ),
    lexeme(char(",")),
  ),
);

const pTreePath = bind(sepBy1(pFieldName, pDelimiter), (names) =>
  map(option<JsonOperation[]>([], pJsonPath), (jsonPath) => ({
    path: names.slice(0, -1),
    field: { name: names[names.length - 1]!, jsonPath },
  })),
);

const ciString = (text: string) =>
  map(sequence(Array.from(text).map((c) => alt(char(c), char(c.toUpperCase())))), join);
const pSingleVal = map(many(anyChar), join);
const pListElement = alt(attempt(left(pQuotedValue, notFollowedBy(noneOf(",)")))), map(many(noneOf(",)")), join));
const pListVal = left(right(lexeme(char("(")), sepBy1(pListElement, char(","))), lexeme(char(")")));
const pIsVal = label(
  alt<IsValue>(
    attempt(as(ciString("null"), "null")),
    attempt(as(ciString("not_null"), "not_null")),
    attempt(as(ciString("true"), "true")),
    attempt(as(ciString("false"), "false")),
    attempt(as(ciString("unknown"), "unknown")),
  ),
  "isVal: (null, not_null, true, false, unknown)",
);
const operatorOf = <T extends string>(names: T[]) =>
  label(alt(...names.map((name) => attempt(as(string(name), name)))), "unknown single value operator");
const simpleOperator = operatorOf<SimpleOperator>(["neq", "cs", "cd", "ov", "sl", "sr", "nxr", "nxl", "adj"]);
const quantOperator = operatorOf<QuantOperator>(["eq", "gte", "gt", "lte", "lt", "like", "ilike", "match", "imatch"]);

function pOpExpr(pValue: Parser<string>): Parser<{ negate: boolean; operation: Operation }> {
  const keyword = (name: string) => attempt(right(string(name), pDelimiter));
  const pIn = map(right(keyword("in"), pListVal), (values): Operation => ({ kind: "in", values }));
  const pIs = map(right(keyword("is"), pIsVal), (value): Operation => ({ kind: "is", value }));
  const pIsDistinct = map(right(keyword("isdistinct"), pValue), (value): Operation => ({ kind: "isdistinct", value }));
  const pFts = bind(
    alt<FtsOperator>(
      attempt(as(string("fts"), "fts")),
      attempt(as(string("plfts"), "plfts")),
      attempt(as(string("phfts"), "phfts")),
      attempt(as(string("wfts"), "wfts")),
    ),
    (op) =>
      bind(optionMaybe(attempt(between(char("("), char(")"), pIdentifier))), (language) =>
        right(
          pDelimiter,
          map(pValue, (value): Operation => ({ kind: "fts", op, language, value })),
        ),
      ),
  );
  const pSimpleOp = bind(simpleOperator, (op) =>
    right(
      pDelimiter,
      map(pValue, (value): Operation => ({ kind: "op", op, value })),
    ),
  );
  const pQuantifier = alt<"any" | "all">(attempt(as(string("any"), "any")), as(string("all"), "all"));
  const pQuantOp = bind(quantOperator, (op) =>
    bind(optionMaybe(attempt(between(char("("), char(")"), pQuantifier))), (quantifier) =>
      right(
        pDelimiter,
        map(pValue, (value): Operation => ({ kind: "quant", op, quantifier, value })),
      ),
    ),
  );
  const pOperation = label(
    alt(pIn, pIs, pIsDistinct, attempt(pFts), attempt(pSimpleOp), attempt(pQuantOp)),
    "operator (eq, gt, ...)",
  );
  const pNot = alt(attempt(as(right(string("not"), pDelimiter), true)), succeed(false));
  return bind(pNot, (negate) => map(pOperation, (operation) => ({ negate, operation })));
}

const pOrderEnd = alt<unknown>(attempt(lookAhead(char(","))), attempt(eof));
const pOrderDirection = alt<"asc" | "desc">(
  attempt(as(right(pDelimiter, string("asc")), "asc")),
  attempt(as(right(pDelimiter, string("desc")), "desc")),
);
const pOrderNulls = alt<"first" | "last">(
  attempt(as(right(pDelimiter, string("nullsfirst")), "first")),
  attempt(as(right(pDelimiter, string("nullslast")), "last")),
);
const pOrderModifiers = bind(optionMaybe(pOrderDirection), (direction) =>
  map(alt(left(optionMaybe(pOrderNulls), pOrderEnd), as(pOrderEnd, undefined)), (nulls) => ({ direction, nulls })),
);
const pOrder: Parser<OrderTerm[]> = sepBy1(
  lexeme(
    alt<OrderTerm>(
      attempt(
        bind(pFieldName, (relation) =>
          bind(between(char("("), char(")"), pField), (field) =>
            map(pOrderModifiers, (modifiers) => ({ relation, field, ...modifiers })),
          ),
        ),
      ),
      bind(pField, (field) => map(pOrderModifiers, (modifiers) => ({ field, ...modifiers }))),
    ),
  ),
  char(","),
);

const pLogicSingleVal = alt(
  attempt(left(pQuotedValue, notFollowedBy(noneOf(",)")))),
  attempt(
    bind(string("{"), (open) =>
      bind(many(noneOf("{}")), (inside) => map(string("}"), (close) => open + join(inside) + close)),
    ),
  ),
  map(many(noneOf(",)")), join),
);
const pLogicTree: Parser<LogicTree> = lazy(() =>
  alt<LogicTree>(
    map(
      attempt(
        bind(left(pField, pDelimiter), (field) =>
          map(pOpExpr(pLogicSingleVal), ({ negate, operation }) => ({ field, negate, operation })),
        ),
      ),
      (filter) => ({ kind: "filter", filter }),
    ),
    bind(
      label(alt(attempt(as(right(string("not"), pDelimiter), true)), succeed(false)), "negation operator (not)"),
      (negate) =>
        bind(
          label(
            alt(attempt(as(string("and"), "and" as const)), as(string("or"), "or" as const)),
            "logic operator (and, or)",
          ),
          (operator) =>
            map(
              left(right(lexeme(char("(")), sepBy1(pLogicTree, lexeme(char(",")))), lexeme(char(")"))),
              (children) => ({ kind: "expr", negate, operator, children }),
            ),
        ),
    ),
  ),
);
const pLogicPath = map(sepBy1(pFieldName, pDelimiter), (names) => {
  const operator = names[names.length - 1]!;
  return {
    path: names.slice(0, -1).filter((name) => name !== "not"),
    operator: names.includes("not") ? `not.${operator}` : operator,
  };
});
const pColumns = sepBy1(pFieldName, lexeme(char(",")));

/** Runs a parser of the grammar, answering its failure as PostgREST's PGRST100. */
function run<T>(p: Parser<T>, sourceName: string, input: string): T {
  const result = parse(p, sourceName, input);
  if (!result.ok) throw queryParamError(result.message, result.details);
  return result.value;
}

export const parseSelect = (value: string) => run(pFieldForest, `failed to parse select parameter (${value})`, value);
export const parseOrder = (value: string) => run(pOrder, `failed to parse order (${value})`, value);
export const parseColumns = (value: string) => run(pColumns, `failed to parse columns parameter (${value})`, value);
export const parseOnConflict = (value: string) =>
  run(pColumns, `failed to parse on_conflict parameter (${value})`, value);
export const parseTreePath = (key: string) => run(pTreePath, `failed to parse tree path (${key})`, key);

/** `column=op.value` (or `embed.column=…`): the filter on the column, with its embedding path. */
export function parseFilter(key: string, value: string): { path: string[]; filter: Filter } {
  const { path, field } = parseTreePath(key);
  const { negate, operation } = run(pOpExpr(pSingleVal), `failed to parse filter (${value})`, value);
  return { path, filter: { field, negate, operation } };
}

/**
 * A pair of a GET or HEAD on a function: a filter when its value is an operator expression,
 * else an argument (QueryParams.hs `pRequestFilter` with `NoOpExpr`), named by its field.
 */
function parseRpcPair(key: string, value: string): { filter: { path: string[]; filter: Filter } } | { arg: string } {
  const { path, field } = parseTreePath(key);
  const operation = run(
    alt<{ negate: boolean; operation: Operation } | undefined>(pOpExpr(pSingleVal), succeed(undefined)),
    `failed to parse filter (${value})`,
    value,
  );
  return operation ? { filter: { path, filter: { field, ...operation } } } : { arg: field.name };
}

/** `or=(…)`, `and=(…)`, `not.or=(…)`, `embed.or=(…)`. */
export function parseLogic(key: string, value: string): { path: string[]; tree: LogicTree } {
  const { path, operator } = run(pLogicPath, `failed to parse logic path (${key})`, key);
  const tree = run(pLogicTree, `failed to parse logic tree (${value})`, operator + value);
  return { path, tree };
}

// The query string -----------------------------------------------------------------------------

/** Percent-decoding as PostgREST's HTTP library does it: `+` is a space, a bad escape stays as it is. */
function urlDecode(text: string): string {
  const bytes: number[] = [];
  const raw = new TextEncoder().encode(text.replace(/\+/g, " "));
  const hex = (byte: number | undefined) =>
    byte !== undefined && /[0-9a-fA-F]/.test(String.fromCharCode(byte)) ? parseInt(String.fromCharCode(byte), 16) : -1;
  for (let i = 0; i < raw.length; i++) {
    const high = raw[i] === 0x25 ? hex(raw[i + 1]) : -1;
    const low = high >= 0 ? hex(raw[i + 2]) : -1;
    if (low >= 0) {
      bytes.push(high * 16 + low);
      i += 2;
    } else bytes.push(raw[i]!);
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

/** The query string's pairs, split on `&` and `;` as PostgREST's HTTP library splits them. */
export function queryPairs(search: string): [string, string | undefined][] {
  const query = search.startsWith("?") ? search.slice(1) : search;
  if (query === "") return [];
  return query.split(/[&;]/).flatMap((part, i, parts): [string, string | undefined][] => {
    if (part === "" && i === parts.length - 1) return [];
    const equals = part.indexOf("=");
    return [
      equals < 0 ? [urlDecode(part), undefined] : [urlDecode(part.slice(0, equals)), urlDecode(part.slice(equals + 1))],
    ];
  });
}

const lastSegment = (key: string) => key.split(".").pop()!;
const RESERVED = ["select", "columns", "on_conflict"];
const RESERVED_EMBEDDABLE = ["order", "limit", "offset", "and", "or"];

export const ALL_ROWS: Range = { lower: 0, upper: Infinity };
const EMPTY: Range = { lower: Infinity, upper: -Infinity };
export const LIMIT_ZERO: Range = { lower: 0, upper: -1 };

export const isEmptyRange = (r: Range) => r.upper < r.lower;
export const sameRange = (a: Range, b: Range) =>
  (isEmptyRange(a) && isEmptyRange(b)) || (a.lower === b.lower && a.upper === b.upper);
export const intersect = (a: Range, b: Range): Range =>
  isEmptyRange(a) || isEmptyRange(b) ? EMPTY : { lower: Math.max(a.lower, b.lower), upper: Math.min(a.upper, b.upper) };
/** `limit=0` is written as rows 0..-1, the one empty range that is allowed. */
export const hasLimitZero = (r: Range) => r.upper === -1;
/** At most `limit` rows of `r`. */
export const restrictRange = (limit: number | undefined, r: Range): Range =>
  limit === undefined ? r : intersect(r, { lower: -Infinity, upper: r.lower + limit - 1 });
export const rangeLimit = (r: Range) =>
  Number.isFinite(r.lower) && Number.isFinite(r.upper) ? 1 + r.upper - r.lower : undefined;

/** Haskell's `readMaybe` for an integer: surrounding spaces and parentheses, a minus, decimal, hex or octal. */
export function readInteger(text: string): number | undefined {
  let rest = text.trim();
  while (rest.startsWith("(") && rest.endsWith(")")) rest = rest.slice(1, -1).trim();
  const match = /^(-\s*)?(0[xX][0-9a-fA-F]+|0[oO][0-7]+|[0-9]+)$/.exec(rest);
  if (!match) return undefined;
  const digits = match[2]!;
  const value = /^0[oO]/.test(digits) ? parseInt(digits.slice(2), 8) : Number(digits);
  return match[1] ? -value : value;
}

/**
 * The query parameters, parsed in PostgREST's order (order, and/or, columns, select, filters,
 * on_conflict). On a GET or HEAD of a function (`rpcRead`), a pair without an operator is one
 * of its arguments.
 */
export function parseQuery(pairs: [string, string | undefined][], rpcRead = false): QueryParams {
  const withValue = pairs.filter((pair): pair is [string, string] => pair[1] !== undefined);
  const first = (name: string) => pairs.find(([key]) => key === name)?.[1];
  const ending = (names: string[]) => withValue.filter(([key]) => names.includes(lastSegment(key)));

  const order = ending(["order"]).map(([key, value]) => ({
    path: parseTreePath(key).path,
    terms: parseOrder(value),
  }));
  const logic = ending(["and", "or"]).map(([key, value]) => parseLogic(key, value));
  const columnsParam = first("columns");
  const columns = columnsParam === undefined ? undefined : parseColumns(columnsParam);
  const select = parseSelect(first("select") ?? "*");
  const filters: QueryParams["filters"] = [];
  const args: [string, string][] = [];
  for (const [key, value] of withValue) {
    if (RESERVED_EMBEDDABLE.includes(lastSegment(key)) || RESERVED.includes(key)) continue;
    if (!rpcRead) filters.push(parseFilter(key, value));
    else {
      const parsed = parseRpcPair(key, value);
      if ("arg" in parsed) args.push([parsed.arg, value]);
      else filters.push(parsed.filter);
    }
  }
  const onConflictParam = first("on_conflict");
  const onConflict = onConflictParam === undefined ? undefined : parseOnConflict(onConflictParam);

  // limit/offset that are not integers are ignored; `offset` pairs with the `limit` of its path.
  const limits = new Map<string, Range>();
  for (const [key, value] of ending(["limit"])) limits.set(key, restrictRange(readInteger(value), ALL_ROWS));
  const offsets = new Map<string, Range>();
  for (const [key, value] of ending(["offset"])) {
    const offset = readInteger(value);
    offsets.set(key.replace(/offset$/, "limit"), offset === undefined ? ALL_ROWS : { lower: offset, upper: Infinity });
  }
  const ranges = new Map(limits);
  for (const [key, offsetRange] of offsets) {
    const limitRange = limits.get(key);
    if (!limitRange) ranges.set(key, offsetRange);
    else {
      const limit = rangeLimit(limitRange) ?? 0;
      ranges.set(key, { lower: offsetRange.lower, upper: offsetRange.lower + limit - 1 });
    }
  }
  return { select, filters, logic, order, ranges, columns, onConflict, args };
}

/** The `Range: first-last` header of a GET; anything else asks for all rows. */
export function rangeHeader(value: string | null): Range {
  const match = value === null ? null : /^([0-9]+)-([0-9]*)$/.exec(value);
  if (!match) return ALL_ROWS;
  const lower: Range = { lower: Number(match[1]), upper: Infinity };
  const upper: Range = match[2] ? { lower: -Infinity, upper: Number(match[2]) } : ALL_ROWS;
  return intersect(lower, upper);
}

/** The rows asked for (limit, offset, GET's Range), or PGRST103 for an empty range, PGRST114 on PUT. */
export function topLevelRange(method: string, query: QueryParams, range: string | null): Range | RestError {
  const header = method === "GET" ? rangeHeader(range) : ALL_ROWS;
  const limit = query.ranges.get("limit") ?? ALL_ROWS;
  const result = hasLimitZero(limit) ? LIMIT_ZERO : intersect(header, limit);
  if (isEmptyRange(result) && !hasLimitZero(limit)) {
    return invalidRange(isEmptyRange(header) ? "lower-gt-upper" : "negative-limit");
  }
  if (method === "PUT" && !sameRange(result, ALL_ROWS)) return putLimitNotAllowed();
  return result;
}

// Prefer ---------------------------------------------------------------------------------------

export interface Preferences {
  resolution?: "merge-duplicates" | "ignore-duplicates";
  return?: "representation" | "minimal" | "headers-only";
  count?: "exact" | "planned" | "estimated";
  missing?: "default" | "null";
  handling?: "strict" | "lenient";
  timezone?: string;
  maxAffected?: number;
  /** What the header asked for that PostgREST does not know. */
  invalid: string[];
}

const PREFERENCES = {
  resolution: ["merge-duplicates", "ignore-duplicates"],
  return: ["representation", "minimal", "headers-only"],
  count: ["exact", "planned", "estimated"],
  tx: ["commit", "rollback"],
  missing: ["default", "null"],
  handling: ["strict", "lenient"],
} as const;

/** The first known value of each preference; `tx=` is never applied, as Supabase does not allow it. */
export function parsePrefer(header: string | null, timezones: ReadonlySet<string>): Preferences {
  const tokens = header === null ? [] : header.split(",").map((token) => token.trim());
  const accepted = new Set(Object.entries(PREFERENCES).flatMap(([name, values]) => values.map((v) => `${name}=${v}`)));
  const pick = <K extends keyof typeof PREFERENCES>(name: K) =>
    tokens
      .find((token) => (PREFERENCES[name] as readonly string[]).some((v) => token === `${name}=${v}`))
      ?.slice(name.length + 1) as (typeof PREFERENCES)[K][number] | undefined;
  const timezone = tokens.find((token) => token.startsWith("timezone="))?.slice("timezone=".length);
  const timezoneAccepted = timezone !== undefined && timezones.has(timezone);
  const maxAffectedToken = tokens.find((token) => token.startsWith("max-affected="));
  const maxAffected = maxAffectedToken === undefined ? undefined : readInteger(maxAffectedToken.slice(13));
  return {
    resolution: pick("resolution"),
    return: pick("return"),
    count: pick("count"),
    missing: pick("missing"),
    handling: pick("handling"),
    timezone: timezoneAccepted ? timezone : undefined,
    maxAffected,
    invalid: tokens.filter(
      (token) =>
        !accepted.has(token) &&
        !(token.startsWith("timezone=") && timezoneAccepted) &&
        !token.startsWith("max-affected="),
    ),
  };
}

/** The Preference-Applied header: the preferences the answer honoured, in PostgREST's order. */
export function preferenceApplied(prefs: Partial<Preferences>): string | undefined {
  const applied = [
    prefs.resolution && `resolution=${prefs.resolution}`,
    prefs.missing && `missing=${prefs.missing}`,
    prefs.return && `return=${prefs.return}`,
    prefs.count && `count=${prefs.count}`,
    prefs.handling && `handling=${prefs.handling}`,
    prefs.timezone && `timezone=${prefs.timezone}`,
    prefs.handling === "strict" && prefs.maxAffected !== undefined && `max-affected=${prefs.maxAffected}`,
  ].filter((value): value is string => typeof value === "string");
  return applied.length ? applied.join(", ") : undefined;
}

// Media types ----------------------------------------------------------------------------------

export type MediaType =
  | { kind: "json" }
  | { kind: "object"; stripNulls: boolean }
  | { kind: "array-stripped" }
  | { kind: "csv" }
  | { kind: "geojson" }
  | { kind: "any" }
  | { kind: "plan"; format: "text" | "json"; for: string }
  | { kind: "urlencoded" }
  | { kind: "other"; mime: string };

const MIMES: Record<string, string> = {
  "text/plain": "text/plain",
  "text/xml": "text/xml",
  "application/openapi+json": "application/openapi+json",
  "application/octet-stream": "application/octet-stream",
};

/** A media type as PostgREST names them: type/subtype, case-insensitive, with its `nulls=` parameter. */
export function decodeMediaType(text: string): MediaType {
  const match =
    /^([A-Za-z0-9.*]+)\/([A-Za-z0-9.*+-]+)((?:\s*;\s*[A-Za-z0-9-]+\s*=\s*(?:"[^"]*"|[A-Za-z0-9|-]+))*)/.exec(text);
  const [type, subtype] = match ? [match[1]!.toLowerCase(), match[2]!.toLowerCase()] : [text, ""];
  const params = new Map<string, string>();
  for (const [, key, value] of (match?.[3] ?? "").matchAll(/;\s*([A-Za-z0-9-]+)\s*=\s*("[^"]*"|[A-Za-z0-9|-]+)/g)) {
    params.set(key!.toLowerCase(), value!.replace(/^"|"$/g, ""));
  }
  const stripNulls = params.get("nulls") === "stripped";
  const mime = `${type}/${subtype}`;
  if (mime === "application/json") return { kind: "json" };
  if (mime === "application/geo+json") return { kind: "geojson" };
  if (mime === "text/csv") return { kind: "csv" };
  if (mime === "application/x-www-form-urlencoded") return { kind: "urlencoded" };
  if (/^application\/vnd\.pgrst\.plan(\+text|\+json)?$/.test(mime)) {
    return {
      kind: "plan",
      format: mime.endsWith("+json") ? "json" : "text",
      for: mimeOf(decodeMediaType(params.get("for") ?? "application/json")),
    };
  }
  if (mime === "application/vnd.pgrst.object+json" || mime === "application/vnd.pgrst.object") {
    return { kind: "object", stripNulls };
  }
  if (mime === "application/vnd.pgrst.array+json" || mime === "application/vnd.pgrst.array") {
    return stripNulls ? { kind: "array-stripped" } : { kind: "json" };
  }
  if (mime === "*/*") return { kind: "any" };
  return { kind: "other", mime: MIMES[mime] ?? text };
}

/** How PostgREST writes a media type back, in errors and Content-Type. */
export function mimeOf(media: MediaType): string {
  switch (media.kind) {
    case "json":
      return "application/json";
    case "object":
      return media.stripNulls
        ? "application/vnd.pgrst.object+json;nulls=stripped"
        : "application/vnd.pgrst.object+json";
    case "array-stripped":
      return "application/vnd.pgrst.array+json;nulls=stripped";
    case "csv":
      return "text/csv";
    case "geojson":
      return "application/geo+json";
    case "any":
      return "*/*";
    case "plan":
      return `application/vnd.pgrst.plan+${media.format}; for="${media.for}"`;
    case "urlencoded":
      return "application/x-www-form-urlencoded";
    case "other":
      return media.mime;
  }
}

/** The Accept header's media types, most wanted first (quality, then specificity), as PostgREST orders them. */
export function parseAccept(header: string | null): MediaType[] {
  if (header === null) return [{ kind: "any" }];
  const entries = header.split(",").map((part, index) => {
    const compact = part.replace(/ /g, "");
    const at = compact.indexOf(";q=");
    const type = at < 0 ? compact : compact.slice(0, at);
    const q = at < 0 ? 1 : Number.parseFloat(compact.slice(at + 3).split(";")[0]!);
    const quality = at >= 0 && /^-?[0-9]/.test(compact.slice(at + 3)) && Number.isFinite(q) ? q : 1;
    const specificity = (type.match(/;/g)?.length ?? 0) - (type.match(/\*/g)?.length ?? 0);
    return { type, quality, specificity, index };
  });
  entries.sort((a, b) => b.quality - a.quality || b.specificity - a.specificity || a.index - b.index);
  return entries.map((entry) => decodeMediaType(entry.type));
}

// Payload --------------------------------------------------------------------------------------

export interface Payload {
  /** The JSON text handed to Postgres, as the client sent it (or `[]`). */
  json: string;
  /** The columns written: the payload's keys, or `columns=`. */
  columns: string[];
  /** True when the payload is one object (one row), false for an array. */
  isObject: boolean;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** A write's payload as PostgREST reads it; with `columns=` the raw JSON goes to Postgres unread. */
export function parsePayload(body: string, contentType: string | null, columns: string[] | undefined): Payload {
  const media = contentType === null ? ({ kind: "json" } as MediaType) : decodeMediaType(contentType);
  const startsWithBrace = (text: string) => /^[ \t\n\r]*\{/.test(text);
  if (media.kind === "urlencoded") {
    const object = Object.fromEntries(queryPairs(body).map(([key, value]) => [key, value ?? ""]));
    return { json: JSON.stringify(object), columns: Object.keys(object), isObject: true };
  }
  if (media.kind !== "json") {
    throw media.kind === "csv"
      ? notImplemented("A CSV payload")
      : invalidBody(`Content-Type not acceptable: ${mimeOf(media)}`);
  }
  if (columns !== undefined) return { json: body, columns, isObject: startsWithBrace(body) };
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    throw invalidBody("Empty or invalid json");
  }
  if (isPlainObject(value)) return { json: body, columns: Object.keys(value), isObject: true };
  if (!Array.isArray(value) || value.length === 0) return { json: "[]", columns: [], isObject: false };
  const keys = (row: unknown) => (isPlainObject(row) ? Object.keys(row).sort().join("\u0000") : undefined);
  const first = keys(value[0]);
  if (first === undefined || !value.every((row) => keys(row) === first))
    throw invalidBody("All object keys must match");
  return { json: body, columns: Object.keys(value[0] as object), isObject: false };
}
