/**
 * The bench's desk data (tools/bench/desk-data.ts), small: what it writes is what the desk reads,
 * through the same policies, as an admin over HTTP with the desk's own queries' shape (a page of
 * 25 and the total, newest first). Its budget sits beside the portal's.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_STAFF, startTestStack, type TestStack } from "@advisor-accelerator/local-stack";
import { BUDGETS, checkDesk } from "../../tools/bench/budgets.ts";
import { seedDeskData } from "../../tools/bench/desk-data.ts";
import { portalResult, TARGETS } from "../../tools/bench/portal.ts";

describe("the bench's desk data", () => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await startTestStack({ name: "PGlite" }, { seed: true, stripe: { catalogue: false } });
  }, 60_000);
  afterAll(() => stack?.stop());

  it("writes students with orders and progress, and leads, that the demo admin reads a page at a time", async () => {
    // The programs as the bench's course publish writes them: the students' view names each one's program.
    await stack.db.exec(`
      insert into public.course_programs (product_key, program, name) values
        ('GROWTH_MINDSET', 'growth-mindset', 'Growth Mindset Mastery'),
        ('OS_ACCELERATOR', 'os-accelerator', 'Advisor OS Accelerator'),
        ('AI_ACCELERATOR', 'ai-advisor-accelerator', 'AI Advisor Accelerator')`);
    const report = await seedDeskData(stack.db, { students: 300, leads: 1_000 });
    expect(report).toMatchObject({ students: 300, leads: 1_000 });
    const admin = stack.client();
    expect((await admin.auth.signInWithPassword(DEMO_STAFF)).error).toBeNull();

    const leads = await admin
      .from("leads")
      .select("id, name, status", { count: "exact" })
      .order("created_at", { ascending: false })
      .range(0, 24);
    expect(leads.error).toBeNull();
    expect(leads.data).toHaveLength(25);
    // The demo's own leads are none: the bench's 1,000 and nothing else.
    expect(leads.count).toBe(1_000);
    expect(
      (await admin.from("leads").select("id", { count: "exact", head: true }).eq("status", "contacted")).count,
    ).toBe(200);

    const students = await admin
      .from("desk_students")
      .select("email, lessons_completed, last_activity_at", { count: "exact" })
      .eq("product_key", "GROWTH_MINDSET")
      .order("purchased_at", { ascending: false })
      .range(0, 24);
    expect(students.error).toBeNull();
    // A hundred bench students of the program, and the seeded demo customer.
    expect(students.count).toBe(101);
    const bench = students.data!.filter((s) => s.email?.endsWith("@bench.example"));
    expect(bench.length).toBeGreaterThan(0);
    expect(bench.every((s) => s.lessons_completed === (s.last_activity_at ? 2 : 0))).toBe(true);
    expect(bench.some((s) => s.lessons_completed === 2)).toBe(true);
    const notStarted = await admin
      .from("desk_students")
      .select("order_id", { count: "exact", head: true })
      .like("email", "%@bench.example")
      .is("last_activity_at", null);
    expect(notStarted.count).toBe(75);
  });

  it("times /desk to its first page of leads, under the portal's budget", () => {
    expect(TARGETS.desk).toEqual({ path: "/desk", mark: "desk-data-shown", data: [["leads", "/rest/v1/leads"]] });
    expect(BUDGETS.deskTimeToDataMs).toBe(BUDGETS.portalTimeToDataMs);
    const run = { ms: 0, requests: 8, preflights: 2, jsBytes: 90_000, jsBytesBeforeMark: 80_000, bytes: 120_000 };
    const fast = portalResult([{ ...run, ms: 1200 }], { path: "/desk" });
    expect(checkDesk(fast).map((b) => b.status)).toEqual(["PASS"]);
    const slow = portalResult([{ ...run, ms: BUDGETS.deskTimeToDataMs + 1 }], { path: "/desk" });
    expect(checkDesk(slow).map((b) => [b.status, b.offenders])).toEqual([
      ["WARN", [`/desk ${BUDGETS.deskTimeToDataMs + 1} ms`]],
    ]);
    expect(checkDesk(portalResult([{ error: "no mark" }], { path: "/desk" }))[0]!.status).toBe("FAIL");
  });
});
