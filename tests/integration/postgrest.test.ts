/**
 * `/rest/v1` driven by the real supabase-js over HTTP: the portal's calls (spec §7) as two
 * customers, anon and the service role, on embedded Postgres and on a PostgreSQL server; the
 * PostgREST answers for bad input; and a count of cross-user probes that leaked (must be 0).
 */
import type { SupabaseClient } from "@supabase/supabase-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSigner } from "../../local/jwt.ts";
import { BACKENDS, startTestStack, type TestStack } from "./stack.ts";

const PASSWORD = "portal-password-1";

describe.each(BACKENDS)("rest on $name", (backend) => {
  let stack: TestStack;
  let service: SupabaseClient;
  let ada: { id: string; client: SupabaseClient };
  let ben: { id: string; client: SupabaseClient };

  async function customer(email: string, customerId: string) {
    const { data } = await service.auth.admin.createUser({ email, password: PASSWORD, email_confirm: true });
    const id = data.user!.id;
    const client = stack.client();
    await client.auth.signInWithPassword({ email, password: PASSWORD });
    expect((await service.from("stripe_customers").insert({ user_id: id, customer_id: customerId })).error).toBeNull();
    return { id, client };
  }

  const order = (
    customer: string,
    session: string,
    product: string,
    cents: number,
    status: string,
    daysAgo: number,
  ) => ({
    checkout_session_id: session,
    customer_id: customer,
    product_key: product,
    amount_subtotal: cents,
    amount_total: cents,
    currency: "usd",
    payment_status: status === "completed" ? "paid" : "unpaid",
    status,
    created_at: new Date(Date.now() - daysAgo * 86_400_000).toISOString(),
  });

  /** A raw PostgREST request, for what supabase-js would never send. */
  const raw = (path: string, init: RequestInit & { token?: string } = {}) =>
    fetch(`${stack.url}/rest/v1/${path}`, {
      ...init,
      headers: {
        apikey: stack.anonKey,
        "content-type": "application/json",
        ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
        ...(init.headers as Record<string, string>),
      },
    });
  const tokenOf = async (client: SupabaseClient) => (await client.auth.getSession()).data.session!.access_token;
  const profileOf = async (id: string) =>
    (await stack.db.query<{ full_name: string | null }>("select full_name from public.profiles where id = $1", [id]))
      .rows[0];

  beforeAll(async () => {
    stack = await startTestStack(backend, { seed: false });
    service = stack.admin();
    ada = await customer("ada@example.com", "cus_Ada1");
    ben = await customer("ben@example.com", "cus_Ben1");
    const { error } = await service
      .from("stripe_orders")
      .insert([
        order("cus_Ada1", "cs_test_ada_old", "GROWTH_MINDSET", 30000, "completed", 40),
        order("cus_Ada1", "cs_test_ada_new", "OS_ACCELERATOR", 299900, "pending", 1),
        order("cus_Ben1", "cs_test_ben", "AI_ACCELERATOR", 1500000, "completed", 3),
      ]);
    expect(error).toBeNull();
    await service.from("profiles").insert({ id: ben.id, full_name: "Ben Okafor", city: "Denver" });
  }, 60_000);
  afterAll(() => stack?.stop());

  it("lists the caller's own orders, newest first, with amounts as numbers", async () => {
    const { data, error, status } = await ada.client
      .from("stripe_user_orders")
      .select("*")
      .order("order_date", { ascending: false });
    expect(error).toBeNull();
    expect(status).toBe(200);
    expect(data!.map((o) => [o.checkout_session_id, o.product_key, o.amount_total, o.order_status])).toEqual([
      ["cs_test_ada_new", "OS_ACCELERATOR", 299900, "pending"],
      ["cs_test_ada_old", "GROWTH_MINDSET", 30000, "completed"],
    ]);
    expect(Object.keys(data![0]!)).toEqual(
      expect.arrayContaining(["order_id", "order_date", "amount_total", "currency", "order_status", "payment_status"]),
    );
  });

  it("reads the caller's profile with maybeSingle: the row, or null when there is none", async () => {
    const none = await ada.client.from("profiles").select("*").eq("id", ada.id).maybeSingle();
    expect(none).toMatchObject({ data: null, error: null });
    const own = await ben.client.from("profiles").select("full_name, city").eq("id", ben.id).maybeSingle();
    expect(own.error).toBeNull();
    expect(own.data).toEqual({ full_name: "Ben Okafor", city: "Denver" });
    const single = await ada.client.from("profiles").select("*").eq("id", ada.id).single();
    expect(single.error).toMatchObject({ code: "PGRST116" });
    expect(single.status).toBe(406);
  });

  it("upserts the caller's profile: creates it, then updates it", async () => {
    const first = await ada.client
      .from("profiles")
      .upsert({ id: ada.id, full_name: "Ada Lovelace", city: "London", updated_at: new Date().toISOString() })
      .select()
      .single();
    expect(first.error).toBeNull();
    expect(first.status).toBe(201);
    expect(first.data).toMatchObject({ id: ada.id, full_name: "Ada Lovelace", city: "London" });
    const second = await ada.client
      .from("profiles")
      .upsert({ id: ada.id, full_name: "Ada King", zip: "W1", updated_at: new Date().toISOString() });
    expect(second.error).toBeNull();
    expect(second.data).toBeNull();
    // PostgREST answers 200, not 201, for an upsert that inserted nothing.
    expect(second.status).toBe(200);
    expect(await profileOf(ada.id)).toEqual({ full_name: "Ada King" });
    const { data } = await ada.client.from("profiles").select("city, zip").eq("id", ada.id).single();
    expect(data).toEqual({ city: "London", zip: "W1" });
  });

  it("refuses an upsert of another user's profile and leaves it unchanged", async () => {
    const { error, status } = await ada.client.from("profiles").upsert({ id: ben.id, full_name: "Hijacked" });
    expect(status).toBe(403);
    expect(error).toMatchObject({ code: "42501" });
    expect(error!.message).toContain("row-level security");
    expect(await profileOf(ben.id)).toEqual({ full_name: "Ben Okafor" });
  });

  it("updates and deletes only what the policies allow", async () => {
    const own = await ada.client.from("profiles").update({ state: "CA" }).eq("id", ada.id).select("state");
    expect(own).toMatchObject({ error: null, data: [{ state: "CA" }] });
    const other = await ada.client.from("profiles").update({ full_name: "Changed" }).eq("id", ben.id).select();
    expect(other).toMatchObject({ error: null, data: [] });
    const empty = await ada.client.from("profiles").update({}).eq("id", ada.id).select();
    expect(empty).toMatchObject({ status: 200, error: null, data: [] });
    // Profiles have no delete policy: the owner's delete is refused by the grant.
    const gone = await ada.client.from("profiles").delete().eq("id", ada.id);
    expect(gone.error).toMatchObject({ code: "42501" });
    expect(await profileOf(ben.id)).toEqual({ full_name: "Ben Okafor" });
    expect(await profileOf(ada.id)).toBeDefined();
  });

  it("lets only the service role write orders", async () => {
    const forged = order("cus_Ada1", "cs_test_forged", "AI_ACCELERATOR", 1, "completed", 0);
    const asCustomer = await ada.client.from("stripe_orders").insert(forged);
    expect(asCustomer.error).toMatchObject({ code: "42501" });
    expect(asCustomer.status).toBe(403);
    const asAnon = await stack.client().from("stripe_orders").insert(forged);
    expect(asAnon.status).toBe(401);
    const promote = await ada.client
      .from("stripe_orders")
      .update({ status: "completed" })
      .eq("checkout_session_id", "cs_test_ada_new");
    expect(promote.error).toMatchObject({ code: "42501" });
    const { rows } = await stack.db.query(
      "select status from public.stripe_orders where checkout_session_id in ('cs_test_forged', 'cs_test_ada_new')",
    );
    expect(rows).toEqual([{ status: "pending" }]);
    const asService = await service
      .from("stripe_orders")
      .update({ status: "completed" })
      .eq("checkout_session_id", "cs_test_ada_new")
      .select("status");
    expect(asService).toMatchObject({ error: null, data: [{ status: "completed" }] });
    await service.from("stripe_orders").update({ status: "pending" }).eq("checkout_session_id", "cs_test_ada_new");
  });

  it("gives anon no profiles and no orders", async () => {
    const anon = stack.client();
    const profiles = await anon.from("profiles").select("*");
    expect(profiles.data).toBeNull();
    expect(profiles.status).toBe(401);
    expect(profiles.error).toMatchObject({ code: "42501" });
    const orders = await anon.from("stripe_user_orders").select("*");
    expect(orders.data).toBeNull();
    expect(orders.status).toBe(401);
  });

  it("filters with neq, in, is, gt and limit, and counts exactly", async () => {
    const orders = () => service.from("stripe_orders").select("checkout_session_id");
    const names = (r: { data: { checkout_session_id: string }[] | null }) =>
      r.data!.map((o) => o.checkout_session_id).sort();
    expect(names(await orders().neq("customer_id", "cus_Ada1"))).toEqual(["cs_test_ben"]);
    expect(names(await orders().in("product_key", ["AI_ACCELERATOR", "GROWTH_MINDSET"]))).toEqual([
      "cs_test_ada_old",
      "cs_test_ben",
    ]);
    expect(names(await orders().is("payment_intent_id", null))).toHaveLength(3);
    expect(names(await orders().gt("amount_total", 300000))).toEqual(["cs_test_ben"]);
    const limited = await service.from("stripe_orders").select("id", { count: "exact" }).order("amount_total").limit(2);
    expect(limited.data).toHaveLength(2);
    expect(limited.count).toBe(3);
    expect(limited.status).toBe(206);
    const all = await service.from("stripe_orders").select("id", { count: "exact" });
    expect(all).toMatchObject({ status: 200, count: 3 });
    const beyond = await service.from("stripe_orders").select("id", { count: "exact" }).range(5, 9);
    expect(beyond).toMatchObject({ status: 416, data: null, error: { code: "PGRST103" } });
  });

  it("answers at most max_rows (1000) rows, and counts them all", async () => {
    await stack.db.exec(
      "insert into public.stripe_events (id, type) select 'evt_bulk_' || n, 'checkout.session.completed' from generate_series(1, 1001) n",
    );
    const page = await service.from("stripe_events").select("id", { count: "exact" });
    expect(page.data).toHaveLength(1000);
    expect(page.count).toBe(1001);
    await stack.db.exec("delete from public.stripe_events where id like 'evt_bulk_%'");
  });

  it("answers bad input with PostgREST's errors and changes nothing", async () => {
    const token = await tokenOf(ada.client);
    const unknownColumn = await ada.client.from("profiles").select("nickname").eq("id", ada.id);
    expect(unknownColumn).toMatchObject({ status: 400, error: { code: "42703" } });
    const unknownInBody = await ada.client.from("profiles").upsert({ id: ada.id, full_name: "X", nickname: "Y" });
    expect(unknownInBody).toMatchObject({ status: 400, error: { code: "PGRST204" } });
    const unknownTable = await ada.client.from("payments").select("*");
    expect(unknownTable).toMatchObject({ status: 404, error: { code: "PGRST205" } });
    const badUuid = await ada.client.from("profiles").select("*").eq("id", "not-a-uuid");
    expect(badUuid).toMatchObject({ status: 400, error: { code: "22P02" } });
    const badFilter = await raw(`profiles?id=near.${ada.id}`, { token });
    expect(badFilter.status).toBe(400);
    expect(await badFilter.json()).toMatchObject({ code: "PGRST100" });

    const malformed = await raw("profiles", { method: "POST", token, body: '{"id": "' });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ code: "PGRST102", message: "Empty or invalid json" });
    const tooLong = await ada.client
      .from("profiles")
      .update({ zip: "9".repeat(50) })
      .eq("id", ada.id);
    expect(tooLong).toMatchObject({ status: 400, error: { code: "23514" } });
    expect(await profileOf(ada.id)).toEqual({ full_name: "Ada King" });
  });

  it("refuses bad JWTs with 401 and answers nothing", async () => {
    const token = await tokenOf(ada.client);
    const [header, payload] = token.split(".");
    const other = JSON.parse(Buffer.from(payload!, "base64url").toString());
    const forgedPayload = Buffer.from(JSON.stringify({ ...other, sub: ben.id })).toString("base64url");
    const expired = stack.signer.sign({ ...other, exp: Math.floor(Date.now() / 1000) - 10 });
    const otherKey = createSigner().sign({ ...other, exp: Math.floor(Date.now() / 1000) + 600 });
    const cases: [string, object][] = [
      ["garbage", { code: "PGRST301", message: "Expected 3 parts in JWT; got 1" }],
      [
        `${header}.${forgedPayload}.${token.split(".")[2]}`,
        { code: "PGRST301", message: "No suitable key or wrong key type" },
      ],
      [otherKey, { code: "PGRST301", details: "None of the keys was able to decode the JWT" }],
      [expired, { code: "PGRST303", message: "JWT expired" }],
    ];
    for (const [bad, error] of cases) {
      const answer = await raw("stripe_user_orders?select=*", { token: bad });
      expect(answer.status).toBe(401);
      expect(answer.headers.get("www-authenticate")).toMatch(/^Bearer error="invalid_token"/);
      expect(await answer.json()).toMatchObject(error);
    }
    const noKey = await fetch(`${stack.url}/rest/v1/profiles?select=*`);
    expect(noKey.status).toBe(401);
  });

  it("answers Content-Range as PostgREST does", async () => {
    const token = await tokenOf(ada.client);
    const rangeOf = async (path: string, init: RequestInit = {}) =>
      (await raw(path, { token, ...init })).headers.get("content-range");
    expect(await rangeOf(`profiles?select=id&id=eq.${ada.id}`)).toBe("0-0/*");
    expect(await rangeOf(`profiles?select=id&id=eq.${ben.id}`)).toBe("*/*");
    expect(await rangeOf(`profiles?select=id&id=eq.${ben.id}`, { headers: { prefer: "count=exact" } })).toBe("*/0");
    expect(await rangeOf("stripe_user_orders?select=order_id&offset=1", { headers: { prefer: "count=exact" } })).toBe(
      "1-1/2",
    );
    const patch = { method: "PATCH", body: JSON.stringify({ country: "UK" }) };
    expect(await rangeOf(`profiles?id=eq.${ada.id}`, patch)).toBe("0-0/*");
    expect(await rangeOf(`profiles?id=eq.${ben.id}`, patch)).toBe("*/*");
  });

  it("reads an insert's payload as PostgREST does: [] inserts nothing, keys must match", async () => {
    const events = async () =>
      (await stack.db.query<{ n: number }>("select count(*)::int as n from public.stripe_events")).rows[0]!.n;
    const before = await events();
    const post = (body: string) =>
      raw("stripe_events", {
        method: "POST",
        body,
        headers: { apikey: stack.serviceKey, authorization: `Bearer ${stack.serviceKey}` },
      });
    const empty = await post("[]");
    expect(empty.status).toBe(201);
    const mismatched = await post(JSON.stringify([{ id: "evt_one", type: "a" }, { id: "evt_two" }]));
    expect(mismatched.status).toBe(400);
    expect(await mismatched.json()).toMatchObject({ code: "PGRST102", message: "All object keys must match" });
    expect(await events()).toBe(before);
  });

  it("lets a role write a table it may not read, when no representation is asked for", async () => {
    // A table created after the stack read its schema cache: the miss reloads the cache.
    await stack.db.exec(`
      create table public.test_notes (id bigint generated always as identity primary key, body text not null);
      alter table public.test_notes enable row level security;
      create policy "Anyone leaves a note" on public.test_notes for insert to anon with check (true);
      revoke select on public.test_notes from anon;
    `);
    try {
      const anon = stack.client();
      const minimal = await anon.from("test_notes").insert({ body: "hello" });
      expect(minimal).toMatchObject({ status: 201, error: null, data: null });
      const represented = await anon.from("test_notes").insert({ body: "and show me" }).select();
      expect(represented).toMatchObject({ status: 401, data: null, error: { code: "42501" } });
      const { rows } = await stack.db.query("select body from public.test_notes");
      expect(rows).toEqual([{ body: "hello" }]);
    } finally {
      await stack.db.exec("drop table public.test_notes");
    }
  });

  it("leaks nothing across users: every probe is empty or refused", async () => {
    type Probe = () => PromiseLike<{ data: unknown }>;
    const probes: Probe[] = [];
    const pairs = [
      [ada, ben, "cus_Ada1"],
      [ben, ada, "cus_Ben1"],
    ] as const;
    for (const [who, them, own] of pairs) {
      const db = who.client;
      probes.push(
        () => db.from("profiles").select("*").eq("id", them.id),
        () => db.from("profiles").select("*").neq("id", who.id),
        () => db.from("stripe_orders").select("*").neq("customer_id", own),
        () => db.from("stripe_user_orders").select("*").neq("customer_id", own),
        () => db.from("stripe_customers").select("*").eq("user_id", them.id),
        () => db.from("stripe_events").select("*"),
        () => db.from("profiles").update({ city: "Nowhere" }).eq("id", them.id).select(),
        () => db.from("stripe_customers").insert({ user_id: them.id, customer_id: "cus_Evil" }).select(),
        () => db.from("stripe_orders").delete().neq("id", 0).select(),
      );
    }
    /** A probe passes when it saw no rows, or was refused. */
    const empty = (r: { data: unknown }) => r.data === null || (Array.isArray(r.data) && r.data.length === 0);
    let leaked = 0;
    for (const probe of probes) if (!empty(await probe())) leaked++;
    const { rows } = await stack.db.query<{ n: number }>("select count(*)::int as n from public.stripe_orders");
    expect(rows[0]!.n).toBe(3);
    console.info(`REST probes on ${backend.name}: ${probes.length} tried, ${leaked} leaked`);
    expect(leaked).toBe(0);
  });
});
