/** Typed access to the content collections, sorted the way pages show them. */
import { getCollection, getEntry } from "astro:content";

export async function getSite() {
  const entry = await getEntry("site", "site");
  if (!entry) throw new Error("content/site.yaml must define the entry `site`");
  return entry.data;
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
