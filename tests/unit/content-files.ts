/** Reads the real content files the way the build does, for tests of pure logic. */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { load } from "js-yaml";
import { type Program, programSchema } from "../../src/schemas/content";

export const contentDir = join(import.meta.dirname, "../../content");

export function loadPrograms(): Program[] {
  const dir = join(contentDir, "programs");
  return readdirSync(dir)
    .filter((f) => f.endsWith(".yaml"))
    .map((f) => programSchema.parse(load(readFileSync(join(dir, f), "utf8"))));
}
