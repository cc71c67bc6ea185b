/** Reads the real content files the way the build does, for tests of pure logic. */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { load } from "js-yaml";
import { type Program, programSchema } from "../../src/schemas/content";

export const contentDir = join(import.meta.dirname, "../../content");

/** The programs with their ids, as the collection has them: a file's name is its program's id. */
export function loadProgramEntries(): (Program & { id: string })[] {
  const dir = join(contentDir, "programs");
  return readdirSync(dir)
    .filter((f) => f.endsWith(".yaml"))
    .map((f) => ({
      id: f.slice(0, -".yaml".length),
      ...programSchema.parse(load(readFileSync(join(dir, f), "utf8"))),
    }));
}

export function loadPrograms(): Program[] {
  const dir = join(contentDir, "programs");
  return readdirSync(dir)
    .filter((f) => f.endsWith(".yaml"))
    .map((f) => programSchema.parse(load(readFileSync(join(dir, f), "utf8"))));
}
