/**
 * The member area's access rule (supabase/migrations/*_member_area.sql), driven as the product
 * drives it: a course bundle published with the service role (`npm run course:publish`'s code),
 * then the real supabase-js over HTTP as each kind of caller: anonymous, a buyer, another
 * customer, a refunded buyer (and the same after a new purchase), cohort buyers before and after
 * a week opens. Through the REST API (course_lessons, lesson_progress, program_start_date) and
 * Storage (signed URLs of the private downloads bucket). On embedded Postgres and PostgreSQL.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SupabaseClient } from "@supabase/supabase-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, startTestStack, type TestStack } from "@advisor-accelerator/local-stack";
import {
  BUNDLE_FILE,
  type BundleLesson,
  type BundleProgram,
  COURSE_BUNDLE_VERSION,
} from "../../src/features/course/bundle.ts";
import { addDays, dayIn } from "@advisor-accelerator/shared/cohort.ts";
import { publishCourse } from "../../src/features/course/publish.server.ts";
import { LINK_SECONDS } from "../../functions/course-download/handler.ts";
import { claimsOf } from "../../packages/shared/jwt.ts";
import { logTallies, Tally } from "../support/hostile.ts";

const ZONE = "America/Chicago";
const PDF = Buffer.from("%PDF-1.4\n% a worksheet\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n");

const lesson = (id: string, extra: Partial<BundleLesson> = {}): BundleLesson => ({
  id,
  module: 1,
  position: 1,
  title: `The lesson ${id}`,
  duration_minutes: 12,
  summary: "What the lesson gives the advisor.",
  body_html: `<p>The body of ${id}, for its readers only.</p>`,
  video: null,
  downloads: [],
  free_preview: false,
  unlock_week: null,
  ...extra,
});

/** A self-paced program with a free preview and a download, and two cohort programs. */
function programs(starts: string[]): BundleProgram[] {
  return [
    {
      program: "growth-mindset",
      product_key: "GROWTH_MINDSET",
      name: "Growth Mindset Mastery",
      cohort_starts: [],
      time_zone: ZONE,
      lessons: [
        lesson("growth-mindset/preview", { free_preview: true }),
        lesson("growth-mindset/worksheet", {
          position: 2,
          video: { provider: "wistia", id: "h3m9pz6c2d" },
          downloads: [{ title: "Worksheet", path: "growth-mindset/worksheet.pdf", type: "application/pdf" }],
        }),
        lesson("growth-mindset/later", { module: 2 }),
      ],
    },
    {
      // Lessons count from the day of purchase: no cohort start is listed.
      program: "os-accelerator",
      product_key: "OS_ACCELERATOR",
      name: "Advisor OS Accelerator",
      cohort_starts: [],
      time_zone: ZONE,
      lessons: [
        lesson("os-accelerator/week-three", { unlock_week: 3 }),
        lesson("os-accelerator/week-four", { position: 2, unlock_week: 4 }),
      ],
    },
    {
      // A cohort starting in the future: buyers wait for it.
      program: "ai-advisor-accelerator",
      product_key: "AI_ACCELERATOR",
      name: "AI Advisor Accelerator",
      cohort_starts: starts,
      time_zone: ZONE,
      lessons: [
        lesson("ai-advisor-accelerator/orientation"),
        lesson("ai-advisor-accelerator/week-one", { position: 2, unlock_week: 1 }),
      ],
    },
  ];
}

/** Writes a bundle as the build writes it (its folder beside the output), with the download's file. */
function writeBundle(dir: string, list: BundleProgram[], pdf = PDF) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, "downloads", "growth-mindset"), { recursive: true });
  writeFileSync(join(dir, BUNDLE_FILE), JSON.stringify({ version: COURSE_BUNDLE_VERSION, programs: list }));
  writeFileSync(join(dir, "downloads", "growth-mindset", "worksheet.pdf"), pdf);
}

describe.each(BACKENDS)("the member area on $name", (backend) => {
  let stack: TestStack;
  let admin: SupabaseClient;
  let dir: string;
  const cohortDay = addDays(dayIn(ZONE), 30);
  const clients: Record<string, SupabaseClient> = {};
  const ids: Record<string, string> = {};

  /**
   * A confirmed customer, signed in, with completed orders placed `daysAgo` days ago; a cohort
   * program's order with the cohort the webhook recorded (`cohortStart`).
   */
  async function customer(
    name: string,
    orders: { product: string; daysAgo: number; status?: string; cohortStart?: string }[],
  ) {
    const email = `${name}@example.com`;
    const password = `pw-${name}-2026`;
    const created = await admin.auth.admin.createUser({ email, password, email_confirm: true });
    expect(created.error).toBeNull();
    const id = created.data.user!.id;
    ids[name] = id;
    if (orders.length) {
      expect(
        (await admin.from("stripe_customers").insert({ user_id: id, customer_id: `cus_${name}` })).error,
      ).toBeNull();
      for (const [i, order] of orders.entries())
        await placeOrder(name, order.product, order.daysAgo, order.status, i, order.cohortStart);
    }
    const client = stack.client();
    expect((await client.auth.signInWithPassword({ email, password })).error).toBeNull();
    clients[name] = client;
  }

  async function placeOrder(
    name: string,
    product: string,
    daysAgo: number,
    status = "completed",
    n = 0,
    cohortStart?: string,
  ) {
    const { error } = await admin.from("stripe_orders").insert({
      checkout_session_id: `cs_test_${name}_${n}_${Date.now()}`,
      customer_id: `cus_${name}`,
      product_key: product,
      amount_subtotal: 30000,
      amount_total: 30000,
      currency: "usd",
      payment_status: "paid",
      status,
      created_at: new Date(Date.now() - daysAgo * 86_400_000).toISOString(),
      ...(cohortStart ? { cohort_start: cohortStart } : {}),
    });
    expect(error).toBeNull();
  }

  /** The ids of the lessons `who` can read, through the REST API, sorted. */
  async function readable(who: SupabaseClient): Promise<string[]> {
    const { data, error } = await who.from("course_lessons").select("id, body_html");
    expect(error).toBeNull();
    for (const row of data!) expect(row.body_html).toContain(`The body of ${row.id}`);
    return data!.map((row) => row.id).sort();
  }

  beforeAll(async () => {
    stack = await startTestStack(backend, { stripe: { catalogue: false }, seed: false });
    admin = stack.admin();
    dir = mkdtempSync(join(tmpdir(), "course-bundle-"));
    writeBundle(dir, programs([cohortDay]));
    await publishCourse(admin, dir);
    await customer("buyer", [{ product: "GROWTH_MINDSET", daysAgo: 3 }]);
    await customer("other", []);
    await customer("refunded", [{ product: "GROWTH_MINDSET", daysAgo: 10, status: "refunded" }]);
    await customer("dripped", [{ product: "OS_ACCELERATOR", daysAgo: 20 }]);
    await customer("cohort", [{ product: "AI_ACCELERATOR", daysAgo: 1, cohortStart: cohortDay }]);
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  describe("course:publish", () => {
    it("a second run of the same bundle changes nothing: no lesson written, no file sent", async () => {
      const before = await admin.from("course_lessons").select("id, updated_at").order("id");
      const report = await publishCourse(admin, dir);
      expect(report.programs.map((p) => [p.added, p.updated, p.removed])).toEqual([
        [0, 0, 0],
        [0, 0, 0],
        [0, 0, 0],
      ]);
      expect(report.programs.map((p) => p.unchanged)).toEqual([3, 2, 2]);
      expect(report).toMatchObject({ uploaded: [], unchangedFiles: 1, deletedFiles: [] });
      expect((await admin.from("course_lessons").select("id, updated_at").order("id")).data).toEqual(before.data);
    });

    it("hides a lesson that left content, shows it again when it returns, and replaces a changed file", async () => {
      const without = programs([cohortDay]);
      without[0]!.lessons = without[0]!.lessons.filter((l) => l.id !== "growth-mindset/later");
      writeBundle(dir, without, Buffer.concat([PDF, Buffer.from("% revised\n")]));
      const report = await publishCourse(admin, dir);
      expect(report.programs[0]).toMatchObject({ removed: 1, added: 0, updated: 0 });
      expect(report.uploaded).toEqual(["growth-mindset/worksheet.pdf"]);
      expect(await readable(clients.buyer!)).not.toContain("growth-mindset/later");

      writeBundle(dir, programs([cohortDay]));
      expect((await publishCourse(admin, dir)).programs[0]).toMatchObject({ updated: 1, removed: 0 });
      expect(await readable(clients.buyer!)).toContain("growth-mindset/later");
    });

    it("is refused to anyone but the service role", async () => {
      const { error } = await clients.buyer!.rpc("publish_course", { p_program: {}, p_lessons: [] });
      expect(error?.code).toBe("42501");
    });
  });

  describe("who reads a lesson", () => {
    it("nobody signed out: the anonymous role has no access to lessons at all", async () => {
      const { data, error } = await stack.client().from("course_lessons").select("id");
      expect(data).toBeNull();
      expect(error?.code).toBe("42501");
    });

    it("a buyer reads every lesson of their program, and only the free previews of others", async () => {
      expect(await readable(clients.buyer!)).toEqual([
        "growth-mindset/later",
        "growth-mindset/preview",
        "growth-mindset/worksheet",
      ]);
    });

    it("a signed-in customer without the program reads only the free preview", async () => {
      expect(await readable(clients.other!)).toEqual(["growth-mindset/preview"]);
      const { data } = await clients.other!.from("course_lessons").select("id").eq("id", "growth-mindset/worksheet");
      expect(data).toEqual([]);
      expect((await clients.other!.rpc("program_start_date", { p_product_key: "GROWTH_MINDSET" })).data).toBeNull();
    });

    it("a refund ends access at once, and a later purchase restores it", async () => {
      expect(await readable(clients.refunded!)).toEqual(["growth-mindset/preview"]);
      await placeOrder("refunded", "GROWTH_MINDSET", 0, "completed", 1);
      expect(await readable(clients.refunded!)).toContain("growth-mindset/worksheet");
      // The webhook records a refund (or a lost dispute) by moving the order out of completed.
      const { error } = await admin
        .from("stripe_orders")
        .update({ status: "refunded" })
        .eq("customer_id", "cus_refunded")
        .eq("status", "completed");
      expect(error).toBeNull();
      expect(await readable(clients.refunded!)).toEqual(["growth-mindset/preview"]);
    });

    it("a lesson with a week, in an order with no cohort, opens on its week counted from the day of purchase", async () => {
      const start = (await clients.dripped!.rpc("program_start_date", { p_product_key: "OS_ACCELERATOR" })).data;
      expect(start).toBe(dayIn(ZONE, new Date(Date.now() - 20 * 86_400_000)));
      // Day 20 of the course: week 3 (day 14) is open, week 4 (day 21) is not.
      expect(await readable(clients.dripped!)).toEqual(["growth-mindset/preview", "os-accelerator/week-three"]);
      const progress = await clients.dripped!.from("lesson_progress").insert({
        user_id: ids.dripped,
        lesson_id: "os-accelerator/week-four",
        completed: true,
      });
      expect(progress.error?.code).toBe("42501");
    });

    it("a cohort buyer waits for their cohort's start: only lessons without a week open before it", async () => {
      const start = (await clients.cohort!.rpc("program_start_date", { p_product_key: "AI_ACCELERATOR" })).data;
      expect(start).toBe(cohortDay);
      expect(await readable(clients.cohort!)).toEqual(["ai-advisor-accelerator/orientation", "growth-mindset/preview"]);
      const opens = await clients.cohort!.rpc("lesson_unlocks_at", {
        p_product_key: "AI_ACCELERATOR",
        p_unlock_week: 1,
      });
      // Midnight of the cohort's first day in the business's time zone.
      expect(new Date(opens.data as string).toLocaleString("en-CA", { timeZone: ZONE, hour12: false })).toMatch(
        new RegExp(`^${cohortDay}, (00|24):00:00$`),
      );
    });

    it("the cohort recorded with the order holds when content's dates change: the buyer was told that day", async () => {
      writeBundle(dir, programs([dayIn(ZONE)]));
      await publishCourse(admin, dir);
      try {
        expect((await clients.cohort!.rpc("program_start_date", { p_product_key: "AI_ACCELERATOR" })).data).toBe(
          cohortDay,
        );
        expect(await readable(clients.cohort!)).not.toContain("ai-advisor-accelerator/week-one");
      } finally {
        writeBundle(dir, programs([cohortDay]));
        await publishCourse(admin, dir);
      }
    });

    it("after the week comes (the order's cohort starts today), the lesson opens", async () => {
      const order = () =>
        admin
          .from("stripe_orders")
          .update({ cohort_start: dayIn(ZONE) })
          .eq("customer_id", "cus_cohort");
      expect((await order()).error).toBeNull();
      try {
        expect(await readable(clients.cohort!)).toContain("ai-advisor-accelerator/week-one");
      } finally {
        await admin.from("stripe_orders").update({ cohort_start: cohortDay }).eq("customer_id", "cus_cohort");
      }
    });
  });

  describe("progress", () => {
    it("a customer records and reads back their own progress in a lesson they may read", async () => {
      const saved = await clients
        .buyer!.from("lesson_progress")
        .upsert(
          { user_id: ids.buyer, lesson_id: "growth-mindset/worksheet", video_position: 95 },
          { onConflict: "user_id,lesson_id" },
        )
        .select()
        .single();
      expect(saved.error).toBeNull();
      expect(saved.data).toMatchObject({ completed: false, completed_at: null, video_position: 95 });
      const done = await clients
        .buyer!.from("lesson_progress")
        .upsert(
          { user_id: ids.buyer, lesson_id: "growth-mindset/worksheet", completed: true },
          { onConflict: "user_id,lesson_id" },
        )
        .select()
        .single();
      // completed_at is the database's; the position is kept.
      expect(done.data).toMatchObject({ completed: true, video_position: 95 });
      expect(Date.parse(done.data!.completed_at!)).toBeGreaterThan(Date.now() - 60_000);
    });

    it("a forged row for another user is refused, and nobody reads another's progress", async () => {
      const forged = await clients.other!.from("lesson_progress").insert({
        user_id: ids.buyer,
        lesson_id: "growth-mindset/preview",
        completed: true,
      });
      expect(forged.error?.code).toBe("42501");
      expect((await clients.other!.from("lesson_progress").select("*")).data).toEqual([]);
      const update = await clients
        .other!.from("lesson_progress")
        .update({ completed: false })
        .eq("user_id", ids.buyer!)
        .select();
      expect(update.data).toEqual([]);
      const mine = await clients.buyer!.from("lesson_progress").select("lesson_id, completed");
      expect(mine.data).toEqual([{ lesson_id: "growth-mindset/worksheet", completed: true }]);
    });

    it("a customer records no progress in a lesson they may not read", async () => {
      const { error } = await clients.other!.from("lesson_progress").insert({
        user_id: ids.other,
        lesson_id: "growth-mindset/worksheet",
        completed: true,
      });
      expect(error?.code).toBe("42501");
    });
  });

  describe("downloads (functions/course-download)", () => {
    const path = "growth-mindset/worksheet.pdf";
    const forged = new Tally("forged download lifetimes");
    afterAll(() => logTallies(forged));

    /** The player's call: the customer's supabase-js asks the function, with their access token. */
    const ask = async (who: SupabaseClient, file = path) => {
      const { data, error } = await who.functions.invoke<{ url: string; expires_in: number }>("course-download", {
        body: { path: file },
      });
      const status = (error as { context?: Response } | null)?.context?.status ?? 200;
      return { status, data };
    };
    /** The lifetime a signed URL's token gives it, in seconds (Storage signs `exp` and `iat`). */
    const lifetime = (url: string) => {
      const claims = claimsOf(new URL(url).searchParams.get("token")!)!;
      return Number(claims.exp) - Number(claims.iat);
    };

    it("a buyer gets a link the server signed for a minute, which downloads the file, and the download is logged", async () => {
      const { status, data } = await ask(clients.buyer!);
      expect(status).toBe(200);
      expect(data!.expires_in).toBe(LINK_SECONDS);
      expect(lifetime(data!.url)).toBe(LINK_SECONDS);
      const answer = await fetch(data!.url);
      expect(answer.status).toBe(200);
      expect(answer.headers.get("content-type")).toBe("application/pdf");
      expect(
        Buffer.from(await answer.arrayBuffer())
          .subarray(0, 8)
          .toString(),
      ).toBe("%PDF-1.4");
      const { rows } = await stack.db.query<{ path: string; ip: string | null }>(
        "select path, ip from public.download_log where user_id = $1",
        [ids.buyer],
      );
      expect(rows).toEqual([{ path, ip: expect.stringMatching(/^127\./) }]);
    });

    it("the browser cannot sign a link of the bucket itself, at any lifetime: the server's minute is the only one", async () => {
      // The red team's 10-year and 1,000-year links, asked of Storage with the buyer's own token.
      for (const seconds of [60, 10 * 365 * 86_400, 1000 * 365 * 86_400]) {
        const own = await clients.buyer!.storage.from("course-downloads").createSignedUrl(path, seconds);
        forged.count(own.data !== null);
        expect(own.data).toBeNull();
        expect(own.error).not.toBeNull();
      }
      // The function takes no lifetime from the caller.
      const { data, error } = await clients.buyer!.functions.invoke<{ url: string }>("course-download", {
        body: { path, expires_in: 315_360_000 },
      });
      expect(error).toBeNull();
      forged.count(lifetime(data!.url) !== LINK_SECONDS);
      expect(lifetime(data!.url)).toBe(LINK_SECONDS);
    });

    it("a customer without the program, a refunded one and anyone signed out get no link; the bucket has no public one", async () => {
      expect((await ask(clients.other!)).status).toBe(404);
      expect((await ask(clients.refunded!)).status).toBe(404);
      expect((await ask(stack.client())).status).toBe(401);
      // A file of no lesson, or a path that is not one, says no more than a file they may not have.
      expect((await ask(clients.buyer!, "growth-mindset/nothing-here.pdf")).status).toBe(404);
      expect((await ask(clients.buyer!, "../growth-mindset/worksheet.pdf")).status).toBe(400);
      const anonymous = await stack.client().storage.from("course-downloads").createSignedUrl(path, 60);
      expect(anonymous.data).toBeNull();
      const publicUrl = stack.client().storage.from("course-downloads").getPublicUrl(path).data.publicUrl;
      expect((await fetch(publicUrl)).ok).toBe(false);
    });

    it("after a refund, no new link: the last one lapses within the server's minute", async () => {
      await customer("refundlater", [{ product: "GROWTH_MINDSET", daysAgo: 2 }]);
      const before = await ask(clients["refundlater"]!);
      expect(before.status).toBe(200);
      await admin.from("stripe_orders").update({ status: "refunded" }).eq("customer_id", "cus_refundlater");
      expect((await ask(clients["refundlater"]!)).status).toBe(404);
      expect(lifetime(before.data!.url)).toBeLessThanOrEqual(LINK_SECONDS);
    });
  });
});
