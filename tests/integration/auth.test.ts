/**
 * `/auth/v1` driven by the real supabase-js over HTTP, one test per auth call the product makes
 * (spec §7) and its error paths, on embedded Postgres and on a PostgreSQL server.
 */
import { createClient, type AuthChangeEvent, type SupabaseClient } from "@supabase/supabase-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, startTestStack, type TestStack } from "./stack.ts";

const PASSWORD = "first-password-1";
const SITE_RESET = (stack: TestStack) => `${stack.url}/reset-password`;

describe.each(BACKENDS)("auth on $name", (backend) => {
  let stack: TestStack;
  let admin: SupabaseClient;
  let counter = 0;

  /** A fresh customer account, created the way the Stripe webhook creates one. */
  async function customer(password: string | undefined = PASSWORD) {
    const email = `buyer${++counter}.${backend.name.toLowerCase()}@example.com`;
    const { data, error } = await admin.auth.admin.createUser({ email, password, email_confirm: true });
    expect(error).toBeNull();
    return { email, id: data.user!.id };
  }

  async function signedIn(email: string, password = PASSWORD) {
    const client = stack.client();
    const { error } = await client.auth.signInWithPassword({ email, password });
    expect(error).toBeNull();
    return client;
  }

  const mailTo = (email: string) => stack.mail.list().filter((m) => m.to === email);
  const linkIn = (text: string) => /https?:\/\/\S+/.exec(text)![0];

  beforeAll(async () => {
    stack = await startTestStack(backend, {
      seed: false,
      config: {
        jwtExpiry: 60,
        otpExpiry: 2,
        rateLimits: { signInPerWindow: 5, signInWindowSeconds: 300, recoverWindowSeconds: 60 },
      },
    });
    admin = stack.admin();
  }, 60_000);
  afterAll(() => stack?.stop());

  it("signs in with e-mail and password and answers the user and a verifiable session", async () => {
    const { email, id } = await customer();
    const client = stack.client();
    const { data, error } = await client.auth.signInWithPassword({ email, password: PASSWORD });
    expect(error).toBeNull();
    expect(data.user).toMatchObject({ id, email, role: "authenticated" });
    expect(data.session).toMatchObject({ token_type: "bearer", expires_in: 60 });
    expect(data.session!.expires_at).toBeGreaterThan(Date.now() / 1000);
    // getClaims verifies the access token against the JWKS the stack publishes.
    const claims = await client.auth.getClaims();
    expect(claims.error).toBeNull();
    expect(claims.data!.claims).toMatchObject({ sub: id, role: "authenticated", aud: "authenticated", email });
  });

  it("refuses a wrong password and an unknown address with the same error", async () => {
    const { email } = await customer();
    const wrong = await stack.client().auth.signInWithPassword({ email, password: "not-the-password" });
    const unknown = await stack.client().auth.signInWithPassword({ email: `nobody.${email}`, password: PASSWORD });
    for (const { data, error } of [wrong, unknown]) {
      expect(data.session).toBeNull();
      expect(error).toMatchObject({ status: 400, code: "invalid_credentials", message: "Invalid login credentials" });
    }
  });

  it("rate limits repeated sign-in attempts for one address", async () => {
    const { email } = await customer();
    const codes: (string | undefined)[] = [];
    for (let i = 0; i < 6; i++) {
      const { error } = await stack.client().auth.signInWithPassword({ email, password: "guess-" + i });
      codes.push(error?.code);
    }
    expect(codes.slice(0, 5)).toEqual(Array(5).fill("invalid_credentials"));
    expect(codes[5]).toBe("over_request_rate_limit");
    // The right password is refused too while the limit lasts.
    const { error } = await stack.client().auth.signInWithPassword({ email, password: PASSWORD });
    expect(error).toMatchObject({ status: 429 });
  });

  it("gets the user of the session, and signing out ends the session for every client", async () => {
    const { email, id } = await customer();
    const client = await signedIn(email);
    expect((await client.auth.getUser()).data.user).toMatchObject({ id, email });
    const other = await signedIn(email);
    const { data: before } = await other.auth.getSession();

    expect((await client.auth.signOut()).error).toBeNull();
    expect((await client.auth.getSession()).data.session).toBeNull();
    const afterOut = await client.auth.getUser();
    expect(afterOut.data.user).toBeNull();
    expect(afterOut.error?.name).toBe("AuthSessionMissingError");

    // The global sign-out also ended the other client's session: its refresh token is dead.
    const refreshed = await stack.client().auth.refreshSession({ refresh_token: before.session!.refresh_token });
    expect(refreshed.error).toMatchObject({ status: 400 });
  });

  it("refreshes the session before it expires, and a reused refresh token ends the session", async () => {
    const { email } = await customer();
    const client = createClient(stack.url, stack.anonKey, {
      auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    });
    const events: AuthChangeEvent[] = [];
    client.auth.onAuthStateChange((event) => {
      events.push(event);
    });
    const { data } = await client.auth.signInWithPassword({ email, password: PASSWORD });
    const first = data.session!;
    // Tokens live 60 s here, inside supabase-js's refresh margin: getSession refreshes at once.
    const { data: now } = await client.auth.getSession();
    expect(now.session!.access_token).not.toBe(first.access_token);
    expect(now.session!.refresh_token).not.toBe(first.refresh_token);
    expect(events).toContain("TOKEN_REFRESHED");
    expect((await client.auth.getUser()).data.user?.email).toBe(email);

    const replay = await stack.client().auth.refreshSession({ refresh_token: first.refresh_token });
    expect(replay.error).toMatchObject({ status: 400, code: "refresh_token_already_used" });
    const ended = await stack.client().auth.refreshSession({ refresh_token: now.session!.refresh_token });
    expect(ended.error).toMatchObject({ status: 400 });
  });

  it("updates the password, refusing a weak one and the current one", async () => {
    const { email } = await customer();
    const client = await signedIn(email);
    const weak = await client.auth.updateUser({ password: "short" });
    expect(weak.error).toMatchObject({ status: 422, code: "weak_password" });
    expect(weak.error!.name).toBe("AuthWeakPasswordError");
    const same = await client.auth.updateUser({ password: PASSWORD });
    expect(same.error).toMatchObject({ status: 422, code: "same_password" });

    const done = await client.auth.updateUser({ password: "second-password-2" });
    expect(done.error).toBeNull();
    expect(done.data.user?.email).toBe(email);
    expect((await stack.client().auth.signInWithPassword({ email, password: PASSWORD })).error?.code).toBe(
      "invalid_credentials",
    );
    await signedIn(email, "second-password-2");
  });

  it("refuses to update the user without a session, or with a forged token", async () => {
    const anonymous = await stack.client().auth.updateUser({ password: "whatever-123" });
    expect(anonymous.error?.name).toBe("AuthSessionMissingError");
    const forged = await fetch(`${stack.url}/auth/v1/user`, {
      method: "PUT",
      headers: { apikey: stack.anonKey, authorization: `Bearer ${stack.anonKey}x`, "content-type": "application/json" },
      body: JSON.stringify({ password: "whatever-123" }),
    });
    expect(forged.status).toBe(403);
    expect(await forged.json()).toMatchObject({ error_code: "bad_jwt" });
  });

  it("e-mails a recovery link whose GET signs the customer in for a password reset, once", async () => {
    const { email } = await customer();
    const client = stack.client();
    const { data, error } = await client.auth.resetPasswordForEmail(email, { redirectTo: SITE_RESET(stack) });
    expect(error).toBeNull();
    expect(data).toEqual({});
    const mails = mailTo(email);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.subject).toBe("Set your Advisor Accelerator password");
    const link = linkIn(mails[0]!.text);
    expect(link.startsWith(`${stack.url}/auth/v1/verify?`)).toBe(true);

    const first = await fetch(link, { redirect: "manual" });
    expect(first.status).toBe(303);
    const location = new URL(first.headers.get("location")!);
    expect(`${location.origin}${location.pathname}`).toBe(SITE_RESET(stack));
    const fragment = new URLSearchParams(location.hash.slice(1));
    expect(fragment.get("type")).toBe("recovery");

    // The reset page hands the fragment's session to supabase-js and sets the new password.
    const reset = stack.client();
    const session = await reset.auth.setSession({
      access_token: fragment.get("access_token")!,
      refresh_token: fragment.get("refresh_token")!,
    });
    expect(session.error).toBeNull();
    expect((await reset.auth.updateUser({ password: "after-reset-3" })).error).toBeNull();
    await signedIn(email, "after-reset-3");

    const again = await fetch(link, { redirect: "manual" });
    const used = new URLSearchParams(new URL(again.headers.get("location")!).hash.slice(1));
    expect(used.get("access_token")).toBeNull();
    expect(used.get("error_description")).toBe("Email link is invalid or has expired");
  });

  it("answers recovery for an unknown address exactly as for a known one, and sends nothing", async () => {
    const ghost = `ghost.${backend.name}@example.com`;
    const { data, error } = await stack.client().auth.resetPasswordForEmail(ghost, { redirectTo: SITE_RESET(stack) });
    expect(error).toBeNull();
    expect(data).toEqual({});
    expect(mailTo(ghost)).toHaveLength(0);
  });

  it("rate limits recovery e-mails per address", async () => {
    const { email } = await customer();
    expect((await stack.client().auth.resetPasswordForEmail(email)).error).toBeNull();
    const second = await stack.client().auth.resetPasswordForEmail(email);
    expect(second.error).toMatchObject({ status: 429, code: "over_email_send_rate_limit" });
    expect(mailTo(email)).toHaveLength(1);
  });

  it("sends an expired link back to the site with the error, and ignores a foreign redirect", async () => {
    const { email } = await customer();
    await stack.client().auth.resetPasswordForEmail(email, { redirectTo: "https://evil.example/steal" });
    const link = linkIn(mailTo(email)[0]!.text);
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    const expired = await fetch(link, { redirect: "manual" });
    const location = new URL(expired.headers.get("location")!);
    expect(location.origin).toBe(stack.url);
    expect(location.hash).toContain("error_description=Email+link+is+invalid+or+has+expired");
    expect(location.hash).not.toContain("access_token");
  });

  it("verifies a recovery token hash (verifyOtp) and emits PASSWORD_RECOVERY", async () => {
    const { email, id } = await customer(undefined);
    const link = await admin.auth.admin.generateLink({
      type: "recovery",
      email,
      options: { redirectTo: SITE_RESET(stack) },
    });
    expect(link.error).toBeNull();
    expect(link.data.user?.id).toBe(id);
    expect(link.data.properties?.verification_type).toBe("recovery");

    const client = stack.client();
    const events: AuthChangeEvent[] = [];
    client.auth.onAuthStateChange((event) => {
      events.push(event);
    });
    const verified = await client.auth.verifyOtp({ type: "recovery", token_hash: link.data.properties!.hashed_token });
    expect(verified.error).toBeNull();
    expect(verified.data.user?.id).toBe(id);
    expect(events).toContain("PASSWORD_RECOVERY");

    const reused = await stack
      .client()
      .auth.verifyOtp({ type: "recovery", token_hash: link.data.properties!.hashed_token });
    expect(reused.error).toMatchObject({ status: 403, code: "otp_expired" });
  });

  it("lets only the service role create users and generate links", async () => {
    const { email } = await customer();
    const duplicate = await admin.auth.admin.createUser({ email, email_confirm: true });
    expect(duplicate.error).toMatchObject({ status: 422, code: "email_exists" });
    const asCustomer = await signedIn(email);
    const refused = await asCustomer.auth.admin.createUser({ email: `x.${email}`, email_confirm: true });
    expect(refused.error).toMatchObject({ status: 403, code: "not_admin" });
    const anon = await stack.client().auth.admin.generateLink({ type: "recovery", email });
    expect(anon.error).toMatchObject({ status: 403, code: "not_admin" });
    const { data } = await admin.auth.admin.generateLink({ type: "recovery", email: `none.${email}` });
    expect(data.user).toBeNull();
  });

  it("refuses requests without a valid API key, as the gateway does", async () => {
    const missing = await fetch(`${stack.url}/auth/v1/token?grant_type=password`, { method: "POST", body: "{}" });
    expect(missing.status).toBe(401);
    expect(await missing.json()).toEqual({ message: "No API key found in request" });
    const wrong = await createClient(stack.url, "not-a-key").auth.signInWithPassword({
      email: "a@b.co",
      password: "x",
    });
    expect(wrong.error?.status).toBe(401);
    const badJson = await fetch(`${stack.url}/auth/v1/token?grant_type=password`, {
      method: "POST",
      headers: { apikey: stack.anonKey, "content-type": "application/json" },
      body: "{not json",
    });
    expect(badJson.status).toBe(400);
  });

  it("lists every e-mail on the outbox page", async () => {
    const { email } = await customer();
    await stack.client().auth.resetPasswordForEmail(email);
    const page = await (await fetch(stack.outboxUrl)).text();
    expect(page).toContain(email);
    expect(page).toContain("Set your Advisor Accelerator password");
    const listed = (await (await fetch(`${stack.outboxUrl}.json`)).json()) as { to: string }[];
    expect(listed.some((m) => m.to === email)).toBe(true);
  });
});

describe.each(BACKENDS)("auth across a restart on $name", (backend) => {
  it("keeps users, sessions and the signing key", async () => {
    const first = await startTestStack(backend, { seed: false });
    const dataDir = first.dataDir;
    const admin = first.admin();
    await admin.auth.admin.createUser({ email: "kept@example.com", password: PASSWORD, email_confirm: true });
    const client = first.client();
    const { data } = await client.auth.signInWithPassword({ email: "kept@example.com", password: PASSWORD });
    const databaseUrl = first.databaseUrl;
    await first.close();

    const second = await startTestStack(backend, { seed: false, dataDir, databaseUrl, port: first.port });
    try {
      const again = second.client();
      await again.auth.setSession({
        access_token: data.session!.access_token,
        refresh_token: data.session!.refresh_token,
      });
      expect((await again.auth.getUser()).data.user?.email).toBe("kept@example.com");
      expect(
        (await second.client().auth.signInWithPassword({ email: "kept@example.com", password: PASSWORD })).error,
      ).toBeNull();
    } finally {
      await second.stop();
      await first.stop().catch(() => undefined);
    }
  }, 60_000);
});
