/**
 * functions/_shared/catalogue.ts is generated from content/programs/*.yaml (scripts/catalogue.ts):
 * the functions charge what the pages show only while the two agree.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { load } from "js-yaml";
import { describe, expect, it } from "vitest";
import {
  AUTH_EMAIL_FILES,
  CATALOGUE_FILE,
  catalogueSource,
  coachedOffers,
  syncCatalogue,
} from "../../scripts/catalogue.ts";
import { BRAND, BUSINESS_EMAIL, CATALOGUE, COACHED_OFFERS } from "../../functions/_shared/catalogue.ts";
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

  it("carries each coached offer of content/offers.yaml: its program's checkout key, its price, what it includes and how it can be paid", () => {
    const offers = load(readFileSync(join(import.meta.dirname, "../../content/offers.yaml"), "utf8")) as Record<
      string,
      { program: string; priceCents: number; components: unknown[] }
    >;
    expect(COACHED_OFFERS.map((o) => o.id)).toEqual(Object.keys(offers).sort());
    for (const offer of COACHED_OFFERS) {
      const content = offers[offer.id]!;
      expect(offer.productKey).toBe(CATALOGUE.find((p) => p.id === content.program)!.key);
      expect(offer.priceCents).toBe(content.priceCents);
      expect(offer.includes).toHaveLength(content.components.length);
      expect(offer.payment?.inFull).toBe(true);
      // Every plan comes to the price plus its fee, as the build checks (src/schemas/content.ts).
      for (const plan of offer.payment!.plans) {
        expect(plan.instalmentsCents.reduce((a, b) => a + b, 0)).toBe(offer.priceCents + plan.feeCents);
      }
    }
    expect(COACHED_OFFERS.find((o) => o.id === "ai-advisor-accelerator")).toMatchObject({
      monthlyPriceCents: 45000,
      payment: { membership: { startsAfterMonths: expect.any(Number) } },
    });
  });

  it("refuses an offer built around a program content does not have, naming the file and the offer; no offers file is no offers", () => {
    const dir = mkdtempSync(join(tmpdir(), "catalogue-"));
    try {
      expect(coachedOffers(dir, [])).toEqual([]);
      writeFileSync(join(dir, "offers.yaml"), "mystery:\n  program: nowhere\n  priceCents: 100\n");
      expect(() => coachedOffers(dir, [])).toThrow(
        "offers.yaml: mystery: `program` must be a program of content/programs/",
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
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
      cpSync(join(import.meta.dirname, "../../content/offers.yaml"), join(dir, "content/offers.yaml"));
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
