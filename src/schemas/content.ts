/**
 * Zod schemas of every content collection. Kept apart from `src/content.config.ts` so the
 * unit tests can check them without Astro's virtual modules; the config only wires them to
 * loaders.
 */
import { z } from "astro/zod";

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

/** A call to action: the words on the button and where it goes. */
export const cta = z.strictObject({
  /** Button text, exactly as the visitor reads it. */
  text: z.string().min(1),
  /** Where the button leads. */
  href,
});

/** Site-wide settings: one entry, `site`. */
export const siteSchema = z.strictObject({
  /** The business name shown in the header, footer and titles. */
  brand: z.string().min(1),
  /** The public origin of the site, e.g. https://advisoraccelerator.com (SITE_URL overrides it for a preview). */
  url: z.url({ protocol: /^https$/, message: "must be the site's https:// address" }),
  /** Id of the flagship program in the programs collection (its name lives there). */
  flagship: z.string().min(1),
  /** One sentence that describes the business, used as the default meta description. */
  description: z.string().min(50).max(170),
  /** The call to action most pages end with. */
  defaultCta: cta,
  /** Where the team can be reached when an embedded form cannot load. */
  contact: z.strictObject({
    email: z.email(),
    phone: z.string().min(7),
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
  /** The "What to Expect" steps of the consultation pages (docs/product.md §2: 30-minute call, custom strategy, next steps). */
  whatToExpect: z.array(z.strictObject({ title: z.string().min(1), description: z.string().min(20) })).min(1),
  /** The hero video on the home page: poster image and an accessible label. */
  heroVideo: z.strictObject({
    poster: z.string().startsWith("/"),
    label: z.string().min(1),
    /** Wistia media id; empty shows the poster only. */
    wistiaMediaId: z.string(),
  }),
});
export type Site = z.infer<typeof siteSchema>;

/** A program the business sells: one source for every fact about it. */
export const programSchema = z.strictObject({
  /** Full name, e.g. "Growth Mindset Mastery". */
  name: z.string().min(1),
  /** Short name for navigation menus. */
  navLabel: z.string().min(1),
  /** The program's page, e.g. /programs/growth-mindset. */
  page: href,
  /** The long sales page, e.g. /mindset. */
  salesPage: href,
  /** The consultation page its Apply buttons lead to. */
  applyPage: href,
  /** Length as shown to visitors, e.g. "12 weeks" or "Self-paced". */
  length: z.string().min(1),
  /** Delivery format, e.g. "Cohort coaching in six 2-week blocks". */
  format: z.string().min(1),
  /** Checkout key used in /checkout/{key}, upper snake case. */
  checkoutKey: z.string().regex(/^[A-Z][A-Z0-9_]*$/, "must be UPPER_SNAKE_CASE, e.g. OS_ACCELERATOR"),
  /** Checkout price in whole cents. */
  priceCents: cents,
  /** Stripe price lookup key; the same in test and live mode. */
  stripeLookupKey: z.string().regex(/^[a-z0-9_]+$/, "must be lower_snake_case"),
  /** Image path under public/, shown on cards and at checkout. */
  image: z.string().startsWith("/"),
  /** Alternative text of the image. */
  imageAlt: z.string().min(1),
  /** One or two sentences for cards and checkout. */
  description: z.string().min(20),
  /** A short badge such as "Most Popular"; omit for none. */
  badge: z.string().optional(),
  /** Card label such as "Self-paced" or "12-week". */
  tag: z.string().min(1),
  /** Who the program suits, for the comparison table. */
  bestFor: z.string().min(1),
  /** The coaching and support included, for the comparison table. */
  support: z.string().min(1),
  /** Four short outcomes listed on program cards. */
  highlights: z.array(z.string().min(1)).min(3).max(5),
  /** Colour theme of the header button on the program's pages. */
  theme: z.enum(["purple", "orange", "green", "blue"]),
  /** Position in lists, lowest first. */
  order: z.number().int(),
});
export type Program = z.infer<typeof programSchema>;

/** A client testimonial. */
export const testimonialSchema = z.strictObject({
  name: z.string().min(1),
  title: z.string().min(1),
  company: z.string().min(1),
  /** Assets under management as shown, e.g. "$120M AUM". */
  aum: z.string().min(1),
  quote: z.string().min(20),
  /** Two letters shown in the avatar circle. */
  initials: z.string().regex(/^[A-Z]{1,3}$/, "must be 1-3 capital letters"),
  /** Two hex colours of the avatar gradient. */
  gradientColors: z.tuple([cssColor, cssColor]),
  /** Programs this testimonial speaks about (ids of the programs collection). */
  programs: z.array(z.string()).default([]),
});
export type Testimonial = z.infer<typeof testimonialSchema>;

/** An endorsement in the home page quote carousel and logo strip. */
export const endorsementSchema = z.strictObject({
  quote: z.string().min(20),
  author: z.string().min(1),
  role: z.string().min(1),
  /** Firm shown as a wordmark in the hero strip. */
  firm: z.string().min(1),
  order: z.number().int(),
});
export type Endorsement = z.infer<typeof endorsementSchema>;

/** A headline number, e.g. 300% average AUM growth. */
export const statSchema = z.strictObject({
  value: z.string().min(1),
  label: z.string().min(1),
  order: z.number().int(),
});

const iconName = z.enum(["chart", "users", "cpu", "clock", "map", "target", "shield", "rocket", "star", "briefcase"]);

/** A card of the "Why choose" section. */
export const whyChooseSchema = z.strictObject({
  title: z.string().min(1),
  description: z.string().min(20),
  icon: iconName,
  order: z.number().int(),
});

/** An audience tier of the "Who it is for" sections. */
export const audienceTierSchema = z.strictObject({
  /** Career stage, e.g. "Early stage". */
  stage: z.string().min(1),
  /** What the tier gets from the program, e.g. "Gain traction". */
  goal: z.string().min(1),
  description: z.string().min(20),
  points: z.array(z.string().min(1)).min(2),
  order: z.number().int(),
});

/** A program's curriculum: ordered items. */
export const curriculumSchema = z.strictObject({
  /** Id of the program in the programs collection. */
  program: z.string().min(1),
  items: z
    .array(
      z.strictObject({
        /** e.g. "Weeks 1-2" or "Module 3". */
        label: z.string().min(1),
        title: z.string().min(1),
        description: z.string().min(20),
      }),
    )
    .min(1),
});

/** A phase of a program's framework. */
export const phaseSchema = z.strictObject({
  /** Id of the program in the programs collection. */
  program: z.string().min(1),
  /** e.g. "Phase 1". */
  phase: z.string().min(1),
  title: z.string().min(1),
  subtitle: z.string().min(1),
  description: z.string().min(20),
  order: z.number().int(),
});

/** Search-engine fields of a Markdown page. */
export const seoSchema = z.strictObject({
  title: z.string().min(1).max(70),
  description: z.string().min(50).max(170),
});

/** A legal page rendered from Markdown. */
export const legalSchema = seoSchema.extend({
  /** Date of the last change, shown under the heading. */
  updated: z.coerce.date(),
});

/** A lead page (/get-started-*, /apply): its heading and which embed it shows. */
export const leadPageSchema = z.strictObject({
  /** Title tag and meta description. */
  seo: seoSchema,
  /** The page heading. */
  heading: z.string().min(1),
  /** One or two sentences under the heading. */
  intro: z.string().min(20),
  /** The consultation form (iframe) or the booking widget (script). */
  embed: z.enum(["consultation", "booking"]),
});

/** A program's own page (/programs/...): the copy around the facts of the programs collection. */
export const programPageSchema = z.strictObject({
  /** Id of the program in the programs collection; the page lives at that program's `page`. */
  program: z.string().min(1),
  seo: seoSchema,
  hero: z.strictObject({
    eyebrow: z.string().min(1),
    headline: z.string().min(1),
    subheadline: z.string().min(20),
  }),
  curriculum: z.strictObject({ heading: z.string().min(1), intro: z.string().min(20) }),
  /** Problems the program solves, shown as cards; omit for none. */
  challenges: z
    .strictObject({
      heading: z.string().min(1),
      items: z.array(z.strictObject({ title: z.string().min(1), description: z.string().min(20) })).min(2),
    })
    .optional(),
  /** Who the program fits, as a checklist; omit for none. */
  fit: z
    .strictObject({
      heading: z.string().min(1),
      items: z.array(z.string().min(1)).min(2),
      note: z.string().optional(),
    })
    .optional(),
  /** Heading of the testimonials section (default "Success Stories", docs/product.md §9). */
  testimonialsHeading: z.string().default("Success Stories"),
  closing: z.strictObject({ heading: z.string().min(1), body: z.string().min(20) }),
});

/** Copy of a composed page (e.g. /programs): hero, section headings by key, closing call to action. */
export const pageCopySchema = z.strictObject({
  seo: seoSchema,
  hero: z.strictObject({
    eyebrow: z.string().min(1),
    headline: z.string().min(1),
    subheadline: z.string().min(20),
  }),
  /** Each section's heading, optional intro, cards (`items`) and bullet points, by the key the page asks for. */
  sections: z.record(
    z.string(),
    z.strictObject({
      heading: z.string().min(1),
      intro: z.string().optional(),
      items: z
        .array(
          z.strictObject({
            label: z.string().optional(),
            title: z.string().min(1),
            description: z.string().min(10),
          }),
        )
        .optional(),
      points: z.array(z.string().min(1)).optional(),
    }),
  ),
  closing: z.strictObject({ heading: z.string().min(1), body: z.string().min(20) }),
});

/** A marketing offer stack; its total value and savings are computed from the components. */
export const offerSchema = z.strictObject({
  heading: z.string().min(1),
  components: z
    .array(
      z.strictObject({
        name: z.string().min(1),
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
});
export type Offer = z.infer<typeof offerSchema>;

/** A bar chart: labelled percentages. */
export const chartSchema = z.strictObject({
  title: z.string().min(1),
  /** Where the numbers come from, shown under the chart. */
  source: z.string().min(1),
  bars: z.array(z.strictObject({ label: z.string().min(1), percent: z.number().min(0).max(100) })).min(1),
});
