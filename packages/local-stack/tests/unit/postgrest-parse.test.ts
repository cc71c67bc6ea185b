/**
 * The PostgREST stand-in's request parsing (packages/local-stack/src/postgrest/parse.ts), without a
 * database: the query string's grammar and PostgREST 14.12's PGRST100 texts (the expected errors
 * are the examples PostgREST's own parser documents), ranges, Prefer, Accept and payload rules.
 */
import { describe, expect, it } from "vitest";
import { bearerToken, claimsProblem } from "../../src/postgrest/auth.ts";
import { RestError } from "../../src/postgrest/errors.ts";
import {
  parseAccept,
  parseFilter,
  parseLogic,
  parseOrder,
  parsePayload,
  parsePrefer,
  parseQuery,
  parseSelect,
  preferenceApplied,
  queryPairs,
  readInteger,
  topLevelRange,
} from "../../src/postgrest/parse.ts";
import { showString } from "../../src/postgrest/parsec.ts";
import type { Relation } from "../../src/postgrest/schema.ts";
import { filterSql, Params } from "../../src/postgrest/sql.ts";

/** The RestError `run` throws, as its status and body. */
function failure(run: () => unknown) {
  try {
    run();
  } catch (error) {
    if (error instanceof RestError) return { status: error.status, ...error.body };
    throw error;
  }
  throw new Error("expected a RestError");
}

const filter = (value: string, key = "col") => parseFilter(key, value).filter;

describe("filters", () => {
  it("reads operator and value, with `not.`", () => {
    expect(filter("eq.5")).toEqual({
      field: { name: "col", jsonPath: [] },
      negate: false,
      operation: { kind: "quant", op: "eq", value: "5" },
    });
    expect(filter("not.neq.a.b")).toMatchObject({ negate: true, operation: { kind: "op", op: "neq", value: "a.b" } });
    expect(filter("gte(any).{1,2}").operation).toEqual({ kind: "quant", op: "gte", quantifier: "any", value: "{1,2}" });
    expect(filter("fts(english).cat & dog").operation).toEqual({
      kind: "fts",
      op: "fts",
      language: "english",
      value: "cat & dog",
    });
    expect(filter("isdistinct.x").operation).toEqual({ kind: "isdistinct", value: "x" });
  });

  it("reads in.(…) with quoted values, escapes and an empty list", () => {
    expect(filter('in.(plain,"with,comma","say \\"hi\\"","back\\\\slash")').operation).toEqual({
      kind: "in",
      values: ["plain", "with,comma", 'say "hi"', "back\\slash"],
    });
    expect(filter("in.()").operation).toEqual({ kind: "in", values: [""] });
    expect(filter("not.in.(a, b)")).toMatchObject({ negate: true, operation: { values: ["a", " b"] } });
  });

  it("reads is.null and the other is values in any case", () => {
    expect(filter("is.null").operation).toEqual({ kind: "is", value: "null" });
    expect(filter("is.NULL").operation).toEqual({ kind: "is", value: "null" });
    expect(filter("not.is.not_null")).toMatchObject({ negate: true, operation: { value: "not_null" } });
    expect(filter("is.True").operation).toEqual({ kind: "is", value: "true" });
  });

  it("keeps like's `*` in the value and binds it as `%`", () => {
    expect(filter("like.*ada*").operation).toEqual({ kind: "quant", op: "like", value: "*ada*" });
    const relation: Relation = { schema: "public", name: "t", columns: new Map(), primaryKey: [] };
    const params = new Params();
    expect(filterSql('"t"', filter("ilike.*ada*"), relation, params)).toBe('"t"."col" ilike $1');
    expect(params.values).toEqual(["%ada%"]);
  });

  it("reads embedded paths and JSON paths in the key", () => {
    expect(parseFilter("clients.name", "eq.x").path).toEqual(["clients"]);
    expect(parseFilter("data->a->>0", "eq.x").filter.field).toEqual({
      name: "data",
      jsonPath: [
        { arrow: "->", key: "a" },
        { arrow: "->>", index: "+0" },
      ],
    });
  });

  it("answers an unknown operator with PostgREST's PGRST100", () => {
    expect(failure(() => filter("noop.0"))).toEqual({
      status: 400,
      code: "PGRST100",
      details: 'unexpected "o" expecting "not" or operator (eq, gt, ...)',
      hint: null,
      message: '"failed to parse filter (noop.0)" (line 1, column 1)',
    });
    expect(failure(() => filter("val"))).toMatchObject({
      details: 'unexpected "v" expecting "not" or operator (eq, gt, ...)',
    });
    expect(failure(() => filter("eq().value"))).toMatchObject({
      message: '"failed to parse filter (eq().value)" (line 1, column 4)',
      details: 'unexpected ")" expecting operator (eq, gt, ...)',
    });
    expect(failure(() => filter("in().value"))).toMatchObject({
      message: '"failed to parse filter (in().value)" (line 1, column 3)',
      details: 'unexpected "(" expecting operator (eq, gt, ...)',
    });
    expect(failure(() => filter("fts().value"))).toMatchObject({
      details: 'unexpected ")" expecting operator (eq, gt, ...)',
    });
  });
});

describe("and/or", () => {
  it("reads nested trees with `not.`", () => {
    expect(parseLogic("or", "(id.eq.1,not.and(a.gt.2,b.is.null))").tree).toEqual({
      kind: "expr",
      negate: false,
      operator: "or",
      children: [
        { kind: "filter", filter: filter("eq.1", "id") },
        {
          kind: "expr",
          negate: true,
          operator: "and",
          children: [
            { kind: "filter", filter: filter("gt.2", "a") },
            { kind: "filter", filter: filter("is.null", "b") },
          ],
        },
      ],
    });
    expect(parseLogic("not.or", "(a.eq.1)").tree).toMatchObject({ negate: true, operator: "or" });
  });

  it("answers a bad tree with PostgREST's PGRST100", () => {
    expect(failure(() => parseLogic("or", "()"))).toMatchObject({
      message: '"failed to parse logic tree (())" (line 1, column 4)',
      details:
        'unexpected ")" expecting field name (* or [a..z0..9_$]), negation operator (not) or logic operator (and, or)',
    });
    expect(failure(() => parseLogic("or", "(id.in.1,2,id.eq.3)"))).toMatchObject({
      details: 'unexpected "1" expecting "("',
    });
    expect(failure(() => parseLogic("or", "(id.eq.1,not.xor(id.eq.2,id.eq.3))"))).toMatchObject({
      message: '"failed to parse logic tree ((id.eq.1,not.xor(id.eq.2,id.eq.3)))" (line 1, column 16)',
      details: 'unexpected "x" expecting logic operator (and, or)',
    });
  });
});

describe("select", () => {
  it("reads columns, aliases, casts and JSON paths", () => {
    expect(parseSelect("*")).toEqual([{ kind: "field", field: { name: "*", jsonPath: [] } }]);
    expect(parseSelect("full_name, city")).toEqual([
      { kind: "field", field: { name: "full_name", jsonPath: [] } },
      { kind: "field", field: { name: "city", jsonPath: [] } },
    ]);
    expect(parseSelect("name:full_name,alias:data->k->>x::text")).toEqual([
      { kind: "field", field: { name: "full_name", jsonPath: [] }, alias: "name" },
      {
        kind: "field",
        field: {
          name: "data",
          jsonPath: [
            { arrow: "->", key: "k" },
            { arrow: "->>", key: "x" },
          ],
        },
        alias: "alias",
        cast: "text",
      },
    ]);
    expect(parseSelect('"a:b"')).toEqual([{ kind: "field", field: { name: "a:b", jsonPath: [] } }]);
  });

  it("reads embeddings and aggregates, which the plan then refuses", () => {
    expect(parseSelect("id,orders!inner(id)")).toEqual([
      { kind: "field", field: { name: "id", jsonPath: [] } },
      {
        kind: "relation",
        relation: "orders",
        joinType: "inner",
        children: [{ kind: "field", field: { name: "id", jsonPath: [] } }],
      },
    ]);
    expect(parseSelect("count()")).toEqual([{ kind: "field", field: { name: "*", jsonPath: [] }, aggregate: "count" }]);
  });

  it("answers a bad select with PostgREST's PGRST100", () => {
    expect(failure(() => parseSelect("id,clients(name[])"))).toMatchObject({
      message: '"failed to parse select parameter (id,clients(name[]))" (line 1, column 16)',
      details: 'unexpected \'[\' expecting letter, digit, "-", "->>", "->", "::", ".", ")", "," or end of input',
    });
    expect(failure(() => parseSelect("data->>-78xy"))).toMatchObject({
      details: 'unexpected \'x\' expecting digit, "->", "::", ".", "," or end of input',
    });
    expect(failure(() => parseSelect("name::"))).toMatchObject({
      message: '"failed to parse select parameter (name::)" (line 1, column 7)',
      details: "unexpected end of input expecting letter or digit",
    });
  });
});

describe("order", () => {
  it("reads direction and nulls modifiers", () => {
    expect(parseOrder("created_at.desc.nullslast,id")).toEqual([
      { field: { name: "created_at", jsonPath: [] }, direction: "desc", nulls: "last" },
      { field: { name: "id", jsonPath: [] } },
    ]);
    expect(parseOrder("name.nullsfirst")).toEqual([{ field: { name: "name", jsonPath: [] }, nulls: "first" }]);
    expect(parseOrder("clients(name).asc")).toEqual([
      { relation: "clients", field: { name: "name", jsonPath: [] }, direction: "asc" },
    ]);
  });

  it("answers bad modifiers with PostgREST's PGRST100", () => {
    const cases: [string, number, string][] = [
      ["id.ac", 4, 'unexpected "c" expecting "asc", "desc", "nullsfirst" or "nullslast"'],
      ["id.descc", 8, "unexpected 'c' expecting delimiter (.), \",\" or end of input"],
      ["id.nullslasttt", 13, "unexpected 't' expecting \",\" or end of input"],
      ["id.asc.nlsfst", 8, 'unexpected "l" expecting "nullsfirst" or "nullslast"'],
      [
        "clients(name,id)",
        8,
        'unexpected \'(\' expecting letter, digit, "-", "->>", "->", delimiter (.), "," or end of input',
      ],
    ];
    for (const [order, column, details] of cases) {
      expect(failure(() => parseOrder(order))).toEqual({
        status: 400,
        code: "PGRST100",
        details,
        hint: null,
        message: `"failed to parse order (${order})" (line 1, column ${column})`,
      });
    }
  });
});

describe("the query string", () => {
  it("splits on & and ;, reads + as a space and percent-escapes, keeps a bad escape", () => {
    expect(queryPairs("?a=1&b=x+y;c=%41%2C&d&e=100%")).toEqual([
      ["a", "1"],
      ["b", "x y"],
      ["c", "A,"],
      ["d", undefined],
      ["e", "100%"],
    ]);
  });

  it("sorts parameters into select, filters, order, ranges, columns and on_conflict", () => {
    const query = parseQuery(
      queryPairs("select=id&id=gt.1&order=id.desc&limit=5&offset=10&columns=id,name&on_conflict=id&or=(a.eq.1)"),
    );
    expect(query.select).toHaveLength(1);
    expect(query.filters.map((f) => f.filter.field.name)).toEqual(["id"]);
    expect(query.order[0]!.terms[0]).toMatchObject({ direction: "desc" });
    expect(query.ranges.get("limit")).toEqual({ lower: 10, upper: 14 });
    expect(query.columns).toEqual(["id", "name"]);
    expect(query.onConflict).toEqual(["id"]);
    expect(query.logic).toHaveLength(1);
  });

  it("reports the order parameter's error before the select's, as PostgREST parses them", () => {
    expect(failure(() => parseQuery(queryPairs("select=id,&order=x.bad")))).toMatchObject({
      message: '"failed to parse order (x.bad)" (line 1, column 3)',
    });
  });
});

describe("ranges", () => {
  const range = (query: string, method = "GET", header: string | null = null) =>
    topLevelRange(method, parseQuery(queryPairs(query)), header);

  it("reads limit and offset, ignores ones that are not integers", () => {
    expect(range("limit=3&offset=2")).toEqual({ lower: 2, upper: 4 });
    expect(range("limit=ten")).toEqual({ lower: 0, upper: Infinity });
    expect(range("offset=-4")).toEqual({ lower: 0, upper: Infinity });
    expect(range("limit=0")).toEqual({ lower: 0, upper: -1 });
    expect(readInteger(" (0x10) ")).toBe(16);
    expect(readInteger("1e3")).toBeUndefined();
  });

  it("refuses a negative limit and an inverted Range header with PGRST103, a limit on PUT with PGRST114", () => {
    const negative = range("limit=-1") as RestError;
    expect({ status: negative.status, ...negative.body }).toEqual({
      status: 416,
      code: "PGRST103",
      details: "Limit should be greater than or equal to zero.",
      hint: null,
      message: "Requested range not satisfiable",
    });
    expect((range("", "GET", "5-2") as RestError).body.details).toBe(
      "The lower boundary must be lower than or equal to the upper boundary in the Range header.",
    );
    expect(range("", "GET", "2-5")).toEqual({ lower: 2, upper: 5 });
    expect(range("", "POST", "2-5")).toEqual({ lower: 0, upper: Infinity });
    expect((range("id=eq.1&limit=1", "PUT") as RestError).body).toMatchObject({
      code: "PGRST114",
      message: "limit/offset querystring parameters are not allowed for PUT",
    });
  });
});

describe("Prefer", () => {
  it("takes the first known value of each preference and lists the unknown ones", () => {
    const prefs = parsePrefer(
      "return=representation, count=exact, return=minimal,resolution=merge-duplicates, wat, timezone=Mars/Base",
      new Set(["Europe/London"]),
    );
    expect(prefs).toMatchObject({ return: "representation", count: "exact", resolution: "merge-duplicates" });
    expect(prefs.timezone).toBeUndefined();
    expect(prefs.invalid).toEqual(["wat", "timezone=Mars/Base"]);
    expect(parsePrefer("timezone=Europe/London", new Set(["Europe/London"]))).toMatchObject({
      timezone: "Europe/London",
      invalid: [],
    });
    expect(parsePrefer("handling=strict, max-affected=5", new Set())).toMatchObject({
      handling: "strict",
      maxAffected: 5,
      invalid: [],
    });
    // A transaction preference is known but never applied: Supabase does not allow it.
    expect(parsePrefer("tx=rollback", new Set()).invalid).toEqual([]);
  });

  it("writes Preference-Applied in PostgREST's order", () => {
    expect(
      preferenceApplied({
        count: "exact",
        return: "representation",
        resolution: "merge-duplicates",
        missing: "default",
      }),
    ).toBe("resolution=merge-duplicates, missing=default, return=representation, count=exact");
    expect(preferenceApplied({})).toBeUndefined();
  });
});

describe("Accept", () => {
  it("orders by quality, then specificity", () => {
    expect(parseAccept("text/csv;q=0.5, application/vnd.pgrst.object+json, */*;q=0.1")).toEqual([
      { kind: "object", stripNulls: false },
      { kind: "csv" },
      { kind: "any" },
    ]);
    expect(parseAccept(null)).toEqual([{ kind: "any" }]);
    expect(parseAccept("application/vnd.pgrst.array+json;nulls=stripped")).toEqual([{ kind: "array-stripped" }]);
    expect(parseAccept("application/xml")).toEqual([{ kind: "other", mime: "application/xml" }]);
  });
});

describe("payload", () => {
  it("reads one object or an array of objects with the same keys, as the client sent it", () => {
    expect(parsePayload('{"id": 1, "name": "a"}', null, undefined)).toEqual({
      json: '{"id": 1, "name": "a"}',
      columns: ["id", "name"],
      isObject: true,
    });
    expect(parsePayload('[{"a":1,"b":2},{"b":3,"a":4}]', "application/json", undefined).columns).toEqual(["a", "b"]);
    expect(parsePayload("[]", null, undefined)).toEqual({ json: "[]", columns: [], isObject: false });
    expect(parsePayload("42", null, undefined)).toEqual({ json: "[]", columns: [], isObject: false });
  });

  it("refuses keys that differ and invalid JSON with PGRST102", () => {
    expect(failure(() => parsePayload('[{"a":1},{"b":2}]', null, undefined))).toEqual({
      status: 400,
      code: "PGRST102",
      details: null,
      hint: null,
      message: "All object keys must match",
    });
    expect(failure(() => parsePayload('[{"a":1}, 2]', null, undefined))).toMatchObject({
      message: "All object keys must match",
    });
    expect(failure(() => parsePayload("", null, undefined))).toMatchObject({ message: "Empty or invalid json" });
    expect(failure(() => parsePayload("x", "text/plain", undefined))).toMatchObject({
      code: "PGRST102",
      message: "Content-Type not acceptable: text/plain",
    });
  });

  it("with columns=, hands the raw body to Postgres unread and writes those columns", () => {
    expect(parsePayload('[{"a":1},{"b":2}]', null, ["a", "b"])).toEqual({
      json: '[{"a":1},{"b":2}]',
      columns: ["a", "b"],
      isObject: false,
    });
    expect(parsePayload('  {"a": ', null, ["a"])).toMatchObject({ json: '  {"a": ', isObject: true });
  });

  it("reads a form body as one object of strings", () => {
    expect(parsePayload("id=1&name=a+b", "application/x-www-form-urlencoded", ["ignored"])).toEqual({
      json: '{"id":"1","name":"a b"}',
      columns: ["id", "name"],
      isObject: true,
    });
  });
});

describe("JWT", () => {
  it("reads the bearer token as PostgREST does", () => {
    expect(bearerToken("Bearer abc")).toBe("abc");
    expect(bearerToken("bearer   abc")).toBe("abc");
    expect(bearerToken("Bearer")).toBe("");
    expect(bearerToken("Basic abc")).toBeUndefined();
    expect(bearerToken(null)).toBeUndefined();
  });

  it("checks exp, nbf, iat and aud with 30 seconds of skew, in PostgREST's order", () => {
    const now = 1_000_000;
    expect(claimsProblem({ exp: now - 30 }, now)).toBeUndefined();
    expect(claimsProblem({ exp: now - 31 }, now)).toBe("JWT expired");
    expect(claimsProblem({ exp: now + 0.5 }, now)).toBe("JWT expired");
    expect(claimsProblem({ nbf: now + 31 }, now)).toBe("JWT not yet valid");
    expect(claimsProblem({ iat: now + 31 }, now)).toBe("JWT issued at future");
    expect(claimsProblem({ exp: "soon", nbf: now + 99 }, now)).toBe("The JWT 'exp' claim must be a number");
    expect(claimsProblem({ aud: ["a", 1] }, now)).toBe("The JWT 'aud' claim must be a string or an array of strings");
    expect(claimsProblem({ aud: "authenticated", exp: null }, now)).toBeUndefined();
  });

  it("writes error descriptions as Haskell shows a string", () => {
    expect(showString('JWT "x"')).toBe('"JWT \\"x\\""');
    expect(showString("é1")).toBe('"\\233\\&1"');
  });
});
