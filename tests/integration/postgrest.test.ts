/**
 * `/rest/v1` driven by the real supabase-js over HTTP: the portal's calls (spec §7) as two
 * customers, anon and the service role, on embedded Postgres and on a PostgreSQL server; the
 * PostgREST answers for bad input, pinned to PostgREST 14.12 (the version Supabase runs) rule by
 * rule; and a count of cross-user probes that leaked (must be 0).
 */
import type { SupabaseClient } from "@supabase/supabase-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSigner } from "../../local/jwt.ts";
import { BACKENDS, startTestStack, type TestStack } from "../../local/harness.ts";

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
    // project grants nothing by default (local/sql/platform.sql), so anon gets insert alone.
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
});
