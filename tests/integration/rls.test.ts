/**
 * Row level security, probed for real: the project's migrations on embedded Postgres (PGlite) and
 * on a throw-away PostgreSQL server, each
 * probe run as the role and claims PostgREST would set. Every probe either must return nothing
 * or must be refused; a probe that returns someone else's data or writes anything is a leak.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  asRole,
  BACKENDS,
  type Claims,
  type Database,
  migrate,
  openTestDatabase,
  type Sql,
} from "@advisor-accelerator/local-stack";

const A = "00000000-0000-4000-8000-00000000000a";
const B = "00000000-0000-4000-8000-00000000000b";
const userA: Claims = { role: "authenticated", sub: A };
const userB: Claims = { role: "authenticated", sub: B };
const anon: Claims = { role: "anon" };
const service: Claims = { role: "service_role" };

describe.each(BACKENDS)("on $name", (backend) => {
  let db: Database;
  let stop: () => Promise<void>;

  beforeAll(async () => {
    ({ db, stop } = await openTestDatabase(backend));
    await db.exec(`
      insert into auth.users (id, email) values ('${A}', 'a@example.com'), ('${B}', 'b@example.com');
      insert into public.profiles (id, full_name) values ('${A}', 'Ada A'), ('${B}', 'Bea B');
      insert into public.stripe_customers (user_id, customer_id) values ('${A}', 'cus_A1'), ('${B}', 'cus_B1');
      insert into public.stripe_orders (checkout_session_id, customer_id, product_key, amount_subtotal, amount_total, currency, payment_status, status)
        values ('cs_test_a1', 'cus_A1', 'GROWTH_MINDSET', 30000, 30000, 'usd', 'paid', 'completed'),
               ('cs_test_b1', 'cus_B1', 'AI_ACCELERATOR', 1500000, 1500000, 'usd', 'paid', 'completed');
    `);
  }, 60_000);

  afterAll(() => stop?.());

  /** Runs a probe; answers the rows it saw, or "refused" when Postgres raised an error. */
  async function probe(claims: Claims, sql: string): Promise<unknown[] | "refused"> {
    try {
      return await asRole(db, claims, async (tx: Sql) => (await tx.query(sql)).rows);
    } catch {
      return "refused";
    }
  }

  const counts = { tried: 0, leaked: 0 };
  const leaks: string[] = [];

  /** A probe that must see no rows (or be refused) and change nothing. */
  async function mustNotLeak(who: string, claims: Claims, sql: string) {
    counts.tried++;
    const result = await probe(claims, sql);
    if (result !== "refused" && result.length > 0) {
      counts.leaked++;
      leaks.push(`${who}: ${sql} -> ${JSON.stringify(result)}`);
    }
  }

  describe("migrations", () => {
    it("apply once: a second run applies nothing", async () => {
      expect(await migrate(db)).toEqual([]);
    });

    it("turn row level security on for every table in public", async () => {
      const { rows } = await db.query<{ relname: string }>(
        "select relname from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = 'public' and c.relkind = 'r' and not c.relrowsecurity",
      );
      expect(rows).toEqual([]);
    });
  });

  describe("what users may do", () => {
    it("a user reads and updates their own profile", async () => {
      expect(await probe(userA, "select full_name from public.profiles")).toEqual([{ full_name: "Ada A" }]);
      expect(await probe(userA, `update public.profiles set city = 'Austin' where id = '${A}' returning city`)).toEqual(
        [{ city: "Austin" }],
      );
    });

    it("a user sees their own orders, with the program bought, through stripe_user_orders", async () => {
      expect(
        await probe(userA, "select product_key, amount_total, order_status from public.stripe_user_orders"),
      ).toEqual([{ product_key: "GROWTH_MINDSET", amount_total: 30000, order_status: "completed" }]);
    });

    it("the service role writes orders", async () => {
      const rows = await probe(
        service,
        "insert into public.stripe_orders (checkout_session_id, customer_id, product_key, amount_subtotal, amount_total, currency, payment_status) values ('cs_test_svc', 'cus_A1', 'OS_ACCELERATOR', 299900, 299900, 'usd', 'unpaid') returning status",
      );
      expect(rows).toEqual([{ status: "pending" }]);
    });

    it("a user reads when their order was refunded: the database stamps each kept change of status, and nothing else moves it", async () => {
      const id = "cs_test_a_refund";
      await db.exec(`
        insert into public.stripe_orders (checkout_session_id, customer_id, product_key, amount_subtotal, amount_total, currency, payment_status, status, created_at, status_changed_at)
        values ('${id}', 'cus_A1', 'OS_ACCELERATOR', 299900, 299900, 'usd', 'paid', 'completed', '2026-11-01T00:00:00Z', '2026-11-01T00:00:00Z');
      `);
      const seen = (claims: Claims) =>
        probe(
          claims,
          `select order_status::text as status, status_changed_at = '2026-11-01T00:00:00Z'::timestamptz as as_bought,
             status_changed_at > now() - interval '1 minute' as just_now
           from public.stripe_user_orders where checkout_session_id = '${id}'`,
        );
      const write = (sql: string) =>
        probe(service, `update public.stripe_orders set ${sql} where checkout_session_id = '${id}' returning id`);
      try {
        expect(await seen(userA)).toEqual([{ status: "completed", as_bought: true, just_now: false }]);
        // Another column, the column itself, a step back the order refuses: the day stays.
        await write("receipt_url = 'https://pay.stripe.com/receipts/payment/x'");
        await write("status_changed_at = '2020-01-01T00:00:00Z'");
        await write("status = 'pending', payment_status = 'unpaid'");
        expect(await seen(userA)).toEqual([{ status: "completed", as_bought: true, just_now: false }]);
        // The user may not write it either.
        expect(
          await probe(
            userA,
            `update public.stripe_orders set status_changed_at = now() where checkout_session_id = '${id}' returning id`,
          ),
        ).toEqual("refused");
        // The refund (charge.refunded, recorded by the service role): now.
        await write("status = 'refunded'");
        expect(await seen(userA)).toEqual([{ status: "refunded", as_bought: false, just_now: true }]);
        expect(await seen(userB)).toEqual([]);
        expect(await seen(anon)).toEqual("refused");
      } finally {
        await db.exec(`delete from public.stripe_orders where checkout_session_id = '${id}'`);
      }
    });

    it("a user uploads their own avatar, declared as an image, and nothing else", async () => {
      // Storage's permission check writes the row as the uploader with the declared type in metadata.
      const upload = (name: string, mimetype: string) =>
        probe(
          userA,
          `insert into storage.objects (bucket_id, name, owner, metadata) values ('avatars', '${name}', '${A}', ` +
            `'{"mimetype": "${mimetype}", "contentLength": 1200}') returning name`,
        );
      expect(await upload(`${A}/${A}.png`, "image/png")).toEqual([{ name: `${A}/${A}.png` }]);
      for (const ext of ["jpg", "jpeg", "webp"]) {
        expect(await upload(`${A}/${A}.${ext}`, "image/jpeg")).toEqual([{ name: `${A}/${A}.${ext}` }]);
      }
      // The bucket compares only type and subtype: the policy names the exact types.
      for (const mimetype of ["image/png/x", "text/html", "image/svg+xml", "image/png; charset=utf-8"]) {
        expect(await upload(`${A}/${A}.png`, mimetype), mimetype).toBe("refused");
      }
      const names = [
        `${B}/${B}.png`,
        `${A}/other.png`,
        `${A}/${A}.gif`,
        `${A}/${A}.PNG`,
        `${A}/${A}.png/x.png`,
        `${A}.png`,
      ];
      for (const name of names) expect(await upload(name, "image/png"), name).toBe("refused");
      expect(
        await probe(
          userA,
          `insert into storage.objects (bucket_id, name, owner) values ('avatars', '${A}/${A}.png', '${A}') returning name`,
        ),
      ).toBe("refused");
    });

    it("a user writes only the profile fields the settings form edits; updated_at is the database's", async () => {
      const stamp = async () =>
        ((await probe(userA, `select updated_at from public.profiles where id = '${A}'`)) as { updated_at: Date }[])[0]!
          .updated_at;
      const before = await stamp();
      expect(
        await probe(userA, `update public.profiles set updated_at = '2000-01-01' where id = '${A}' returning id`),
      ).toBe("refused");
      expect(
        await probe(userA, `insert into public.profiles (id, updated_at) values ('${A}', '2000-01-01') returning id`),
      ).toBe("refused");
      expect(await probe(userA, `update public.profiles set zip = '78701' where id = '${A}' returning zip`)).toEqual([
        { zip: "78701" },
      ]);
      expect(new Date(await stamp()).getTime()).toBeGreaterThan(new Date(before).getTime());
    });

    it("a profile's avatar_url is empty or that user's own avatar, on a Supabase project or the local stack", async () => {
      const set = (url: string) =>
        probe(userA, `update public.profiles set avatar_url = '${url}' where id = '${A}' returning id`);
      const own = [
        `https://abcdefghijklmnop.supabase.co/storage/v1/object/public/avatars/${A}/${A}.png`,
        `http://localhost:4321/storage/v1/object/public/avatars/${A}/${A}.webp?v=1763900000000`,
        `http://127.0.0.1:54321/storage/v1/object/public/avatars/${A}/${A}.jpg`,
      ];
      for (const url of own) expect(await set(url), url).toEqual([{ id: A }]);
      const foreign = [
        `https://abcdefghijklmnop.supabase.co/storage/v1/object/public/avatars/${B}/${B}.png`,
        `https://evil.example/storage/v1/object/public/avatars/${A}/${A}.png`,
        `https://abcdefghijklmnop.supabase.co.evil.example/storage/v1/object/public/avatars/${A}/${A}.png`,
        `javascript:alert(1)//storage/v1/object/public/avatars/${A}/${A}.png`,
        `https://abcdefghijklmnop.supabase.co/storage/v1/object/public/avatars/${A}/${A}.png?"><script>`,
      ];
      for (const url of foreign) expect(await set(url), url).toBe("refused");
      expect(await probe(userA, `update public.profiles set avatar_url = null where id = '${A}' returning id`)).toEqual(
        [{ id: A }],
      );
    });

    it("grants each API role only what the product uses, and a new table in public is not exposed", async () => {
      const tables = await db.query<{ grantee: string; object: string; privilege: string }>(`
        select grantee, table_name as object, privilege_type as privilege from information_schema.role_table_grants
        where table_schema = 'public' and grantee in ('anon', 'authenticated', 'service_role')
          and privilege_type in ('SELECT', 'INSERT', 'UPDATE', 'DELETE')
        order by 1, 3, 2`);
      // The desk's reads (staff, lead_events, enrolments, student_activity, the desk_* views, and the
      // orders' side tables) are granted to authenticated and kept to staff by their policies:
      // tests/integration/staff.test.ts drives them as each caller (the offers:
      // tests/integration/coached-offers.test.ts).
      expect(tables.rows.map((r) => `${r.grantee} ${r.privilege} ${r.object}`)).toEqual([
        "authenticated SELECT course_lessons",
        "authenticated SELECT course_programs",
        "authenticated SELECT desk_offers",
        "authenticated SELECT desk_order_totals",
        "authenticated SELECT desk_orders",
        "authenticated SELECT desk_students",
        "authenticated SELECT enrolments",
        "authenticated SELECT lead_events",
        "authenticated SELECT lesson_progress",
        "authenticated SELECT profiles",
        "authenticated SELECT staff",
        "authenticated SELECT stripe_customers",
        "authenticated SELECT stripe_disputes",
        "authenticated SELECT stripe_orders",
        "authenticated SELECT stripe_payment_reviews",
        "authenticated SELECT stripe_user_orders",
        "authenticated SELECT student_activity",
        "service_role DELETE buyer_invites",
        "service_role DELETE coached_offers",
        "service_role DELETE staff",
        "service_role INSERT buyer_invites",
        "service_role INSERT coached_offers",
        "service_role INSERT course_lessons",
        "service_role INSERT course_programs",
        "service_role INSERT download_log",
        "service_role INSERT leads",
        "service_role INSERT lesson_progress",
        "service_role INSERT memberships",
        "service_role INSERT order_emails",
        "service_role INSERT payment_plans",
        "service_role INSERT staff",
        "service_role INSERT stripe_customers",
        "service_role INSERT stripe_events",
        "service_role INSERT stripe_orders",
        "service_role INSERT stripe_payment_reviews",
        "service_role SELECT buyer_invites",
        "service_role SELECT coached_offers",
        "service_role SELECT course_lessons",
        "service_role SELECT course_programs",
        "service_role SELECT desk_offers",
        "service_role SELECT download_log",
        "service_role SELECT enrolments",
        "service_role SELECT lead_events",
        "service_role SELECT leads",
        "service_role SELECT lesson_progress",
        "service_role SELECT memberships",
        "service_role SELECT order_emails",
        "service_role SELECT payment_plans",
        "service_role SELECT staff",
        "service_role SELECT stripe_customers",
        "service_role SELECT stripe_disputes",
        "service_role SELECT stripe_events",
        "service_role SELECT stripe_orders",
        "service_role SELECT stripe_payment_reviews",
        "service_role SELECT stripe_user_orders",
        "service_role SELECT student_activity",
        "service_role UPDATE buyer_invites",
        "service_role UPDATE coached_offers",
        "service_role UPDATE course_lessons",
        "service_role UPDATE course_programs",
        "service_role UPDATE leads",
        "service_role UPDATE lesson_progress",
        "service_role UPDATE memberships",
        "service_role UPDATE order_emails",
        "service_role UPDATE payment_plans",
        "service_role UPDATE staff",
        "service_role UPDATE stripe_customers",
        "service_role UPDATE stripe_disputes",
        "service_role UPDATE stripe_events",
        "service_role UPDATE stripe_orders",
        "service_role UPDATE stripe_payment_reviews",
      ]);
      // A lead's answers and attribution for the desk's admins, not its e-mails' bookkeeping; and no
      // UPDATE: its status and note change only through desk_update_lead.
      const leads = await db.query<{ privilege: string; column: string }>(`
        select privilege_type as privilege, column_name as column from information_schema.column_privileges
        where table_schema = 'public' and table_name = 'leads' and grantee = 'authenticated'
        order by 1, 2`);
      expect(leads.rows.map((r) => `${r.privilege} ${r.column}`)).toEqual([
        "SELECT aum",
        "SELECT created_at",
        "SELECT email",
        "SELECT firm",
        "SELECT help",
        "SELECT id",
        "SELECT landing_page",
        "SELECT name",
        "SELECT note",
        "SELECT page",
        "SELECT phone",
        "SELECT referrer",
        "SELECT status",
        "SELECT status_changed_at",
        "SELECT updated_at",
        "SELECT utm_campaign",
        "SELECT utm_content",
        "SELECT utm_medium",
        "SELECT utm_source",
        "SELECT utm_term",
      ]);
      // An offer's columns for the desk's admins, never its link's token hash; no writes: the
      // functions send offers, and desk_withdraw_offer withdraws one.
      const offers = await db.query<{ privilege: string; column: string }>(`
        select privilege_type as privilege, column_name as column from information_schema.column_privileges
        where table_schema = 'public' and table_name = 'coached_offers' and grantee = 'authenticated'
        order by 1, 2`);
      expect(offers.rows.map((r) => `${r.privilege} ${r.column}`)).toEqual(
        [
          "checkout_session_id",
          "chosen_option",
          "cohort_start",
          "created_at",
          "created_by",
          "email",
          "expires_at",
          "id",
          "lead_id",
          "list_price_cents",
          "name",
          "offer_key",
          "opened_at",
          "paid_at",
          "payment",
          "price_cents",
          "price_reason",
          "product_key",
          "withdrawn_at",
          "withdrawn_by",
        ].map((column) => `SELECT ${column}`),
      );
      // The lesson player saves progress by upsert: the lesson, whether it is done, the video's position.
      const progress = await db.query<{ privilege: string; column: string }>(`
        select privilege_type as privilege, column_name as column from information_schema.column_privileges
        where table_schema = 'public' and table_name = 'lesson_progress' and grantee = 'authenticated'
          and privilege_type in ('INSERT', 'UPDATE')
        order by 1, 2`);
      expect(progress.rows.map((r) => `${r.privilege} ${r.column}`)).toEqual([
        "INSERT completed",
        "INSERT lesson_id",
        "INSERT user_id",
        "INSERT video_position",
        "UPDATE completed",
        "UPDATE lesson_id",
        "UPDATE user_id",
        "UPDATE video_position",
      ]);
      const columns = await db.query<{ privilege: string; column: string }>(`
        select privilege_type as privilege, column_name as column from information_schema.column_privileges
        where table_schema = 'public' and table_name = 'profiles' and grantee = 'authenticated'
          and privilege_type in ('INSERT', 'UPDATE')
        order by 1, 2`);
      const writable = ["address", "address_2", "avatar_url", "city", "country", "full_name", "id", "state", "zip"];
      expect(columns.rows.filter((r) => r.privilege === "INSERT").map((r) => r.column)).toEqual(writable);
      expect(columns.rows.filter((r) => r.privilege === "UPDATE").map((r) => r.column)).toEqual(writable);

      // As on a project created today: a table a migration adds is reachable only once granted.
      const seen = await db.transaction(async (tx) => {
        await tx.exec("create table public.added_later (id int primary key)");
        const { rows } = await tx.query(`
          select has_table_privilege('anon', 'public.added_later', 'select') as anon,
            has_table_privilege('authenticated', 'public.added_later', 'select') as signed_in,
            has_table_privilege('service_role', 'public.added_later', 'insert') as service`);
        await tx.exec("drop table public.added_later");
        return rows;
      });
      expect(seen).toEqual([{ anon: false, signed_in: false, service: false }]);
    });
  });

  describe("deleting an account", () => {
    it("removes the user and their profile and keeps their Stripe customer and orders for the books", async () => {
      const C = "00000000-0000-4000-8000-00000000000c";
      await db.exec(`
        insert into auth.users (id, email) values ('${C}', 'c@example.com');
        insert into public.profiles (id, full_name) values ('${C}', 'Cy C');
        insert into public.stripe_customers (user_id, customer_id) values ('${C}', 'cus_C1');
        insert into public.stripe_orders (checkout_session_id, customer_id, product_key, amount_subtotal, amount_total, currency, payment_status, status)
          values ('cs_test_c1', 'cus_C1', 'OS_ACCELERATOR', 299900, 299900, 'usd', 'paid', 'completed');
      `);
      await db.query("delete from auth.users where id = $1", [C]);
      expect((await db.query("select 1 from public.profiles where id = $1", [C])).rows).toEqual([]);
      expect((await db.query("select user_id from public.stripe_customers where customer_id = 'cus_C1'")).rows).toEqual(
        [{ user_id: null }],
      );
      expect(
        (
          await db.query(
            "select amount_total, status from public.stripe_orders where checkout_session_id = 'cs_test_c1'",
          )
        ).rows,
      ).toEqual([{ amount_total: 299900, status: "completed" }]);
    });
  });

  describe("probes of what no one may do", () => {
    it("leak nothing", async () => {
      const others = [
        // B's profile, orders, customer and avatar folder, as A.
        ["A", userA, `select * from public.profiles where id = '${B}'`],
        ["A", userA, `update public.profiles set full_name = 'x' where id = '${B}' returning id`],
        ["A", userA, `insert into public.profiles (id) values ('${B}') returning id`],
        ["A", userA, `delete from public.profiles where id = '${A}' returning id`],
        ["A", userA, "select * from public.stripe_orders where customer_id = 'cus_B1'"],
        ["A", userA, "select * from public.stripe_customers where customer_id = 'cus_B1'"],
        ["A", userA, "select * from public.stripe_user_orders where customer_id = 'cus_B1'"],
        ["A", userA, `update storage.objects set name = name where name like '${B}/%' returning name`],
        ["A", userA, `select * from storage.objects where name like '${B}/%'`],
        // Writing orders, customers or events, as a user.
        [
          "A",
          userA,
          "insert into public.stripe_orders (checkout_session_id, customer_id, product_key, amount_subtotal, amount_total, currency, payment_status) values ('cs_test_forged', 'cus_A1', 'AI_ACCELERATOR', 0, 0, 'usd', 'paid') returning id",
        ],
        [
          "A",
          userA,
          "update public.stripe_orders set status = 'completed', amount_total = 0 where customer_id = 'cus_A1' returning id",
        ],
        ["A", userA, "delete from public.stripe_orders returning id"],
        [
          "A",
          userA,
          `insert into public.stripe_customers (user_id, customer_id) values ('${A}', 'cus_forged') returning user_id`,
        ],
        ["A", userA, "update public.stripe_customers set customer_id = 'cus_B1' returning user_id"],
        ["A", userA, "insert into public.stripe_events (id, type) values ('evt_forged', 'x') returning id"],
        ["A", userA, "select * from public.stripe_events"],
        ["A", userA, "select id, email from auth.users"],
        // The webhook's functions and its invite claims are the service role's alone.
        ["A", userA, "select public.auth_user_id_by_email('demo@advisoraccelerator.com') as id"],
        ["A", userA, "select public.claim_buyer_invite('a@example.com') as claimed"],
        [
          "A",
          userA,
          `select public.record_stripe_event('evt_forged_rpc', 'checkout.session.completed', 'cs_test_forged', 'cus_A1', '${A}', null, 'AI_ACCELERATOR', 0, 0, 'usd', 'paid', 'completed') as r`,
        ],
        ["A", userA, "select * from public.buyer_invites"],
        ["A", userA, "insert into public.buyer_invites (email) values ('a@example.com') returning email"],
        // The order e-mails (their set-password link tokens) and the checkout's ownership check.
        ["A", userA, "select * from public.order_emails"],
        ["A", userA, "select * from public.stripe_payment_reviews"],
        ["A", userA, "select * from public.claim_order_emails('cs_test_demo1')"],
        ["A", userA, "select public.finish_order_email('cs_test_demo1', 'access') as r"],
        ["A", userA, "select public.buyer_order_state('demo@advisoraccelerator.com', 'GROWTH_MINDSET') as r"],
        // Anonymous visitors.
        ["anon", anon, "select * from public.profiles"],
        ["anon", anon, "select * from public.stripe_orders"],
        ["anon", anon, "select * from public.stripe_customers"],
        ["anon", anon, "select * from public.stripe_user_orders"],
        ["anon", anon, "select * from public.stripe_events"],
        ["anon", anon, `insert into public.profiles (id) values ('${A}') returning id`],
        [
          "anon",
          anon,
          "insert into public.stripe_orders (checkout_session_id, customer_id, product_key, amount_subtotal, amount_total, currency, payment_status) values ('cs_test_anon', 'cus_A1', 'AI_ACCELERATOR', 0, 0, 'usd', 'paid') returning id",
        ],
        ["anon", anon, "select name from storage.objects"],
        ["anon", anon, `insert into storage.objects (bucket_id, name) values ('avatars', '${A}/x.png') returning name`],
        ["anon", anon, "select id, email from auth.users"],
        ["anon", anon, "select public.auth_user_id_by_email('demo@advisoraccelerator.com') as id"],
        [
          "anon",
          anon,
          "select public.record_stripe_event('evt_anon_rpc', 'checkout.session.completed', 'cs_test_anon', 'cus_A1', null, null, 'AI_ACCELERATOR', 0, 0, 'usd', 'paid', 'completed') as r",
        ],
        ["anon", anon, "select * from public.buyer_invites"],
        ["anon", anon, "select * from public.order_emails"],
        ["anon", anon, "select * from public.stripe_payment_reviews"],
        ["anon", anon, "select public.buyer_order_state('demo@advisoraccelerator.com', 'GROWTH_MINDSET') as r"],
        // B, checking A's side too.
        ["B", userB, `select * from public.profiles where id = '${A}'`],
        ["B", userB, "select * from public.stripe_user_orders where customer_id = 'cus_A1'"],
      ] as const;
      for (const [who, claims, sql] of others) await mustNotLeak(who, claims, sql);
      console.log(`RLS probes on ${backend.name}: ${counts.tried} tried, ${counts.leaked} leaked`);
      expect(leaks).toEqual([]);
      expect(counts.tried).toBeGreaterThanOrEqual(37);
    });

    it("left every row as it was", async () => {
      const { rows } = await db.query<{ n: string }>(
        "select count(*)::text as n from public.stripe_orders where checkout_session_id in ('cs_test_forged', 'cs_test_anon')",
      );
      expect(rows[0]!.n).toBe("0");
      const b = await db.query<{ full_name: string }>(`select full_name from public.profiles where id = '${B}'`);
      expect(b.rows[0]!.full_name).toBe("Bea B");
    });
  });

  describe("seed.sql", () => {
    it("loads on top of the migrations and gives the demo customer one completed and one pending order", async () => {
      const { readFile } = await import("node:fs/promises");
      const seed = await readFile(new URL("../../supabase/seed.sql", import.meta.url), "utf8");
      await db.exec(seed);
      await db.exec(seed); // idempotent: a restart that seeds again adds nothing
      const demo: Claims = { role: "authenticated", sub: "5f0d1c2e-8a3b-4c6d-9e7f-0a1b2c3d4e5f" };
      const orders = await probe(
        demo,
        "select product_key, order_status from public.stripe_user_orders order by order_date desc",
      );
      expect(orders).toEqual([
        { product_key: "AI_ACCELERATOR", order_status: "pending" },
        { product_key: "GROWTH_MINDSET", order_status: "completed" },
      ]);
    });
  });
});
