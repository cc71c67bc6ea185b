/**
 * The pure parts of the stand-in's `/rpc`: which function a call's argument names pick
 * (PostgREST's Plan.hs `findProc`), the errors when none or several fit (Error.hs `NoRpc`,
 * `AmbiguousRpc`), and how a GET's query string splits into arguments and filters
 * (QueryParams.hs `pRequestFilter` with `NoOpExpr`).
 */
import { describe, expect, it } from "vitest";
import { RestError } from "../../src/postgrest/errors.ts";
import { parseQuery, queryPairs } from "../../src/postgrest/parse.ts";
import {
  type BodyKind,
  compareRoutines,
  findRoutine,
  type Routine,
  type RoutineParam,
} from "../../src/postgrest/routines.ts";

const param = (name: string, type: string, required = true): RoutineParam => ({
  name,
  type,
  castType: type,
  required,
  variadic: false,
});
const routine = (name: string, params: RoutineParam[]): Routine => ({
  schema: "api",
  name,
  description: null,
  params,
  returns: { schema: "pg_catalog", name: "int4", setOf: false, composite: false },
  volatility: "v",
  isolationLevel: null,
  settings: [],
});
const cache = (...routines: Routine[]) => {
  const map = new Map<string, Routine[]>();
  for (const r of routines) map.set(`api.${r.name}`, [...(map.get(`api.${r.name}`) ?? []), r]);
  return map;
};
const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    if (error instanceof RestError) return { status: error.status, ...error.body };
    throw error;
  }
  throw new Error("expected a refusal");
};

describe("findRoutine (Plan.hs findProc)", () => {
  const addThem = routine("add_them", [param("a", "integer"), param("b", "integer", false)]);
  const echo = routine("echo", [param("", "json")]);
  const upper = routine("upper_text", [param("", "text")]);
  const routines = cache(addThem, echo, upper);
  const find = (name: string, keys: string[], post = true, body: BodyKind = "json") =>
    findRoutine(routines, "api", name, new Set(keys), post, body);

  it("needs every required parameter and takes any optional one, nothing else", () => {
    expect(find("add_them", ["a"])).toBe(addThem);
    expect(find("add_them", ["a", "b"])).toBe(addThem);
    expect(refusal(() => find("add_them", ["b"]))).toMatchObject({ status: 404, code: "PGRST202" });
    expect(refusal(() => find("add_them", ["a", "c"]))).toMatchObject({
      message: "Could not find the function api.add_them(a, c) in the schema cache",
      hint: "Perhaps you meant to call the function api.add_them(a, b)",
    });
  });

  it("lets a POST body fill a single unnamed json, text, xml or bytea parameter, by its content type", () => {
    expect(find("echo", ["anything"])).toBe(echo);
    expect(find("echo", [], true, "json")).toBe(echo);
    expect(find("upper_text", [], true, "text")).toBe(upper);
    expect(refusal(() => find("echo", ["x"], false, "other"))).toMatchObject({ code: "PGRST202" });
    expect(refusal(() => find("upper_text", [], true, "json"))).toMatchObject({ code: "PGRST202" });
  });

  it("words PGRST202 by the body: a raw body names the unnamed parameter it looked for, with no hint", () => {
    expect(refusal(() => find("add_them", [], true, "text"))).toEqual({
      status: 404,
      code: "PGRST202",
      message: "Could not find the function api.add_them in the schema cache",
      details:
        "Searched for the function api.add_them with a single unnamed text parameter, but no matches were found in the schema cache.",
      hint: null,
    });
    expect(refusal(() => find("ad_them", ["b", "a"], false, "other"))).toEqual({
      status: 404,
      code: "PGRST202",
      message: "Could not find the function api.ad_them(a, b) in the schema cache",
      details:
        "Searched for the function api.ad_them with parameters a, b, but no matches were found in the schema cache.",
      hint: "Perhaps you meant to call the function api.add_them",
    });
  });

  it("refuses overloads the names cannot tell apart with PGRST203, fewest parameters first", () => {
    // Listed out of order: the cache sorts overloads by PostgREST's `Ord Routine`.
    const same = [
      routine("same", [param("arg", "text"), param("num", "integer", false)]),
      routine("same", [param("arg", "xml")]),
      routine("same", [param("arg", "integer")]),
    ].sort(compareRoutines);
    const ordered = new Map([["api.same", same]]);
    expect(refusal(() => findRoutine(ordered, "api", "same", new Set(["arg"]), false, "other"))).toEqual({
      status: 300,
      code: "PGRST203",
      message:
        "Could not choose the best candidate function between: api.same(arg => integer), api.same(arg => xml), api.same(arg => text, num => integer)",
      details: null,
      hint: "Try renaming the parameters or the function itself in the database so function overloading can be resolved",
    });
  });
});

describe("a function's query string (QueryParams.hs parse with isRpcRead)", () => {
  const parse = (search: string, rpcRead = true) => parseQuery(queryPairs(search), rpcRead);

  it("takes a value without an operator as an argument and one with an operator as a filter", () => {
    const query = parse("name=Ada&age=gt.30&v=1&v=2&limit=1&select=*");
    expect(query.args).toEqual([
      ["name", "Ada"],
      ["v", "1"],
      ["v", "2"],
    ]);
    expect(query.filters.map((f) => f.filter.field.name)).toEqual(["age"]);
  });

  it("refuses an operator it cannot finish, as Parsec does once input is consumed", () => {
    expect(refusal(() => parse("x=not.abc"))).toMatchObject({
      status: 400,
      code: "PGRST100",
      message: '"failed to parse filter (not.abc)" (line 1, column 5)',
    });
  });

  it("keeps every pair a filter outside a function's GET", () => {
    expect(refusal(() => parse("name=Ada", false))).toMatchObject({ status: 400, code: "PGRST100" });
  });
});
