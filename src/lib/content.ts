/** Typed access to the content collections, sorted the way pages show them. */
import { getCollection, getEntry } from "astro:content";
import { EMBED_BOOKING_SCRIPT_URL, EMBED_BOOKING_WIDGET_URL, EMBED_CONSULTATION_FORM_URL } from "astro:env/server";
import { titleWithBrand } from "./title";

/** content/site.yaml, with the embed URLs a build may override from the environment (astro.config.mjs). */
export async function getSite() {
  const entry = await getEntry("site", "site");
  if (!entry) throw new Error("content/site.yaml must define the entry `site`");
  const { embeds } = entry.data;
  return {
    ...entry.data,
    embeds: {
      ...embeds,
      consultationFormUrl: EMBED_CONSULTATION_FORM_URL ?? embeds.consultationFormUrl,
      bookingWidgetUrl: EMBED_BOOKING_WIDGET_URL ?? embeds.bookingWidgetUrl,
      bookingScriptUrl: EMBED_BOOKING_SCRIPT_URL ?? embeds.bookingScriptUrl,
    },
  };
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

/** The collections that each hold one page of content/pages/ (src/content.config.ts). */
type PageCollection = "programsPage" | "purchaseCoursePage" | "transformationPage" | "mindsetPage" | "advisorOsPage";

/**
 * A composed page's entry: its copy in `data`, checked by the page's own schema, and, for the MDX
 * sales pages, the long-form story to render.
 */
export async function getPage<C extends PageCollection>(collection: C) {
  const [entry] = await getCollection(collection);
  if (!entry) throw new Error(`content/pages has no file for the collection "${collection}" (src/content.config.ts)`);
  return entry;
}

export async function getOffer(ref: Ref<"offers">) {
  const entry = await getEntry(ref);
  if (!entry) throw new Error(`content/offers.yaml has no offer "${ref.id}"`);
  return entry.data;
}

export async function getChart(ref: Ref<"charts">) {
  const entry = await getEntry(ref);
  if (!entry) throw new Error(`content/charts.yaml has no chart "${ref.id}"`);
  return entry.data;
}
