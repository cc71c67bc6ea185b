/**
 * `/rest/v1` driven by the real supabase-js over HTTP: the portal's calls (spec §7) as two
 * customers, anon and the service role, on embedded Postgres and on a PostgreSQL server; the
 * PostgREST answers for bad input, pinned to PostgREST 14.12 (the version Supabase runs) rule by
 * rule; and a count of cross-user probes that leaked (must be 0).
 */
import type { SupabaseClient } from "@supabase/supabase-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSigner } from "../../src/jwt.ts";
import { BACKENDS, startTestStack, type TestStack } from "../../src/harness.ts";

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
    // Profiles are their owners' to write: the service role has no grant on them.
    expect(
      (await ben.client.from("profiles").insert({ id: ben.id, full_name: "Ben Okafor", city: "Denver" })).error,
    ).toBeNull();
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
      .upsert({ id: ada.id, full_name: "Ada Lovelace", city: "London" })
      .select()
      .single();
    expect(first.error).toBeNull();
    expect(first.status).toBe(201);
    expect(first.data).toMatchObject({ id: ada.id, full_name: "Ada Lovelace", city: "London" });
    const second = await ada.client.from("profiles").upsert({ id: ada.id, full_name: "Ada King", zip: "W1" });
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

  it("refuses a client writing updated_at with 42501 → 403, PostgREST's answer for a column privilege error (Error.hs pgErrorStatus), and changes nothing", async () => {
    const stored = () =>
      stack.db
        .query("select full_name, updated_at from public.profiles where id = $1", [ada.id])
        .then((r) => r.rows[0]);
    const before = await stored();
    const upsert = await ada.client
      .from("profiles")
      .upsert({ id: ada.id, full_name: "Ada Forged", updated_at: "2000-01-01T00:00:00Z" });
    expect(upsert).toMatchObject({
      status: 403,
      data: null,
      error: { code: "42501", message: "permission denied for table profiles", details: null, hint: null },
    });
    const patch = await ada.client.from("profiles").update({ updated_at: "2000-01-01T00:00:00Z" }).eq("id", ada.id);
    expect(patch).toMatchObject({ status: 403, error: { code: "42501" } });
    expect(await stored()).toEqual(before);
  });

  it("refuses UPDATE and DELETE without a filter with 21000 → 400, as Supabase's pg-safeupdate does (Error.hs: 21000 'requires a WHERE clause' → 400), and changes nothing", async () => {
    const statuses = async () =>
      (await stack.db.query("select status from public.stripe_orders order by checkout_session_id")).rows;
    const before = await statuses();
    const update = await service.from("stripe_orders").update({ status: "refunded" });
    expect(update.status).toBe(400);
    expect(update.error).toEqual({
      code: "21000",
      details: null,
      hint: null,
      message: "UPDATE requires a WHERE clause",
    });
    const remove = await service.from("stripe_orders").delete();
    expect(remove.status).toBe(400);
    expect(remove.error).toEqual({
      code: "21000",
      details: null,
      hint: null,
      message: "DELETE requires a WHERE clause",
    });
    const own = await ada.client.from("profiles").update({ city: "Anywhere" });
    expect(own).toMatchObject({ status: 400, error: { code: "21000", message: "UPDATE requires a WHERE clause" } });
    expect(await statuses()).toEqual(before);
    expect((await ada.client.from("profiles").select("city").eq("id", ada.id).single()).data).toEqual({
      city: "London",
    });
    // Any filter is a WHERE clause: the statement runs, and the grants decide (no one deletes orders).
    const filtered = await service
      .from("stripe_orders")
      .update({ status: "refunded" })
      .eq("checkout_session_id", "cs_none");
    expect(filtered).toMatchObject({ status: 204, error: null });
    const granted = await service.from("stripe_orders").delete().eq("checkout_session_id", "cs_none");
    expect(granted).toMatchObject({ status: 403, error: { code: "42501" } });
    // An empty payload runs no UPDATE at all.
    const nothing = await raw("profiles", { method: "PATCH", body: "{}", token: await tokenOf(ada.client) });
    expect(nothing.status).toBe(204);
  });

  it("answers request errors with PostgREST 14.12's codes, texts and headers (Error.hs ApiRequestError, SchemaCacheError)", async () => {
    const token = await tokenOf(ada.client);
    const check = async (
      path: string,
      init: RequestInit,
      status: number,
      body: { code: string; details: string | null; hint: string | null; message: string },
    ) => {
      const answer = await raw(path, { token, ...init });
      expect([path, answer.status]).toEqual([path, status]);
      expect(answer.headers.get("proxy-status")).toBe(`PostgREST; error=${body.code}`);
      expect(await answer.json()).toEqual(body);
    };
    await check(`profiles?id=near.${ada.id}`, {}, 400, {
      code: "PGRST100",
      details: 'unexpected "e" expecting "not" or operator (eq, gt, ...)',
      hint: null,
      message: `"failed to parse filter (near.${ada.id})" (line 1, column 1)`,
    });
    await check("profiles?order=id.ac", {}, 400, {
      code: "PGRST100",
      details: 'unexpected "c" expecting "asc", "desc", "nullsfirst" or "nullslast"',
      hint: null,
      message: '"failed to parse order (id.ac)" (line 1, column 4)',
    });
    await check("profiles?select=id&limit=-1", {}, 416, {
      code: "PGRST103",
      details: "Limit should be greater than or equal to zero.",
      hint: null,
      message: "Requested range not satisfiable",
    });
    await check("profiles", { headers: { "accept-profile": "private" } }, 406, {
      code: "PGRST106",
      details: null,
      hint: "Only the following schemas are exposed: public, graphql_public",
      message: "Invalid schema: private",
    });
    await check("profiles", { headers: { accept: "application/xml" } }, 406, {
      code: "PGRST107",
      details: null,
      hint: null,
      message: "None of these media types are available: application/xml",
    });
    await check("stripe_orders?customer.id=eq.1", {}, 400, {
      code: "PGRST108",
      details: null,
      hint: "Verify that 'customer' is included in the 'select' query parameter.",
      message: "'customer' is not an embedded resource in this request",
    });
    await check(`profiles?id=eq.${ben.id}`, { headers: { accept: "application/vnd.pgrst.object+json" } }, 406, {
      code: "PGRST116",
      details: "The result contains 0 rows",
      hint: null,
      message: "Cannot coerce the result to a single JSON object",
    });
    await check("profiles", { method: "PURGE" }, 405, {
      code: "PGRST117",
      details: null,
      hint: null,
      message: "Unsupported HTTP method: PURGE",
    });
    await check("profiles?select=id", { headers: { prefer: "handling=strict, count=none" } }, 400, {
      code: "PGRST122",
      details: "Invalid preferences: count=none",
      hint: null,
      message: "Invalid preferences given with handling=strict",
    });
    await check("profiles?select=id.count()", {}, 400, {
      code: "PGRST123",
      details: null,
      hint: null,
      message: "Use of aggregate functions is not allowed",
    });
    await check(`profiles/${ada.id}`, {}, 404, {
      code: "PGRST125",
      details: null,
      hint: null,
      message: "Invalid path specified in request URL",
    });
    await check("profiles", { method: "POST", body: JSON.stringify({ id: ada.id, nickname: "A" }) }, 400, {
      code: "PGRST204",
      details: null,
      hint: null,
      message: "Could not find the 'nickname' column of 'profiles' in the schema cache",
    });
    await check("profile", {}, 404, {
      code: "PGRST205",
      details: null,
      hint: "Perhaps you meant the table 'public.profiles'",
      message: "Could not find the table 'public.profile' in the schema cache",
    });
    await check("payments", {}, 404, {
      code: "PGRST205",
      details: null,
      hint: null,
      message: "Could not find the table 'public.payments' in the schema cache",
    });
    // A limit that is not a number is ignored, as PostgREST ignores it; on_conflict is the database's to check.
    expect((await raw(`profiles?select=id&limit=ten`, { token })).status).toBe(200);
    const onConflict = await raw("profiles?on_conflict=nickname", {
      method: "POST",
      token,
      headers: { prefer: "resolution=merge-duplicates" },
      body: JSON.stringify({ id: ada.id, city: "London" }),
    });
    expect(onConflict.status).toBe(400);
    expect(await onConflict.json()).toMatchObject({ code: "42703" });
    // A Postgres refusal of anon asks for credentials.
    const anon = await raw("profiles?select=id");
    expect(anon.status).toBe(401);
    expect(anon.headers.get("www-authenticate")).toBe("Bearer");
    expect(anon.headers.get("proxy-status")).toBe("PostgREST; error=42501");
  });

  it("refuses bad JWTs with 401 and PostgREST 14.12's JWT errors (Error.hs JwtDecodeError/JwtClaimsError, invalid_token header)", async () => {
    const token = await tokenOf(ada.client);
    const [header, payload, signature] = token.split(".");
    const other = JSON.parse(Buffer.from(payload!, "base64url").toString());
    const now = Math.floor(Date.now() / 1000);
    const forgedPayload = Buffer.from(JSON.stringify({ ...other, sub: ben.id })).toString("base64url");
    const unsecured = `${Buffer.from('{"alg":"none"}').toString("base64url")}.${payload}.`;
    const cases: [string, number, object][] = [
      ["garbage", 401, { code: "PGRST301", details: null, message: "Expected 3 parts in JWT; got 1" }],
      ["a.b.c", 401, { code: "PGRST301", details: null, message: "JWT cryptographic operation failed" }],
      [
        `${header}.${forgedPayload}.${signature}`,
        401,
        {
          code: "PGRST301",
          message: "No suitable key or wrong key type",
          details: "None of the keys was able to decode the JWT",
        },
      ],
      [
        createSigner().sign({ ...other, exp: now + 600 }),
        401,
        {
          code: "PGRST301",
          message: "No suitable key or wrong key type",
          details: "No suitable key was found to decode the JWT",
        },
      ],
      [
        unsecured,
        401,
        {
          code: "PGRST301",
          message: "Wrong or unsupported encoding algorithm",
          details: "JWT is unsecured but expected 'alg' was not 'none'",
        },
      ],
      [stack.signer.sign({ ...other, exp: now - 3600 }), 401, { code: "PGRST303", message: "JWT expired" }],
      [stack.signer.sign({ ...other, nbf: now + 3600 }), 401, { code: "PGRST303", message: "JWT not yet valid" }],
      [stack.signer.sign({ ...other, iat: now + 3600 }), 401, { code: "PGRST303", message: "JWT issued at future" }],
      [
        stack.signer.sign({ ...other, exp: "later" }),
        401,
        { code: "PGRST303", message: "The JWT 'exp' claim must be a number" },
      ],
      [
        stack.signer.sign({ ...other, aud: 42 }),
        401,
        { code: "PGRST303", message: "The JWT 'aud' claim must be a string or an array of strings" },
      ],
    ];
    for (const [bad, status, error] of cases) {
      const answer = await raw("stripe_user_orders?select=*", { token: bad });
      expect(answer.status).toBe(status);
      const message = (error as { message: string }).message;
      expect(answer.headers.get("www-authenticate")).toBe(
        `Bearer error="invalid_token", error_description="${message}"`,
      );
      expect(await answer.json()).toMatchObject({ hint: null, ...error });
    }
    const empty = await raw("stripe_user_orders?select=*", { headers: { authorization: "Bearer " } });
    expect(empty.status).toBe(401);
    expect(await empty.json()).toEqual({
      code: "PGRST301",
      details: null,
      hint: null,
      message: "Empty JWT is sent in Authorization header",
    });
    const noKey = await fetch(`${stack.url}/rest/v1/profiles?select=*`);
    expect(noKey.status).toBe(401);
  });

  it("accepts a token expired 10 s ago and refuses one expired 40 s ago: PostgREST's 30 s clock skew (Auth/Jwt.hs allowedSkewSeconds = 30)", async () => {
    const claims = JSON.parse(Buffer.from((await tokenOf(ada.client)).split(".")[1]!, "base64url").toString());
    const now = Math.floor(Date.now() / 1000);
    const path = `profiles?select=full_name&id=eq.${ada.id}`;
    const recent = await raw(path, { token: stack.signer.sign({ ...claims, exp: now - 10 }) });
    expect(recent.status).toBe(200);
    expect(await recent.json()).toEqual([{ full_name: "Ada King" }]);
    const stale = await raw(path, { token: stack.signer.sign({ ...claims, exp: now - 40 }) });
    expect(stale.status).toBe(401);
    expect(stale.headers.get("www-authenticate")).toBe('Bearer error="invalid_token", error_description="JWT expired"');
    expect(await stale.json()).toEqual({ code: "PGRST303", details: null, hint: null, message: "JWT expired" });
  });

  it("runs a verified token without a role as anon, and refuses a role it cannot switch to as Postgres does (Auth/Jwt.hs, Error.hs 22023 → 401, 42501 → 403)", async () => {
    const { role: _role, ...claims } = JSON.parse(
      Buffer.from((await tokenOf(ada.client)).split(".")[1]!, "base64url").toString(),
    );
    const roleless = await raw("profiles?select=id", { token: stack.signer.sign(claims) });
    expect(roleless.status).toBe(401);
    expect(roleless.headers.get("www-authenticate")).toBe("Bearer");
    expect(await roleless.json()).toMatchObject({ code: "42501", message: "permission denied for table profiles" });
    const unknown = await raw("profiles?select=id", { token: stack.signer.sign({ ...claims, role: "nobody" }) });
    expect(unknown.status).toBe(401);
    expect(await unknown.json()).toEqual({
      code: "22023",
      details: null,
      hint: null,
      message: 'role "nobody" does not exist',
    });
    const superuser = await raw("profiles?select=id", { token: stack.signer.sign({ ...claims, role: "postgres" }) });
    expect(superuser.status).toBe(403);
    expect(await superuser.json()).toMatchObject({
      code: "42501",
      message: 'permission denied to set role "postgres"',
    });
  });

  it("speaks the rest of PostgREST's language: and/or, casts, PUT, Location, CSV (QueryParams.hs, QueryBuilder.hs, Response.hs)", async () => {
    const call = (path: string, init: RequestInit = {}) =>
      raw(path, {
        ...init,
        headers: {
          apikey: stack.serviceKey,
          authorization: `Bearer ${stack.serviceKey}`,
          ...(init.headers as Record<string, string>),
        },
      });
    const either = await call(
      "stripe_orders?select=checkout_session_id&order=checkout_session_id" +
        "&or=(product_key.eq.AI_ACCELERATOR,and(amount_total.lt.50000,status.eq.completed))",
    );
    expect(await either.json()).toEqual([
      { checkout_session_id: "cs_test_ada_old" },
      { checkout_session_id: "cs_test_ben" },
    ]);
    const cast = await call(
      "stripe_orders?select=total:amount_total::text,currency&checkout_session_id=eq.cs_test_ben",
    );
    expect(await cast.json()).toEqual([{ total: "1500000", currency: "usd" }]);
    try {
      const put = (id: string, type: string) =>
        call("stripe_events?id=eq.evt_put_1&select=id,type", {
          method: "PUT",
          headers: { prefer: "return=representation" },
          body: JSON.stringify({ id, type }),
        });
      const created = await put("evt_put_1", "a");
      expect([created.status, await created.json()]).toEqual([201, [{ id: "evt_put_1", type: "a" }]]);
      const replaced = await put("evt_put_1", "b");
      expect([replaced.status, await replaced.json()]).toEqual([200, [{ id: "evt_put_1", type: "b" }]]);
      const mismatch = await put("evt_put_2", "c");
      expect(mismatch.status).toBe(400);
      expect(await mismatch.json()).toMatchObject({ code: "PGRST115" });
      const located = await call("stripe_events", {
        method: "POST",
        headers: { prefer: "return=headers-only" },
        body: JSON.stringify({ id: "evt_loc_1", type: "x" }),
      });
      expect(located.status).toBe(201);
      expect(located.headers.get("location")).toBe("/stripe_events?id=eq.evt_loc_1");
      const csv = await call("stripe_events?select=id,type&id=in.(evt_put_1,evt_loc_1)&order=id", {
        headers: { accept: "text/csv" },
      });
      expect(csv.headers.get("content-type")).toBe("text/csv; charset=utf-8");
      expect(await csv.text()).toBe("id,type\nevt_loc_1,x\nevt_put_1,b");
    } finally {
      await stack.db.exec("delete from public.stripe_events where id in ('evt_put_1', 'evt_put_2', 'evt_loc_1')");
    }
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
    // A table created after the stack read its schema cache: the miss reloads the cache. A new
    // project grants nothing by default (packages/local-stack/src/sql/platform.sql), so anon gets
    // insert alone.
    await stack.db.exec(`
      create table public.test_notes (id bigint generated always as identity primary key, body text not null);
      alter table public.test_notes enable row level security;
      create policy "Anyone leaves a note" on public.test_notes for insert to anon with check (true);
      grant insert on public.test_notes to anon;
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

  describe("functions (/rpc)", () => {
    beforeAll(async () => {
      // Created after the stack read its schema cache, in the public schema, with the grants a migration would set.
      await stack.db.exec(`
        create function public.sayhello(name text) returns text language sql immutable as $$ select 'Hello, ' || name $$;
        create function public.add_them(a integer, b integer default 10) returns integer language sql immutable as $$ select a + b $$;
        create function public.rpc_even(n integer) returns boolean language sql immutable as $$ select n % 2 = 0 $$;
        create function public.rpc_nothing_yet() returns text language sql stable as $$ select null::text $$;
        create function public.rpc_doc() returns jsonb language sql stable as $$ select '{"a": [1, 2], "b": null}'::jsonb $$;
        create function public.rpc_whoami() returns uuid language sql stable as $$ select auth.uid() $$;
        create function public.rpc_series(n integer) returns setof integer language sql stable as $$ select generate_series(1, n) $$;
        create function public.rpc_pair(out x integer, out y text) language sql stable as $$ select 1, 'one' $$;
        create function public.rpc_void() returns void language sql volatile as $$ select $$;
        create function public.rpc_echo(json) returns json language sql immutable as $$ select $1 $$;
        create table public.rpc_log (id integer generated always as identity primary key, note text not null);
        alter table public.rpc_log enable row level security;
        create function public.rpc_note(p_note text) returns integer language sql volatile security definer set search_path = ''
          as $$ insert into public.rpc_log (note) values (p_note) returning id $$;
        create function public.rpc_fail(amount integer) returns void language plpgsql security definer set search_path = '' as $$
        begin
          insert into public.rpc_log (note) values ('before the failure');
          raise exception 'Amount % is too large', amount using errcode = 'P0001', detail = 'At most 100', hint = 'Ask for less';
        end $$;
        create function public.rpc_order_count() returns bigint language sql stable security definer set search_path = ''
          as $$ select count(*) from public.stripe_orders $$;
        create function public.rpc_private() returns text language sql stable as $$ select 'secret' $$;
        create function public.overloaded() returns setof integer language sql as $$ values (1), (2), (3) $$;
        create function public.overloaded(a integer, b integer) returns integer language sql as $$ select a + b $$;
        create function public.overloaded(a text, b text, c text) returns text language sql as $$ select a || b || c $$;
        create function public.overloaded_same_args(arg integer) returns text language sql as $$ select 'integer' $$;
        create function public.overloaded_same_args(arg date) returns text language sql as $$ select 'date' $$;
        create function public.overloaded_same_args(arg text, num integer default 0) returns text language sql as $$ select 'text' $$;
        grant execute on all functions in schema public to anon, authenticated, service_role;
        revoke execute on function public.rpc_private() from public, anon, authenticated;
      `);
    });
    afterAll(async () => {
      await stack.db.exec(`
        drop function public.sayhello, public.add_them, public.rpc_even, public.rpc_nothing_yet, public.rpc_doc,
          public.rpc_whoami, public.rpc_series, public.rpc_pair, public.rpc_void, public.rpc_echo, public.rpc_note,
          public.rpc_fail, public.rpc_order_count, public.rpc_private, public.overloaded(), public.overloaded(integer, integer),
          public.overloaded(text, text, text), public.overloaded_same_args(integer), public.overloaded_same_args(date),
          public.overloaded_same_args(text, integer);
        drop table public.rpc_log;
      `);
    });
    const notes = async () =>
      (await stack.db.query<{ note: string }>("select note from public.rpc_log order by id")).rows.map((r) => r.note);

    it("answers a scalar as its bare JSON value (SqlFragment.hs asJsonF): text, integer, boolean, null, jsonb, uuid", async () => {
      const anon = stack.client();
      expect(await anon.rpc("sayhello", { name: "Ada" })).toMatchObject({
        status: 200,
        data: "Hello, Ada",
        error: null,
      });
      expect((await anon.rpc("add_them", { a: 1, b: 2 })).data).toBe(3);
      expect((await anon.rpc("rpc_even", { n: 4 })).data).toBe(true);
      expect(await anon.rpc("rpc_nothing_yet")).toMatchObject({ status: 200, data: null, error: null });
      expect((await anon.rpc("rpc_doc")).data).toEqual({ a: [1, 2], b: null });
      // The call runs with the caller's claims: auth.uid() is the signed-in user, a uuid as a JSON string.
      expect((await ada.client.rpc("rpc_whoami")).data).toBe(ada.id);
      expect((await anon.rpc("rpc_whoami")).data).toBeNull();
      const answer = await raw("rpc/sayhello", { method: "POST", body: JSON.stringify({ name: "Ben" }) });
      expect(answer.status).toBe(200);
      expect(answer.headers.get("content-type")).toBe("application/json; charset=utf-8");
      expect(answer.headers.get("content-range")).toBe("0-0/*");
      expect(await answer.text()).toBe('"Hello, Ben"');
    });

    it("answers a set of scalars as an array and a composite as an object, counted and ranged as PostgREST does", async () => {
      const anon = stack.client();
      expect((await anon.rpc("rpc_series", { n: 3 })).data).toEqual([1, 2, 3]);
      const counted = await anon.rpc("rpc_series", { n: 5 }, { count: "exact" }).range(1, 2);
      expect(counted).toMatchObject({ status: 206, data: [2, 3], count: 5 });
      expect((await anon.rpc("rpc_series", { n: 0 })).data).toEqual([]);
      expect((await anon.rpc("rpc_pair")).data).toEqual({ x: 1, y: "one" });
      // Void answers 204 with no body (Response.hs funcReturnsVoid).
      expect(await anon.rpc("rpc_void")).toMatchObject({ status: 204, data: null, error: null });
    });

    it("finds the function by its argument names, defaults may be left out, and a single unnamed json parameter takes the body (Plan.hs findProc)", async () => {
      const anon = stack.client();
      expect((await anon.rpc("add_them", { a: 1 })).data).toBe(11);
      expect((await anon.rpc("add_them", { b: 2, a: 5 })).data).toBe(7);
      expect((await anon.rpc("add_them", { a: 1 }, { get: true })).data).toBe(11);
      expect((await anon.rpc("overloaded", { a: 1, b: 2 })).data).toBe(3);
      expect((await anon.rpc("overloaded", { a: "x", b: "y", c: "z" })).data).toBe("xyz");
      expect((await anon.rpc("overloaded")).data).toEqual([1, 2, 3]);
      expect((await anon.rpc("rpc_echo", { any: ["thing", 1] })).data).toEqual({ any: ["thing", 1] });
    });

    it("answers an unknown function or argument names with PGRST202 as PostgREST's RpcSpec pins them (Error.hs NoRpc, noRpcHint)", async () => {
      const expectAnswer = async (path: string, init: RequestInit, status: number, body: object) => {
        const answer = await raw(path, init);
        expect(answer.status).toBe(status);
        expect(await answer.json()).toEqual(body);
      };
      await expectAnswer("rpc/sayhell", {}, 404, {
        hint: "Perhaps you meant to call the function public.sayhello",
        message: "Could not find the function public.sayhell without parameters in the schema cache",
        code: "PGRST202",
        details:
          "Searched for the function public.sayhell without parameters, but no matches were found in the schema cache.",
      });
      await expectAnswer("rpc/sayhello?nam=Peter", {}, 404, {
        hint: "Perhaps you meant to call the function public.sayhello(name)",
        message: "Could not find the function public.sayhello(nam) in the schema cache",
        code: "PGRST202",
        details:
          "Searched for the function public.sayhello with parameter nam, but no matches were found in the schema cache.",
      });
      await expectAnswer("rpc/add_them?a=1&b=2&smthelse=blabla", {}, 404, {
        hint: "Perhaps you meant to call the function public.add_them(a, b)",
        message: "Could not find the function public.add_them(a, b, smthelse) in the schema cache",
        code: "PGRST202",
        details:
          "Searched for the function public.add_them with parameters a, b, smthelse, but no matches were found in the schema cache.",
      });
      await expectAnswer("rpc/overloaded?wrong_arg=value", {}, 404, {
        hint: null,
        message: "Could not find the function public.overloaded(wrong_arg) in the schema cache",
        code: "PGRST202",
        details:
          "Searched for the function public.overloaded with parameter wrong_arg, but no matches were found in the schema cache.",
      });
      await expectAnswer("rpc/overloaded?a=1&b=2&wrong_arg=value", {}, 404, {
        hint: "Perhaps you meant to call the function public.overloaded(a, b, c)",
        message: "Could not find the function public.overloaded(a, b, wrong_arg) in the schema cache",
        code: "PGRST202",
        details:
          "Searched for the function public.overloaded with parameters a, b, wrong_arg, but no matches were found in the schema cache.",
      });
      // A JSON POST could also have meant a single unnamed json parameter, and says so.
      const posted = await stack.client().rpc("sayhello", { nam: "Peter" });
      expect(posted).toMatchObject({ status: 404, data: null });
      expect(posted.error).toEqual({
        code: "PGRST202",
        details:
          "Searched for the function public.sayhello with parameter nam or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache.",
        hint: "Perhaps you meant to call the function public.sayhello(name)",
        message: "Could not find the function public.sayhello(nam) in the schema cache",
      });
    });

    it("answers overloads the argument names cannot tell apart with PGRST203 (Error.hs AmbiguousRpc)", async () => {
      const answer = await raw("rpc/overloaded_same_args?arg=value");
      expect(answer.status).toBe(300);
      expect(await answer.json()).toEqual({
        hint: "Try renaming the parameters or the function itself in the database so function overloading can be resolved",
        message:
          "Could not choose the best candidate function between: public.overloaded_same_args(arg => date), public.overloaded_same_args(arg => integer), public.overloaded_same_args(arg => text, num => integer)",
        code: "PGRST203",
        details: null,
      });
    });

    it("leaves EXECUTE to Postgres: without it anon gets 401 and a user 403 (42501), the service role with it gets the answer", async () => {
      const anon = await stack.client().rpc("rpc_private");
      expect(anon).toMatchObject({ status: 401, data: null });
      expect(anon.error).toMatchObject({ code: "42501", message: "permission denied for function rpc_private" });
      const user = await ada.client.rpc("rpc_private");
      expect(user).toMatchObject({ status: 403, error: { code: "42501" } });
      expect(await service.rpc("rpc_private")).toMatchObject({ status: 200, data: "secret", error: null });
    });

    it("runs a security definer function with its owner's rights: anon counts orders it cannot read", async () => {
      const anon = stack.client();
      expect((await anon.from("stripe_orders").select("id")).error).toMatchObject({ code: "42501" });
      expect(await anon.rpc("rpc_order_count")).toMatchObject({ status: 200, data: 3, error: null });
    });

    it("answers a raised exception with its message, detail and hint (P0001 is 400), and undoes the call's writes", async () => {
      const before = await notes();
      const failed = await stack.client().rpc("rpc_fail", { amount: 500 });
      expect(failed).toMatchObject({ status: 400, data: null });
      expect(failed.error).toEqual({
        code: "P0001",
        details: "At most 100",
        hint: "Ask for less",
        message: "Amount 500 is too large",
      });
      expect(await notes()).toEqual(before);
    });

    it("runs GET read-only, so a volatile function that writes fails there (25006 is 405) and works by POST (Plan.hs callReadPlan)", async () => {
      const before = await notes();
      const viaGet = await stack.client().rpc("rpc_note", { p_note: "by GET" }, { get: true });
      expect(viaGet).toMatchObject({ status: 405, data: null });
      expect(viaGet.error).toMatchObject({
        code: "25006",
        message: "cannot execute INSERT in a read-only transaction",
      });
      expect(await notes()).toEqual(before);
      const viaPost = await stack.client().rpc("rpc_note", { p_note: "by POST" });
      expect(viaPost).toMatchObject({ status: 200, error: null });
      expect(typeof viaPost.data).toBe("number");
      expect(await notes()).toEqual([...before, "by POST"]);
    });

    it("sees functions created, replaced and dropped, as Supabase's pgrst_ddl_watch reloads PostgREST's schema cache", async () => {
      const anon = stack.client();
      expect((await anon.rpc("rpc_late")).error).toMatchObject({ code: "PGRST202" });
      await stack.db.exec("create function public.rpc_late() returns integer language sql as $$ select 1 $$");
      try {
        expect((await anon.rpc("rpc_late")).data).toBe(1);
        // Replaced in place (same name and arguments) by a stable function, then by a volatile one
        // that writes: a cache still holding it as stable would call it read-only (25006).
        await stack.db.exec(
          "create or replace function public.rpc_late() returns integer language sql stable as $$ select 2 $$",
        );
        expect((await anon.rpc("rpc_late")).data).toBe(2);
        await stack.db.exec(
          "create or replace function public.rpc_late() returns integer language sql volatile security definer set search_path = '' " +
            "as $$ insert into public.rpc_log (note) values ('late') returning 3 $$",
        );
        expect(await anon.rpc("rpc_late")).toMatchObject({ status: 200, data: 3, error: null });
        expect(await notes()).toContain("late");
        await stack.db.exec(
          "drop function public.rpc_late(); create function public.rpc_late(n integer) returns setof integer language sql as $$ select n $$",
        );
        expect((await anon.rpc("rpc_late")).error).toMatchObject({ code: "PGRST202" });
        expect((await anon.rpc("rpc_late", { n: 7 })).data).toEqual([7]);
      } finally {
        await stack.db.exec("drop function if exists public.rpc_late(integer)");
      }
    });
  });
});
