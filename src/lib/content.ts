/** Typed access to the content collections, sorted the way pages show them. */
import { getCollection, getEntry } from "astro:content";
import { EMBED_BOOKING_SCRIPT_URL, EMBED_BOOKING_WIDGET_URL, EMBED_CONSULTATION_FORM_URL } from "astro:env/server";
import { formatCents } from "@advisor-accelerator/shared/money.ts";
import { fill, withBrand } from "./copy";
import { offerPrice } from "./offer";
import { titleWithBrand } from "./title";

/**
 * content/site.yaml, with `{brand}` filled in (src/lib/copy.ts) and the embed URLs a build may
 * override from the environment (astro.config.ts).
 */
export async function getSite() {
  const entry = await getEntry("site", "site");
  if (!entry) throw new Error("content/site.yaml must define the entry `site`");
  const data = withBrand(entry.data, entry.data.brand);
  const { embeds } = data;
  return {
    ...data,
    embeds: {
      ...embeds,
      consultationFormUrl: EMBED_CONSULTATION_FORM_URL ?? embeds.consultationFormUrl,
      bookingWidgetUrl: EMBED_BOOKING_WIDGET_URL ?? embeds.bookingWidgetUrl,
      bookingScriptUrl: EMBED_BOOKING_SCRIPT_URL ?? embeds.bookingScriptUrl,
    },
  };
}

/** The business's name, content/site.yaml's `brand`, as every `{brand}` of the copy reads. */
const brand = async () => (await getSite()).brand;

/** The words several pages share (content/shared-copy.yaml), with `{brand}` filled in. */
export async function getCopy() {
  const [entry] = await getCollection("sharedCopy");
  if (!entry) throw new Error("content/shared-copy.yaml has no copy (src/content.config.ts)");
  return withBrand(entry.data, await brand());
}

/**
 * A page's `<title>`: its own title, then " | " and the brand of content/site.yaml; the brand
 * alone for a page without a title of its own. Every page passes this to BaseLayout.
 */
export async function pageTitle(title?: string) {
  return titleWithBrand(title, (await getSite()).brand);
}

export async function getPrograms() {
  return ordered(await getCollection("programs"));
}

export type ProgramEntry = Awaited<ReturnType<typeof getPrograms>>[number];

/** A reference to an entry, as the schemas write it (`reference()` in src/content.config.ts). */
type Ref<C extends string> = { collection: C; id: string };
/** A program: a reference to it, or the program itself. */
type ProgramRef = { id: string };

/** The program a content entry refers to; the schema has checked that it exists. */
export async function getProgram(ref: ProgramRef) {
  const program = (await getPrograms()).find((p) => p.id === ref.id);
  if (!program) throw new Error(`content/programs has no program "${ref.id}"`);
  return program;
}

/** The flagship program named in content/site.yaml. */
export async function getFlagship() {
  return getProgram((await getSite()).flagship);
}

function ordered<T extends { order: number }>(entries: { id: string; data: T }[]) {
  return entries.map((e) => ({ id: e.id, ...e.data })).sort((a, b) => a.order - b.order);
}

export const getEndorsements = async () => ordered(await getCollection("endorsements"));
export const getStats = async () => ordered(await getCollection("stats"));
export const getWhyChoose = async () => ordered(await getCollection("whyChoose"));
export const getAudienceTiers = async () => ordered(await getCollection("audienceTiers"));
export const getSuccessMetrics = async () => ordered(await getCollection("successMetrics"));

/** The testimonials that speak about a program, by name; none when no testimonial names it. */
export async function getTestimonials(program: ProgramRef) {
  const about = await getCollection("testimonials", (t) => t.data.programs.some((p) => p.id === program.id));
  return about.map((t) => ({ id: t.id, ...t.data })).sort((a, b) => a.name.localeCompare(b.name));
}

export async function getCurriculum(program: ProgramRef) {
  const curriculum = (await getCollection("curricula")).find((c) => c.data.program.id === program.id);
  if (!curriculum) throw new Error(`content/curricula has no curriculum for program "${program.id}"`);
  return curriculum.data.items;
}

/** A program's framework phases, in order. */
export async function getPhases(program: ProgramRef) {
  return ordered(await getCollection("phases", (p) => p.data.program.id === program.id));
}

/** The collections that each hold one file of content/pages/ (src/content.config.ts). */
type PageCollection =
  | "homePage"
  | "programsPage"
  | "purchaseCoursePage"
  | "transformationPage"
  | "mindsetPage"
  | "advisorOsPage"
  | "notFoundPage"
  | "accountPages"
  | "portalPages"
  | "checkoutPages";

/**
 * A page's entry: its copy in `data`, checked by the page's own schema, with `{brand}` filled in,
 * and, for the MDX sales pages, the long-form story to render.
 */
export async function getPage<C extends PageCollection>(collection: C) {
  const [entry] = await getCollection(collection);
  if (!entry) throw new Error(`content/pages has no file for the collection "${collection}" (src/content.config.ts)`);
  return { ...entry, data: withBrand(entry.data, await brand()) };
}

/** The program pages of content/program-pages/, with `{brand}` filled in; `filePath` names each one's file. */
export async function getProgramPages() {
  const name = await brand();
  return (await getCollection("programPages")).map((page) => ({
    filePath: page.filePath,
    data: withBrand(page.data, name),
  }));
}

/** The lead pages of content/lead-pages.yaml (the id is the page's address), with `{brand}` filled in. */
export async function getLeadPages() {
  const name = await brand();
  return (await getCollection("leadPages")).map((page) => ({ id: page.id, data: withBrand(page.data, name) }));
}

/** The coaches of content/coaches/, in order: everyone, or only those who coach `program`. */
export async function getCoaches(program?: ProgramRef) {
  return ordered(await getCollection("coaches", (c) => !program || c.data.programs.some((p) => p.id === program.id)));
}

export async function getOffer(ref: Ref<"offers">) {
  const entry = await getEntry(ref);
  if (!entry) throw new Error(`content/offers.yaml has no offer "${ref.id}"`);
  return withBrand(entry.data, await brand());
}

/**
 * The coached offer built around `program` (content/offers.yaml, its `program`), with `{brand}`
 * filled in and its price as pages write it; null when the program has none.
 */
export async function getCoachedOffer(program: ProgramRef) {
  const entry = (await getCollection("offers")).find((offer) => offer.data.program.id === program.id);
  if (!entry) return null;
  const offer = withBrand(entry.data, await brand());
  const { perMonth } = (await getCopy()).offer;
  return { ...offer, price: offerPrice(offer, formatCents, (cents) => fill(perMonth, { amount: formatCents(cents) })) };
}

/**
 * The line that names `program`'s coached offer and its price (content/shared-copy.yaml
 * `offers.coached`), with its link's words; null for a program without one.
 */
export async function getCoachedLine(program: ProgramRef) {
  const offer = await getCoachedOffer(program);
  if (!offer) return null;
  const { coached } = (await getCopy()).offers;
  return { text: fill(coached.text, { price: offer.price }), apply: coached.apply };
}

export async function getChart(ref: Ref<"charts">) {
  const entry = await getEntry(ref);
  if (!entry) throw new Error(`content/charts.yaml has no chart "${ref.id}"`);
  return entry.data;
}
