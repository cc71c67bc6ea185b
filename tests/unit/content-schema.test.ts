/**
 * A broken content file must fail the build with a message naming the file and the field.
 * The first block checks the schemas directly; the second runs the real `astro sync` on a copy
 * of the project with one file broken.
 */
import { execFile } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify, stripVTControlCharacters } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { programSchema, siteSchema, testimonialSchema } from "../../src/schemas/content";
import { loadPrograms } from "./content-files";

const root = join(import.meta.dirname, "../..");
const run = promisify(execFile);

function issues(result: { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } }) {
  expect(result.success).toBe(false);
  return result.error!.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
}

describe("content schemas", () => {
  const valid = loadPrograms()[0]!;

  it("accept every program in content/", () => {
    expect(loadPrograms()).toHaveLength(3);
  });

  it("reject a price that is not whole cents", () => {
    expect(issues(programSchema.safeParse({ ...valid, priceCents: 2999.5 }))).toEqual([
      "priceCents: must be whole cents (an integer), e.g. 299900 for $2,999",
    ]);
  });

  it("reject a missing field, naming it", () => {
    const { name: _, ...withoutName } = valid;
    expect(issues(programSchema.safeParse(withoutName))[0]).toMatch(/^name: /);
  });

  it("reject a field of the wrong type, naming it", () => {
    expect(issues(programSchema.safeParse({ ...valid, priceCents: "300.00" }))[0]).toMatch(/^priceCents: .*number/i);
  });

  it("reject unknown keys, which are usually typos", () => {
    expect(issues(programSchema.safeParse({ ...valid, pirce: 1 }))[0]).toMatch(/pirce/);
  });

  it("reject a testimonial gradient that is not two hex colours", () => {
    const testimonial = {
      name: "A",
      title: "B",
      company: "C",
      aum: "$1M AUM",
      quote: "A quote that is long enough to pass.",
      initials: "AB",
      gradientColors: ["#7c3aed", "purple"],
    };
    expect(issues(testimonialSchema.safeParse(testimonial))[0]).toMatch(/^gradientColors\.1: must be a hex colour/);
  });

  it("reject a default call to action that leads nowhere", () => {
    const site = { brand: "X", flagship: "x", description: "d".repeat(60) };
    const result = siteSchema.safeParse({ ...site, defaultCta: { text: "Go", href: "get-started" } });
    expect(issues(result)).toContain("defaultCta.href: must be a site path starting with / or an https:// URL");
  });
});

describe("astro build on broken content", () => {
  const copies: string[] = [];
  afterAll(() => copies.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  /** Copies the project, lets `breakIt` edit one file, runs `astro sync`, returns its output. */
  async function syncWith(file: string, breakIt: (text: string) => string) {
    const dir = mkdtempSync(join(tmpdir(), "content-"));
    copies.push(dir);
    for (const entry of ["src", "content", "public", "astro.config.mjs", "package.json", "tsconfig.json"]) {
      cpSync(join(root, entry), join(dir, entry), { recursive: true });
    }
    symlinkSync(join(root, "node_modules"), join(dir, "node_modules"));
    const target = join(dir, "content", file);
    const before = readFileSync(target, "utf8");
    const after = breakIt(before);
    expect(after).not.toBe(before);
    writeFileSync(target, after);
    try {
      await run(process.execPath, [join(root, "node_modules/astro/bin/astro.mjs"), "sync"], {
        cwd: dir,
        env: { ...process.env, ASTRO_TELEMETRY_DISABLED: "1" },
      });
    } catch (error) {
      const { stdout, stderr } = error as { stdout: string; stderr: string };
      // Colours depend on the terminal (CI forces them); compare the plain text.
      return { failed: true, output: stripVTControlCharacters(stdout + stderr), target };
    }
    return { failed: false, output: "", target };
  }

  it("fails on a price that is not whole cents, naming the file and the field", async () => {
    const result = await syncWith("programs/os-accelerator.yaml", (t) =>
      t.replace("priceCents: 299900", "priceCents: 2999.5"),
    );
    expect(result.failed).toBe(true);
    expect(result.output).toContain(result.target);
    expect(result.output).toContain("priceCents: must be whole cents");
  });

  it("fails on a missing field in a list file, naming the file, the entry and the field", async () => {
    const result = await syncWith("endorsements.yaml", (t) => t.replace("  author: Thomas Greer\n", ""));
    expect(result.failed).toBe(true);
    expect(result.output).toContain(result.target);
    expect(result.output).toContain("thomas-greer");
    expect(result.output).toMatch(/author: /);
  });

  it("fails on a field of the wrong type in a Markdown page", async () => {
    const result = await syncWith("legal/dmca.md", (t) => t.replace("updated: 2026-11-01", "updated: last tuesday"));
    expect(result.failed).toBe(true);
    expect(result.output).toContain(result.target);
    expect(result.output).toMatch(/updated: /);
  });
});
