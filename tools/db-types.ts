/**
 * `npm run db:types` (`node tools/db-types.ts`): writes src/lib/database.types.ts from
 * supabase/migrations/. `--check` writes nothing and exits 1, naming the lines that differ, when
 * the committed file is not what the migrations give (tests/tooling/database-types.test.ts runs
 * the same comparison in `npm test`). `--migrations <folder>` reads another folder's migrations.
 *
 * The migrations run on a fresh in-memory PGlite after the platform stand-in, exactly as the local
 * stack migrates its database (packages/local-stack/src/db.ts `openPglite`, `migrate`); the
 * catalogue then says what to write. The output has the shape `supabase gen types typescript`
 * writes (postgres-meta's TypeScript template): `Database` → `public` → Tables (Row, Insert,
 * Update, Relationships), Views, Functions (Args, Returns), Enums and CompositeTypes, names and
 * columns in alphabetical order, enum columns as `Database["public"]["Enums"][…]`, jsonb as `Json`.
 *
 * Its scope is narrower than the CLI's, on purpose: the only typed client is the browser's
 * (src/lib/supabase.ts, the anon key, then a user's JWT), so the file holds what the `anon` and
 * `authenticated` roles are granted, and nothing the service role alone may touch (leads, the
 * webhook's functions…). A table or view appears when either role may select, insert, update or
 * delete in it; Row lists the columns they may select, Insert and Update those they may write
 * (`never` when they may write none), and a function appears when they may execute it. Types
 * would otherwise let the browser's code compile calls the database refuses. Relationships are
 * the foreign keys between tables in the file (a view's are left empty: supabase-js needs them
 * only to embed, which the app does not do on its view).
 *
 * What the catalogue cannot say (the shape of a jsonb column, a scalar function that may answer
 * null) is narrowed by hand in src/lib/database.ts, on top of this file.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import prettier from "prettier";
import { migrate, MIGRATIONS_DIR, openPglite, type Sql } from "@advisor-accelerator/local-stack";

const root = join(import.meta.dirname, "..");
export const TYPES_FILE = join(root, "src/lib/database.types.ts");

/** The roles the browser's requests run as (PostgREST switches to them): anon, then a signed-in user. */
const CLIENT_ROLES = ["anon", "authenticated"];

const HEADER = `/**
 * Generated from supabase/migrations/ by tools/db-types.ts (\`npm run db:types\`): do not edit by
 * hand; write a migration and run the command again. tests/tooling/database-types.test.ts fails
 * when this file and the migrations disagree.
 *
 * The database as the browser's client may reach it: what the migrations grant the \`anon\` and
 * \`authenticated\` roles, in the shape \`supabase gen types typescript\` writes. The app imports
 * src/lib/database.ts, which narrows the jsonb columns on top of these types.
 */
`;

interface PgType {
  id: number;
  name: string;
  schema: string;
  /** b base, c composite, d domain, e enum, p pseudo, r range, m multirange. */
  kind: string;
  /** The element type of an array type, else 0. */
  element: number;
  /** The base type of a domain, else 0. */
  base: number;
  /** The relation of a composite (row) type, else 0. */
  relation: number;
}

interface Relation {
  id: number;
  name: string;
  /** r table, p partitioned table, v view, m materialized view, f foreign table, c composite type. */
  kind: string;
  comment: string | null;
  /** Either client role holds SELECT, INSERT, UPDATE or DELETE on the relation or one of its columns. */
  reachable: boolean;
  /** pg_relation_is_updatable's bits: 4 UPDATE, 8 INSERT. */
  updatable: number;
}

interface Column {
  relation: number;
  name: string;
  type: number;
  notNull: boolean;
  /** A default, an identity or a generated expression: an insert may leave it out. */
  defaulted: boolean;
  /** Generated (`generated always as (…) stored`) or `generated always as identity`: never written. */
  generatedAlways: boolean;
  comment: string | null;
  select: boolean;
  insert: boolean;
  update: boolean;
}

interface ForeignKey {
  name: string;
  relation: number;
  referenced: number;
  columns: string[];
  referencedColumns: string[];
  /** The referencing columns are themselves unique: at most one row on each side. */
  oneToOne: boolean;
}

interface PgFunction {
  name: string;
  comment: string | null;
  returnType: number;
  returnsSet: boolean;
  argTypes: number[];
  /** i in, o out, b inout, v variadic, t table column; all `in` when Postgres leaves it null. */
  argModes: string[] | null;
  argNames: string[] | null;
  /** How many of the trailing input arguments have defaults. */
  defaults: number;
}

interface Catalogue {
  types: Map<number, PgType>;
  relations: Relation[];
  columns: Column[];
  foreignKeys: ForeignKey[];
  functions: PgFunction[];
  enums: { name: string; values: string[] }[];
}

/** Reads what the types are made of from the `public` schema, with the client roles' privileges. */
async function introspect(db: Sql): Promise<Catalogue> {
  const roles = [CLIENT_ROLES];
  const anyRole = (check: string) => `exists (select from unnest($1::text[]) as r (role) where ${check})`;
  const types = await db.query<PgType>(`
    select t.oid::int as id, t.typname as name, t.typnamespace::regnamespace::text as schema,
      t.typtype as kind, t.typelem::int as element, t.typbasetype::int as base, t.typrelid::int as relation
    from pg_type t`);
  const relations = await db.query<Relation>(
    `select c.oid::int as id, c.relname as name, c.relkind as kind, obj_description(c.oid, 'pg_class') as comment,
      ${anyRole(`has_table_privilege(r.role, c.oid, 'SELECT, INSERT, UPDATE, DELETE')
        or has_any_column_privilege(r.role, c.oid, 'SELECT, INSERT, UPDATE')`)} as reachable,
      case when c.relkind = 'v' then pg_relation_is_updatable(c.oid, false) else 0 end as updatable
    from pg_class c
    where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'p', 'v', 'm', 'f', 'c')`,
    roles,
  );
  const columns = await db.query<Column>(
    `select a.attrelid::int as relation, a.attname as name, a.atttypid::int as type, a.attnotnull as "notNull",
      (a.atthasdef or a.attidentity <> '' or a.attgenerated <> '') as defaulted,
      (a.attidentity = 'a' or a.attgenerated <> '') as "generatedAlways",
      col_description(a.attrelid, a.attnum) as comment,
      ${anyRole("has_column_privilege(r.role, a.attrelid, a.attnum, 'SELECT')")} as select,
      ${anyRole("has_column_privilege(r.role, a.attrelid, a.attnum, 'INSERT')")}
        and (c.relkind <> 'v' or pg_column_is_updatable(a.attrelid, a.attnum, false)) as insert,
      ${anyRole("has_column_privilege(r.role, a.attrelid, a.attnum, 'UPDATE')")}
        and (c.relkind <> 'v' or pg_column_is_updatable(a.attrelid, a.attnum, false)) as update
    from pg_attribute a
    join pg_class c on c.oid = a.attrelid
    where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'p', 'v', 'm', 'f', 'c')
      and a.attnum > 0 and not a.attisdropped`,
    roles,
  );
  const foreignKeys = await db.query<ForeignKey>(`
    select k.conname as name, k.conrelid::int as relation, k.confrelid::int as referenced,
      array(select a.attname from unnest(k.conkey) with ordinality as n (attnum, i)
        join pg_attribute a on a.attrelid = k.conrelid and a.attnum = n.attnum order by n.i) as columns,
      array(select a.attname from unnest(k.confkey) with ordinality as n (attnum, i)
        join pg_attribute a on a.attrelid = k.confrelid and a.attnum = n.attnum order by n.i) as "referencedColumns",
      exists (
        select from pg_constraint u
        where u.conrelid = k.conrelid and u.contype in ('p', 'u') and u.conkey @> k.conkey and u.conkey <@ k.conkey
      ) as "oneToOne"
    from pg_constraint k
    where k.contype = 'f' and k.connamespace = 'public'::regnamespace`);
  const functions = await db.query<PgFunction>(
    `select p.proname as name, obj_description(p.oid, 'pg_proc') as comment, p.prorettype::int as "returnType",
      p.proretset as "returnsSet", coalesce(p.proallargtypes, p.proargtypes::oid[])::int[] as "argTypes",
      p.proargmodes::text[] as "argModes", p.proargnames as "argNames", p.pronargdefaults::int as defaults
    from pg_proc p
    where p.pronamespace = 'public'::regnamespace and p.prokind = 'f'
      and p.prorettype not in ('trigger'::regtype, 'event_trigger'::regtype)
      and ${anyRole("has_function_privilege(r.role, p.oid, 'EXECUTE')")}`,
    roles,
  );
  const enums = await db.query<{ name: string; values: string[] }>(
    `select t.typname as name, array_agg(e.enumlabel order by e.enumsortorder)::text[] as values
    from pg_type t join pg_enum e on e.enumtypid = t.oid
    where t.typnamespace = 'public'::regnamespace and ${anyRole("has_type_privilege(r.role, t.oid, 'USAGE')")}
    group by t.typname`,
    roles,
  );
  return {
    types: new Map(types.rows.map((type) => [type.id, type])),
    relations: relations.rows,
    columns: columns.rows,
    foreignKeys: foreignKeys.rows,
    functions: functions.rows,
    enums: enums.rows,
  };
}

/** Code-point order, the same on every machine (localeCompare depends on the ICU data). */
const byName = <T extends { name: string }>(a: T, b: T) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
const key = (name: string) => JSON.stringify(name);
/** A JSDoc comment, or nothing. */
const doc = (comment: string | null) => (comment ? `/** ${comment.replaceAll("*/", "* /")} */\n` : "");
/** An empty group, as the CLI writes it. */
const NONE = "[_ in never]: never";

const SCALARS: Record<string, string> = {
  bool: "boolean",
  int2: "number",
  int4: "number",
  int8: "number",
  float4: "number",
  float8: "number",
  numeric: "number",
  json: "Json",
  jsonb: "Json",
  void: "undefined",
  record: "Record<string, unknown>",
};
for (const name of [
  "bytea",
  "bpchar",
  "varchar",
  "char",
  "date",
  "text",
  "citext",
  "name",
  "time",
  "timetz",
  "timestamp",
  "timestamptz",
  "interval",
  "uuid",
  "inet",
  "cidr",
  "vector",
]) {
  SCALARS[name] = "string";
}

/** The TypeScript type of a value of a Postgres type, as PostgREST's JSON carries it. */
function tsType(id: number, catalogue: Catalogue): string {
  const type = catalogue.types.get(id);
  if (!type) return "unknown";
  if (type.element && type.name.startsWith("_")) return `(${tsType(type.element, catalogue)})[]`;
  if (type.kind === "d") return tsType(type.base, catalogue);
  if (type.schema === "public" && type.kind === "e") return `Database["public"]["Enums"][${key(type.name)}]`;
  if (type.schema === "public" && type.kind === "c") {
    const relation = catalogue.relations.find((r) => r.id === type.relation);
    if (relation?.kind === "c") return `Database["public"]["CompositeTypes"][${key(type.name)}]`;
    if (relation && included(relation)) {
      const group = relation.kind === "v" || relation.kind === "m" ? "Views" : "Tables";
      return `Database["public"][${key(group)}][${key(relation.name)}]["Row"]`;
    }
    return "unknown";
  }
  return (type.schema === "pg_catalog" && SCALARS[type.name]) || "unknown";
}

const included = (relation: Relation) => relation.reachable && relation.kind !== "c";
const isView = (relation: Relation) => relation.kind === "v" || relation.kind === "m";

function columnsOf(relation: Relation, catalogue: Catalogue): Column[] {
  return catalogue.columns.filter((column) => column.relation === relation.id).sort(byName);
}

/** A view's columns may be null whatever their source says, as the CLI types them. */
function row(columns: Column[], catalogue: Catalogue, view: boolean): string {
  return columns
    .map(
      (column) =>
        `${doc(column.comment)}${key(column.name)}: ${tsType(column.type, catalogue)}${view || !column.notNull ? " | null" : ""};`,
    )
    .join("\n");
}

/** Insert or Update: the columns the roles may write, or `never` when there are none. */
function write(columns: Column[], catalogue: Catalogue, mode: "insert" | "update", view: boolean): string {
  const writable = columns.filter((column) => column[mode] && !column.generatedAlways);
  if (writable.length === 0) return "never;";
  const fields = writable.map((column) => {
    const optional = mode === "update" || view || !column.notNull || column.defaulted;
    const nullable = view || !column.notNull ? " | null" : "";
    return `${key(column.name)}${optional ? "?" : ""}: ${tsType(column.type, catalogue)}${nullable};`;
  });
  return `{\n${fields.join("\n")}\n}`;
}

function relationships(relation: Relation, catalogue: Catalogue, names: Map<number, Relation>): string {
  if (isView(relation)) return "[]";
  const keys = catalogue.foreignKeys
    .filter((fk) => fk.relation === relation.id && names.has(fk.referenced))
    .sort((a, b) => byName(a, b) || byName(names.get(a.referenced)!, names.get(b.referenced)!));
  if (keys.length === 0) return "[]";
  const entries = keys.map(
    (fk) => `{
      foreignKeyName: ${key(fk.name)};
      columns: ${JSON.stringify(fk.columns)};
      isOneToOne: ${fk.oneToOne};
      referencedRelation: ${key(names.get(fk.referenced)!.name)};
      referencedColumns: ${JSON.stringify(fk.referencedColumns)};
    }`,
  );
  return `[\n${entries.join(",\n")}\n]`;
}

function relationType(relation: Relation, catalogue: Catalogue, names: Map<number, Relation>): string {
  const view = isView(relation);
  const columns = columnsOf(relation, catalogue);
  const readable = columns.filter((column) => column.select);
  const parts = [`Row: {\n${row(readable, catalogue, view)}\n};`];
  // A view takes writes only when Postgres can pass them to its table (pg_relation_is_updatable).
  const insertable = !view || (relation.updatable & 8) !== 0;
  const updatable = !view || (relation.updatable & 4) !== 0;
  if (!view || insertable || updatable) {
    parts.push(`Insert: ${insertable ? write(columns, catalogue, "insert", view) : "never;"}`);
    parts.push(`Update: ${updatable ? write(columns, catalogue, "update", view) : "never;"}`);
  }
  parts.push(`Relationships: ${relationships(relation, catalogue, names)};`);
  return `${doc(relation.comment)}${key(relation.name)}: {\n${parts.join("\n")}\n};`;
}

/** One overload's `{ Args; Returns }`. */
function functionType(fn: PgFunction, catalogue: Catalogue): string {
  const modes = fn.argModes ?? fn.argTypes.map(() => "i");
  const names = fn.argNames ?? [];
  const args = fn.argTypes.map((type, i) => ({ type, mode: modes[i]!, name: names[i] ?? "" }));
  const inputs = args.filter((arg) => arg.mode === "i" || arg.mode === "b" || arg.mode === "v");
  const firstDefault = inputs.length - fn.defaults;
  const argFields = inputs.map((arg, i) => {
    const type = tsType(arg.type, catalogue);
    return `${key(arg.name)}${i >= firstDefault ? "?" : ""}: ${arg.mode === "v" ? `${type}[]` : type};`;
  });
  const Args = argFields.length ? `{ ${argFields.join(" ")} }` : "Record<PropertyKey, never>";

  // `returns table (…)` and out arguments answer objects of those columns; setof a relation, its rows.
  const outputs = args.filter((arg) => arg.mode === "t" || arg.mode === "o" || arg.mode === "b");
  let returns: string;
  const returned = catalogue.types.get(fn.returnType);
  const relation = returned?.relation ? catalogue.relations.find((r) => r.id === returned.relation) : undefined;
  if (outputs.length > 0 && returned?.name === "record") {
    returns = `{ ${outputs.map((arg) => `${key(arg.name)}: ${tsType(arg.type, catalogue)};`).join(" ")} }`;
  } else if (relation && relation.kind !== "c" && !included(relation)) {
    // A row type the client may not read otherwise: its columns, spelled out.
    returns = `{\n${row(columnsOf(relation, catalogue), catalogue, false)}\n}`;
  } else {
    returns = tsType(fn.returnType, catalogue);
  }
  if (fn.returnsSet) returns = `(${returns})[]`;
  return `{ Args: ${Args}; Returns: ${returns} }`;
}

/** The types file's TypeScript before formatting. */
function render(catalogue: Catalogue): string {
  const shown = catalogue.relations.filter(included).sort(byName);
  const names = new Map(shown.map((relation) => [relation.id, relation]));
  const tables = shown.filter((relation) => !isView(relation));
  const views = shown.filter(isView);
  const composites = catalogue.relations.filter((relation) => relation.kind === "c").sort(byName);

  const fnGroups = new Map<string, PgFunction[]>();
  for (const fn of catalogue.functions) {
    // PostgREST calls a function by its arguments' names: one with several unnamed ones is out of reach.
    const modes = fn.argModes ?? fn.argTypes.map(() => "i");
    const inputs = modes.flatMap((mode, i) => ("ibv".includes(mode) ? [fn.argNames?.[i] ?? ""] : []));
    if (inputs.length > 1 && inputs.some((name) => !name)) continue;
    fnGroups.set(fn.name, [...(fnGroups.get(fn.name) ?? []), fn]);
  }
  const functions = [...fnGroups.keys()].sort().map((name) => {
    const overloads = fnGroups.get(name)!.map((fn) => functionType(fn, catalogue));
    const comment = fnGroups.get(name)!.find((fn) => fn.comment)?.comment ?? null;
    return `${doc(comment)}${key(name)}: ${[...new Set(overloads)].sort().join(" | ")};`;
  });

  const group = (entries: string[]) => (entries.length ? entries.join("\n") : NONE);
  const body = `
export type Json = string | number | boolean | null | { [key: string]: Json | undefined } | Json[];

export type Database = {
  public: {
    Tables: {
      ${group(tables.map((relation) => relationType(relation, catalogue, names)))}
    };
    Views: {
      ${group(views.map((relation) => relationType(relation, catalogue, names)))}
    };
    Functions: {
      ${group(functions)}
    };
    Enums: {
      ${group(
        [...catalogue.enums]
          .sort(byName)
          .map((e) => `${key(e.name)}: ${e.values.map((value) => JSON.stringify(value)).join(" | ")};`),
      )}
    };
    CompositeTypes: {
      ${group(
        composites.map(
          (type) =>
            `${key(type.name)}: {\n${columnsOf(type, catalogue)
              .map((attribute) => `${key(attribute.name)}: ${tsType(attribute.type, catalogue)} | null;`)
              .join("\n")}\n};`,
        ),
      )}
    };
  };
};

type Schema = Database["public"];

/** A table's or view's row: \`Tables<"profiles">\`. */
export type Tables<Name extends keyof (Schema["Tables"] & Schema["Views"])> = (Schema["Tables"] &
  Schema["Views"])[Name] extends { Row: infer Row } ? Row : never;

/** What an insert into a table may send: \`TablesInsert<"profiles">\`. */
export type TablesInsert<Name extends keyof Schema["Tables"]> = Schema["Tables"][Name] extends { Insert: infer Insert }
  ? Insert
  : never;

/** What an update of a table may send: \`TablesUpdate<"profiles">\`. */
export type TablesUpdate<Name extends keyof Schema["Tables"]> = Schema["Tables"][Name] extends { Update: infer Update }
  ? Update
  : never;

/** An enum's values: \`Enums<"order_status">\`. */
export type Enums<Name extends keyof Schema["Enums"]> = Schema["Enums"][Name];
`;
  return HEADER + body;
}

/** Formats as the repository's Prettier settings do, so that `prettier --check` passes on the file. */
async function format(source: string): Promise<string> {
  const options = (await prettier.resolveConfig(TYPES_FILE)) ?? {};
  return prettier.format(source, { ...options, filepath: TYPES_FILE });
}

/**
 * The types file that the migrations in `migrations` give, on a fresh in-memory database. `sql`
 * runs after them, as a further migration would (the test's way of changing the schema).
 */
export async function databaseTypes(options: { migrations?: string; sql?: string } = {}): Promise<string> {
  const db = await openPglite();
  try {
    await migrate(db, options.migrations ?? MIGRATIONS_DIR);
    if (options.sql) await db.exec(options.sql);
    return await format(render(await introspect(db)));
  } finally {
    await db.close();
  }
}

/**
 * What differs between the committed file and the generated one, line by line: each change under
 * an `@@` line saying where it begins in each, `-` the committed lines, `+` the generated ones.
 * Null when they are the same.
 */
export function difference(committed: string, generated: string): string | null {
  if (committed === generated) return null;
  const a = committed.split("\n");
  const b = generated.split("\n");
  // Longest common subsequence of lines, from the end: common[i][j] for a[i..] and b[j..].
  const common = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      common[i]![j] = a[i] === b[j] ? common[i + 1]![j + 1]! + 1 : Math.max(common[i + 1]![j]!, common[i]![j + 1]!);
    }
  }
  const out: string[] = [];
  let i = 0;
  let j = 0;
  let inChange = false;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      i++;
      j++;
      inChange = false;
      continue;
    }
    if (!inChange) out.push(`@@ line ${i + 1} committed, ${j + 1} generated`);
    inChange = true;
    if (j < b.length && (i === a.length || common[i]![j + 1]! >= common[i + 1]![j]!)) out.push(`+ ${b[j++]}`);
    else out.push(`- ${a[i++]}`);
  }
  return out.join("\n");
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { values } = parseArgs({
    options: { check: { type: "boolean", default: false }, migrations: { type: "string" } },
  });
  const generated = await databaseTypes({ migrations: values.migrations });
  const committed = await readFile(TYPES_FILE, "utf8").catch(() => "");
  const file = relative(process.cwd(), TYPES_FILE);
  const diff = difference(committed, generated);
  if (values.check) {
    if (diff) {
      console.error(`${file} differs from what the migrations give (npm run db:types writes it):\n${diff}`);
      process.exit(1);
    }
    console.log(`${file} matches the migrations.`);
  } else if (diff) {
    await writeFile(TYPES_FILE, generated);
    console.log(`Wrote ${file}.`);
  } else {
    console.log(`${file} is up to date.`);
  }
}
