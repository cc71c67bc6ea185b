/**
 * Row level security, probed for real: the project's migrations on embedded Postgres (PGlite) and
 * on a throw-away PostgreSQL server, each
 * probe run as the role and claims PostgREST would set. Every probe either must return nothing
 * or must be refused; a probe that returns someone else's data or writes anything is a leak.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPostgres } from "../../local/postgres-server";
import { asRole, type Claims, type Database, migrate, openPglite, openPostgres, type Sql } from "../../local/db";

const A = "00000000-0000-4000-8000-00000000000a";
const B = "00000000-0000-4000-8000-00000000000b";
const userA: Claims = { role: "authenticated", sub: A };
const userB: Claims = { role: "authenticated", sub: B };
const anon: Claims = { role: "anon" };
const service: Claims = { role: "service_role" };

interface Backend {
  name: string;
  open(): Promise<Database>;
  stop?(): void;
}

const pglite: Backend = { name: "PGlite", open: () => openPglite() };
const postgres: Backend = {
  name: "PostgreSQL",
  async open() {
    const server = startPostgres();
    this.stop = () => server.stop();
    return openPostgres(server.url);
  },
};

describe.each([pglite, postgres])("on $name", (backend) => {
  let db: Database;

  beforeAll(async () => {
    db = await backend.open();
    await migrate(db);
    await db.exec(`
      insert into auth.users (id, email) values ('${A}', 'a@example.com'), ('${B}', 'b@example.com');
      insert into public.profiles (id, full_name) values ('${A}', 'Ada A'), ('${B}', 'Bea B');
      insert into public.stripe_customers (user_id, customer_id) values ('${A}', 'cus_A1'), ('${B}', 'cus_B1');
      insert into public.stripe_orders (checkout_session_id, customer_id, product_key, amount_subtotal, amount_total, currency, payment_status, status)
        values ('cs_test_a1', 'cus_A1', 'GROWTH_MINDSET', 30000, 30000, 'usd', 'paid', 'completed'),
               ('cs_test_b1', 'cus_B1', 'AI_ACCELERATOR', 1500000, 1500000, 'usd', 'paid', 'completed');
    `);
  }, 60_000);

  afterAll(async () => {
    await db.close();
    backend.stop?.();
  });

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

    it("a user uploads into their own avatar folder, and nowhere else", async () => {
      expect(
        await probe(
          userA,
          `insert into storage.objects (bucket_id, name, owner) values ('avatars', '${A}/${A}.png', '${A}') returning name`,
        ),
      ).toEqual([{ name: `${A}/${A}.png` }]);
      expect(
        await probe(
          userA,
          `insert into storage.objects (bucket_id, name, owner) values ('avatars', '${B}/${B}.png', '${A}') returning name`,
        ),
      ).toBe("refused");
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
        // B, checking A's side too.
        ["B", userB, `select * from public.profiles where id = '${A}'`],
        ["B", userB, "select * from public.stripe_user_orders where customer_id = 'cus_A1'"],
      ] as const;
      for (const [who, claims, sql] of others) await mustNotLeak(who, claims, sql);
      console.log(`RLS probes on ${backend.name}: ${counts.tried} tried, ${counts.leaked} leaked`);
      expect(leaks).toEqual([]);
      expect(counts.tried).toBeGreaterThanOrEqual(29);
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
