/**
 * Zod schemas of every content collection. Kept apart from `src/content.config.ts` so the
 * unit tests can check them without Astro's virtual modules; the config only wires them to
 * loaders, and hands the schemas that point at other entries their `ref` (see `Ref`).
 */
import type { ImageFunction } from "astro/content/config";
import { z } from "astro/zod";
import { formatCents } from "@advisor-accelerator/shared/money.ts";
import { DOWNLOAD_TYPES } from "~/features/course/bundle.ts";

/** A site-relative path such as `/get-started-ai`, or an absolute https URL. */
export const href = z.string().refine((v) => v.startsWith("/") || v.startsWith("https://"), {
  message: "must be a site path starting with / or an https:// URL",
});

/** Whole US cents, e.g. 299900 for $2,999. */
export const cents = z
  .number()
  .int({ message: "must be whole cents (an integer), e.g. 299900 for $2,999" })
  .nonnegative();

/** A Tailwind-free CSS colour the gradient avatars use, e.g. `#7c3aed`. */
const cssColor = z.string().regex(/^#[0-9a-fA-F]{6}$/, "must be a hex colour like #7c3aed");

/** A calendar day written as YYYY-MM-DD (YAML reads an unquoted one as a date; both are accepted). */
export const isoDay = z
  .union([z.string(), z.date()])
  .transform((value) => (value instanceof Date ? value.toISOString().slice(0, 10) : value))
  .refine((value) => /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`)), {
    message: "must be a day written as YYYY-MM-DD, e.g. 2027-01-11",
  });

/**
 * Whether an entry (or a field's value) is sample content: written for layout and tone, not
 * supplied or confirmed by the business (a person, a photo, a credential, a testimonial, an
 * endorser, a statistic's source, a contact detail, a video, a cohort date). Local and preview
 * builds show it with a "Sample" label; the production build refuses to publish it, naming the
 * file and the field (src/integrations/sample-content.ts). Replace it with the real thing and delete the line,
 * or delete the entry: a section left with no entries is left out of the page.
 */
export const sample = z
  .boolean()
  .default(false)
  .describe("true while the business has not supplied or confirmed this; delete the line when it is real");

/** A line of copy: a heading, a label, a list item. */
const line = z.string().min(1);

/**
 * A line of page copy that names values in braces, which the page fills in (src/lib/copy.ts):
 * `{brand}` anywhere (the business's name, content/site.yaml's `brand`), and each of `names`,
 * which it must name, or the value would not show. Any other name in braces is refused, so a
 * misspelt one fails the build, naming the file and the field.
 */
export function copy(...names: string[]) {
  const known = ["brand", ...names];
  const list = (all: string[]) => all.map((name) => `{${name}}`).join(", ");
  return line.superRefine((text, context) => {
    const named = [...text.matchAll(/\{([^{}]*)\}/g)].map((match) => match[1]!);
    for (const name of named.filter((n) => !known.includes(n))) {
      context.addIssue({
        code: "custom",
        message: `{${name}} is not a value this text can name; it may name ${list(known)}`,
      });
    }
    for (const name of names.filter((n) => !named.includes(n))) {
      context.addIssue({ code: "custom", message: `must name {${name}}, where the page puts it` });
    }
  });
}

/**
 * Where a statistic comes from: who measured it, how and when, in a sentence a visitor can read
 * ("Advisor Accelerator survey of 2023-2025 program graduates; individual results vary."). Every
 * figure shown as a result carries one, shown as a footnote beside it (src/components/Sources.astro).
 */
export const statSource = z
  .string({ error: "every statistic needs its source: who measured it, how and when (shown as a footnote)" })
  .min(30, "too short for a source: say who measured it, how and when");

/**
 * The schema of an image file beside a content entry, e.g. `./photos/jane-doe.jpg`: `image()` of
 * Astro's schema context (src/content.config.ts), so the file goes through Astro's image pipeline
 * (resized, converted to AVIF and WebP) and a wrong path fails the build.
 */
export type Image = ImageFunction;

/** Media hosts a video may come from: the one the site already embeds. */
export const VIDEO_PROVIDERS = ["wistia"] as const;

/** A video at the site's video host, as lessons and testimonials name one. */
export const video = z.strictObject({
  provider: z.enum(VIDEO_PROVIDERS),
  /** Wistia's media id: ten lowercase letters and digits, from the video's share link. */
  id: z.string().regex(/^[a-z0-9]{10}$/, "must be a Wistia media id: 10 lowercase letters and digits"),
  /** A placeholder id until the business uploads the recording. */
  sample,
});

/** The collections other content points at by id. */
export type RefCollection = "programs" | "offers" | "charts";

/**
 * The schema of a reference to an entry of `collection`, written in content as the entry's id
 * (a program's file name, an offer's or a chart's key). In `src/content.config.ts` it is
 * `reference()` from astro:content, checked against the entries that exist, so a wrong id fails
 * the build naming the file and the field; pages resolve it with `getEntry`.
 */
export type Ref = <C extends RefCollection>(collection: C) => RefSchema<C>;
/** What a reference to an entry of `C` reads (its id) and gives (what `getEntry` takes). */
export type RefSchema<C extends RefCollection> = z.ZodType<{ collection: C; id: string }, string>;

/** A call to action: the words on the button and where it goes. */
export const cta = z.strictObject({
  /** Button text, exactly as the visitor reads it. */
  text: line,
  /** Where the button leads. */
  href,
});

/** The hero of a page: a short eyebrow, the headline (the page's h1) and a sentence or two under it. */
export const hero = z.strictObject({
  eyebrow: line,
  headline: line,
  subheadline: z.string().min(20),
});
export type Hero = z.infer<typeof hero>;

/** The closing call to action of a page: heading and body; the page's button follows them. */
export const closing = z.strictObject({
  heading: line,
  body: z.string().min(20),
});
export type Closing = z.infer<typeof closing>;

/** A card: an optional label (weeks, module, timeframe), a title and a description. */
export const card = z.strictObject({
  label: line.optional(),
  title: line,
  description: z.string().min(10),
});
export type CardCopy = z.infer<typeof card>;

/** A page section: its heading and, if it has one, the sentence under it. */
export const section = z.strictObject({
  heading: line,
  intro: z.string().min(10).optional(),
});

/** A section that is only a heading (its content comes from elsewhere, e.g. the MDX body). */
const headingOnly = section.pick({ heading: true });
/** A section of cards. */
const cardSection = section.extend({ items: z.array(card).min(2) });
/** A section of bullet points. */
const pointSection = section.extend({ points: z.array(line).min(2) });
/** A section whose intro is not optional. */
const introSection = section.extend({ intro: z.string().min(10) });

/** Search-engine fields of a page. The title is the page's own; pages add " | <brand>" to it (src/lib/title.ts). */
export const seoSchema = z.strictObject({
  title: z.string().min(1).max(70),
  description: z.string().min(50).max(170),
});

/** Site-wide settings: one entry, `site`. */
export const siteSchema = (ref: Ref) =>
  z.strictObject({
    /**
     * The business's name: the header's and the footer's, the end of every page title, and every
     * `{brand}` in the copy (content/shared-copy.yaml, content/pages/, this file, the lead pages and
     * the offers). Its only place in content/.
     */
    brand: line,
    /** The public origin of the site, e.g. https://advisoraccelerator.com (SITE_URL overrides it for a preview). */
    url: z.url({ protocol: /^https$/, message: "must be the site's https:// address" }),
    /** The flagship program (its id in content/programs), whose sales page is /transformation. */
    flagship: ref("programs"),
    /** One sentence that describes the business, used as the default meta description. */
    description: z.string().min(50).max(170),
    /**
     * The business's time zone (an IANA name such as America/Chicago): cohort start days and the
     * days lessons unlock are midnight there.
     */
    timeZone: z.string().refine(isTimeZone, { message: "must be an IANA time zone, e.g. America/Chicago" }),
    /** The call to action most pages end with (its text may name {brand}). */
    defaultCta: cta,
    /** Where the team can be reached when an embedded form cannot load. */
    contact: z.strictObject({
      email: z.email(),
      phone: z.string().min(7),
      /** How soon a coach answers a consultation request, as "within …" completes it: "one business day". */
      replyWithin: z
        .string()
        .min(3)
        .refine((text) => !/^within\b/i.test(text.trim()), {
          message: 'is said after "within": write "one business day"',
        }),
      /** The address, number and reply time are placeholders until the business gives its own. */
      sample,
    }),
    /**
     * Third-party embeds; leave a value empty to show the contact fallback instead. A build can
     * override the first three with EMBED_CONSULTATION_FORM_URL, EMBED_BOOKING_WIDGET_URL and
     * EMBED_BOOKING_SCRIPT_URL (`npm start` points them at the local stack's stand-in).
     */
    embeds: z.strictObject({
      /** URL of the consultation form shown in an iframe on the get-started pages. */
      consultationFormUrl: z.union([z.literal(""), z.url()]),
      /** URL of the booking widget on /apply. */
      bookingWidgetUrl: z.union([z.literal(""), z.url()]),
      /** URL of the booking widget's embed script. */
      bookingScriptUrl: z.union([z.literal(""), z.url()]),
      /** Wistia media id of the hosted video on the OS sales page; empty shows its poster only. */
      wistiaOsMediaId: z.string().regex(/^[a-z0-9]*$/, "must be a Wistia media id (lowercase letters and digits)"),
    }),
    /** The "What to Expect" steps of the lead pages (docs/product.md, Lead pages: 30-minute call, custom strategy, next steps). */
    whatToExpect: z.array(card).min(1),
    /** The hero video on the home page and /transformation: poster image and an accessible label. */
    heroVideo: z.strictObject({
      poster: z.string().startsWith("/"),
      label: line,
      /** Wistia media id; empty shows the still (the framework's picture) instead of the poster. */
      wistiaMediaId: z.string(),
      /** What the still shows, for screen readers (its alternative text). */
      stillAlt: copy(),
    }),
  });
export type Site = z.infer<ReturnType<typeof siteSchema>>;

/** A program the business sells: one source for every fact about it. */
export const programSchema = z.strictObject({
  /** Full name, e.g. "Growth Mindset Mastery". */
  name: line,
  /** Short name for navigation menus. */
  navLabel: line,
  /** The program's page, e.g. /programs/growth-mindset. */
  page: href,
  /** The long sales page, e.g. /mindset. */
  salesPage: href,
  /** The consultation page its Apply buttons lead to. */
  applyPage: href,
  /** Length as shown to visitors, e.g. "12 weeks" or "Self-paced". */
  length: line,
  /** Delivery format, e.g. "Cohort coaching in six 2-week blocks". */
  format: line,
  /**
   * What the buyer keeps and for how long, as the checkout states it, e.g. "Lifetime access to the
   * course and every future update". Say only what is so: the member area never ends a buyer's
   * access to their course (a refund does), so "lifetime" is true of the course itself.
   */
  access: line,
  /** Checkout key used in /checkout/{key}, upper snake case. */
  checkoutKey: z.string().regex(/^[A-Z][A-Z0-9_]*$/, "must be UPPER_SNAKE_CASE, e.g. OS_ACCELERATOR"),
  /** Checkout price in whole cents. */
  priceCents: cents,
  /** Stripe price lookup key; the same in test and live mode. */
  stripeLookupKey: z.string().regex(/^[a-z0-9_]+$/, "must be lower_snake_case"),
  /** Image path under public/, shown on cards and at checkout. */
  image: z.string().startsWith("/"),
  /** Alternative text of the image. */
  imageAlt: line,
  /** One or two sentences for cards and checkout. */
  description: z.string().min(20),
  /** A short badge such as "Most Popular"; omit for none. */
  badge: z.string().optional(),
  /** Card label such as "Self-paced" or "12-week". */
  tag: line,
  /** Who the program suits, for the comparison table. */
  bestFor: line,
  /** The coaching and support included, for the comparison table. */
  support: line,
  /** Four short outcomes listed on program cards. */
  highlights: z.array(line).min(3).max(5),
  /** Colour theme of the header button on the program's pages. */
  theme: z.enum(["purple", "orange", "green", "blue"]),
  /** Position in lists, lowest first. */
  order: z.number().int(),
  /**
   * For a cohort program: the days its cohorts start, in the business's time zone (`timeZone` in
   * content/site.yaml). A buyer joins the cohort that started at most 14 days before the day they
   * buy, otherwise the next to start (packages/shared/cohort.ts); its lessons' `unlockWeek` count
   * from that start, and the pages that sell it say which cohort and when. With no cohort open to
   * join, the program cannot be bought until a later start is added here. Omit for a self-paced
   * program: all its lessons open the moment the payment completes.
   */
  cohort: z
    .strictObject({
      starts: z.array(isoDay).describe("Cohort start days, e.g. 2027-01-11").default([]),
      /** The days are placeholders until the business sets its calendar. */
      sample,
    })
    .optional(),
});
export type Program = z.infer<typeof programSchema>;

/**
 * Professional designations and licences a person may hold only in fact (CFA, CFP®, CPA, ChFC,
 * CLU, RICP, CIMA, CPWA, CRPC, AIF, Series 7/65/66…), and the words that name a registered firm or
 * licence. A sample person never carries one: a made-up credential on a financial adviser's site
 * is a compliance problem, labelled or not.
 */
export const DESIGNATION =
  /\b(CFA|CFP|CPA|ChFC|CLU|RICP|CIMA|CPWA|CRPC|CRPS|AIF|AAMS|CDFA|CEPA|CKA|PFS|EA|JD|MBA|PhD|Series\s?(6|7|63|65|66)|FINRA|RIA|LLC|LLP|Inc\.?)\b|®/;

/** Refuses a designation (DESIGNATION) in the named text fields of an entry marked `sample`. */
export function noSampleDesignation<K extends string>(...fields: K[]) {
  return (entry: { sample: boolean } & Partial<Record<K, unknown>>, context: z.RefinementCtx) => {
    if (!entry.sample) return;
    for (const field of fields) {
      const values = ([] as unknown[]).concat(entry[field] ?? []);
      values.forEach((value, index) => {
        const found = typeof value === "string" ? DESIGNATION.exec(value) : null;
        if (found) {
          context.addIssue({
            code: "custom",
            path: Array.isArray(entry[field]) ? [field, index] : [field],
            message: `a sample person carries no designation, licence or registered firm ("${found[0]}"): say in plain words what the sample stands for`,
          });
        }
      });
    }
  };
}

/** A client testimonial, shown only on the pages of the programs it speaks about. */
export const testimonialSchema = (ref: Ref, image: Image) =>
  z
    .strictObject({
      name: line,
      title: line,
      company: line,
      /** Assets under management as shown, e.g. "$120M AUM". */
      aum: line,
      quote: z.string().min(20),
      /** Two letters shown in the avatar circle when there is no photo. */
      initials: z.string().regex(/^[A-Z]{1,3}$/, "must be 1-3 capital letters"),
      /** Two hex colours of the avatar gradient. */
      gradientColors: z.tuple([cssColor, cssColor]),
      /**
       * The client's photo, with their written consent: a file beside the entry, e.g.
       * `./photos/jane-doe.jpg`, square or nearly, at least 160 px a side. Omit for the initials.
       */
      photo: image().optional(),
      /** The client telling their story on video, with their consent; a play button shows it on the card. */
      video: video.optional(),
      /** The programs this testimonial speaks about (ids in content/programs); it appears on their pages. */
      programs: z.array(ref("programs")).min(1, "name at least one program the testimonial speaks about"),
      /** Not a real client's words yet: written for layout and tone. */
      sample,
    })
    .superRefine(noSampleDesignation("name", "title", "company"));
export type Testimonial = z.infer<ReturnType<typeof testimonialSchema>>;

/** An endorsement in the home page quote carousel and logo strip. */
export const endorsementSchema = z
  .strictObject({
    quote: z.string().min(20),
    author: line,
    role: line,
    /** Firm shown as a wordmark in the hero strip. */
    firm: line,
    order: z.number().int(),
    /** Not a real endorser's words yet: written for layout and tone. */
    sample,
  })
  .superRefine(noSampleDesignation("author", "role", "firm"));
export type Endorsement = z.infer<typeof endorsementSchema>;

/** A headline number, e.g. 300% average AUM growth, with where it comes from. */
export const statSchema = z.strictObject({
  value: line,
  label: line,
  /** Where the number comes from, shown as a footnote under the numbers. */
  source: statSource,
  order: z.number().int(),
  /** The source is a placeholder (or the figure unconfirmed) until the business confirms both. */
  sample,
});

/** A coach: shown on the home page and on the pages of the programs they coach. */
export const coachSchema = (ref: Ref, image: Image) =>
  z
    .strictObject({
      name: line,
      /** What they do here, e.g. "Founder and head coach". */
      role: line,
      /**
       * Their portrait: a file beside the entry, e.g. `./photos/jane-doe.jpg`, at least 400 x 500 px
       * (shown 4:5, cropped to the centre). Omit until the business has one: the card shows the
       * coach's initials instead, never a stand-in face.
       */
      photo: image().optional(),
      /** Two to four sentences: what they did before and what they coach now. */
      bio: z.string().min(80).max(600),
      /** Short statements of experience, one line each. */
      credentials: z.array(line).min(1).max(5),
      /** The programs they coach (ids in content/programs): they appear on those programs' pages. */
      programs: z.array(ref("programs")).min(1, "name at least one program the coach coaches"),
      /** Position in lists, lowest first. */
      order: z.number().int(),
      /** Not a real coach yet: the profile stands in for one the business will supply. */
      sample,
    })
    .superRefine(noSampleDesignation("name", "role", "bio", "credentials"));
export type Coach = z.infer<ReturnType<typeof coachSchema>>;

const iconName = z.enum(["chart", "users", "cpu", "clock", "map", "target", "shield", "rocket", "star", "briefcase"]);

/** A card of the "Why choose" section: a card with an icon and a place in the list. */
export const whyChooseSchema = card.omit({ label: true }).extend({
  description: z.string().min(20),
  icon: iconName,
  order: z.number().int(),
});

/** An audience tier of the "Who it is for" sections. */
export const audienceTierSchema = z.strictObject({
  /** Career stage, e.g. "Early stage". */
  stage: line,
  /** What the tier gets from the program, e.g. "Gain traction". */
  goal: line,
  description: z.string().min(20),
  points: z.array(line).min(2),
  order: z.number().int(),
});

/** A program's curriculum: ordered cards, each labelled (weeks or module). */
export const curriculumSchema = (ref: Ref) =>
  z.strictObject({
    /** The program (its id in content/programs). */
    program: ref("programs"),
    items: z.array(card.extend({ label: line })).min(1),
  });

/** A phase of a program's framework. */
export const phaseSchema = (ref: Ref) =>
  z.strictObject({
    /** The program (its id in content/programs). */
    program: ref("programs"),
    /** e.g. "Phase 1". */
    phase: line,
    title: line,
    subtitle: line,
    description: z.string().min(20),
    order: z.number().int(),
  });

/** True for a time zone name the platform knows (IANA, e.g. America/Chicago). */
export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: name });
    return name.includes("/") || name === "UTC";
  } catch {
    return false;
  }
}

const downloadFile = new RegExp(`^[a-z0-9]+(?:-[a-z0-9]+)*\\.(${Object.keys(DOWNLOAD_TYPES).join("|")})$`);

/**
 * A lesson: content/lessons/<program>/<slug>.mdx. The front matter is the lesson's outline (public,
 * like the curriculum); the MDX body, the video and the downloads reach only the program's buyers
 * (`npm run course:publish` puts them in the database, never in the built site). The program is
 * the folder's name; the loader (src/content.config.ts) adds it before this schema runs.
 */
export const lessonSchema = (ref: Ref, course: CourseFacts) =>
  z
    .strictObject({
      /** The program (its id in content/programs), from the lesson's folder. */
      program: ref("programs"),
      /** The lesson's title, as the outline and the page's heading show it. */
      title: z.string().min(3).max(90),
      /** Its module: 1 is the first item of the program's curriculum (content/curricula/<program>.yaml). */
      module: z.number().int().min(1),
      /** Its place in the module: 1, 2, 3… */
      order: z.number().int().min(1),
      /** Minutes the lesson takes, video, reading and exercise together. */
      duration: z.number().int().min(1).max(240),
      /** One or two sentences on what the lesson gives the advisor, shown in the outline. */
      summary: z.string().min(40).max(240),
      /** The lesson's video at the site's video host; only buyers receive its id. */
      video: video.optional(),
      /** Files for the buyer, kept in content/lessons/<program>/downloads/. */
      downloads: z
        .array(
          z.strictObject({
            /** What the link says, e.g. "Ideal-client scorecard (spreadsheet)". */
            title: z.string().min(3).max(90),
            /** The file's name in the program's downloads/ folder. */
            file: z.string().regex(downloadFile, {
              message: `must be a file name like client-scorecard.pdf (lowercase, hyphens; ${Object.keys(DOWNLOAD_TYPES).join(", ")})`,
            }),
          }),
        )
        .default([]),
      /** Readable by any signed-in visitor, buyer or not: a taste of the course. */
      freePreview: z.boolean().default(false),
      /**
       * Cohort programs only: the week of the buyer's cohort the lesson opens (1 is the cohort's
       * first day, 2 a week later). Omit to open it the moment the payment completes.
       */
      unlockWeek: z.number().int().min(1).max(104).optional(),
    })
    .superRefine((lesson, context) => {
      const program = lesson.program.id;
      const modules = course.modules(program);
      if (modules !== undefined && lesson.module > modules) {
        context.addIssue({
          code: "custom",
          path: ["module"],
          message: `content/curricula/${program}.yaml has ${modules} modules; expected 1-${modules}`,
        });
      }
      if (lesson.unlockWeek !== undefined && !course.isCohort(program)) {
        context.addIssue({
          code: "custom",
          path: ["unlockWeek"],
          message: `${program} is self-paced (no \`cohort\` in content/programs/${program}.yaml): its lessons open at purchase; remove unlockWeek`,
        });
      }
      for (const missing of lesson.downloads.filter((d) => !course.hasDownload(program, d.file))) {
        context.addIssue({
          code: "custom",
          path: ["downloads", lesson.downloads.indexOf(missing), "file"],
          message: `content/lessons/${program}/downloads/${missing.file} does not exist`,
        });
      }
    });
export type Lesson = z.infer<ReturnType<typeof lessonSchema>>;

/** What a lesson's schema checks against other files: the curriculum, the program, the downloads. */
export interface CourseFacts {
  /** How many modules the program's curriculum has; undefined when it has none (reported elsewhere). */
  modules(program: string): number | undefined;
  /** Whether the program runs in cohorts (`cohort` in its file). */
  isCohort(program: string): boolean;
  hasDownload(program: string, file: string): boolean;
}

/** A legal page rendered from Markdown. */
export const legalSchema = seoSchema.extend({
  /** Date of the last change, shown under the heading. */
  updated: z.coerce.date(),
  /** A draft the business's counsel has not approved (its terms, its contact address, its date). */
  sample,
});

/** A lead page (/get-started-*, /apply): the entry's id is its route, e.g. `get-started-ai` is /get-started-ai. */
export const leadPageSchema = z.strictObject({
  /** Title tag and meta description. */
  seo: seoSchema,
  /** The page heading. */
  heading: line,
  /** One or two sentences under the heading. */
  intro: z.string().min(20),
  /** The consultation form (iframe) or the booking widget (script). */
  embed: z.enum(["consultation", "booking"]),
});

/** A program's own page (/programs/...): the copy around the facts of the programs collection. */
export const programPageSchema = (ref: Ref) =>
  z.strictObject({
    /** The program (its id in content/programs); the page lives at that program's `page`. */
    program: ref("programs"),
    seo: seoSchema,
    hero,
    curriculum: introSection,
    /** Problems the program solves, shown as cards; omit for none. */
    challenges: cardSection.optional(),
    /** Who the program fits, as a checklist; omit for none. */
    fit: z
      .strictObject({
        heading: line,
        items: z.array(line).min(2),
        note: z.string().optional(),
      })
      .optional(),
    /** Heading of the testimonials section; omit for the shared one (content/shared-copy.yaml, `testimonials`). */
    testimonialsHeading: line.optional(),
    closing,
  });

/** What every composed page in content/pages has: search-engine fields, hero, closing call to action. */
const page = { seo: seoSchema, hero, closing };

/** content/pages/programs.yaml: /programs and its alias /programs/ai-advisor. */
export const programsPageSchema = z.strictObject({
  ...page,
  sections: z.strictObject({ cards: section, comparison: section, metrics: section }),
});

/** content/pages/purchase-course.yaml: /purchase-course. */
export const purchaseCoursePageSchema = z.strictObject({
  ...page,
  /** The cards of the programs for sale (names, prices and descriptions come from content/programs). */
  programs: z.strictObject({
    /** What screen readers call the list of cards. */
    label: line,
    /** After each price, e.g. "one-time payment". */
    price: line,
    /** The link to the program's page; `context`, read after it by screen readers, names the program. */
    details: z.strictObject({ text: line, context: copy("program") }),
  }),
  sections: z.strictObject({
    /** What every purchase includes. */
    guarantee: pointSection,
  }),
});

/** content/pages/transformation.mdx: the flagship's sales page; the MDX body is its story. */
export const transformationPageSchema = (ref: Ref) =>
  z.strictObject({
    ...page,
    /** The offer stack (its key in content/offers.yaml). */
    offer: ref("offers"),
    sections: z.strictObject({
      story: headingOnly,
      pain: cardSection,
      framework: section,
      audience: section,
      curriculum: section,
      /** The testimonial carousel; `label` is what screen readers call the carousel. */
      testimonials: headingOnly.extend({ label: line }),
      /** The success stories (testimonial cards). */
      stories: section,
    }),
  });

/** content/pages/mindset.mdx: the Growth Mindset sales page; the MDX body is its story. */
export const mindsetPageSchema = (ref: Ref) =>
  z.strictObject({
    ...page,
    /** The program the page sells (its id in content/programs). */
    program: ref("programs"),
    /** The offer stack (its key in content/offers.yaml). */
    offer: ref("offers"),
    /** The chart beside the problem section (its key in content/charts.yaml). */
    chart: ref("charts"),
    sections: z.strictObject({
      story: headingOnly,
      problem: introSection,
      fit: pointSection,
      notFit: pointSection,
      curriculum: section,
    }),
  });

/** content/pages/advisor-os.mdx: the Advisor OS sales page (/advisor-os and its alias); the MDX body is its story. */
export const advisorOsPageSchema = (ref: Ref) =>
  z.strictObject({
    ...page,
    /** The program the page sells (its id in content/programs). */
    program: ref("programs"),
    /** The text of the hero's and the included list's button, to the program's consultation page. */
    apply: line,
    /** The hosted video under the hero (its Wistia id is `embeds.wistiaOsMediaId` in content/site.yaml). */
    video: z.strictObject({
      /** Shown until the player loads, and instead of it when none is configured: a path under public/. */
      poster: z.string().startsWith("/"),
      /** What the video is, for screen readers. */
      label: line,
    }),
    sections: z.strictObject({
      story: headingOnly,
      obstacles: cardSection,
      whySystems: pointSection.extend({ intro: z.string().min(10) }),
      build: cardSection,
      curriculum: section,
      /**
       * What the program gives back, by when: each card's label is the timeframe, its title the
       * figure, and its source where the figure comes from (a footnote).
       */
      payoff: section.extend({ items: z.array(card.extend({ label: line, source: statSource, sample })) }),
      /** The testimonials. */
      videos: headingOnly,
      included: pointSection,
    }),
  });

/** content/pages/home.yaml: the home page, /. */
export const homePageSchema = z.strictObject({
  /** Its own title; the meta description is the site's (content/site.yaml `description`) unless given. */
  seo: seoSchema.partial({ description: true }),
  hero: hero.extend({
    /** The button beside the default call to action (content/site.yaml `defaultCta`). */
    secondaryCta: cta,
    /** The strip of the endorsers' firms (content/endorsements.yaml) under the hero. */
    logoStrip: z.strictObject({
      /** The line above the names. */
      heading: line,
      /** What screen readers call the list of names. */
      label: line,
    }),
  }),
  sections: z.strictObject({
    /** The headline numbers (content/stats.yaml); the heading is read by screen readers only. */
    stats: headingOnly,
    /** The reasons of content/why-choose.yaml, with a link beside them. */
    whyChoose: section.extend({ link: cta }),
    /** The career stages of content/audience-tiers.yaml. */
    audience: section,
    /** The program cards (content/programs). */
    programs: section,
    /** Every coach of content/coaches. */
    coaches: section,
    /** The quote carousel of content/endorsements.yaml; the heading names the carousel too. */
    endorsements: headingOnly,
  }),
  /** Its button is the default call to action. */
  closing,
});
export type HomePage = z.infer<typeof homePageSchema>;

/** content/pages/not-found.yaml: the page of an address that does not exist. */
export const notFoundPageSchema = z.strictObject({
  seo: seoSchema,
  /** The line above the heading, e.g. "404". */
  eyebrow: line,
  heading: line,
  body: z.string().min(10),
  /** The two ways on: the main button and the one beside it. */
  links: z.strictObject({ primary: cta, secondary: cta }),
});

/** One account page: search-engine fields, the heading of its card, a line under the heading and one under the card. */
const accountPage = z.strictObject({
  seo: seoSchema,
  heading: line,
  lead: line.optional(),
  /** A line under the card with a link at its end, e.g. "Not a client yet?" and "Explore our programs". */
  after: z.strictObject({ text: line, link: cta }).optional(),
});

/** content/pages/account.yaml: /login, /forgot-password and /reset-password (their forms' words are in src/features/auth/). */
export const accountPagesSchema = z.strictObject({
  login: accountPage,
  forgotPassword: accountPage,
  resetPassword: accountPage,
});

/** content/pages/portal.yaml: the client portal's pages (what their islands show is in src/features/portal/ and src/features/course/). */
export const portalPagesSchema = z.strictObject({
  /** /portal (its title is the heading of the customer's courses too). */
  dashboard: seoSchema,
  /** /portal/settings. */
  settings: seoSchema,
  /** /portal/settings/purchase-history. */
  purchaseHistory: seoSchema,
  /** /desk, the team's (docs/operations.md, The team and its roles). */
  desk: seoSchema,
  /** A course's page, /portal/courses/<program>. */
  course: z.strictObject({
    /** The trail above the heading: what screen readers call it, and its first link (to /portal). */
    breadcrumb: z.strictObject({ label: line, home: line }),
    /** The meta description. */
    description: copy("program", "modules", "lessons"),
    /** The line under the course's name: its length, its size and the time it takes in all. */
    summary: copy("length", "modules", "lessons", "duration"),
  }),
  /** A lesson's page, /portal/courses/<program>/<lesson>. */
  lesson: z.strictObject({
    /** Above the lesson's title: its module and its place in it. */
    position: copy("module", "lesson", "count"),
    /** The links to the lessons before and after it, and what screen readers call them together. */
    neighbours: z.strictObject({ label: line, previous: line, next: line }),
    /** The link under the module's lessons, to the course's page. */
    outline: line,
  }),
});

/** A next step on the payment success page. */
const step = card.omit({ label: true });

/** content/pages/checkout.yaml: the checkout pages (the checkout's own form and summary are in src/features/checkout/). */
export const checkoutPagesSchema = z.strictObject({
  /** /checkout/<key> of each program; {program} is the program's name. */
  program: z.strictObject({
    title: copy("program").max(70),
    description: copy("program").min(50),
    /**
     * The refund policy under the order summary: what the buyer agrees to, and what
     * `npm run stripe:dispute` tells the bank the checkout showed (scripts/stripe.ts).
     */
    refundPolicy: z.strictObject({ text: line, link: cta }),
  }),
  /** The page any other spelling of a key is served, which finds the program in the browser. */
  lookup: z.strictObject({
    seo: seoSchema,
    /** Shown when the browser runs no scripts. */
    noscript: z.strictObject({ text: line, link: cta }),
  }),
  /** /checkout/success, one view at a time as the payment stands ({program}, {email}: the buyer's). */
  success: z.strictObject({
    seo: seoSchema,
    /** While the page asks where the payment stands, and without scripts. */
    checking: z.strictObject({ text: line, noscript: line }),
    paid: z.strictObject({ heading: line, body: line }),
    processing: z.strictObject({ heading: line, body: copy("program", "email") }),
    failed: z.strictObject({ heading: line, body: copy("program") }),
    incomplete: z.strictObject({ heading: line, body: copy("program") }),
    /** When the status cannot be read. */
    unknown: z.strictObject({ heading: line, body: line }),
    /** The label of the order reference. */
    orderId: line,
    /**
     * The button beside the Order ID (screen readers hear it followed by the label), and what it
     * says once pressed: copied, or, where the browser would not copy, the ID selected instead.
     */
    copyOrderId: z.strictObject({ button: line, copied: line, selected: line }),
    nextSteps: z.strictObject({
      heading: line,
      /** Once paid (and when the status cannot be read), for a new buyer: with the step to set a password. */
      paid: z.array(step).min(1),
      /** Once paid, for a buyer signed in or whose account is in use: no password to set. */
      returning: z.array(step).min(1),
      /** While a bank debit clears. */
      processing: z.array(step).min(1),
    }),
    /** The buttons: to the portal and home; to the checkout again after a failed payment. */
    links: z.strictObject({ portal: line, home: line, retry: line }),
  }),
});

/** A link that screen readers hear with more words after it, e.g. "Learn more" and "about {program}". */
const linkWithContext = (...names: string[]) => z.strictObject({ text: line, context: copy(...names) });

/**
 * content/shared-copy.yaml: the words several pages share, the ones components show unless a page's
 * own file gives its own: section headings, button labels, the footer.
 */
export const sharedCopySchema = z.strictObject({
  /** Buttons of several pages. */
  cta: z.strictObject({
    /** The closing button of /programs, /purchase-course and /transformation. */
    strategyCall: cta,
    /** A program's apply button, to its consultation page (the program's `applyPage`). */
    apply: line,
    /** A program page's button to its sales page (the program's `salesPage`). */
    learnMore: linkWithContext("program"),
    /** A program page's link to its checkout; screen readers hear the program's name after it. */
    buy: line,
    /**
     * In place of `buy` (a program page, /purchase-course) for a signed-in visitor who owns the
     * program: the link to its course in the portal; screen readers hear the program's name after it.
     */
    openCourse: line,
  }),
  /** The facts of a program, as the program pages' heroes and the comparison on /programs label them. */
  programFacts: z.strictObject({ format: line, length: line, bestFor: line, support: line, price: line }),
  /** A program page's way to buy at once, under the hero's buttons: {price} is its checkout price. */
  enroll: copy("price"),
  /**
   * A cohort program's cohort, wherever the program is sold: the one a buyer joins today
   * (packages/shared/cohort.ts), from content/programs' `cohort.starts` and today's date in the
   * business's time zone. {date} is its first day in full ("Monday, January 11, 2027").
   */
  cohort: z.strictObject({
    /** It starts later: the program page, /purchase-course, /programs. */
    next: copy("date"),
    /** It started in the last 14 days, and a buyer joins it with its weeks so far open. */
    started: copy("date"),
    /** No cohort is open to join: shown in place of the ways to buy. */
    closed: line,
    /** The link after `closed`, to the program's consultation page. */
    ask: line,
    /** The checkout's first note, where a self-paced program's says "Instant access after payment". */
    checkout: z.strictObject({ next: copy("date"), started: copy("date") }),
  }),
  /**
   * A program's two offers: the coached offer its sales page stacks (content/offers.yaml), sold by
   * application, and the program itself at its checkout price. Each says which it is and names the
   * other, so one program is never shown at two prices unexplained.
   */
  offers: z.strictObject({
    /** Under a sales page's offer: that it is the coached offer, by application. */
    byApplication: line,
    /** After it: the program's own price ({price}), and `buy`, the link to its checkout. */
    alone: z.strictObject({ text: copy("price"), buy: line }),
    /** On a program page and its checkout: the coached offer ({price}), and `apply`, the link to its consultation page. */
    coached: z.strictObject({ text: copy("price"), apply: line }),
  }),
  /** The program cards (the home page, /programs). */
  programCards: z.strictObject({
    /** Each card's link to its program's page. */
    learnMore: linkWithContext("program"),
    /** The link to /programs under the cards (not on /programs itself). */
    viewAll: line,
  }),
  /** The coaches of a program, on its pages; "one" when it has a single coach. {program} is its name. */
  coaches: z.strictObject({
    heading: z.strictObject({ one: line, many: line }),
    intro: z.strictObject({ one: copy("program"), many: copy("program") }),
    /** Before the programs a coach coaches, on the home page: "Coaches" and their names. */
    programs: line,
  }),
  /** The testimonial cards' heading when a page gives none ('Success Stories', docs/product.md, Business constants and limits). */
  testimonials: z.strictObject({ heading: line }),
  /** The heading of the notes that give each figure's source. */
  sources: z.strictObject({ heading: line }),
  /** The offer stacks (content/offers.yaml); {amount} is a monthly amount, {percent} the saving. */
  offer: z.strictObject({
    total: line,
    price: line,
    saving: copy("percent"),
    perMonth: copy("amount"),
  }),
  /** The lead pages (content/lead-pages.yaml). */
  leadPages: z.strictObject({
    /** The heading of the steps of content/site.yaml `whatToExpect`. */
    whatToExpect: line,
    /** What screen readers call the provider's frame: the form or the booking calendar. */
    frames: z.strictObject({ consultation: line, booking: line }),
    /** Under the consultation form: the way to pick a time instead. */
    pickTime: z.strictObject({ text: line, link: cta }),
    /** Under a provider's form: the team's address and number (content/site.yaml `contact`). */
    fallback: copy("email", "phone"),
  }),
  /** The legal pages (content/legal/): before the date of their last change. */
  legalPages: z.strictObject({ updated: line }),
  /** The footer: its columns' headings and links; the programs' links are their names. */
  footer: z.strictObject({
    programs: z.strictObject({ heading: line, all: line }),
    getStarted: z.strictObject({
      heading: line,
      /** To the default call to action's page (content/site.yaml `defaultCta`). */
      consultation: line,
      /** To /apply. */
      apply: line,
      /** To /purchase-course. */
      purchase: line,
      /** To /login. */
      login: line,
    }),
    legal: z.strictObject({ heading: line, privacy: line, terms: line, dmca: line }),
    /** The last line of every page; {year} is the current year. */
    notice: copy("year"),
  }),
});
export type SharedCopy = z.infer<typeof sharedCopySchema>;

/**
 * A payment plan of a coached offer: monthly instalments, the first paid at checkout and one a
 * month after it, each amount set here (how many there are is the plan's length). Together they
 * come to the offer's price, or to the price plus the plan's stated fee.
 */
const paymentPlanSchema = z.strictObject({
  /** How the offer page and the portal name it, e.g. "Six monthly payments". */
  name: line,
  /** Each month's amount in whole cents, first to last: 2 to 12 of them. */
  instalmentsCents: z
    .array(cents.positive({ message: "must be more than 0 cents" }))
    .min(2)
    .max(12),
  /** What paying over time costs above the price, in whole cents, said beside the plan; 0 when nothing. */
  feeCents: cents.default(0),
  sample,
});

/**
 * How a coached offer can be paid once the team sends it (docs/coached-offers.md): in full, by each of
 * `plans`, and where the offer has a monthly price, that monthly membership from the month
 * `membership` says. `terms` is what the offer page says under the options.
 */
const offerPaymentSchema = z.strictObject({
  /** Whether the offer can be paid in one payment. */
  inFull: z.boolean().default(true),
  plans: z.array(paymentPlanSchema).default([]),
  /** The monthly membership (the offer's `monthlyPriceCents`): its first charge, in months after the cohort starts. */
  membership: z.strictObject({ startsAfterMonths: z.number().int().min(0).max(24), sample }).optional(),
  terms: z.strictObject({ text: line, sample }),
});

/**
 * A coached offer, sold by application (a consultation first, then the offer the team sends), as
 * its sales page stacks it: its total value and savings are computed from the components. It is
 * not the program's checkout price: the page says so, beside the program's own price.
 */
export const offerSchema = (ref: Ref) =>
  z
    .strictObject({
      /** The program the offer is built around (its id in content/programs): its own price is named beside the offer. */
      program: ref("programs"),
      heading: line,
      components: z
        .array(
          z.strictObject({
            name: line,
            description: z.string().optional(),
            /** One-time value in whole cents. */
            valueCents: cents.optional(),
            /** Recurring value per month in whole cents. */
            monthlyValueCents: cents.optional(),
          }),
        )
        .min(1),
      /** One-time price in whole cents. */
      priceCents: cents,
      /** Recurring price per month in whole cents, if any. */
      monthlyPriceCents: cents.optional(),
      cta: cta,
      /** How it can be paid, once the team sends the offer; an offer without it is not sold online yet. */
      payment: offerPaymentSchema.optional(),
    })
    .superRefine((offer, context) => {
      const payment = offer.payment;
      if (!payment) return;
      if (!payment.inFull && payment.plans.length === 0) {
        context.addIssue({
          code: "custom",
          path: ["payment"],
          message: "offers no way to pay: set inFull: true or add a plan",
        });
      }
      payment.plans.forEach((plan, i) => {
        const sum = plan.instalmentsCents.reduce((total, amount) => total + amount, 0);
        const due = offer.priceCents + plan.feeCents;
        if (sum !== due) {
          context.addIssue({
            code: "custom",
            path: ["payment", "plans", i, "instalmentsCents"],
            message:
              `add up to ${formatCents(sum)}, not the price ${formatCents(offer.priceCents)}` +
              (plan.feeCents ? ` plus the plan's fee ${formatCents(plan.feeCents)} (${formatCents(due)})` : "") +
              `: change an amount${plan.feeCents ? " or the fee" : ", or state the difference as feeCents"}`,
          });
        }
      });
      if (payment.membership && offer.monthlyPriceCents === undefined) {
        context.addIssue({
          code: "custom",
          path: ["payment", "membership"],
          message: "needs the offer's monthlyPriceCents, what the membership costs a month",
        });
      }
    });
export type Offer = z.infer<ReturnType<typeof offerSchema>>;

/** A bar chart: labelled percentages, drawn on a 0-100% scale. */
export const chartSchema = z.strictObject({
  title: line,
  /** Where the numbers come from, shown as a footnote under the chart. */
  source: statSource,
  /** The source is a placeholder (or the numbers unconfirmed) until the business confirms both. */
  sample,
  bars: z.array(z.strictObject({ label: line, percent: z.number().min(0).max(100) })).min(1),
});
