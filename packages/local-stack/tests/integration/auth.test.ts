/**
 * `/auth/v1` driven by the real supabase-js over HTTP, one test per auth call the product makes
 * (docs/product.md, Calls) and its error paths, on embedded Postgres and on a PostgreSQL server. Where the
 * stand-in follows a rule of Supabase Auth (GoTrue), the test names the rule and where GoTrue
 * keeps it.
 */
import { createHash } from "node:crypto";
import { createClient, type AuthChangeEvent, type SupabaseClient } from "@supabase/supabase-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, startTestStack, type TestStack } from "../../src/harness.ts";

const PASSWORD = "first-password-1";
const UNLIMITED = { tokenRefresh: 1e9, signInSignUps: 1e9, tokenVerifications: 1e9 };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(BACKENDS)("auth on $name", (backend) => {
  let stack: TestStack;
  let admin: SupabaseClient;
  let counter = 0;
  const resetPage = () => `${stack.config.auth.siteUrl}/reset-password`;

  /** A fresh customer account, created the way the Stripe webhook creates one. */
  async function customer(password: string | undefined = PASSWORD, confirmed = true) {
    const email = `buyer${++counter}.${backend.name.toLowerCase()}@example.com`;
    const { data, error } = await admin.auth.admin.createUser({ email, password, email_confirm: confirmed });
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
  /** The token hash the recovery e-mail's link carries to /reset-password. */
  const tokenHashIn = (html: string) => /[?&]token_hash=([0-9a-f]+)&type=recovery/.exec(html)![1]!;
  /** What GET /auth/v1/user answers for an access token, straight from the server. */
  const userAnswer = async (token: string) => {
    const response = await fetch(`${stack.url}/auth/v1/user`, {
      headers: { apikey: stack.anonKey, authorization: `Bearer ${token}` },
    });
    return { status: response.status, ...((await response.json()) as { error_code?: string; email?: string }) };
  };

  beforeAll(async () => {
    stack = await startTestStack(backend, {
      seed: false,
      config: {
        auth: { jwtExpiry: 60, refreshTokenReuseInterval: 2, email: { otpExpiry: 2 }, rateLimit: UNLIMITED },
      },
    });
    admin = stack.admin();
  }, 60_000);
  afterAll(() => stack?.stop());

  describe("sign-in", () => {
    it("signs in with e-mail and password and answers the user and a verifiable session", async () => {
      const { email, id } = await customer();
      const client = stack.client();
      const { data, error } = await client.auth.signInWithPassword({ email: email.toUpperCase(), password: PASSWORD });
      expect(error).toBeNull();
      expect(data.user).toMatchObject({ id, email, role: "authenticated", aud: "authenticated" });
      expect(data.user!.identities).toMatchObject([{ provider: "email", id, identity_data: { email, sub: id } }]);
      expect(data.session).toMatchObject({ token_type: "bearer", expires_in: 60 });
      expect(data.session!.expires_at).toBeGreaterThan(Date.now() / 1000);
      // getClaims verifies the access token against the JWKS the stack publishes.
      const claims = await client.auth.getClaims();
      expect(claims.error).toBeNull();
      expect(claims.data!.claims).toMatchObject({ sub: id, role: "authenticated", aud: "authenticated", email });
      expect(claims.data!.claims.amr).toMatchObject([{ method: "password" }]);
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

    it("refuses an unconfirmed e-mail address, as GoTrue's password grant does (api/token.go)", async () => {
      const { email } = await customer(PASSWORD, false);
      const { data, error } = await stack.client().auth.signInWithPassword({ email, password: PASSWORD });
      expect(data.session).toBeNull();
      expect(error).toMatchObject({ status: 400, code: "email_not_confirmed", message: "Email not confirmed" });
      // The address is checked only after the password: a wrong one says nothing about the account.
      const wrong = await stack.client().auth.signInWithPassword({ email, password: "not-the-password" });
      expect(wrong.error).toMatchObject({ code: "invalid_credentials" });
    });
  });

  describe("sessions", () => {
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

      // The global sign-out also ended the other client's session: its tokens are dead.
      expect(await userAnswer(before.session!.access_token)).toMatchObject({
        status: 403,
        error_code: "session_not_found",
      });
      const refreshed = await stack.client().auth.refreshSession({ refresh_token: before.session!.refresh_token });
      expect(refreshed.error).toMatchObject({ status: 400, code: "refresh_token_not_found" });
    });

    it("refreshes the session before it expires and keeps it across many refreshes", async () => {
      const { email } = await customer();
      const client = createClient(stack.url, stack.anonKey, {
        auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
      });
      const events: AuthChangeEvent[] = [];
      client.auth.onAuthStateChange((event) => {
        events.push(event);
      });
      const { data } = await client.auth.signInWithPassword({ email, password: PASSWORD });
      let previous = data.session!;
      for (let i = 0; i < 3; i++) {
        // Tokens live 60 s here, inside supabase-js's refresh margin: getSession refreshes at once.
        const { data: now } = await client.auth.getSession();
        expect(now.session!.refresh_token).not.toBe(previous.refresh_token);
        previous = now.session!;
      }
      expect(events.filter((event) => event === "TOKEN_REFRESHED").length).toBeGreaterThanOrEqual(3);
      expect((await client.auth.getUser()).data.user?.email).toBe(email);
    });

    it("gives the current token again to a client that did not save the last refresh, as GoTrue's refresh-token algorithm 2 does (tokens/service.go)", async () => {
      const { email } = await customer();
      const { data } = await (await signedIn(email)).auth.getSession();
      const first = data.session!.refresh_token;
      const second = (await stack.client().auth.refreshSession({ refresh_token: first })).data.session!;
      await sleep(2_100); // past the reuse interval: only the "did not save it" allowance applies
      const again = await stack.client().auth.refreshSession({ refresh_token: first });
      expect(again.error).toBeNull();
      expect(again.data.session!.refresh_token).toBe(second.refresh_token);
      // The current token still works and moves the session on.
      const next = await stack.client().auth.refreshSession({ refresh_token: second.refresh_token });
      expect(next.error).toBeNull();
      expect(next.data.session!.refresh_token).not.toBe(second.refresh_token);
    });

    it("gives concurrent refreshes within the reuse interval the same current token (GoTrue: refresh_token_reuse_interval)", async () => {
      const { email } = await customer();
      const { data } = await (await signedIn(email)).auth.getSession();
      const first = data.session!.refresh_token;
      const second = (await stack.client().auth.refreshSession({ refresh_token: first })).data.session!;
      const third = (await stack.client().auth.refreshSession({ refresh_token: second.refresh_token })).data.session!;
      // Two steps behind, but within two seconds of the last refresh: a tab that raced the others.
      const late = await stack.client().auth.refreshSession({ refresh_token: first });
      expect(late.error).toBeNull();
      expect(late.data.session!.refresh_token).toBe(third.refresh_token);
    });

    it("ends the session when an old refresh token is reused later, as a leaked one would be (GoTrue: refresh token rotation)", async () => {
      const { email } = await customer();
      const client = await signedIn(email);
      const first = (await client.auth.getSession()).data.session!;
      const second = (await stack.client().auth.refreshSession({ refresh_token: first.refresh_token })).data.session!;
      const third = (await stack.client().auth.refreshSession({ refresh_token: second.refresh_token })).data.session!;
      await sleep(2_100);
      const replay = await stack.client().auth.refreshSession({ refresh_token: first.refresh_token });
      expect(replay.error).toMatchObject({ status: 400, code: "refresh_token_already_used" });
      // The whole session is gone: its newest refresh token and its access tokens no longer work.
      const current = await stack.client().auth.refreshSession({ refresh_token: third.refresh_token });
      expect(current.error).toMatchObject({ status: 400, code: "refresh_token_not_found" });
      expect(await userAnswer(third.access_token)).toMatchObject({ status: 403, error_code: "session_not_found" });
    });

    it("refuses a tampered or malformed refresh token without touching the session", async () => {
      const { email } = await customer();
      const client = await signedIn(email);
      const { refresh_token } = (await client.auth.getSession()).data.session!;
      const flipped = `${refresh_token.slice(0, 20)}${refresh_token[20] === "A" ? "B" : "A"}${refresh_token.slice(21)}`;
      for (const token of [flipped, "short", "abcdefghijkl"]) {
        const { error } = await stack.client().auth.refreshSession({ refresh_token: token });
        expect(error?.status).toBe(400);
        expect(["validation_failed", "refresh_token_not_found"]).toContain(error?.code);
      }
      expect((await stack.client().auth.refreshSession({ refresh_token })).error).toBeNull();
    });
  });

  describe("passwords", () => {
    it("updates the password, refusing a weak one and the current one", async () => {
      const { email } = await customer();
      const client = await signedIn(email);
      const weak = await client.auth.updateUser({ password: "short" });
      expect(weak.error).toMatchObject({ status: 422, code: "weak_password" });
      expect(weak.error!.message).toBe("Password should be at least 6 characters.");
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

    it("ends the user's other sessions and spends their e-mailed links on a password change (GoTrue: User.UpdatePassword)", async () => {
      const { email } = await customer();
      const here = await signedIn(email);
      const elsewhere = await signedIn(email);
      const elsewhereSession = (await elsewhere.auth.getSession()).data.session!;
      const link = await admin.auth.admin.generateLink({ type: "recovery", email });
      expect(link.error).toBeNull();

      expect((await here.auth.updateUser({ password: "changed-password-4" })).error).toBeNull();

      expect((await here.auth.getUser()).data.user?.email).toBe(email);
      expect(await userAnswer(elsewhereSession.access_token)).toMatchObject({
        status: 403,
        error_code: "session_not_found",
      });
      const refresh = await stack.client().auth.refreshSession({ refresh_token: elsewhereSession.refresh_token });
      expect(refresh.error).toMatchObject({ code: "refresh_token_not_found" });
      const spent = await stack
        .client()
        .auth.verifyOtp({ type: "recovery", token_hash: link.data.properties!.hashed_token });
      expect(spent.error).toMatchObject({ status: 403, code: "otp_expired" });
      const { data } = await admin.auth.admin.getUserById((await here.auth.getUser()).data.user!.id);
      expect(data.user?.recovery_sent_at).toBeUndefined();
    });

    it("refuses to update the user without a session, or with a forged token", async () => {
      const anonymous = await stack.client().auth.updateUser({ password: "whatever-123" });
      expect(anonymous.error?.name).toBe("AuthSessionMissingError");
      const forged = await fetch(`${stack.url}/auth/v1/user`, {
        method: "PUT",
        headers: {
          apikey: stack.anonKey,
          authorization: `Bearer ${stack.anonKey}x`,
          "content-type": "application/json",
        },
        body: JSON.stringify({ password: "whatever-123" }),
      });
      expect(forged.status).toBe(403);
      expect(await forged.json()).toMatchObject({ error_code: "bad_jwt" });
    });
  });

  describe("recovery", () => {
    it("e-mails the recovery template from supabase/config.toml, whose token hash verifies once and emits PASSWORD_RECOVERY", async () => {
      const { email, id } = await customer();
      const { data, error } = await stack.client().auth.resetPasswordForEmail(email, { redirectTo: resetPage() });
      expect(error).toBeNull();
      expect(data).toEqual({});
      const mails = mailTo(email);
      expect(mails).toHaveLength(1);
      expect(mails[0]!.subject).toBe(stack.config.auth.email.templates.recovery!.subject);
      expect(mails[0]!.subject).toBe("Reset your Advisor Accelerator password");
      const hash = tokenHashIn(mails[0]!.html);
      expect(mails[0]!.html).toContain(`href="${resetPage()}?token_hash=${hash}&type=recovery"`);
      expect(mails[0]!.html).toContain(email);

      // The reset page verifies the hash only when the person presses Continue.
      const client = stack.client();
      const events: AuthChangeEvent[] = [];
      client.auth.onAuthStateChange((event) => {
        events.push(event);
      });
      const verified = await client.auth.verifyOtp({ type: "recovery", token_hash: hash });
      expect(verified.error).toBeNull();
      expect(verified.data.user?.id).toBe(id);
      expect(events).toContain("PASSWORD_RECOVERY");
      expect((await client.auth.updateUser({ password: "after-reset-3" })).error).toBeNull();
      await signedIn(email, "after-reset-3");

      const reused = await stack.client().auth.verifyOtp({ type: "recovery", token_hash: hash });
      expect(reused.error).toMatchObject({
        status: 403,
        code: "otp_expired",
        message: "Email link is invalid or has expired",
      });
    });

    it("signs in through the confirmation link (GET /verify) with the session in the fragment, once", async () => {
      const { email } = await customer();
      const link = await admin.auth.admin.generateLink({
        type: "recovery",
        email,
        options: { redirectTo: resetPage() },
      });
      const actionLink = link.data.properties!.action_link;
      expect(actionLink.startsWith(`${stack.url}/auth/v1/verify?token=`)).toBe(true);

      const first = await fetch(actionLink, { redirect: "manual" });
      expect(first.status).toBe(303);
      const location = new URL(first.headers.get("location")!);
      expect(`${location.origin}${location.pathname}`).toBe(resetPage());
      const fragment = new URLSearchParams(location.hash.slice(1));
      expect(fragment.get("type")).toBe("recovery");
      expect(fragment.has("sb")).toBe(true);

      // The reset page hands the fragment's session to supabase-js and sets the new password.
      const reset = stack.client();
      const session = await reset.auth.setSession({
        access_token: fragment.get("access_token")!,
        refresh_token: fragment.get("refresh_token")!,
      });
      expect(session.error).toBeNull();
      expect((await reset.auth.updateUser({ password: "after-link-5" })).error).toBeNull();
      await signedIn(email, "after-link-5");

      const again = await fetch(actionLink, { redirect: "manual" });
      const used = new URLSearchParams(new URL(again.headers.get("location")!).hash.slice(1));
      expect(used.get("access_token")).toBeNull();
      expect(used.get("error")).toBe("access_denied");
      expect(used.get("error_code")).toBe("otp_expired");
      expect(used.get("error_description")).toBe("Email link is invalid or has expired");
    });

    it("verifies the e-mailed code with the address (verifyOtp with email and token)", async () => {
      const { email, id } = await customer();
      const link = await admin.auth.admin.generateLink({ type: "recovery", email });
      const code = link.data.properties!.email_otp;
      expect(code).toMatch(/^\d{6}$/);
      const wrong = await stack
        .client()
        .auth.verifyOtp({ type: "recovery", email, token: code === "000000" ? "111111" : "000000" });
      expect(wrong.error).toMatchObject({
        status: 403,
        code: "otp_expired",
        message: "Token has expired or is invalid",
      });
      const right = await stack.client().auth.verifyOtp({ type: "recovery", email, token: code });
      expect(right.error).toBeNull();
      expect(right.data.user?.id).toBe(id);
    });

    it("confirms an unconfirmed address when its recovery link is used (GoTrue: recoverVerify)", async () => {
      const { email } = await customer(PASSWORD, false);
      const link = await admin.auth.admin.generateLink({ type: "recovery", email });
      expect(
        (await stack.client().auth.verifyOtp({ type: "recovery", token_hash: link.data.properties!.hashed_token }))
          .error,
      ).toBeNull();
      await signedIn(email);
    });

    it("answers recovery for an unknown address exactly as for a known one, and sends nothing", async () => {
      const ghost = `ghost.${backend.name}@example.com`;
      for (let i = 0; i < 2; i++) {
        const { data, error } = await stack.client().auth.resetPasswordForEmail(ghost, { redirectTo: resetPage() });
        expect(error).toBeNull();
        expect(data).toEqual({});
      }
      expect(mailTo(ghost)).toHaveLength(0);
    });

    it("sends one recovery e-mail per user per max_frequency, as GoTrue's sendPasswordRecovery does", async () => {
      const { email } = await customer();
      expect((await stack.client().auth.resetPasswordForEmail(email)).error).toBeNull();
      const second = await stack.client().auth.resetPasswordForEmail(email);
      expect(second.error).toMatchObject({ status: 429, code: "over_email_send_rate_limit" });
      expect(second.error!.message).toMatch(
        /^For security purposes, you can only request this after (59|60) seconds\.$/,
      );
      expect(mailTo(email)).toHaveLength(1);
    });

    it("sends an expired link back to the site with the error, and never to a foreign redirect", async () => {
      const { email } = await customer();
      const link = await admin.auth.admin.generateLink({
        type: "recovery",
        email,
        options: { redirectTo: "https://evil.example/steal" },
      });
      expect(link.data.properties!.redirect_to).toBe(stack.config.auth.siteUrl);
      await sleep(2_100);
      const expired = await fetch(link.data.properties!.action_link, { redirect: "manual" });
      const location = new URL(expired.headers.get("location")!);
      expect(location.origin).toBe(new URL(stack.config.auth.siteUrl).origin);
      expect(location.hash).toContain("error_description=Email+link+is+invalid+or+has+expired");
      expect(location.hash).not.toContain("access_token");
      const forged = await fetch(
        `${stack.url}/auth/v1/verify?token=abc&type=recovery&redirect_to=${encodeURIComponent("https://evil.example/x")}`,
        { redirect: "manual" },
      );
      expect(new URL(forged.headers.get("location")!).origin).toBe(new URL(stack.config.auth.siteUrl).origin);
    });
  });

  describe("invitations", () => {
    const invitee = () => `invitee${++counter}.${backend.name.toLowerCase()}@example.com`;
    /** The token hash the invite e-mail's link carries to /reset-password. */
    const inviteHashIn = (html: string) => /[?&]token_hash=([0-9a-f]+)&type=invite/.exec(html)![1]!;
    const userRows = async (email: string) =>
      (
        await stack.db.query<{
          id: string;
          encrypted_password: string;
          confirmation_token: string;
          invited_at: Date | null;
          confirmation_sent_at: Date | null;
        }>(
          "select id, encrypted_password, confirmation_token, invited_at, confirmation_sent_at from auth.users where email = $1",
          [email],
        )
      ).rows;

    it("invites a new address as GoTrue's Invite and sendInvite do: no password, the invite template e-mailed, a one-time confirmation token", async () => {
      const email = invitee();
      const { data, error } = await admin.auth.admin.inviteUserByEmail(email.toUpperCase(), {
        redirectTo: resetPage(),
        data: { full_name: "Ivy Invited" },
      });
      expect(error).toBeNull();
      const id = data.user!.id;
      expect(data.user).toMatchObject({ email, user_metadata: { full_name: "Ivy Invited" }, role: "authenticated" });
      expect(data.user!.invited_at).toBeDefined();
      expect(data.user!.confirmation_sent_at).toBeDefined();
      expect(data.user!.email_confirmed_at).toBeUndefined();
      expect(data.user!.identities).toMatchObject([
        { provider: "email", id, identity_data: { sub: id, email, email_verified: false } },
      ]);

      const mails = mailTo(email);
      expect(mails).toHaveLength(1);
      expect(mails[0]!.subject).toBe("Your Advisor Accelerator account is ready: set your password");
      expect(mails[0]!.text).toContain("Welcome to Advisor Accelerator");
      expect(mails[0]!.text).toContain(`We created an Advisor Accelerator account for ${email}`);
      const hash = inviteHashIn(mails[0]!.html);
      expect(mails[0]!.html).toContain(
        `href="${stack.config.auth.siteUrl}/reset-password?token_hash=${hash}&type=invite"`,
      );
      // The row as GoTrue writes it: an empty password, the hash on the user and in one_time_tokens.
      const [row] = await userRows(email);
      expect(row).toMatchObject({ id, encrypted_password: "", confirmation_token: hash });
      expect(row!.invited_at).not.toBeNull();
      expect(row!.confirmation_sent_at).not.toBeNull();
      const { rows: tokens } = await stack.db.query(
        "select token_type, token_hash, relates_to from auth.one_time_tokens where user_id = $1",
        [id],
      );
      expect(tokens).toEqual([{ token_type: "confirmation_token", token_hash: hash, relates_to: email }]);

      // No password yet: password sign-in fails as for any wrong password (api/token.go).
      for (const password of ["", PASSWORD]) {
        const early = await stack.client().auth.signInWithPassword({ email, password });
        expect(early.error).toMatchObject({
          status: 400,
          code: "invalid_credentials",
          message: "Invalid login credentials",
        });
      }

      // The reset page spends the hash with verifyOtp (GoTrue's verifyPost, signupVerify).
      const client = stack.client();
      const verified = await client.auth.verifyOtp({ type: "invite", token_hash: hash });
      expect(verified.error).toBeNull();
      expect(verified.data.user).toMatchObject({ id, email });
      expect(verified.data.user!.email_confirmed_at).toBeDefined();
      expect(verified.data.user!.identities![0]!.identity_data).toMatchObject({ email_verified: true });
      // No reauthentication and no current password: secure_password_change is off in supabase/config.toml (api/user.go UserUpdate).
      expect((await client.auth.updateUser({ password: "invited-password-6" })).error).toBeNull();
      await signedIn(email, "invited-password-6");

      const spent = await stack.client().auth.verifyOtp({ type: "invite", token_hash: hash });
      expect(spent.error).toMatchObject({
        status: 403,
        code: "otp_expired",
        message: "Email link is invalid or has expired",
      });
    });

    it("refuses to invite a confirmed address with GoTrue's email_exists, and sends nothing", async () => {
      const { email } = await customer();
      const { data, error } = await admin.auth.admin.inviteUserByEmail(email);
      expect(data.user).toBeNull();
      expect(error).toMatchObject({
        status: 422,
        code: "email_exists",
        message: "A user with this email address has already been registered",
      });
      expect(mailTo(email)).toHaveLength(0);
    });

    it("invites an unconfirmed user again, at once: GoTrue's sendInvite has no max_frequency, and the new link replaces the old", async () => {
      const email = invitee();
      const first = await admin.auth.admin.inviteUserByEmail(email, { data: { plan: "first" } });
      expect(first.error).toBeNull();
      const again = await admin.auth.admin.inviteUserByEmail(email, { data: { plan: "second" } });
      expect(again.error).toBeNull();
      expect(again.data.user!.id).toBe(first.data.user!.id);
      // Invite keeps an existing user's metadata: `data` only shapes a new user.
      expect(again.data.user!.user_metadata).toEqual({ plan: "first" });
      const mails = mailTo(email);
      expect(mails).toHaveLength(2);
      const [newer, older] = mails.map((m) => inviteHashIn(m.html));
      expect(newer).not.toBe(older);
      expect(await userRows(email)).toHaveLength(1);
      const old = await stack.client().auth.verifyOtp({ type: "invite", token_hash: older! });
      expect(old.error).toMatchObject({ status: 403, code: "otp_expired" });
      expect((await stack.client().auth.verifyOtp({ type: "invite", token_hash: newer! })).error).toBeNull();
    });

    it("lets only an admin key invite (GoTrue's requireAdminCredentials)", async () => {
      const email = invitee();
      const anon = await stack.client().auth.admin.inviteUserByEmail(email);
      expect(anon.error).toMatchObject({ status: 403, code: "not_admin", message: "User not allowed" });
      const { email: buyer } = await customer();
      const asCustomer = await (await signedIn(buyer)).auth.admin.inviteUserByEmail(email);
      expect(asCustomer.error).toMatchObject({ status: 403, code: "not_admin" });
      expect(mailTo(email)).toHaveLength(0);
      expect(await userRows(email)).toHaveLength(0);
      const invalid = await admin.auth.admin.inviteUserByEmail("not-an-address");
      expect(invalid.error).toMatchObject({ status: 400, code: "validation_failed" });
    });

    /**
     * A service-role supabase-js client that also keeps the bodies of 5xx answers: supabase-js
     * reports those only as a retryable error with their status.
     */
    function recordingAdmin() {
      const failures: unknown[] = [];
      const client = createClient(stack.url, stack.serviceKey, {
        auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
        global: {
          fetch: async (input, init) => {
            const response = await fetch(input, init);
            if (response.status >= 500) failures.push(await response.clone().json());
            return response;
          },
        },
      });
      return { client, failures };
    }
    /** GoTrue's InternalServerError body (apierrors.NewInternalServerError), as the stand-in writes errors. */
    const internalError = (msg: string) => ({ code: 500, error_code: "unexpected_failure", msg });

    it("answers 20 concurrent invites of one new address with one user, each invited or refused with GoTrue's signupNewUser 500", async () => {
      const email = invitee();
      const { client, failures } = recordingAdmin();
      const answers = await Promise.all(Array.from({ length: 20 }, () => client.auth.admin.inviteUserByEmail(email)));
      const rows = await userRows(email);
      expect(rows).toHaveLength(1);
      const refused = answers.filter((a) => a.error);
      for (const { error } of refused) expect(error).toMatchObject({ status: 500, name: "AuthRetryableFetchError" });
      expect(failures).toEqual(refused.map(() => internalError("Database error saving new user")));
      const invited = answers.filter((a) => !a.error);
      expect(invited.length).toBeGreaterThan(0);
      for (const { data } of invited) expect(data.user!.id).toBe(rows[0]!.id);
      // Each invite that succeeded e-mailed its own link.
      expect(mailTo(email)).toHaveLength(invited.length);
    });

    it("answers GoTrue's 500s whenever the unique index on the e-mail refuses the insert (signupNewUser, adminUserCreate)", async () => {
      // A row of another audience holds the address: the lookup by audience misses it and the
      // index (users_email_partial_key) does not, as for the losing side of a race, every time.
      const email = invitee();
      await stack.db.query(
        `insert into auth.users (instance_id, id, aud, role, email, encrypted_password, created_at, updated_at)
         values ('00000000-0000-0000-0000-000000000000', gen_random_uuid(), 'elsewhere', 'authenticated', $1, '', now(), now())`,
        [email],
      );
      const { client, failures } = recordingAdmin();
      const invited = await client.auth.admin.inviteUserByEmail(email);
      expect(invited.error).toMatchObject({ status: 500, name: "AuthRetryableFetchError" });
      const created = await client.auth.admin.createUser({ email, password: PASSWORD, email_confirm: true });
      expect(created.error).toMatchObject({ status: 500, name: "AuthRetryableFetchError" });
      expect(failures).toEqual([
        internalError("Database error saving new user"),
        internalError("Database error creating new user"),
      ]);
      expect(mailTo(email)).toHaveLength(0);
      expect(await userRows(email)).toHaveLength(1);
    });

    it("answers 20 concurrent createUser calls for one address with one user (GoTrue's adminUserCreate)", async () => {
      const email = invitee();
      const { client, failures } = recordingAdmin();
      const answers = await Promise.all(
        Array.from({ length: 20 }, () =>
          client.auth.admin.createUser({ email, password: PASSWORD, email_confirm: true }),
        ),
      );
      const rows = await userRows(email);
      expect(rows).toHaveLength(1);
      const created = answers.filter((a) => !a.error);
      expect(created).toHaveLength(1);
      expect(created[0]!.data.user!.id).toBe(rows[0]!.id);
      // Before the winner commits a loser passes the e-mail check and meets the index (500); after, email_exists.
      const late = answers.filter((a) => a.error && a.error.status !== 500);
      for (const { error } of late) expect(error).toMatchObject({ status: 422, code: "email_exists" });
      expect(failures).toEqual(
        Array.from({ length: 19 - late.length }, () => internalError("Database error creating new user")),
      );
    });

    it("refuses an expired invite link (GoTrue's verifyTokenHash: otp_expiry from confirmation_sent_at), by POST and by the link", async () => {
      const email = invitee();
      expect((await admin.auth.admin.inviteUserByEmail(email, { redirectTo: resetPage() })).error).toBeNull();
      const hash = inviteHashIn(mailTo(email)[0]!.html);
      await sleep(2_100);
      const late = await stack.client().auth.verifyOtp({ type: "invite", token_hash: hash });
      expect(late.error).toMatchObject({
        status: 403,
        code: "otp_expired",
        message: "Email link is invalid or has expired",
      });
      const link = await fetch(
        `${stack.url}/auth/v1/verify?token=${hash}&type=invite&redirect_to=${encodeURIComponent(resetPage())}`,
        { redirect: "manual" },
      );
      const fragment = new URLSearchParams(new URL(link.headers.get("location")!).hash.slice(1));
      expect(fragment.get("error_code")).toBe("otp_expired");
      expect(fragment.get("access_token")).toBeNull();
      const { data } = await admin.auth.admin.getUserById((await userRows(email))[0]!.id);
      expect(data.user!.email_confirmed_at).toBeUndefined();
    });

    it("signs in through the invite link (GET /verify, GoTrue's verifyGet) with the session and type=invite in the fragment", async () => {
      const email = invitee();
      const { data } = await admin.auth.admin.inviteUserByEmail(email, { redirectTo: resetPage() });
      const hash = inviteHashIn(mailTo(email)[0]!.html);
      // GoTrue's ConfirmationURL for an invite: /verify with the hash, the type and the checked redirect.
      const link = `${stack.url}/auth/v1/verify?token=${hash}&type=invite&redirect_to=${resetPage()}`;
      const first = await fetch(link, { redirect: "manual" });
      expect(first.status).toBe(303);
      const location = new URL(first.headers.get("location")!);
      expect(`${location.origin}${location.pathname}`).toBe(resetPage());
      const fragment = new URLSearchParams(location.hash.slice(1));
      expect(fragment.get("type")).toBe("invite");
      const client = stack.client();
      const session = await client.auth.setSession({
        access_token: fragment.get("access_token")!,
        refresh_token: fragment.get("refresh_token")!,
      });
      expect(session.error).toBeNull();
      expect(session.data.user).toMatchObject({ id: data.user!.id, email });
      expect((await client.auth.updateUser({ password: "linked-password-7" })).error).toBeNull();
      await signedIn(email, "linked-password-7");
      const again = new URL((await fetch(link, { redirect: "manual" })).headers.get("location")!);
      expect(new URLSearchParams(again.hash.slice(1)).get("error_code")).toBe("otp_expired");
    });

    it("verifies the e-mailed code with the address (GoTrue's verifyUserAndToken against confirmation_token)", async () => {
      // Neither the project's template nor GoTrue's default shows the code: this one does ({{ .Token }}).
      const email = invitee();
      const saved = stack.config.auth.email.templates.invite;
      stack.config.auth.email.templates.invite = {
        subject: "Code",
        content: "<p>{{ .Token }}</p>",
        contentPath: "test",
      };
      try {
        expect((await admin.auth.admin.inviteUserByEmail(email)).error).toBeNull();
      } finally {
        stack.config.auth.email.templates.invite = saved;
      }
      const code = /<p>(\d{6})<\/p>/.exec(mailTo(email)[0]!.html)![1]!;
      const wrong = await stack
        .client()
        .auth.verifyOtp({ type: "invite", email, token: code === "000000" ? "111111" : "000000" });
      expect(wrong.error).toMatchObject({
        status: 403,
        code: "otp_expired",
        message: "Token has expired or is invalid",
      });
      const right = await stack.client().auth.verifyOtp({ type: "invite", email, token: code });
      expect(right.error).toBeNull();
      expect(right.data.user?.email).toBe(email);
    });

    it("sends GoTrue's default invite e-mail (templatemailer defaultInviteMail) when config.toml names no invite template", async () => {
      const email = invitee();
      const saved = stack.config.auth.email.templates.invite;
      delete stack.config.auth.email.templates.invite;
      try {
        expect((await admin.auth.admin.inviteUserByEmail(email, { redirectTo: resetPage() })).error).toBeNull();
      } finally {
        stack.config.auth.email.templates.invite = saved;
      }
      const [mail] = mailTo(email);
      expect(mail!.subject).toBe("You've been invited");
      const { rows } = await stack.db.query<{ confirmation_token: string }>(
        "select confirmation_token from auth.users where email = $1",
        [email],
      );
      const url = `${stack.url}/auth/v1/verify?token=${rows[0]!.confirmation_token}&type=invite&redirect_to=${resetPage()}`;
      expect(mail!.html).toBe(
        "<h2>You've been invited</h2>\n\n<p>You've been invited to create an account. Follow the link below to accept.</p>\n" +
          `<p><a href="${url.replace(/&/g, "&amp;")}">Accept invitation</a></p>`,
      );
    });

    it("generates an invite link for a new address as GoTrue's adminGenerateLink does: the user made as an invite makes it (no password, invited_at), the link, code and hash answered, no e-mail", async () => {
      const email = invitee();
      const { data, error } = await admin.auth.admin.generateLink({
        type: "invite",
        email: email.toUpperCase(),
        options: { data: { full_name: "Gene Linked" }, redirectTo: resetPage() },
      });
      expect(error).toBeNull();
      const id = data.user!.id;
      expect(data.user).toMatchObject({ email, user_metadata: { full_name: "Gene Linked" }, role: "authenticated" });
      expect(data.user!.invited_at).toBeDefined();
      expect(data.user!.email_confirmed_at).toBeUndefined();
      expect(data.user!.identities).toMatchObject([
        { provider: "email", id, identity_data: { sub: id, email, email_verified: false } },
      ]);
      const { hashed_token: hash, email_otp: otp } = data.properties!;
      expect(data.properties).toEqual({
        action_link: `${stack.url}/auth/v1/verify?token=${hash}&type=invite&redirect_to=${resetPage()}`,
        email_otp: otp,
        hashed_token: hash,
        redirect_to: resetPage(),
        verification_type: "invite",
      });
      expect(otp).toMatch(/^\d{6}$/);
      // GoTrue's GenerateTokenHash: sha224 of the e-mail and the code.
      expect(hash).toBe(
        createHash("sha224")
          .update(email + otp)
          .digest("hex"),
      );
      expect(mailTo(email)).toEqual([]);
      const [row] = await userRows(email);
      expect(row).toMatchObject({ id, encrypted_password: "", confirmation_token: hash });
      expect(row!.invited_at).not.toBeNull();

      // The set-password page spends it as it spends an e-mailed invite (verifyOtp, signupVerify).
      const client = stack.client();
      const verified = await client.auth.verifyOtp({ type: "invite", token_hash: hash });
      expect(verified.error).toBeNull();
      expect(verified.data.user).toMatchObject({ id, email });
      expect(verified.data.user!.email_confirmed_at).toBeDefined();
      expect((await client.auth.updateUser({ password: "generated-password-8" })).error).toBeNull();
      await signedIn(email, "generated-password-8");
    });

    it("gives an unconfirmed user a new invite token on a second generateLink, and the first stops working (GoTrue: CreateOneTimeToken replaces it)", async () => {
      const email = invitee();
      const first = await admin.auth.admin.generateLink({
        type: "invite",
        email,
        options: { data: { plan: "first" } },
      });
      const second = await admin.auth.admin.generateLink({
        type: "invite",
        email,
        options: { data: { plan: "second" } },
      });
      expect(second.error).toBeNull();
      expect(second.data.user!.id).toBe(first.data.user!.id);
      // As Invite: `data` shapes only a new user.
      expect(second.data.user!.user_metadata).toEqual({ plan: "first" });
      expect(second.data.properties!.hashed_token).not.toBe(first.data.properties!.hashed_token);
      expect(await userRows(email)).toHaveLength(1);
      const old = await stack
        .client()
        .auth.verifyOtp({ type: "invite", token_hash: first.data.properties!.hashed_token });
      expect(old.error).toMatchObject({
        status: 403,
        code: "otp_expired",
        message: "Email link is invalid or has expired",
      });
      const fresh = await stack
        .client()
        .auth.verifyOtp({ type: "invite", token_hash: second.data.properties!.hashed_token });
      expect(fresh.error).toBeNull();
      expect(mailTo(email)).toEqual([]);
    });

    it("refuses an invite link for a confirmed user with GoTrue's 422 email_exists, changing nothing", async () => {
      const { email, id } = await customer();
      const { data, error } = await admin.auth.admin.generateLink({ type: "invite", email });
      expect(data).toEqual({ properties: null, user: null });
      expect(error).toMatchObject({
        status: 422,
        code: "email_exists",
        message: "A user with this email address has already been registered",
      });
      const [row] = await userRows(email);
      expect(row).toMatchObject({ id, confirmation_token: "", invited_at: null });
      const unknown = await admin.auth.admin.generateLink({ type: "signup_later" as "invite", email });
      expect(unknown.error).toMatchObject({
        status: 400,
        code: "validation_failed",
        message: "Invalid email action link type requested: signup_later",
      });
    });
  });

  describe("admin", () => {
    it("lets only the service role create users and generate links", async () => {
      const { email } = await customer();
      const duplicate = await admin.auth.admin.createUser({ email, email_confirm: true });
      expect(duplicate.error).toMatchObject({ status: 422, code: "email_exists" });
      const asCustomer = await signedIn(email);
      const refused = await asCustomer.auth.admin.createUser({ email: `x.${email}`, email_confirm: true });
      expect(refused.error).toMatchObject({ status: 403, code: "not_admin" });
      const anon = await stack.client().auth.admin.generateLink({ type: "recovery", email });
      expect(anon.error).toMatchObject({ status: 403, code: "not_admin" });
      const unknown = await admin.auth.admin.generateLink({ type: "recovery", email: `none.${email}` });
      expect(unknown.error).toMatchObject({ status: 404, code: "user_not_found" });
    });

    it("refuses auth-js's INVALID_EMAIL at every call that takes an address, as GoTrue's validateEmail (api/mail.go, checkmail's ValidateFormat) does, writing and sending nothing", async () => {
      // supabase-js packages/core/auth-js/test/GoTrueApi.test.ts: createUser() and
      // inviteUserByEmail() "returns AuthError when email is invalid".
      const INVALID_EMAIL = "xx:;x@x.x";
      const invalid = {
        status: 400,
        code: "validation_failed",
        message: "Unable to validate email address: invalid format",
      };
      const created = await admin.auth.admin.createUser({ email: INVALID_EMAIL, password: "password123" });
      expect(created.error).toMatchObject(invalid);
      expect(created.data.user).toBeNull();
      const invited = await admin.auth.admin.inviteUserByEmail(INVALID_EMAIL);
      expect(invited.error).toMatchObject(invalid);
      expect(invited.data.user).toBeNull();
      const link = await admin.auth.admin.generateLink({ type: "invite", email: INVALID_EMAIL });
      expect(link.error).toMatchObject(invalid);
      expect((await stack.client().auth.resetPasswordForEmail(INVALID_EMAIL)).error).toMatchObject(invalid);
      // GoTrue's verifyPost answers validateEmail's refusal with its own 422.
      const otp = await stack.client().auth.verifyOtp({ email: INVALID_EMAIL, token: "123456", type: "email" });
      expect(otp.error).toMatchObject({ status: 422, code: "validation_failed", message: "Invalid email format" });
      // updateUser checks the address before anything else (validateUserUpdateParams).
      const { email } = await customer();
      const client = await signedIn(email);
      expect((await client.auth.updateUser({ email: INVALID_EMAIL })).error).toMatchObject(invalid);
      // Nothing is trimmed: a space before the address is no part of checkmail's format.
      const padded = await admin.auth.admin.inviteUserByEmail(` invitee${++counter}@example.com`);
      expect(padded.error).toMatchObject(invalid);

      const { rows } = await stack.db.query("select email from auth.users where email like 'xx:%' or email like ' %'");
      expect(rows).toEqual([]);
      expect(stack.mail.list().filter((m) => m.to.startsWith("xx:") || m.to.startsWith(" "))).toEqual([]);
    });

    it("accepts every address GoTrue's validateEmail accepts: plus-addressing, subdomains, a host without a dot, capitals (lower-cased)", async () => {
      const n = ++counter;
      for (const address of [
        `buyer+spring-cohort.${n}@mail.advisor-firm.example.co.uk`,
        `planner.${n}@localhost`,
        `O'Brien.${n}@Example.COM`,
      ]) {
        const { data, error } = await admin.auth.admin.createUser({ email: address, email_confirm: true });
        expect(error).toBeNull();
        expect(data.user!.email).toBe(address.toLowerCase());
      }
      const invitee = `invitee+${n}@portal.example.com`;
      expect((await admin.auth.admin.inviteUserByEmail(invitee)).error).toBeNull();
      expect(stack.mail.list().some((m) => m.to === invitee)).toBe(true);
      // The user's own address in other letters is no change of address.
      const { email } = await customer();
      const client = await signedIn(email);
      expect((await client.auth.updateUser({ email: email.toUpperCase(), data: { plan: "growth" } })).error).toBeNull();
    });

    it("creates a user without a password as GoTrue does: a random one, so no empty password signs in", async () => {
      const { email } = await customer(undefined);
      const { error } = await stack.client().auth.signInWithPassword({ email, password: "" });
      expect(error).toMatchObject({ code: "invalid_credentials" });
    });

    it("writes users as GoTrue writes them: the zero instance, the audience, empty token columns, an e-mail identity", async () => {
      const { id } = await customer();
      const { rows } = await stack.db.query<Record<string, unknown>>(
        `select instance_id, aud, role, confirmation_token, recovery_token, email_change_token_new, email_change,
           (select count(*)::int from auth.identities where user_id = u.id and provider = 'email') as identities
         from auth.users u where id = $1`,
        [id],
      );
      expect(rows[0]).toEqual({
        instance_id: "00000000-0000-0000-0000-000000000000",
        aud: "authenticated",
        role: "authenticated",
        confirmation_token: "",
        recovery_token: "",
        email_change_token_new: "",
        email_change: "",
        identities: 1,
      });
    });

    it("deletes a user and ends their sessions", async () => {
      const { email, id } = await customer();
      const client = await signedIn(email);
      const { access_token } = (await client.auth.getSession()).data.session!;
      expect((await admin.auth.admin.deleteUser(id)).error).toBeNull();
      expect(await userAnswer(access_token)).toMatchObject({ status: 403, error_code: "user_not_found" });
      expect((await stack.client().auth.signInWithPassword({ email, password: PASSWORD })).error?.code).toBe(
        "invalid_credentials",
      );
      expect((await admin.auth.admin.deleteUser(id)).error).toMatchObject({ status: 404, code: "user_not_found" });
    });

    it("deletes a buyer's account and keeps their orders for the books", async () => {
      const { id } = await customer();
      const customerId = `cus_Deleted${counter}`;
      expect((await admin.from("stripe_customers").insert({ user_id: id, customer_id: customerId })).error).toBeNull();
      const order = {
        checkout_session_id: `cs_test_deleted_${counter}`,
        customer_id: customerId,
        product_key: "GROWTH_MINDSET",
        amount_subtotal: 30000,
        amount_total: 30000,
        currency: "usd",
        payment_status: "paid",
        status: "completed",
      };
      expect((await admin.from("stripe_orders").insert(order)).error).toBeNull();

      expect((await admin.auth.admin.deleteUser(id)).error).toBeNull();
      const kept = await admin.from("stripe_orders").select("amount_total, status").eq("customer_id", customerId);
      expect(kept.data).toEqual([{ amount_total: 30000, status: "completed" }]);
      const record = await admin.from("stripe_customers").select("user_id").eq("customer_id", customerId);
      expect(record.data).toEqual([{ user_id: null }]);
    });
  });

  describe("the gateway and the outbox", () => {
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
      expect(page).toContain("Reset your Advisor Accelerator password");
      const listed = (await (await fetch(`${stack.outboxUrl}.json`)).json()) as { to: string }[];
      expect(listed.some((m) => m.to === email)).toBe(true);
    });
  });
});

describe.each(BACKENDS)("auth rate limits on $name", (backend) => {
  let stack: TestStack;
  beforeAll(async () => {
    // GoTrue's limiters hold 30 requests per client address and refill at the configured rate
    // per 5 minutes; a rate of 1 keeps the bucket from refilling during the test.
    stack = await startTestStack(backend, {
      seed: false,
      config: { auth: { rateLimit: { tokenRefresh: 1, signInSignUps: 1, tokenVerifications: 1 } } },
    });
  }, 60_000);
  afterAll(() => stack?.stop());

  it("limits sign-ins per client address to a bucket of 30, as GoTrue's /token limiter does", async () => {
    const codes: (string | undefined)[] = [];
    for (let i = 0; i < 31; i++) {
      const { error } = await stack.client().auth.signInWithPassword({ email: `guess${i}@example.com`, password: "x" });
      codes.push(error?.code);
    }
    expect(codes.slice(0, 30)).toEqual(Array(30).fill("invalid_credentials"));
    expect(codes[30]).toBe("over_request_rate_limit");
  });

  it("limits recovery requests per client address, as GoTrue's OTP limiter does", async () => {
    const statuses: (number | undefined)[] = [];
    for (let i = 0; i < 31; i++) {
      const { error } = await stack.client().auth.resetPasswordForEmail(`nobody${i}@example.com`);
      statuses.push(error?.status);
    }
    expect(statuses.slice(0, 30)).toEqual(Array(30).fill(undefined));
    expect(statuses[30]).toBe(429);
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
        (await second.client().auth.refreshSession({ refresh_token: data.session!.refresh_token })).error,
      ).toBeNull();
      expect(
        (await second.client().auth.signInWithPassword({ email: "kept@example.com", password: PASSWORD })).error,
      ).toBeNull();
    } finally {
      await second.stop();
      await first.stop().catch(() => undefined);
    }
  }, 60_000);
});
