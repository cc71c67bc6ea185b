/**
 * functions/_shared/catalogue.ts is generated from content/programs/*.yaml (scripts/catalogue.ts):
 * the functions charge what the pages show only while the two agree.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AUTH_EMAIL_FILES, CATALOGUE_FILE, catalogueSource, syncCatalogue } from "../../scripts/catalogue.ts";
import { BRAND, BUSINESS_EMAIL, CATALOGUE } from "../../functions/_shared/catalogue.ts";
import { loadPrograms } from "./content-files";

describe("the functions' catalogue", () => {
  it("is what scripts/catalogue.ts writes from the program collection now (run `npm run catalogue` if not)", async () => {
    expect(readFileSync(CATALOGUE_FILE, "utf8")).toBe(await catalogueSource());
  });

  it("has a unique checkout key and lookup key per program, and whole positive prices", () => {
    expect(new Set(CATALOGUE.map((p) => p.key)).size).toBe(CATALOGUE.length);
    expect(new Set(CATALOGUE.map((p) => p.lookupKey)).size).toBe(CATALOGUE.length);
    for (const product of CATALOGUE) expect(Number.isInteger(product.priceCents) && product.priceCents > 0).toBe(true);
  });

  it("sells every program of content/programs/ at the price its page shows, and nothing else", () => {
    const sold = Object.fromEntries(CATALOGUE.map((p) => [p.key, p.priceCents]));
    const shown = Object.fromEntries(loadPrograms().map((p) => [p.checkoutKey, p.priceCents]));
    expect(sold).toEqual(shown);
  });

  it("sends lead notifications to the contact address of content/site.yaml, and follows it when edited", async () => {
    const contact = /^ {4}email: (\S+)$/m.exec(
      readFileSync(join(import.meta.dirname, "../../content/site.yaml"), "utf8"),
    );
    expect(BUSINESS_EMAIL).toBe(contact?.[1]);
    const dir = mkdtempSync(join(tmpdir(), "catalogue-"));
    try {
      cpSync(join(import.meta.dirname, "../../content/programs"), join(dir, "content/programs"), { recursive: true });
      cpSync(join(import.meta.dirname, "../../content/site.yaml"), join(dir, "content/site.yaml"));
      const site = join(dir, "content/site.yaml");
      writeFileSync(site, readFileSync(site, "utf8").replace(`email: ${BUSINESS_EMAIL}`, "email: leads@example.com"));
      expect(await catalogueSource(join(dir, "content"))).toContain('BUSINESS_EMAIL = "leads@example.com"');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("signs the e-mails with the brand of content/site.yaml, and follows a rename", async () => {
    const brand = /^ {2}brand: (.+)$/m.exec(readFileSync(join(import.meta.dirname, "../../content/site.yaml"), "utf8"));
    expect(BRAND).toBe(brand?.[1]);
    const dir = mkdtempSync(join(tmpdir(), "catalogue-"));
    try {
      cpSync(join(import.meta.dirname, "../../content/programs"), join(dir, "content/programs"), { recursive: true });
      cpSync(join(import.meta.dirname, "../../content/site.yaml"), join(dir, "content/site.yaml"));
      const site = join(dir, "content/site.yaml");
      writeFileSync(site, readFileSync(site, "utf8").replace(`brand: ${BRAND}`, "brand: Meridian Advisor Academy"));
      expect(await catalogueSource(join(dir, "content"))).toContain('BRAND = "Meridian Advisor Academy"');
      writeFileSync(site, readFileSync(site, "utf8").replace("brand: Meridian Advisor Academy", "brand: ''"));
      await expect(catalogueSource(join(dir, "content"))).rejects.toThrow("site.brand");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("Auth's e-mails (templates and subjects) carry the same brand", () => {
    const repo = join(import.meta.dirname, "../..");
    for (const name of AUTH_EMAIL_FILES) expect(readFileSync(join(repo, name), "utf8"), name).toContain(BRAND);
    const subjects = readFileSync(join(repo, "supabase/config.toml"), "utf8").match(/^subject = .*$/gm) ?? [];
    expect(subjects.length).toBeGreaterThan(0);
    for (const subject of subjects) expect(subject).toContain(BRAND);
  });

  it("carries a renamed brand into Auth's e-mails at the next `npm start`, and nothing else of config.toml", async () => {
    const repo = join(import.meta.dirname, "../..");
    const dir = mkdtempSync(join(tmpdir(), "catalogue-"));
    try {
      cpSync(join(repo, "content/programs"), join(dir, "content/programs"), { recursive: true });
      cpSync(join(repo, "content/site.yaml"), join(dir, "content/site.yaml"));
      for (const name of AUTH_EMAIL_FILES) cpSync(join(repo, name), join(dir, name));
      // A setting that happens to hold the brand is no subject: it stays.
      const toml = join(dir, "supabase/config.toml");
      writeFileSync(toml, `${readFileSync(toml, "utf8")}\n# ${BRAND}\n`);
      const file = join(dir, "catalogue.ts");
      writeFileSync(file, readFileSync(CATALOGUE_FILE, "utf8"));
      const site = join(dir, "content/site.yaml");
      writeFileSync(site, readFileSync(site, "utf8").replace(`brand: ${BRAND}`, "brand: Meridian Advisor Academy"));

      expect(await syncCatalogue(join(dir, "content"), file, dir)).toBe("updated");
      for (const name of AUTH_EMAIL_FILES.filter((n) => n.endsWith(".html"))) {
        const html = readFileSync(join(dir, name), "utf8");
        expect(html, name).toContain("Meridian Advisor Academy");
        expect(html, name).not.toContain(BRAND);
      }
      const subjects = readFileSync(toml, "utf8").match(/^subject = .*$/gm)!;
      for (const subject of subjects) expect(subject).toContain("Meridian Advisor Academy");
      expect(readFileSync(toml, "utf8")).toContain(`# ${BRAND}\n`);
      expect(await syncCatalogue(join(dir, "content"), file, dir)).toBe("current");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("follows a price edited in content at the next `npm start` (syncCatalogue), and leaves a current file alone", async () => {
    const dir = mkdtempSync(join(tmpdir(), "catalogue-"));
    try {
      cpSync(join(import.meta.dirname, "../../content/programs"), join(dir, "content/programs"), { recursive: true });
      cpSync(join(import.meta.dirname, "../../content/site.yaml"), join(dir, "content/site.yaml"));
      const file = join(dir, "catalogue.ts");
      writeFileSync(file, readFileSync(CATALOGUE_FILE, "utf8"));
      expect(await syncCatalogue(join(dir, "content"), file)).toBe("current");

      const program = join(dir, "content/programs/growth-mindset.yaml");
      writeFileSync(program, readFileSync(program, "utf8").replace(/^priceCents: \d+$/m, "priceCents: 34500"));
      expect(await syncCatalogue(join(dir, "content"), file)).toBe("updated");
      expect(readFileSync(file, "utf8")).toContain("priceCents: 34500");
      expect(await syncCatalogue(join(dir, "content"), file)).toBe("current");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
