import { describe, expect, it } from "vitest";
import { dayIn } from "@advisor-accelerator/shared/cohort.ts";
import {
  addDays,
  courseHref,
  courseProgress,
  formatDay,
  formatDuration,
  isOpen,
  lessonCount,
  lessonHref,
  neighbours,
  opensLabel,
  opensLater,
  type OutlineLesson,
  type OutlineModule,
  packModules,
  paymentPending,
  progressMap,
  resumeAt,
  unlockDay,
  unpackModules,
} from "./logic";

const lesson = (id: string, module: number, position: number, unlockWeek: number | null = null): OutlineLesson => ({
  id: `growth-mindset/${id}`,
  slug: id,
  href: lessonHref("growth-mindset", id),
  title: `Lesson ${id}`,
  summary: "What the lesson gives the advisor, in a sentence or two.",
  duration: 12,
  module,
  position,
  freePreview: false,
  unlockWeek,
  hasVideo: false,
  downloads: 0,
});

const LESSONS = [lesson("a", 1, 1), lesson("b", 1, 2), lesson("c", 2, 1), lesson("d", 2, 2)];
const row = (id: string, completed: boolean, video_position = 0) => ({
  lesson_id: `growth-mindset/${id}`,
  completed,
  video_position,
  updated_at: "2026-11-20T10:00:00Z",
});

describe("addresses", () => {
  it("puts a course and its lessons under /portal/courses", () => {
    expect(courseHref("growth-mindset")).toBe("/portal/courses/growth-mindset");
    expect(lessonHref("growth-mindset", "a")).toBe("/portal/courses/growth-mindset/a");
  });
});

describe("progress", () => {
  it("offers Start to a customer who has opened nothing", () => {
    expect(courseProgress(LESSONS, progressMap([]))).toEqual({
      done: 0,
      total: 4,
      percent: 0,
      started: false,
      next: LESSONS[0],
    });
  });

  it("continues with the first lesson not done, in course order, whatever was done out of order", () => {
    const progress = progressMap([row("a", true), row("c", true), row("b", false, 40)]);
    expect(courseProgress(LESSONS, progress)).toMatchObject({ done: 2, percent: 50, started: true, next: LESSONS[1] });
  });

  it("counts a started video as started, not done", () => {
    expect(courseProgress(LESSONS, progressMap([row("a", false, 95)]))).toMatchObject({ done: 0, started: true });
  });

  it("has no next lesson once every lesson is done, and says 100% only then", () => {
    const all = progressMap(LESSONS.map((l) => row(l.slug, true)));
    expect(courseProgress(LESSONS, all)).toMatchObject({ done: 4, percent: 100, next: null });
    const three = progressMap(LESSONS.slice(0, 3).map((l) => row(l.slug, true)));
    expect(courseProgress(LESSONS, three).percent).toBe(75);
    const many = Array.from({ length: 24 }, (_, i) => lesson(String(i), 1, i + 1));
    const allButOne = progressMap(many.slice(0, 23).map((l) => row(l.slug, true)));
    expect(courseProgress(many, allButOne).percent).toBe(95);
  });

  it("says how many lessons, in words", () => {
    expect(lessonCount(3, 24)).toBe("3 of 24 lessons");
    expect(lessonCount(0, 1)).toBe("0 of 1 lesson");
  });

  it("finds the lessons before and after one, across modules", () => {
    expect(neighbours(LESSONS, "growth-mindset/b")).toEqual({ previous: LESSONS[0], next: LESSONS[2] });
    expect(neighbours(LESSONS, "growth-mindset/a").previous).toBeNull();
    expect(neighbours(LESSONS, "growth-mindset/d").next).toBeNull();
  });
});

describe("a payment still settling", () => {
  it("is a pending order for the program, whatever the key's case; other programs' and other statuses' are not", () => {
    const orders = [
      { product_key: "ai_accelerator ", order_status: "pending" },
      { product_key: "GROWTH_MINDSET", order_status: "failed" },
    ];
    expect(paymentPending(orders, "AI_ACCELERATOR")).toBe(true);
    expect(paymentPending(orders, "GROWTH_MINDSET")).toBe(false);
    expect(paymentPending([], "AI_ACCELERATOR")).toBe(false);
  });
});

describe("durations", () => {
  it("writes minutes, and hours past the hour", () => {
    expect(formatDuration(18)).toBe("18 min");
    expect(formatDuration(60)).toBe("1 h");
    expect(formatDuration(233)).toBe("3 h 53 min");
  });
});

describe("cohort unlock days (the rule of lesson_unlocks_at in the member-area migration)", () => {
  it("opens week 1 on the start day and each later week seven days on, across months and years", () => {
    expect(unlockDay("2027-01-11", 1)).toBe("2027-01-11");
    expect(unlockDay("2027-01-11", 3)).toBe("2027-01-25");
    expect(unlockDay("2026-12-21", 3)).toBe("2027-01-04");
    expect(addDays("2028-02-26", 7)).toBe("2028-03-04");
  });

  it("opens a lesson without an unlock week with the purchase", () => {
    expect(unlockDay("2027-01-11", null)).toBeNull();
    expect(isOpen(null, "America/Chicago")).toBe(true);
  });

  it("opens at midnight in the business's time zone, not the visitor's or UTC's", () => {
    // 05:30 UTC on the 25th is still the 24th in Chicago (UTC-6 in January).
    const early = new Date("2027-01-25T05:30:00Z");
    expect(dayIn("America/Chicago", early)).toBe("2027-01-24");
    expect(isOpen("2027-01-25", "America/Chicago", early)).toBe(false);
    expect(isOpen("2027-01-25", "America/Chicago", new Date("2027-01-25T06:00:00Z"))).toBe(true);
    expect(isOpen("2027-01-25", "UTC", early)).toBe(true);
  });

  it("writes the day in full", () => {
    expect(formatDay("2027-01-11")).toBe("Monday, January 11, 2027");
  });
});

describe("a locked lesson, as the outline and a lesson's module list show it", () => {
  const START = "2027-01-11";
  // Noon in Chicago on the Sunday before the cohort starts, and on its first day.
  const SUNDAY = new Date("2027-01-10T18:00:00Z");
  const MONDAY = new Date("2027-01-11T18:00:00Z");
  const week = (unlockWeek: number | null, freePreview = false) => ({ unlockWeek, freePreview });

  it("is a cohort lesson before its week: it gives the day it opens, from the cohort's start", () => {
    expect(opensLater(week(1), START, "America/Chicago", SUNDAY)).toBe("2027-01-11");
    expect(opensLater(week(5), START, "America/Chicago", SUNDAY)).toBe("2027-02-08");
    expect(opensLater(week(5), START, "America/Chicago", MONDAY)).toBe("2027-02-08");
  });

  it("is open from the first moment of its day in the business's time zone", () => {
    expect(opensLater(week(1), START, "America/Chicago", MONDAY)).toBeNull();
    // 05:30 UTC on the 11th is still the 10th in Chicago; 06:00 UTC is midnight there.
    expect(opensLater(week(1), START, "America/Chicago", new Date("2027-01-11T05:30:00Z"))).toBe("2027-01-11");
    expect(opensLater(week(1), START, "America/Chicago", new Date("2027-01-11T06:00:00Z"))).toBeNull();
  });

  it("is never a lesson without a week (the orientation) nor a free preview, which the database opens to all", () => {
    expect(opensLater(week(null), START, "America/Chicago", SUNDAY)).toBeNull();
    expect(opensLater(week(3, true), START, "America/Chicago", SUNDAY)).toBeNull();
  });

  it("is never locked without the customer's start day: not theirs, or not known yet", () => {
    expect(opensLater(week(5), null, "America/Chicago", SUNDAY)).toBeNull();
    expect(opensLater(week(5), undefined, "America/Chicago", SUNDAY)).toBeNull();
  });

  it("says the day in full", () => {
    expect(opensLabel("2027-01-11")).toBe("Opens Monday, January 11, 2027");
  });
});

describe("video resume", () => {
  it("resumes at the saved second, from the start when nothing is saved or the video was watched to its end", () => {
    expect(resumeAt(95.7, 308)).toBe(95);
    expect(resumeAt(0, 308)).toBe(0);
    expect(resumeAt(305, 308)).toBe(0);
    expect(resumeAt(120, null)).toBe(120);
  });
});

describe("packModules and unpackModules", () => {
  const modules: OutlineModule[] = [
    {
      number: 1,
      label: "Orientation",
      title: "Start here",
      description: "How the program runs.",
      lessons: [
        lesson("welcome", 1, 1),
        { ...lesson("first-call", 1, 2, 3), freePreview: true, hasVideo: true, downloads: 2 },
      ],
    },
    { number: 2, label: "Module 2", title: "Clients", description: "Who you serve.", lessons: [lesson("niche", 2, 1)] },
    { number: 3, label: "Weeks 3-4", title: "Systems", description: "How it runs.", lessons: [lesson("crm", 3, 1)] },
  ];

  it("give back the modules the page built, with ids, addresses and places made again", () => {
    expect(unpackModules("growth-mindset", packModules(modules))).toEqual(modules);
  });

  it("leave out what the ids, addresses and usual values say again", () => {
    const packed = packModules(modules);
    expect(packed.map((m) => m.label)).toEqual(["Orientation", undefined, "Weeks 3-4"]);
    expect(packed[1]!.lessons[0]).toEqual({
      slug: "niche",
      title: "Lesson niche",
      summary: "What the lesson gives the advisor, in a sentence or two.",
      duration: 12,
    });
  });
});
