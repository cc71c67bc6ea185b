/**
 * The team, decided by the database (supabase/migrations/*_staff.sql): `npm run staff`'s code
 * (functions/_shared/staff.ts) with the service role, then the real supabase-js over HTTP
 * as each caller the desk must tell apart: an admin, a coach, a customer, another customer and a
 * visitor with the anon key. On embedded Postgres and on PostgreSQL.
 *
 * The rule each probe pins: a customer's token, the anon key, and a coach where an admin is
 * needed read zero rows of what staff read, and a write is refused with 403 (401 for anon), as
 * PostgREST answers a permission error (packages/local-stack/src/postgrest/errors.ts
 * `pgErrorStatus`, from PostgREST's own mapping of 42501).
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import type { SupabaseClient } from "@supabase/supabase-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, startTestStack, type TestStack } from "@advisor-accelerator/local-stack";
import { addStaff, listStaff, removeStaff, StaffError } from "../../functions/_shared/staff.ts";
import type { Env } from "../../functions/_shared/env.ts";
import { logTallies, Tally } from "../support/hostile.ts";

const SITE = "https://advisoraccelerator.example";
const leaks = new Tally("desk reads and writes by non-staff");
afterAll(() => logTallies(leaks));

/** What a non-staff caller may see of the desk's reads: nothing, or a refusal. */
const DESK_READS = [
  "leads",
  "lead_events",
  "enrolments",
  "student_activity",
  "desk_students",
  "desk_orders",
  "stripe_payment_reviews",
  "stripe_disputes",
] as const;

describe.each(BACKENDS)("the team on $name", (backend) => {
  let stack: TestStack;
  let admin: SupabaseClient;
  let env: Env;
  const users: Record<string, { id: string; email: string; client: SupabaseClient }> = {};
  let leadId: string;

  /** A confirmed account with a password, signed in through Auth as the login page signs in. */
  async function account(name: string) {
    const email = `${name}@example.com`;
    const password = `pw-${name}-2026`;
    const created = await admin.auth.admin.createUser({ email, password, email_confirm: true });
    expect(created.error).toBeNull();
    const client = stack.client();
    expect((await client.auth.signInWithPassword({ email, password })).error).toBeNull();
    users[name] = { id: created.data.user!.id, email, client };
    return users[name]!;
  }

  /** A completed order of `product` for `name`, as the webhook records one. */
  async function order(name: string, product: string, cents: number, status = "completed") {
    const customer = `cus_${name.replace(/\W/g, "")}`;
    await admin.from("stripe_customers").upsert({ user_id: users[name]!.id, customer_id: customer });
    const { error } = await admin.from("stripe_orders").insert({
      checkout_session_id: `cs_test_${name.replace(/\W/g, "")}${product}`,
      customer_id: customer,
      product_key: product,
      amount_subtotal: cents,
      amount_total: cents,
      currency: "usd",
      payment_status: "paid",
      status,
    });
    expect(error).toBeNull();
  }

  beforeAll(async () => {
    stack = await startTestStack(backend, { stripe: { catalogue: false }, seed: false });
    admin = stack.admin();
    env = {
      SUPABASE_URL: stack.url,
      SUPABASE_SERVICE_ROLE_KEY: "unused: the client is given",
      RESEND_API_KEY: stack.resend.apiKey,
      RESEND_API_URL: stack.resend.apiUrl,
      MAIL_FROM: "Advisor Accelerator <team@advisor-accelerator.local>",
    };
    // The programs as course:publish writes them: the students' view names each one's program.
    expect(
      (
        await admin.from("course_programs").insert([
          { product_key: "GROWTH_MINDSET", program: "growth-mindset", name: "Growth Mindset Mastery" },
          { product_key: "OS_ACCELERATOR", program: "os-accelerator", name: "Advisor OS Accelerator" },
        ])
      ).error,
    ).toBeNull();
    await account("buyer");
    await account("other");
    await account("coach");
    await account("boss");
    await order("buyer", "GROWTH_MINDSET", 30000);
    await order("other", "OS_ACCELERATOR", 299900, "refunded");
    // Three lessons done, and the fourth's video part-watched: the buyer's progress.
    expect(
      (
        await admin.from("lesson_progress").insert([
          { user_id: users.buyer!.id, lesson_id: "growth-mindset/one", completed: true, video_position: 0 },
          { user_id: users.buyer!.id, lesson_id: "growth-mindset/two", completed: true, video_position: 0 },
          { user_id: users.buyer!.id, lesson_id: "growth-mindset/three", completed: true, video_position: 0 },
          { user_id: users.buyer!.id, lesson_id: "growth-mindset/four", completed: false, video_position: 95 },
        ])
      ).error,
    ).toBeNull();
    const lead = await admin
      .from("leads")
      .insert({ name: "Lena Lead", email: "lena.lead@example.com", page: "/get-started", utm_source: "newsletter" })
      .select("id")
      .single();
    expect(lead.error).toBeNull();
    leadId = lead.data!.id as string;
    await addStaff(admin, env, SITE, users.coach!.email, "coach");
    await addStaff(admin, env, SITE, users.boss!.email, "admin");
  }, 120_000);

  afterAll(() => stack?.stop());

  describe("npm run staff", () => {
    it("add: a new address gets an account and the team's e-mail, whose button is an invite link that signs them in as staff", async () => {
      const email = "new.coach@example.com";
      const report = await addStaff(admin, env, SITE, "  New.Coach@Example.com ", "coach");
      expect(report).toEqual({ email, role: "coach", previousRole: null, invited: true });
      const mail = stack.mail.list().filter((m) => m.to === email);
      expect(mail.map((m) => m.subject)).toEqual(["You are on the Advisor Accelerator team: set your password"]);
      const link = new URL(/href="([^"]+reset-password[^"]+)"/.exec(mail[0]!.html)![1]!.replace(/&amp;/g, "&"));
      expect(link.origin + link.pathname).toBe(`${SITE}/reset-password`);
      expect(link.searchParams.get("type")).toBe("invite");
      // Continue on /reset-password verifies the hash: a session of the new account, which is staff.
      const client = stack.client();
      const verified = await client.auth.verifyOtp({
        token_hash: link.searchParams.get("token_hash")!,
        type: "invite",
      });
      expect(verified.error).toBeNull();
      expect(verified.data.user?.email).toBe(email);
      expect((await client.from("staff").select("role")).data).toEqual([{ role: "coach" }]);
      expect((await client.rpc("is_staff", { p_role: "coach" })).data).toBe(true);
      expect((await client.rpc("is_staff", { p_role: "admin" })).data).toBe(false);
    });

    it("add for someone with a password: no invite, an e-mail that the desk is theirs; again with another role changes it", async () => {
      const first = stack.mail.list().filter((m) => m.to === users.coach!.email);
      expect(first.map((m) => m.subject)).toEqual(["You are on the Advisor Accelerator team"]);
      expect(first[0]!.html).toContain(`${SITE}/desk`);
      expect(first[0]!.html).not.toContain("reset-password");
      const email = "switch@example.com";
      expect(
        (await admin.auth.admin.createUser({ email, password: "pw-switch-2026", email_confirm: true })).error,
      ).toBeNull();
      expect((await addStaff(admin, env, SITE, email, "coach")).previousRole).toBeNull();
      expect(await addStaff(admin, env, SITE, email, "admin")).toMatchObject({ previousRole: "coach", role: "admin" });
      expect((await listStaff(admin)).find((m) => m.email === email)?.role).toBe("admin");
    });

    it("remove: takes the role away, the account stays; the person reads nothing of the desk after", async () => {
      const email = "leaving@example.com";
      const password = "pw-leaving-2026";
      const created = await admin.auth.admin.createUser({ email, password, email_confirm: true });
      expect(created.error).toBeNull();
      await addStaff(admin, env, SITE, email, "admin");
      const client = stack.client();
      expect((await client.auth.signInWithPassword({ email, password })).error).toBeNull();
      expect((await client.from("leads").select("id")).data).toHaveLength(1);
      expect(await removeStaff(admin, email)).toBe("admin");
      expect((await client.from("leads").select("id")).data).toEqual([]);
      expect((await listStaff(admin)).map((m) => m.email)).not.toContain(email);
      expect((await admin.auth.admin.getUserById(created.data.user!.id)).data.user?.email).toBe(email);
    });

    it("refuses a role that is not coach or admin, an address that is not one, and removing someone not on the team, changing nothing", async () => {
      const before = await listStaff(admin);
      const mails = stack.mail.list().length;
      await expect(addStaff(admin, env, SITE, "x@example.com", "owner")).rejects.toThrow(
        new StaffError('The role must be coach or admin, not "owner".'),
      );
      await expect(addStaff(admin, env, SITE, "not-an-address", "coach")).rejects.toThrow(
        new StaffError('"not-an-address" is not an e-mail address.'),
      );
      await expect(removeStaff(admin, users.buyer!.email)).rejects.toThrow(
        new StaffError(`${users.buyer!.email} is not on the team.`),
      );
      expect(await listStaff(admin)).toEqual(before);
      expect(stack.mail.list()).toHaveLength(mails);
    });

    it("the command: on the local stack when SUPABASE_URL is unset, its e-mail in the outbox; a mistake exits 1 saying what, a wrong call 2 with the usage", async () => {
      const port = new URL(stack.url).port;
      const run = async (...args: string[]) => {
        const environment: NodeJS.ProcessEnv = { ...process.env, PORT: port, DATA_DIR: stack.dataDir };
        delete environment.SUPABASE_URL;
        delete environment.SUPABASE_SERVICE_ROLE_KEY;
        try {
          const { stdout } = await promisify(execFile)(process.execPath, ["scripts/staff.ts", ...args], {
            env: environment,
          });
          return { code: 0, out: stdout };
        } catch (error) {
          const failed = error as { code: number; stdout: string; stderr: string };
          return { code: failed.code, out: failed.stdout + failed.stderr };
        }
      };
      const added = await run("add", "cli.coach@example.com", "--role", "coach");
      expect(added).toEqual({
        code: 0,
        out:
          `cli.coach@example.com: added as coach, on the local stack at http://localhost:${port} (SUPABASE_URL is not set).\n` +
          `E-mailed a link to set a password; the desk is at http://localhost:${port}/desk.\n`,
      });
      expect(stack.mail.list().filter((m) => m.to === "cli.coach@example.com")).toHaveLength(1);
      expect((await run("list")).out).toMatch(
        /^coach +cli\.coach@example\.com +\(since \d{4}-\d{2}-\d{2}, never signed in\)$/m,
      );
      expect(await run("add", "x@example.com", "--role", "owner")).toEqual({
        code: 1,
        out: 'The role must be coach or admin, not "owner".\n',
      });
      expect((await run("add", "x@example.com")).out).toBe("Say which role: --role admin or --role coach.\n");
      expect(await run("remove", "nobody@example.com")).toEqual({
        code: 1,
        out: "nobody@example.com is not on the team.\n",
      });
      const usage = await run("promote", "x@example.com");
      expect(usage.code).toBe(2);
      expect(usage.out).toContain("npm run staff -- add <email> --role admin|coach");
      expect((await run("remove", "cli.coach@example.com")).out).toBe(
        "cli.coach@example.com: no longer on the team (was coach). Their account stays.\n",
      );
    });

    it("its database functions are the service role's alone: a customer or an anonymous caller cannot make anyone staff", async () => {
      for (const [who, client] of [
        ["customer", users.buyer!.client],
        ["anon", stack.client()],
      ] as const) {
        const add = await client.rpc("staff_add", { p_email: users.buyer!.email, p_role: "admin" });
        leaks.count(!add.error);
        expect(add.status, who).toBe(who === "anon" ? 401 : 403);
        const list = await client.rpc("staff_list");
        leaks.count(!list.error);
        expect(list.status, who).toBe(who === "anon" ? 401 : 403);
      }
      expect((await users.buyer!.client.from("staff").select("role")).data).toEqual([]);
      // Nor by writing the table.
      const insert = await users.buyer!.client.from("staff").insert({ user_id: users.buyer!.id, role: "admin" });
      leaks.count(!insert.error);
      expect(insert.status).toBe(403);
    });
  });

  describe("what each caller reads", () => {
    it("an admin reads the leads, every order with its buyer, and every student", async () => {
      const boss = users.boss!.client;
      const leads = await boss.from("leads").select("name, email, status, utm_source").eq("id", leadId);
      expect(leads.data).toEqual([
        { name: "Lena Lead", email: "lena.lead@example.com", status: "new", utm_source: "newsletter" },
      ]);
      // Not the e-mails' bookkeeping: those columns are not granted.
      expect((await boss.from("leads").select("notify_error")).status).toBe(403);
      const orders = await boss.from("desk_orders").select("email, product_key, amount_total, status").order("email");
      expect(orders.data).toEqual([
        { email: users.buyer!.email, product_key: "GROWTH_MINDSET", amount_total: 30000, status: "completed" },
        { email: users.other!.email, product_key: "OS_ACCELERATOR", amount_total: 299900, status: "refunded" },
      ]);
      expect((await boss.from("desk_students").select("email").order("email")).data).toEqual([
        { email: users.buyer!.email },
        { email: users.other!.email },
      ]);
    });

    it("a coach reads the students and their progress, and nothing of leads or orders", async () => {
      const coach = users.coach!.client;
      const students = await coach
        .from("desk_students")
        .select("email, program, status, lessons_completed, last_lesson_id, last_active_at, last_sign_in_at")
        .eq("product_key", "GROWTH_MINDSET");
      expect(students.error).toBeNull();
      expect(students.data).toEqual([
        expect.objectContaining({
          email: users.buyer!.email,
          program: "growth-mindset",
          status: "completed",
          lessons_completed: 3,
          last_lesson_id: "growth-mindset/four",
        }),
      ]);
      expect(students.data![0]!.last_sign_in_at).not.toBeNull();
      expect(
        (await coach.from("lesson_progress").select("lesson_id").eq("user_id", users.buyer!.id)).data,
      ).toHaveLength(4);
      for (const table of ["leads", "lead_events", "desk_orders", "stripe_payment_reviews", "stripe_disputes"]) {
        const { data, error } = await coach.from(table).select("*");
        leaks.count(!error && data!.length > 0);
        expect(error ? [] : data, `coach reads ${table}`).toEqual([]);
      }
      expect((await coach.from("stripe_orders").select("amount_total")).data).toEqual([]);
      expect((await coach.rpc("desk_update_lead", { p_id: leadId, p_status: "won", p_note: "" })).status).toBe(403);
    });

    it("a customer's token reads zero rows of the desk, their own profile and progress only, and no one's e-mail", async () => {
      const buyer = users.buyer!.client;
      for (const table of [...DESK_READS, "staff"]) {
        const { data, error } = await buyer.from(table).select("*");
        leaks.count(!error && data!.length > 0);
        expect(error ? [] : data, `customer reads ${table}`).toEqual([]);
      }
      expect((await buyer.from("profiles").select("id")).data?.every((row) => row.id === users.buyer!.id)).toBe(true);
      expect((await buyer.from("lesson_progress").select("user_id")).data).toHaveLength(4);
      expect((await users.other!.client.from("lesson_progress").select("user_id")).data).toEqual([]);
      expect((await buyer.from("stripe_user_orders").select("product_key")).data).toEqual([
        { product_key: "GROWTH_MINDSET" },
      ]);
      expect((await buyer.rpc("desk_email", { p_user: users.other!.id })).data).toBeNull();
      expect((await buyer.rpc("is_staff", { p_role: "coach" })).data).toBe(false);
    });

    it("the anon key reads nothing of the desk", async () => {
      const anon = stack.client();
      for (const table of [...DESK_READS, "staff", "profiles", "lesson_progress"]) {
        const { data, error } = await anon.from(table).select("*");
        leaks.count(!error && data!.length > 0);
        expect(error ? [] : data, `anon reads ${table}`).toEqual([]);
      }
      expect((await anon.rpc("desk_email", { p_user: users.buyer!.id })).status).toBe(401);
    });
  });

  describe("a lead's status and note", () => {
    it("an admin changes them; each change is kept with who made it and when", async () => {
      const boss = users.boss!.client;
      const changed = await boss.rpc("desk_update_lead", {
        p_id: leadId,
        p_status: "contacted",
        p_note: "Left a voicemail",
      });
      expect(changed.error).toBeNull();
      expect(changed.data).toMatchObject({ id: leadId, status: "contacted", note: "Left a voicemail" });
      expect((changed.data as { status_changed_at: string | null }).status_changed_at).not.toBeNull();
      await boss.rpc("desk_update_lead", { p_id: leadId, p_status: "contacted", p_note: "Call booked for Tuesday" });
      const history = await boss
        .from("lead_events")
        .select("status, note, user_email, created_at")
        .eq("lead_id", leadId)
        .order("id");
      expect(history.data?.map(({ status, note, user_email }) => ({ status, note, user_email }))).toEqual([
        { status: "contacted", note: "Left a voicemail", user_email: users.boss!.email },
        { status: "contacted", note: "Call booked for Tuesday", user_email: users.boss!.email },
      ]);
    });

    it("anyone else is refused (403, or 401 for anon), a bad status or an unknown lead is a clear error, and nothing changes", async () => {
      const read = async () =>
        (await users.boss!.client.from("leads").select("status, note").eq("id", leadId).single()).data;
      const before = await read();
      for (const [who, client, status] of [
        ["customer", users.buyer!.client, 403],
        ["coach", users.coach!.client, 403],
        ["anon", stack.client(), 401],
      ] as const) {
        const tried = await client.rpc("desk_update_lead", { p_id: leadId, p_status: "lost", p_note: "" });
        leaks.count(!tried.error);
        expect(tried.status, who).toBe(status);
      }
      const boss = users.boss!.client;
      const bad = await boss.rpc("desk_update_lead", { p_id: leadId, p_status: "maybe", p_note: "" });
      expect([bad.status, bad.error?.message]).toEqual([
        400,
        `A lead's status is new, contacted, booked, won or lost, not "maybe"`,
      ]);
      const missing = await boss.rpc("desk_update_lead", {
        p_id: "00000000-0000-4000-8000-000000000000",
        p_status: "won",
        p_note: "",
      });
      expect(missing.status).toBe(404);
      const long = await boss.rpc("desk_update_lead", { p_id: leadId, p_status: "won", p_note: "x".repeat(2001) });
      expect(long.status).toBe(400);
      expect(await read()).toEqual(before);
    });
  });
});
