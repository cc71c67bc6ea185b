/**
 * The Security Advisor's rules that apply to this schema (tools/advisor.ts) find nothing on the
 * migrated database, on PGlite, on a throw-away PostgreSQL server and on CHECK_DATABASE_URL's server. Each rule is also shown to
 * bite: one offending object is made in a transaction that is rolled back, and exactly that rule
 * reports exactly that object.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkBackends, type Database, openTestDatabase } from "@advisor-accelerator/local-stack";
import { ADVISOR_RULES, type AdvisorFinding, exposedSchemas, runAdvisor } from "../../tools/advisor.ts";

class Rollback extends Error {}

const schemas = exposedSchemas();

/** Findings as `rule object` lines, so a failure says what was found. */
const lines = (findings: AdvisorFinding[]) => findings.map((f) => `${f.rule} ${f.object}: ${f.detail}`);
const found = (findings: AdvisorFinding[]) => findings.map((f) => `${f.rule} ${f.object}`);

describe("Security Advisor rules", () => {
  it("read the exposed schemas from supabase/config.toml", () => {
    expect(schemas).toEqual(expect.arrayContaining(["public"]));
  });

  it("cover the lints that apply to this schema", () => {
    expect(ADVISOR_RULES.map((rule) => rule.id).sort()).toEqual([
      "0003_auth_rls_initplan",
      "0008_rls_enabled_no_policy",
      "0010_security_definer_view",
      "0011_function_search_path_mutable",
      "0013_rls_disabled_in_public",
      "0025_public_bucket_allows_listing",
    ]);
  });
});

// On PGlite, on a throw-away PostgreSQL server, and on the server CHECK_DATABASE_URL names (CI's
// PostgreSQL service) when set: each starts from an empty database and applies every migration.
const backends = checkBackends().map((backend) => ({
  ...backend,
  label: backend.server ? `the PostgreSQL server at CHECK_DATABASE_URL` : backend.name,
}));

describe.each(backends)("Security Advisor on $label", (backend) => {
  let db: Database;
  let stop: () => Promise<void>;

  beforeAll(async () => {
    ({ db, stop } = await openTestDatabase(backend));
  }, 60_000);

  afterAll(() => stop?.());

  /** The findings once `setup` has run, in a transaction that is then rolled back. */
  async function findingsWith(setup: string): Promise<string[]> {
    let findings: AdvisorFinding[] = [];
    await expect(
      db.transaction(async (tx) => {
        await tx.exec(setup);
        findings = await runAdvisor(tx, schemas);
        throw new Rollback();
      }),
    ).rejects.toBeInstanceOf(Rollback);
    return found(findings);
  }

  it("finds nothing on the migrated schema", async () => {
    expect(lines(await runAdvisor(db, schemas))).toEqual([]);
  });

  it("0013 rls_disabled_in_public: a table in an exposed schema has row level security on", async () => {
    expect(await findingsWith("create table public.advisor_probe (id int primary key)")).toEqual([
      "rls_disabled_in_public public.advisor_probe",
    ]);
    // Every schema of [api] schemas counts; a schema the API does not expose does not.
    expect(
      await findingsWith(`
        create schema if not exists ${schemas.at(-1)};
        create table ${schemas.at(-1)}.advisor_probe (id int);
        create schema advisor_private;
        create table advisor_private.advisor_probe (id int);
      `),
    ).toEqual([`rls_disabled_in_public ${schemas.at(-1)}.advisor_probe`]);
  });

  it("0010 security_definer_view: a view in an exposed schema runs as the caller", async () => {
    expect(await findingsWith("create view public.advisor_probe as select 1 as one")).toEqual([
      "security_definer_view public.advisor_probe",
    ]);
    expect(
      await findingsWith(`
        create view public.advisor_off with (security_invoker = off) as select 1 as one;
        create view public.advisor_on with (security_invoker = on) as select 1 as one;
        create view public.advisor_one with (security_invoker = 1) as select 1 as one;
        create view public.advisor_barrier with (security_barrier) as select 1 as one;
      `),
    ).toEqual(["security_definer_view public.advisor_barrier", "security_definer_view public.advisor_off"]);
  });

  it("0011 function_search_path_mutable: a function in an exposed schema has a fixed search_path", async () => {
    expect(
      await findingsWith(`
        create function public.advisor_probe(a int) returns int language sql as 'select a';
        create function public.advisor_fixed() returns int language sql set search_path = '' as 'select 1';
        create function public.advisor_other() returns int language sql set work_mem = '64kB' as 'select 1';
        create procedure public.advisor_procedure() language sql as 'select 1';
      `),
    ).toEqual([
      "function_search_path_mutable public.advisor_other()",
      "function_search_path_mutable public.advisor_probe(a integer)",
      "function_search_path_mutable public.advisor_procedure()",
    ]);
  });

  it("0003 auth_rls_initplan: a policy calls auth helpers once per query, in (select ...)", async () => {
    expect(
      await findingsWith(`
        create policy advisor_probe on public.profiles for select to authenticated using (id = auth.uid());
      `),
    ).toEqual(["auth_rls_initplan advisor_probe on public.profiles"]);
    // Each helper and current_setting, in USING or WITH CHECK, on public tables and storage.objects.
    expect(
      await findingsWith(`
        create policy advisor_jwt on public.profiles for insert to authenticated
          with check ((auth.jwt() ->> 'sub') = id::text);
        create policy advisor_role on public.profiles for update to authenticated
          using (auth.role() = 'authenticated') with check (id = (select auth.uid()));
        create policy advisor_email on storage.objects for select to authenticated
          using (bucket_id = 'avatars' and name = auth.email());
        create policy advisor_setting on public.stripe_orders for select to authenticated
          using (customer_id = current_setting('request.jwt.claim.customer', true));
        create policy advisor_nested on public.stripe_customers for select to authenticated
          using (user_id in (select auth.uid() from auth.users where auth.role() = 'authenticated'));
      `),
    ).toEqual([
      "auth_rls_initplan advisor_email on storage.objects",
      "auth_rls_initplan advisor_jwt on public.profiles",
      "auth_rls_initplan advisor_nested on public.stripe_customers",
      "auth_rls_initplan advisor_role on public.profiles",
      "auth_rls_initplan advisor_setting on public.stripe_orders",
    ]);
    // Wrapped calls are fine, as the first thing a subquery selects or inside an expression of it.
    expect(
      await findingsWith(`
        create policy advisor_wrapped on public.profiles for select to authenticated using (
          id = (select auth.uid())
          and (select auth.jwt() ->> 'aud') = 'authenticated'
          and (select (auth.role())) = 'authenticated'
          and (select current_setting('request.method', true)) = 'GET'
        );
      `),
    ).toEqual([]);
  });

  it("0008 rls_enabled_no_policy: a table with row level security on has a policy", async () => {
    expect(
      await findingsWith(`
        create table public.advisor_probe (id int primary key);
        alter table public.advisor_probe enable row level security;
        create table public.advisor_denied (id int primary key);
        alter table public.advisor_denied enable row level security;
        create policy "No client reads" on public.advisor_denied for select using (false);
      `),
    ).toEqual(["rls_enabled_no_policy public.advisor_probe"]);
  });

  it("0025 public_bucket_allows_listing: no policy lets clients list a public bucket", async () => {
    const buckets = `
      insert into storage.buckets (id, name, public) values
        ('advisor_public', 'advisor_public', true), ('advisor_private', 'advisor_private', false);
    `;
    expect(
      await findingsWith(`${buckets}
        create policy advisor_probe on storage.objects for select to authenticated
          using (bucket_id = 'advisor_public');
      `),
    ).toEqual(["public_bucket_allows_listing storage.buckets 'advisor_public'"]);
    // A policy that is always true reaches every public bucket, avatars too; one for all commands
    // to anon counts as a SELECT policy, and `in (...)` as a bucket-only condition.
    expect(
      await findingsWith(`${buckets}
        create policy advisor_true on storage.objects for select using (true);
      `),
    ).toEqual([
      "public_bucket_allows_listing storage.buckets 'advisor_public'",
      "public_bucket_allows_listing storage.buckets 'avatars'",
    ]);
    expect(
      await findingsWith(`${buckets}
        create policy advisor_all on storage.objects for all to anon
          using (bucket_id in ('advisor_public', 'advisor_private'));
      `),
    ).toEqual(["public_bucket_allows_listing storage.buckets 'advisor_public'"]);
    // Not flagged: a private bucket, a condition on the object's path or owner, a restrictive
    // policy, a policy for another command or another role.
    expect(
      await findingsWith(`${buckets}
        create role advisor_other_role;
        create policy advisor_private on storage.objects for select to authenticated
          using (bucket_id = 'advisor_private');
        create policy advisor_owner on storage.objects for select to authenticated
          using (bucket_id = 'advisor_public' and owner_id = (select auth.uid())::text);
        create policy advisor_restrictive on storage.objects as restrictive for select to authenticated
          using (bucket_id = 'advisor_public');
        create policy advisor_insert on storage.objects for insert to authenticated
          with check (bucket_id = 'advisor_public');
        create policy advisor_role on storage.objects for select to advisor_other_role
          using (bucket_id = 'advisor_public');
      `),
    ).toEqual([]);
  });

  it("leaves the schema as it found it", async () => {
    expect(lines(await runAdvisor(db, schemas))).toEqual([]);
  });
});
