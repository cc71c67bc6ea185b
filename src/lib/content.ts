/** Typed access to the content collections, sorted the way pages show them. */
import { getCollection, getEntry } from "astro:content";
import { EMBED_BOOKING_SCRIPT_URL, EMBED_BOOKING_WIDGET_URL, EMBED_CONSULTATION_FORM_URL } from "astro:env/server";

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

export async function getPrograms() {
  return ordered(await getCollection("programs"));
}

export type ProgramEntry = Awaited<ReturnType<typeof getPrograms>>[number];

export async function getFlagship() {
  const site = await getSite();
  const flagship = (await getPrograms()).find((p) => p.id === site.flagship);
  if (!flagship) throw new Error(`content/site.yaml: flagship "${site.flagship}" is not in content/programs`);
  return flagship;
}

function ordered<T extends { order: number }>(entries: { id: string; data: T }[]) {
  return entries.map((e) => ({ id: e.id, ...e.data })).sort((a, b) => a.order - b.order);
}

export const getEndorsements = async () => ordered(await getCollection("endorsements"));
export const getStats = async () => ordered(await getCollection("stats"));
export const getWhyChoose = async () => ordered(await getCollection("whyChoose"));
export const getAudienceTiers = async () => ordered(await getCollection("audienceTiers"));
export const getSuccessMetrics = async () => ordered(await getCollection("successMetrics"));

/** Testimonials about a program (all of them when none names it), by name. */
export async function getTestimonials(programId?: string) {
  const all = (await getCollection("testimonials")).map((t) => ({ id: t.id, ...t.data }));
  const about = programId ? all.filter((t) => t.programs.includes(programId)) : all;
  return (about.length ? about : all).sort((a, b) => a.name.localeCompare(b.name));
}

export async function getCurriculum(programId: string) {
  const curriculum = (await getCollection("curricula")).find((c) => c.data.program === programId);
  if (!curriculum) throw new Error(`content/curricula has no curriculum for program "${programId}"`);
  return curriculum.data.items;
}

/**
 * Copy of a composed page from content/pages/<id>.yaml or .mdx (whose body is the page's long-form
 * story); `section(key)` fails the build on a missing key.
 */
export async function getPageCopy(id: string) {
  const entry = await getEntry("pages", id);
  if (!entry) throw new Error(`content/pages/${id}.yaml is missing`);
  const copy = entry.data;
  const section = (key: string) => {
    const found = copy.sections[key];
    if (!found) throw new Error(`content/pages/${id}.yaml: sections.${key} is missing`);
    return found;
  };
  return { ...copy, section, entry };
}

export async function getOffer(id: string) {
  const entry = await getEntry("offers", id);
  if (!entry) throw new Error(`content/offers.yaml has no offer "${id}"`);
  return entry.data;
}

export async function getChart(id: string) {
  const entry = await getEntry("charts", id);
  if (!entry) throw new Error(`content/charts.yaml has no chart "${id}"`);
  return entry.data;
}
