/**
 * The checks of Supabase's Security Advisor that apply to this project's schema, run against a
 * migrated database (tests/integration/advisor.test.ts runs them on PGlite and on PostgreSQL): the
 * lints 0003 auth_rls_initplan, 0008 rls_enabled_no_policy, 0010 security_definer_view, 0011
 * function_search_path_mutable, 0013 rls_disabled_in_public and 0025 public_bucket_allows_listing.
 * Each rule is this project's own SQL, written from the lint's documentation (what it flags and
 * why), not the Advisor's queries; where a lint's intent needs a heuristic, the rule's comment says
 * which one. The schemas the API exposes are `[api] schemas` in supabase/config.toml;
 * storage.objects and storage.buckets are the platform's tables as
 * packages/local-stack/src/sql/platform.sql stands them in. The SQL runs on PostgreSQL 15 and later
 * (PGlite is 18). Dev and test only.
 */
import { CONFIG_FILE, loadConfig, type Sql } from "@advisor-accelerator/local-stack";

export type AdvisorLevel = "ERROR" | "WARN" | "INFO";

export interface AdvisorRule {
  /** The lint's id and name in the Security Advisor, e.g. `0013_rls_disabled_in_public`. */
  id: string;
  name: string;
  level: AdvisorLevel;
  /** What the rule flags, in one line. */
  description: string;
  /** Returns one row `{ object, detail }` per finding; `$1` (text[]) is the exposed schemas. */
  sql: string;
}

export interface AdvisorFinding {
  rule: string;
  level: AdvisorLevel;
  /** The offending object, schema-qualified. */
  object: string;
  detail: string;
}

/** The schemas the Data API exposes: `[api] schemas` of supabase/config.toml (or `file`). */
export function exposedSchemas(file = CONFIG_FILE): string[] {
  return loadConfig("http://localhost", {}, file).api.schemas;
}

/** `text` as an SQL string literal. */
const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

/** Objects an extension installed are the extension's, not the project's: not flagged. */
const NOT_EXTENSION_MEMBER = (catalog: string, oid: string) => `not exists (
    select 1 from pg_catalog.pg_depend d
    where d.classid = '${catalog}'::regclass and d.objid = ${oid} and d.deptype = 'e'
  )`;

/** A call of an auth helper or current_setting, as pg_get_expr prints it (group 1: its name). */
const CALL = String.raw`(auth\.(?:uid|jwt|role|email)|(?:pg_catalog\.)?current_setting)\s*\(`;

/** A bucket-only condition as pg_get_expr prints it: `bucket_id = 'x'::text`, either way round, or `= ANY (ARRAY[...])`. */
const BUCKET_ONLY = [
  String.raw`bucket_id\s*=\s*'(?:[^']|'')*'::text`,
  String.raw`'(?:[^']|'')*'::text\s*=\s*bucket_id`,
  String.raw`bucket_id\s*=\s*ANY\s*\(\s*ARRAY\[[^\]]*\]\s*\)`,
].join("|");

export const ADVISOR_RULES: AdvisorRule[] = [
  {
    // Any table (plain or partitioned) in an exposed schema with RLS off, whatever it is granted
    // today: a later GRANT would expose every row of it.
    id: "0013_rls_disabled_in_public",
    name: "rls_disabled_in_public",
    level: "ERROR",
    description: "A table in an API-exposed schema has row level security off.",
    sql: `
      select format('%I.%I', n.nspname, c.relname) as object,
        'row level security is off: whoever is granted the table reads and writes all of its rows' as detail
      from pg_catalog.pg_class c
      join pg_catalog.pg_namespace n on n.oid = c.relnamespace
      where n.nspname = any($1::text[])
        and c.relkind in ('r', 'p')
        and not c.relrowsecurity`,
  },
  {
    // A view in an exposed schema whose reloptions do not set security_invoker to a true value
    // (the value is stored as written, e.g. on/true/1, and read with Postgres's own boolean cast).
    id: "0010_security_definer_view",
    name: "security_definer_view",
    level: "ERROR",
    description: "A view in an API-exposed schema runs with its owner's rights, past the caller's RLS.",
    sql: `
      select format('%I.%I', n.nspname, c.relname) as object,
        format('runs as its owner %I, not the caller: set security_invoker = on', pg_catalog.pg_get_userbyid(c.relowner)) as detail
      from pg_catalog.pg_class c
      join pg_catalog.pg_namespace n on n.oid = c.relnamespace
      where n.nspname = any($1::text[])
        and c.relkind = 'v'
        and ${NOT_EXTENSION_MEMBER("pg_catalog.pg_class", "c.oid")}
        and not coalesce((
          select bool_or(pg_catalog.split_part(option, '=', 2)::boolean)
          from pg_catalog.unnest(c.reloptions) as option
          where pg_catalog.split_part(option, '=', 1) = 'security_invoker'
        ), false)`,
  },
  {
    // A function or procedure in an exposed schema with no `search_path=` among its SET options.
    id: "0011_function_search_path_mutable",
    name: "function_search_path_mutable",
    level: "WARN",
    description: "A function in an API-exposed schema resolves names with the caller's search_path.",
    sql: `
      select format('%I.%I(%s)', n.nspname, p.proname, pg_catalog.pg_get_function_identity_arguments(p.oid)) as object,
        case when p.prosecdef then 'security definer function' else 'function' end
          || ' without a fixed search_path: set search_path = ''''' as detail
      from pg_catalog.pg_proc p
      join pg_catalog.pg_namespace n on n.oid = p.pronamespace
      where n.nspname = any($1::text[])
        and p.prokind in ('f', 'p')
        and ${NOT_EXTENSION_MEMBER("pg_catalog.pg_proc", "p.oid")}
        and not exists (
          select 1 from pg_catalog.unnest(p.proconfig) as setting where setting like 'search_path=%'
        )`,
  },
  {
    // A policy on a table in an exposed schema or on storage.objects whose USING or WITH CHECK
    // calls auth.uid/jwt/role/email() or current_setting() other than as the first thing a
    // subquery selects, `( SELECT auth.uid() AS uid)` or `( SELECT (auth.jwt() ->> ...))`: those
    // calls are found in pg_get_expr's text, the wrapped ones cut out, and any call left is bare.
    id: "0003_auth_rls_initplan",
    name: "auth_rls_initplan",
    level: "WARN",
    description: "A policy calls auth.<fn>() or current_setting() once per row instead of once per query.",
    sql: `
      with clauses as (
        select format('%I on %I.%I', pol.polname, n.nspname, c.relname) as object, e.clause, e.expr
        from pg_catalog.pg_policy pol
        join pg_catalog.pg_class c on c.oid = pol.polrelid
        join pg_catalog.pg_namespace n on n.oid = c.relnamespace
        cross join lateral (values
          ('USING', pg_catalog.pg_get_expr(pol.polqual, pol.polrelid)),
          ('WITH CHECK', pg_catalog.pg_get_expr(pol.polwithcheck, pol.polrelid))
        ) as e(clause, expr)
        where (n.nspname = any($1::text[]) or (n.nspname = 'storage' and c.relname = 'objects'))
          and e.expr is not null
      ),
      bare as (
        select object, clause || ' calls ' || m[1] || '()' as call
        from clauses,
          lateral pg_catalog.regexp_matches(
            pg_catalog.regexp_replace(expr, ${literal(String.raw`\mSELECT\s+[(\s]*` + CALL)}, 'SELECT ', 'gi'),
            ${literal(`(?:^|[^[:alnum:]_.$"])${CALL}`)},
            'gi'
          ) as m
      )
      select object,
        string_agg(distinct call, ', ' order by call)
          || ' for every row: wrapped as (select auth.uid()) a call runs once per query' as detail
      from bare
      group by object`,
  },
  {
    // A table in an exposed schema with RLS on and not one policy (a deny-all policy says the
    // intent and clears it).
    id: "0008_rls_enabled_no_policy",
    name: "rls_enabled_no_policy",
    level: "INFO",
    description: "A table in an API-exposed schema has row level security on but no policy.",
    sql: `
      select format('%I.%I', n.nspname, c.relname) as object,
        'row level security is on without a policy: the API roles reach no row; add one, even using (false)' as detail
      from pg_catalog.pg_class c
      join pg_catalog.pg_namespace n on n.oid = c.relnamespace
      where n.nspname = any($1::text[])
        and c.relkind in ('r', 'p')
        and c.relrowsecurity
        and not exists (select 1 from pg_catalog.pg_policy pol where pol.polrelid = c.oid)`,
  },
  {
    // A public bucket and a permissive SELECT or ALL policy on storage.objects for public, anon or
    // authenticated whose USING reaches the bucket (names its id, or names no bucket) and, once
    // its bucket comparisons (bucket_id = 'x', 'x' = bucket_id, bucket_id = any(array[...])),
    // `true` and `1 = 1` are cut out, has nothing left but parentheses, AND and OR: a condition
    // on anything else (name, owner, auth.uid()) counts as narrowing it.
    id: "0025_public_bucket_allows_listing",
    name: "public_bucket_allows_listing",
    level: "WARN",
    description: "A public bucket has a SELECT policy broad enough to list all of its files.",
    sql: `
      with broad as (
        select pol.polname, pg_catalog.pg_get_expr(pol.polqual, pol.polrelid) as qual
        from pg_catalog.pg_policy pol
        where pol.polrelid = pg_catalog.to_regclass('storage.objects')
          and pol.polpermissive
          and pol.polcmd in ('r', '*')
          and pol.polqual is not null
          and pol.polroles && array[0::oid, pg_catalog.to_regrole('anon')::oid, pg_catalog.to_regrole('authenticated')::oid]
          and pg_catalog.regexp_replace(
            pg_catalog.regexp_replace(
              pg_catalog.pg_get_expr(pol.polqual, pol.polrelid),
              ${literal(String.raw`${BUCKET_ONLY}|\mtrue\M|\m1\s*=\s*1\M`)}, ' ', 'gi'),
            '[()[:space:]]|\\mAND\\M|\\mOR\\M', '', 'gi') = ''
      )
      select format('storage.buckets %L', b.id) as object,
        format('public bucket listable by policy %I on storage.objects: it restricts by bucket only', p.polname) as detail
      from storage.buckets b
      join broad p
        on pg_catalog.strpos(p.qual, pg_catalog.quote_literal(b.id) || '::text') > 0
        or p.qual !~* '\\mbucket_id\\M'
      where b.public`,
  },
];

/** Runs every rule (or `rules`) on `db`; returns the findings, by rule and object. */
export async function runAdvisor(
  db: Sql,
  schemas: string[] = exposedSchemas(),
  rules: AdvisorRule[] = ADVISOR_RULES,
): Promise<AdvisorFinding[]> {
  const findings: AdvisorFinding[] = [];
  for (const rule of rules) {
    const params = rule.sql.includes("$1") ? [schemas] : [];
    const { rows } = await db.query<{ object: string; detail: string }>(rule.sql, params);
    for (const row of rows)
      findings.push({ rule: rule.name, level: rule.level, object: row.object, detail: row.detail });
  }
  return findings.sort((a, b) => a.rule.localeCompare(b.rule) || a.object.localeCompare(b.object));
}
