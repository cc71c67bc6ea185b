import { describe, expect, it } from "vitest";
import type { OrderRow } from "~/lib/database";
import {
  AVATAR_MAX_BYTES,
  avatarPath,
  capitalise,
  checkAvatar,
  contactFields,
  contactValues,
  emailLocalPart,
  firstVisitNote,
  greetingName,
  isFirstVisit,
  loginRedirect,
  memberSince,
  MESSAGES,
  myCourses,
  newestFirst,
  orderDate,
  orderReference,
  ownAvatarUrl,
  portalStats,
  programOf,
  purchaseView,
  lessonsDone,
  lessonsTile,
  portalLessonHref,
  portalProgress,
  resumeLesson,
  courseAnchor,
  courseLink,
  courseStartDay,
  courseStarted,
  endedNote,
  hasAnyCourse,
  receiptLink,
  statusBadge,
  versionedUrl,
  welcomeHeading,
  type PortalProgram,
} from "./logic";

const PROGRAMS: PortalProgram[] = [
  {
    key: "GROWTH_MINDSET",
    name: "Growth Mindset Mastery",
    page: "/programs/growth-mindset",
    image: "/images/programs/growth-mindset.svg",
    imageAlt: "A rising line",
    description: "Rewire the beliefs that cap your production.",
    course: "/portal/courses/growth-mindset",
    lessons: [{ id: "growth-mindset/one" }, { id: "growth-mindset/two" }, { id: "growth-mindset/three" }],
  },
  {
    key: "AI_ACCELERATOR",
    name: "AI Advisor Accelerator",
    page: "/programs/ai-advisor-accelerator",
    image: "/images/programs/ai-advisor-accelerator.svg",
    imageAlt: "A spark",
    description: "Twelve weeks of cohort coaching.",
    course: "/portal/courses/ai-advisor-accelerator",
    // A cohort program: an orientation open at purchase, then a lesson a week.
    lessons: [
      { id: "ai-advisor-accelerator/orientation" },
      { id: "ai-advisor-accelerator/week-one", unlockWeek: 1 },
      { id: "ai-advisor-accelerator/week-two", unlockWeek: 2 },
    ],
  },
  {
    key: "OS_ACCELERATOR",
    name: "Advisor OS Accelerator",
    page: "/programs/advisor-os-accelerator",
    image: "/images/programs/os-accelerator.svg",
    imageAlt: "Gears",
    description: "Build the operating system of your firm.",
    course: "/portal/courses/os-accelerator",
    lessons: [{ id: "os-accelerator/one" }],
  },
];

let nextId = 1;
function order(status: OrderRow["order_status"], productKey: string, cents: number, date: string): OrderRow {
  const id = nextId++;
  return {
    customer_id: "cus_Test",
    order_id: id,
    checkout_session_id: `cs_test_${id}`,
    payment_intent_id: null,
    amount_subtotal: cents,
    amount_total: cents,
    currency: "usd",
    payment_status: status === "completed" ? "paid" : "unpaid",
    order_status: status,
    product_key: productKey,
    order_date: date,
    order_reference: null,
    receipt_url: null,
    cohort_start: null,
    status_changed_at: date,
    plan_name: null,
    plan_payments: null,
    plan_paid: null,
    plan_past_due_since: null,
    plan_paused: null,
    membership_monthly_cents: null,
    membership_starts_on: null,
    membership_ended_at: null,
  };
}

describe("welcome and member since", () => {
  it("welcomes with the local part of the e-mail", () => {
    expect(emailLocalPart("dana@example.com")).toBe("dana");
    expect(emailLocalPart("first.last+tag@example.co.uk")).toBe("first.last+tag");
    expect(emailLocalPart("no-at-sign")).toBe("no-at-sign");
    expect(emailLocalPart(undefined)).toBe("");
    expect(emailLocalPart("")).toBe("");
  });

  it("greets by the profile's first name, else by the local part of the e-mail", () => {
    expect(greetingName("Dana Whitaker", "demo@advisoraccelerator.com")).toBe("Dana");
    expect(greetingName("  Jean-Luc   Picard ", "x@example.com")).toBe("Jean-Luc");
    expect(greetingName("Cher", "x@example.com")).toBe("Cher");
    // A title or an initial first: the whole name, not "Dr." or "J.".
    expect(greetingName("Dr. Amara Okafor", "x@example.com")).toBe("Dr. Amara Okafor");
    expect(greetingName("J. Robert Oppenheimer", "x@example.com")).toBe("J. Robert Oppenheimer");
    for (const empty of [null, undefined, "", "   "])
      expect(greetingName(empty, "dana@example.com"), String(empty)).toBe("dana");
  });

  it("says Welcome on the first visit (from the set-password page), Welcome back after", () => {
    expect(isFirstVisit("?welcome=1")).toBe(true);
    expect(isFirstVisit("?x=2&welcome=1")).toBe(true);
    for (const search of ["", "?welcome=0", "?welcome=", "?welcome=yes", "?other=1"])
      expect(isFirstVisit(search), search).toBe(false);
    expect(welcomeHeading("Dana", true)).toBe("Welcome, Dana");
    expect(welcomeHeading("Dana", false)).toBe("Welcome back, Dana");
    expect(welcomeHeading("", false)).toBe("Welcome back");
  });

  it("points a first visit to the program just bought under My Courses", () => {
    const mine = myCourses(
      [
        order("completed", "OS_ACCELERATOR", 299_900, "2026-11-20T00:00:00Z"),
        order("completed", "GROWTH_MINDSET", 30_000, "2026-10-01T00:00:00Z"),
      ],
      PROGRAMS,
    );
    expect(firstVisitNote(mine)).toMatchObject({
      kind: "ready",
      course: { name: "Advisor OS Accelerator", course: "/portal/courses/os-accelerator" },
    });
    const clearing = myCourses([order("pending", "AI_ACCELERATOR", 1_500_000, "2026-11-20T00:00:00Z")], PROGRAMS);
    expect(firstVisitNote(clearing)).toMatchObject({ kind: "clearing", course: { name: "AI Advisor Accelerator" } });
    expect(firstVisitNote(myCourses([], PROGRAMS))).toEqual({ kind: "none" });
  });

  it("says the month and year the account was created, in en-US", () => {
    expect(memberSince("2026-10-14T09:30:00Z", "UTC")).toBe("October 2026");
    expect(memberSince("2026-01-01T00:30:00Z", "America/New_York")).toBe("December 2025");
    expect(memberSince(undefined)).toBe("");
    expect(memberSince("not a date")).toBe("");
  });

  it("writes an order's date short, in en-US", () => {
    expect(orderDate("2026-11-21T15:00:00Z", "UTC")).toBe("Nov 21, 2026");
    expect(orderDate(null)).toBe("");
  });
});

describe("stats and My Courses", () => {
  const orders = [
    order("pending", "AI_ACCELERATOR", 1_500_000, "2026-11-20T00:00:00Z"),
    order("refunded", "OS_ACCELERATOR", 299_900, "2026-11-10T00:00:00Z"),
    order("canceled", "OS_ACCELERATOR", 299_900, "2026-11-05T00:00:00Z"),
    order("failed", "OS_ACCELERATOR", 299_900, "2026-11-04T00:00:00Z"),
    order("completed", "GROWTH_MINDSET", 30_000, "2026-10-01T00:00:00Z"),
  ];

  it("counts programs owned and the total invested from completed orders only", () => {
    expect(portalStats(orders)).toEqual({ programsOwned: 1, totalInvested: "$300" });
    expect(portalStats([])).toEqual({ programsOwned: 0, totalInvested: "$0" });
  });

  it("counts a program bought twice once, and adds both payments", () => {
    const twice = [
      order("completed", "GROWTH_MINDSET", 30_000, "2026-10-01T00:00:00Z"),
      order("completed", "growth_mindset ", 19_999, "2026-10-02T00:00:00Z"),
      order("completed", "OS_ACCELERATOR", 299_900, "2026-10-03T00:00:00Z"),
    ];
    expect(portalStats(twice)).toEqual({ programsOwned: 2, totalInvested: "$3,498.99" });
  });

  it("lists completed programs as Active, pending ones as Processing, and never a refunded, canceled or failed one", () => {
    const { active, processing } = myCourses(orders, PROGRAMS);
    expect(active).toEqual([
      {
        key: "GROWTH_MINDSET",
        name: "Growth Mindset Mastery",
        page: "/programs/growth-mindset",
        image: "/images/programs/growth-mindset.svg",
        imageAlt: "A rising line",
        description: "Rewire the beliefs that cap your production.",
        course: "/portal/courses/growth-mindset",
        lessons: [{ id: "growth-mindset/one" }, { id: "growth-mindset/two" }, { id: "growth-mindset/three" }],
        status: "Active",
        purchasedAt: "2026-10-01T00:00:00Z",
      },
    ]);
    expect(processing.map((c) => [c.name, c.status])).toEqual([["AI Advisor Accelerator", "Processing"]]);
    expect(JSON.stringify({ active, processing })).not.toContain("Advisor OS Accelerator");
  });

  it("keeps a refunded program listed apart as Refunded, with when, and without a way into its course", () => {
    const refunded = { ...orders[1]!, status_changed_at: "2026-11-18T16:30:00Z" };
    const { active, ended } = myCourses([orders[0]!, refunded, orders[2]!, orders[3]!, orders[4]!], PROGRAMS);
    expect(ended).toEqual([
      {
        key: "OS_ACCELERATOR",
        name: "Advisor OS Accelerator",
        page: "/programs/advisor-os-accelerator",
        image: "/images/programs/os-accelerator.svg",
        imageAlt: "Gears",
        description: "Build the operating system of your firm.",
        status: "Refunded",
        endedAt: "2026-11-18T16:30:00Z",
      },
    ]);
    // No course and no lessons: the card cannot link into the course, and its lessons count nowhere.
    expect(ended[0]).not.toHaveProperty("course");
    expect(portalProgress(active, [{ lesson_id: "os-accelerator/one", completed: true }])).toEqual({
      done: 0,
      total: 3,
    });
    expect(endedNote(ended[0]!, "UTC")).toEqual({ what: "Refunded", day: "Nov 18, 2026", access: "access ended" });
  });

  it("lists a program held by a payment dispute as Disputed, its access paused", () => {
    const disputed = {
      ...order("disputed", "GROWTH_MINDSET", 30_000, "2026-10-01T00:00:00Z"),
      status_changed_at: "2026-10-20T12:00:00Z",
    };
    const { active, ended } = myCourses([disputed], PROGRAMS);
    expect(active).toEqual([]);
    expect(ended.map((c) => [c.key, c.status, c.endedAt])).toEqual([
      ["GROWTH_MINDSET", "Disputed", "2026-10-20T12:00:00Z"],
    ]);
    expect(endedNote(ended[0]!, "UTC")).toEqual({
      what: "Payment disputed",
      day: "Oct 20, 2026",
      access: "access paused during the dispute",
    });
    expect(endedNote({ status: "Refunded" })).toEqual({ what: "Refunded", day: "", access: "access ended" });
  });

  it("lists a program once: Active or Processing over its refunded or disputed orders; the newest of those decides", () => {
    const rebought = myCourses(
      [
        order("completed", "OS_ACCELERATOR", 299_900, "2026-12-01T00:00:00Z"),
        order("refunded", "OS_ACCELERATOR", 299_900, "2026-11-01T00:00:00Z"),
        order("pending", "GROWTH_MINDSET", 30_000, "2026-12-02T00:00:00Z"),
        order("refunded", "GROWTH_MINDSET", 30_000, "2026-10-01T00:00:00Z"),
        order("refunded", "AI_ACCELERATOR", 1_500_000, "2026-09-01T00:00:00Z"),
        order("disputed", "AI_ACCELERATOR", 1_500_000, "2026-09-05T00:00:00Z"),
      ],
      PROGRAMS,
    );
    expect(rebought.active.map((c) => c.key)).toEqual(["OS_ACCELERATOR"]);
    expect(rebought.processing.map((c) => c.key)).toEqual(["GROWTH_MINDSET"]);
    expect(rebought.ended.map((c) => [c.key, c.status])).toEqual([["AI_ACCELERATOR", "Disputed"]]);
  });

  it("says 'no programs yet' only to a customer who never had one: a refund or a canceled checkout is not none", () => {
    expect(hasAnyCourse(myCourses([], PROGRAMS))).toBe(false);
    expect(hasAnyCourse(myCourses([order("canceled", "OS_ACCELERATOR", 1, "2026-11-01T00:00:00Z")], PROGRAMS))).toBe(
      false,
    );
    expect(hasAnyCourse(myCourses([order("refunded", "OS_ACCELERATOR", 1, "2026-11-01T00:00:00Z")], PROGRAMS))).toBe(
      true,
    );
  });

  it("names a cohort program's cohort: that of the earliest completed order, which the database counts from", () => {
    const later = {
      ...order("completed", "AI_ACCELERATOR", 1_500_000, "2027-02-01T00:00:00Z"),
      cohort_start: "2027-04-12",
    };
    const first = {
      ...order("completed", "AI_ACCELERATOR", 1_500_000, "2026-11-28T00:00:00Z"),
      cohort_start: "2027-01-11",
    };
    const refunded = {
      ...order("refunded", "AI_ACCELERATOR", 1_500_000, "2026-10-01T00:00:00Z"),
      cohort_start: "2026-10-12",
    };
    const { active } = myCourses([later, first, refunded], PROGRAMS);
    expect(active.map((c) => [c.key, c.cohortStart, c.purchasedAt])).toEqual([
      ["AI_ACCELERATOR", "2027-01-11", "2026-11-28T00:00:00Z"],
    ]);
    expect(myCourses(orders, PROGRAMS).active[0]).not.toHaveProperty("cohortStart");
  });

  it("shows a program once, and not as Processing when it is already Active", () => {
    const { active, processing } = myCourses(
      [
        order("pending", "GROWTH_MINDSET", 30_000, "2026-11-02T00:00:00Z"),
        order("completed", "GROWTH_MINDSET", 30_000, "2026-11-01T00:00:00Z"),
        order("completed", "GROWTH_MINDSET", 30_000, "2026-10-01T00:00:00Z"),
        order("pending", "AI_ACCELERATOR", 1_500_000, "2026-09-02T00:00:00Z"),
        order("pending", "AI_ACCELERATOR", 1_500_000, "2026-09-01T00:00:00Z"),
      ],
      PROGRAMS,
    );
    expect(active.map((c) => c.key)).toEqual(["GROWTH_MINDSET"]);
    expect(processing.map((c) => c.key)).toEqual(["AI_ACCELERATOR"]);
  });

  it("shows a completed order of a program the catalogue no longer has, without a link", () => {
    const { active } = myCourses([order("completed", "RETIRED_COURSE", 1000, "2026-01-01T00:00:00Z")], PROGRAMS);
    expect(active).toEqual([
      { key: "RETIRED_COURSE", name: "Course Purchase", status: "Active", purchasedAt: "2026-01-01T00:00:00Z" },
    ]);
  });

  it("has nothing for a customer without orders", () => {
    expect(myCourses([], PROGRAMS)).toEqual({ active: [], processing: [], paused: [], ended: [] });
  });

  it("finds an order's program by its key, trimmed and case-insensitively", () => {
    expect(programOf(PROGRAMS, " growth_mindset ")?.name).toBe("Growth Mindset Mastery");
    expect(programOf(PROGRAMS, "NOPE")).toBeUndefined();
    expect(programOf(PROGRAMS, null)).toBeUndefined();
  });
});

describe("progress on the dashboard", () => {
  const rows = [
    { lesson_id: "growth-mindset/one", completed: true },
    { lesson_id: "growth-mindset/two", completed: false },
    { lesson_id: "os-accelerator/one", completed: true },
    { lesson_id: "growth-mindset/gone", completed: true },
  ];

  it("counts a course's lessons marked completed, not ones started or no longer in the course", () => {
    expect(lessonsDone(PROGRAMS[0]!.lessons, rows)).toEqual({ done: 1, total: 3 });
  });

  it("counts lessons across the programs the customer owns only (a refunded program's progress is not counted)", () => {
    const { active } = myCourses([order("completed", "GROWTH_MINDSET", 30_000, "2026-10-01T00:00:00Z")], PROGRAMS);
    expect(portalProgress(active, rows)).toEqual({ done: 1, total: 3 });
  });

  it("shows the tile as '3 of 18', and '0' (never '0 of 0') while no program owned has lessons", () => {
    expect(lessonsTile({ done: 3, total: 18 })).toBe("3 of 18");
    expect(lessonsTile({ done: 0, total: 18 })).toBe("0 of 18");
    expect(
      lessonsTile(
        portalProgress(
          myCourses([order("refunded", "OS_ACCELERATOR", 1, "2026-11-01T00:00:00Z")], PROGRAMS).active,
          rows,
        ),
      ),
    ).toBe("0");
  });
});

describe("where a course card opens", () => {
  const growth = PROGRAMS[0]!.lessons;
  const open = () => true;
  const row = (lesson_id: string, completed: boolean, updated_at: string) => ({ lesson_id, completed, updated_at });

  it("without progress: the first lesson", () => {
    expect(resumeLesson(growth, [], open)?.id).toBe("growth-mindset/one");
  });

  it("says Continue once the customer has worked in any lesson of the course, done or not; Start before", () => {
    expect(courseStarted(growth, [])).toBe(false);
    expect(courseStarted(growth, [row("os-accelerator/one", true, "2026-11-01T10:00:00Z")])).toBe(false);
    expect(courseStarted(growth, [row("growth-mindset/two", false, "2026-11-01T10:00:00Z")])).toBe(true);
  });

  it("the lesson last worked in, when it is not done: where the customer stopped, even past an earlier one left undone", () => {
    const rows = [
      row("growth-mindset/one", true, "2026-11-01T10:00:00Z"),
      row("growth-mindset/three", false, "2026-11-03T10:00:00Z"),
      row("growth-mindset/two", false, "2026-11-02T10:00:00Z"),
    ];
    expect(resumeLesson(growth, rows, open)?.id).toBe("growth-mindset/three");
  });

  it("when the lesson last worked in is done: the first lesson in course order not done", () => {
    const rows = [
      row("growth-mindset/one", true, "2026-11-01T10:00:00Z"),
      row("growth-mindset/two", false, "2026-11-02T10:00:00Z"),
      row("growth-mindset/three", true, "2026-11-03T10:00:00Z"),
    ];
    expect(resumeLesson(growth, rows, open)?.id).toBe("growth-mindset/two");
    // Two lessons last worked in at the same moment: the earlier in course order (not the first lesson, never opened).
    const tie = [
      row("growth-mindset/two", false, "2026-11-02T10:00:00Z"),
      row("growth-mindset/three", false, "2026-11-02T10:00:00Z"),
    ];
    expect(resumeLesson(growth, tie, open)?.id).toBe("growth-mindset/two");
  });

  it("ignores rows of lessons no longer in the course, and of other courses", () => {
    const rows = [
      row("growth-mindset/gone", false, "2026-12-01T10:00:00Z"),
      row("os-accelerator/one", false, "2026-12-02T10:00:00Z"),
      row("growth-mindset/one", true, "2026-11-01T10:00:00Z"),
    ];
    expect(resumeLesson(growth, rows, open)?.id).toBe("growth-mindset/two");
  });

  it("none when every lesson is done, or the ones left are not open yet", () => {
    const done = growth.map((l, i) => row(l.id, true, `2026-11-0${i + 1}T10:00:00Z`));
    expect(resumeLesson(growth, done, open)).toBeNull();
    const onlyFirstOpen = (l: { id: string }) => l.id === "growth-mindset/one";
    expect(resumeLesson(growth, [row("growth-mindset/one", true, "2026-11-01T10:00:00Z")], onlyFirstOpen)).toBeNull();
    // The lesson last worked in, closed since (a cohort week not come): the first open one not done.
    expect(resumeLesson(growth, [row("growth-mindset/three", false, "2026-11-01T10:00:00Z")], onlyFirstOpen)?.id).toBe(
      "growth-mindset/one",
    );
  });

  it("opens the lesson's page, the outline while the progress loads and once all is done, the program's page without a course", () => {
    const [card] = myCourses([order("completed", "GROWTH_MINDSET", 30_000, "2026-10-01T00:00:00Z")], PROGRAMS).active;
    expect(courseLink(card!, [], "UTC")).toBe("/portal/courses/growth-mindset/one");
    expect(courseLink(card!, null, "UTC")).toBe("/portal/courses/growth-mindset");
    expect(courseLink(card!, [row("growth-mindset/one", true, "2026-11-01T10:00:00Z")], "UTC")).toBe(
      "/portal/courses/growth-mindset/two",
    );
    const all = growth.map((l) => row(l.id, true, "2026-11-01T10:00:00Z"));
    expect(courseLink(card!, all, "UTC")).toBe("/portal/courses/growth-mindset");
    expect(courseLink({ page: "/programs/x" }, [], "UTC")).toBe("/programs/x");
    expect(courseLink({}, [], "UTC")).toBeUndefined();
    expect(portalLessonHref({ id: "growth-mindset/name-your-call-reluctance" })).toBe(
      "/portal/courses/growth-mindset/name-your-call-reluctance",
    );
  });

  it("in a cohort course, skips the lessons whose week has not come, counted from the buyer's cohort", () => {
    const bought = {
      ...order("completed", "AI_ACCELERATOR", 1_500_000, "2026-12-20T15:00:00Z"),
      cohort_start: "2027-01-11",
    };
    const [card] = myCourses([bought], PROGRAMS).active;
    const orientationDone = [row("ai-advisor-accelerator/orientation", true, "2026-12-21T10:00:00Z")];
    const path = "/portal/courses/ai-advisor-accelerator";
    // Before the cohort starts: only the orientation is open; once it is done, the outline (which says when the rest opens).
    expect(courseLink(card!, [], "America/New_York", new Date("2027-01-10T12:00:00Z"))).toBe(`${path}/orientation`);
    expect(courseLink(card!, orientationDone, "America/New_York", new Date("2027-01-10T12:00:00Z"))).toBe(path);
    // Week one opens at midnight in the business's time zone on the cohort's first day, week two a week later.
    expect(courseLink(card!, orientationDone, "America/New_York", new Date("2027-01-11T04:59:00Z"))).toBe(path);
    expect(courseLink(card!, orientationDone, "America/New_York", new Date("2027-01-11T05:00:00Z"))).toBe(
      `${path}/week-one`,
    );
    const weekOneDone = [...orientationDone, row("ai-advisor-accelerator/week-one", true, "2027-01-12T10:00:00Z")];
    expect(courseLink(card!, weekOneDone, "America/New_York", new Date("2027-01-17T12:00:00Z"))).toBe(path);
    expect(courseLink(card!, weekOneDone, "America/New_York", new Date("2027-01-18T12:00:00Z"))).toBe(
      `${path}/week-two`,
    );
  });

  it("counts a self-paced course's weeks from the day of purchase, in the business's time zone, when there is no cohort", () => {
    expect(courseStartDay({ cohortStart: "2027-01-11", purchasedAt: "2026-12-20T15:00:00Z" }, "UTC")).toBe(
      "2027-01-11",
    );
    expect(courseStartDay({ purchasedAt: "2026-12-20T03:00:00Z" }, "America/New_York")).toBe("2026-12-19");
    expect(courseStartDay({}, "UTC")).toBeNull();
    expect(courseStartDay({ purchasedAt: "not a date" }, "UTC")).toBeNull();
    // Without a day to count from, no lesson with a week is open.
    const weekly = [{ id: "x/one", unlockWeek: 1 }];
    expect(courseLink({ course: "/portal/courses/x", lessons: weekly }, [], "UTC")).toBe("/portal/courses/x");
  });
});

describe("purchase history", () => {
  it("colours completed green, pending yellow, canceled red and anything else grey, labelled capitalised", () => {
    expect(statusBadge("completed")).toEqual({ label: "Completed", tone: "green" });
    expect(statusBadge("pending")).toEqual({ label: "Pending", tone: "yellow" });
    expect(statusBadge("canceled")).toEqual({ label: "Canceled", tone: "red" });
    expect(statusBadge("refunded")).toEqual({ label: "Refunded", tone: "grey" });
    expect(statusBadge("failed")).toEqual({ label: "Failed", tone: "grey" });
    expect(statusBadge(null)).toEqual({ label: "Unknown", tone: "grey" });
    expect(capitalise("REFUNDED")).toBe("Refunded");
  });

  it("shows an order with its program's name and image, its date and its amount in en-US from cents", () => {
    const view = purchaseView(order("completed", "AI_ACCELERATOR", 1_500_000, "2026-11-21T15:00:00Z"), PROGRAMS, "UTC");
    expect(view).toMatchObject({
      productName: "AI Advisor Accelerator",
      productImage: "/images/programs/ai-advisor-accelerator.svg",
      purchaseDate: "2026-11-21T15:00:00Z",
      purchaseDateText: "Nov 21, 2026",
      amount: "$15,000",
      status: { label: "Completed", tone: "green" },
      change: null,
      portalHref: "/portal#program-ai-accelerator",
    });
    const odd = purchaseView(
      { ...order("pending", "MYSTERY", 1999, "2026-11-21T15:00:00Z"), currency: "eur" },
      PROGRAMS,
    );
    expect(odd.productName).toBe("Course Purchase");
    expect(odd.productImage).toBeUndefined();
    expect(odd.amount).toBe("€19.99");
  });

  it("shows the order reference and Stripe's receipt where the view has them", () => {
    const view = purchaseView(
      {
        ...order("refunded", "OS_ACCELERATOR", 299_900, "2026-11-21T15:00:00Z"),
        order_reference: "3F9A27C1",
        receipt_url: "https://pay.stripe.com/receipts/payment/CAcaFwoVYWNjdF8x",
      },
      PROGRAMS,
      "UTC",
    );
    expect(view).toMatchObject({
      reference: "3F9A27C1",
      amount: "$2,999",
      status: { label: "Refunded", tone: "grey" },
      receiptUrl: "https://pay.stripe.com/receipts/payment/CAcaFwoVYWNjdF8x",
    });
    const bare = purchaseView(order("pending", "AI_ACCELERATOR", 1_500_000, "2026-11-21T15:00:00Z"), PROGRAMS);
    expect(bare.reference).toBeNull();
    expect(bare.receiptUrl).toBeNull();
  });

  it("shows only a reference of 8 hex digits, and only an http(s) receipt link", () => {
    expect(orderReference("3f9a27c1")).toBe("3F9A27C1");
    for (const value of [null, undefined, "", "3F9A27C", "3F9A27C1D", "ZZZZZZZZ", "<b>3F9A</b>"])
      expect(orderReference(value), String(value)).toBeNull();
    expect(receiptLink("https://pay.stripe.com/receipts/x")).toBe("https://pay.stripe.com/receipts/x");
    expect(receiptLink("http://localhost:4321/_local/stripe/receipts/x")).toBe(
      "http://localhost:4321/_local/stripe/receipts/x",
    );
    for (const value of [null, undefined, "", "javascript:alert(1)", "data:text/html,hi", "/receipts/x", "not a url"])
      expect(receiptLink(value), String(value)).toBeNull();
  });

  it("says when an order was refunded or disputed, and leads to its program on My Courses unless it never was there", () => {
    const refunded = purchaseView(
      {
        ...order("refunded", "OS_ACCELERATOR", 299_900, "2026-11-01T15:00:00Z"),
        status_changed_at: "2026-11-20T18:00:00Z",
      },
      PROGRAMS,
      "UTC",
    );
    expect(refunded.change).toEqual({ label: "Refunded on", date: "2026-11-20T18:00:00Z", dateText: "Nov 20, 2026" });
    expect(refunded.portalHref).toBe("/portal#program-os-accelerator");
    const disputed = purchaseView(
      {
        ...order("disputed", "GROWTH_MINDSET", 30_000, "2026-11-01T15:00:00Z"),
        status_changed_at: "2026-11-09T18:00:00Z",
      },
      PROGRAMS,
      "UTC",
    );
    expect(disputed.change).toEqual({
      label: "Payment disputed on",
      date: "2026-11-09T18:00:00Z",
      dateText: "Nov 9, 2026",
    });
    expect(
      purchaseView(
        { ...order("refunded", "OS_ACCELERATOR", 1, "2026-11-01T15:00:00Z"), status_changed_at: null },
        PROGRAMS,
      ).change,
    ).toBeNull();
    for (const status of ["canceled", "failed"] as const) {
      const view = purchaseView(order(status, "OS_ACCELERATOR", 1, "2026-11-01T15:00:00Z"), PROGRAMS);
      expect(view.portalHref, status).toBeNull();
      expect(view.change, status).toBeNull();
    }
    expect(purchaseView(order("pending", " growth_mindset ", 1, "2026-11-01T15:00:00Z"), PROGRAMS).portalHref).toBe(
      "/portal#program-growth-mindset",
    );
    expect(courseAnchor("GROWTH_MINDSET")).toBe("program-growth-mindset");
  });

  it("lists orders newest first", () => {
    const a = order("completed", "AI_ACCELERATOR", 1, "2026-01-01T00:00:00Z");
    const b = order("completed", "AI_ACCELERATOR", 1, "2026-03-01T00:00:00Z");
    const c = order("completed", "AI_ACCELERATOR", 1, "2026-02-01T00:00:00Z");
    expect(newestFirst([a, b, c]).map((o) => o.order_id)).toEqual([b.order_id, c.order_id, a.order_id]);
  });
});

describe("the guard", () => {
  it("sends a signed-out visitor to /login with the page to return to", () => {
    expect(loginRedirect("/portal/settings")).toBe("/login?next=%2Fportal%2Fsettings");
    expect(loginRedirect("/portal", "?tab=1")).toBe("/login?next=%2Fportal%3Ftab%3D1");
  });
});

describe("avatars", () => {
  it("accepts PNG, JPEG and WebP up to 2 MB, with the extension each is stored under", () => {
    expect(checkAvatar({ type: "image/png", size: 100 })).toEqual({ ok: true, ext: "png", contentType: "image/png" });
    expect(checkAvatar({ type: "image/jpeg", size: AVATAR_MAX_BYTES })).toEqual({
      ok: true,
      ext: "jpg",
      contentType: "image/jpeg",
    });
    expect(checkAvatar({ type: "image/webp", size: 1 })).toMatchObject({ ok: true, ext: "webp" });
  });

  it("refuses anything else, an empty file and a file over 2 MB, saying why", () => {
    for (const type of ["text/plain", "image/gif", "image/svg+xml", "application/pdf", ""]) {
      expect(checkAvatar({ type, size: 100 })).toEqual({
        ok: false,
        message: "Please choose a PNG, JPEG or WebP image.",
      });
    }
    expect(checkAvatar({ type: "image/png", size: AVATAR_MAX_BYTES + 1 })).toEqual({
      ok: false,
      message: "The image must be 2 MB or smaller.",
    });
    expect(checkAvatar({ type: "image/png", size: 0 })).toMatchObject({ ok: false });
    expect(MESSAGES.avatarError("The image must be 2 MB or smaller.")).toBe(
      "Error uploading avatar: The image must be 2 MB or smaller.",
    );
  });

  it("stores the avatar in the user's folder and versions its URL within what the database allows", () => {
    const id = "5f0d1c2e-8a3b-4c6d-9e7f-0a1b2c3d4e5f";
    expect(avatarPath(id, "png")).toBe(`${id}/${id}.png`);
    const url = `http://localhost:4321/storage/v1/object/public/avatars/${id}/${id}.png`;
    const versioned = versionedUrl(`${url}?v=1`, 1_790_000_000_123);
    expect(versioned).toBe(`${url}?v=1790000000123`);
    // The profiles_avatar_url_is_own_avatar check (supabase/migrations/20261123000100_hardening.sql).
    const allowed = new RegExp(
      `^http://localhost(:[0-9]{1,5})?/storage/v1/object/public/avatars/${id}/${id}\\.(png|jpg|jpeg|webp)(\\?[A-Za-z0-9=&._-]{0,100})?$`,
    );
    expect(versioned).toMatch(allowed);
  });
});

describe("whose avatar a page shows", () => {
  const id = "5f0d1c2e-8a3b-4c6d-9e7f-0a1b2c3d4e5f";
  const other = "7c1e2d3f-1111-4222-8333-444455556666";
  /** supabase-js's getPublicUrl for a project at `project` (`${project}/storage/v1/object/public/<bucket>/<path>`). */
  const storageOf = (project: string) => (path: string) => `${project}/storage/v1/object/public/avatars/${path}`;
  const hosted = storageOf("https://abcdefghijklmnopqrst.supabase.co");
  const local = storageOf("http://localhost:4321");

  it("in a production build: the hosted project's avatar of the user, and nothing on this machine", () => {
    const own = `${hosted(`${id}/${id}.png`)}?v=1790000000123`;
    expect(ownAvatarUrl(own, id, hosted)).toBe(own);
    for (const ext of ["jpg", "jpeg", "webp"])
      expect(ownAvatarUrl(hosted(`${id}/${id}.${ext}`), id, hosted)).not.toBeNull();
    // What the database's check lets a customer write through the API, refused here.
    for (const url of [
      `http://localhost:54321/storage/v1/object/public/avatars/${id}/${id}.png`,
      `http://127.0.0.1:4321/storage/v1/object/public/avatars/${id}/${id}.png`,
      `https://zyxwvutsrqponmlkjihg.supabase.co/storage/v1/object/public/avatars/${id}/${id}.png`,
    ]) {
      expect(ownAvatarUrl(url, id, hosted), url).toBeNull();
    }
  });

  it("in a local build: the local stack's, and not the hosted project's", () => {
    const own = local(`${id}/${id}.webp`);
    expect(ownAvatarUrl(own, id, local)).toBe(own);
    expect(ownAvatarUrl(hosted(`${id}/${id}.webp`), id, local)).toBeNull();
  });

  it("only the user's own file, with nothing but a short version after it", () => {
    for (const url of [
      hosted(`${other}/${other}.png`),
      hosted(`${id}/${other}.png`),
      hosted(`${id}/${id}.svg`),
      hosted(`${id}/${id}.png/../x.png`),
      `${hosted(`${id}/${id}.png`)}?v=1#x`,
      `${hosted(`${id}/${id}.png`)}?v=${"1".repeat(101)}`,
      `${hosted(`${id}/${id}.png`)}extra`,
      `${hosted(`${id}/${id}.png`)}?x=<script>`,
    ]) {
      expect(ownAvatarUrl(url, id, hosted), url).toBeNull();
    }
    expect(ownAvatarUrl(null, id, hosted)).toBeNull();
    expect(ownAvatarUrl("", id, hosted)).toBeNull();
  });
});

describe("the contact form", () => {
  it("fills the form from a profile, empty where it has nothing", () => {
    expect(contactValues({ full_name: "Dana Whitaker", city: "Austin", zip: null })).toEqual({
      full_name: "Dana Whitaker",
      address: "",
      address_2: "",
      city: "Austin",
      state: "",
      country: "",
      zip: "",
    });
    expect(contactValues(null).full_name).toBe("");
  });

  it("saves each field trimmed, an empty one as null, and nothing but the contact fields", () => {
    const saved = contactFields({ full_name: "  Dana  ", city: "", zip: " 78701 ", ...{ email: "x@y.z" } });
    expect(saved).toEqual({
      full_name: "Dana",
      address: null,
      address_2: null,
      city: null,
      state: null,
      country: null,
      zip: "78701",
    });
    expect(Object.keys(saved)).not.toContain("updated_at");
  });

  it("has the spec's messages", () => {
    expect(MESSAGES.profileSaved).toBe("Profile updated successfully!");
    expect(MESSAGES.profileError("boom")).toBe("Error updating profile: boom");
  });
});

describe("a payment plan in purchase history", () => {
  const payments = ["2026-11-28", "2026-12-28", "2027-01-28", "2027-02-28", "2027-03-28", "2027-04-28"].map((day) => ({
    day,
    amountCents: 600000,
  }));
  const planOrder = (paid: number, extra: Partial<OrderRow> = {}): OrderRow => ({
    ...order("completed", "AI_ACCELERATOR", 600000, "2026-11-28T15:00:00Z"),
    plan_name: "Six monthly payments",
    plan_payments: payments,
    plan_paid: paid,
    ...extra,
  });

  it("reads as a person reads it: how many are paid and the next, then paid in full", () => {
    const first = purchaseView(planOrder(1), PROGRAMS, "America/Chicago").plan!;
    expect(first.name).toBe("Six monthly payments");
    expect(first.line).toMatch(/^1 of 6 paid, next \$6,000 on December 28(, 2026)?$/);
    expect(purchaseView(planOrder(6), PROGRAMS).plan!.line).toBe("Paid in full");
    expect(purchaseView(order("completed", "AI_ACCELERATOR", 1, "2026-11-28T15:00:00Z"), PROGRAMS).plan).toBeNull();
  });

  it("says since when a payment is past due, in the business's day, and whether access is paused", () => {
    const late = purchaseView(
      planOrder(1, { plan_past_due_since: "2026-12-29T03:00:00Z", plan_paused: true }),
      PROGRAMS,
      "America/Chicago",
    ).plan!;
    expect(late.pastDue).toMatch(/^Past due since December 28(, 2026)?$/);
    expect(late.paused).toBe(true);
  });
});

describe("a membership in purchase history", () => {
  it("says what it costs a month and from when, then when it ended", () => {
    const member = (extra: Partial<OrderRow>) =>
      purchaseView(
        {
          ...order("completed", "AI_ACCELERATOR", 3500000, "2026-11-28T15:00:00Z"),
          membership_monthly_cents: 45000,
          membership_starts_on: "2027-04-11",
          ...extra,
        },
        PROGRAMS,
        "America/Chicago",
      ).membership;
    // The year is written when it is not this one.
    expect(member({})).toMatch(/^Membership: \$450 a month from April 11(, 2027)?$/);
    expect(member({ membership_ended_at: "2027-06-01T02:00:00Z" })).toMatch(/^Membership ended on May 31(, 2027)?$/);
    expect(
      purchaseView(order("completed", "AI_ACCELERATOR", 1, "2026-11-28T15:00:00Z"), PROGRAMS).membership,
    ).toBeNull();
  });
});

describe("a plan paused for a payment past due, on My Courses", () => {
  it("is paused, without a way into the course, and says since when; another completed order of the program keeps it open", () => {
    const plan: OrderRow = {
      ...order("completed", "AI_ACCELERATOR", 600000, "2026-11-28T15:00:00Z"),
      plan_name: "Six monthly payments",
      plan_paused: true,
      plan_past_due_since: "2027-01-28T15:00:00Z",
    };
    const courses = myCourses([plan], PROGRAMS);
    expect(courses.active).toEqual([]);
    expect(courses.paused).toHaveLength(1);
    expect(courses.paused[0]).toMatchObject({ status: "Paused", endedAt: "2027-01-28T15:00:00Z" });
    expect(courses.paused[0]!.course).toBeUndefined();
    expect(hasAnyCourse(courses)).toBe(true);
    expect(endedNote(courses.paused[0]!, "UTC")).toEqual({
      what: "Payment past due",
      day: "Jan 28, 2027",
      access: "access paused until it is paid",
    });
    const bought = order("completed", "AI_ACCELERATOR", 1500000, "2026-10-01T15:00:00Z");
    const both = myCourses([plan, bought], PROGRAMS);
    expect([both.active.length, both.paused.length]).toEqual([1, 0]);
  });
});
