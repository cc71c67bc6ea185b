/**
 * Writes functions/_shared/catalogue.ts, the server's copy of what it sells, from the program
 * collection (content/programs/*.yaml): content id, checkout key, Stripe price lookup key, name, description
 * and price in cents; the coached offers (content/offers.yaml: the program, the price, what each
 * includes and how it can be paid); and the business's address, where lead notifications go, and how soon a coach
 * replies (content/site.yaml `site.contact`). The functions run on Supabase Edge, where content/ is not deployed, so they
 * read this generated file; tests/unit/catalogue-file.test.ts fails when it no longer matches the
 * content. `npm start` and `npm run dev` run it first, so a price edited in content/programs/ is what
 * the local checkout charges at the next start. A renamed brand (`site.brand`) is also carried
 * into Auth's e-mails (AUTH_EMAIL_FILES), which `supabase config push` reads as they are, so the
 * brand is written once. Usage: npm run catalogue [-- --quiet]
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { load } from "js-yaml";
import { format, resolveConfig } from "prettier";
import { isDay } from "../packages/shared/cohort.ts";
import type { OfferContent } from "../packages/shared/offer-options.ts";

const root = join(import.meta.dirname, "..");
export const CATALOGUE_FILE = join(root, "functions/_shared/catalogue.ts");

/** What the generated file lists per program (its `CatalogueProduct`). */
interface Product {
  id: string;
  key: string;
  lookupKey: string;
  name: string;
  description: string;
  priceCents: number;
  currency: string;
  cohortStarts: string[];
}

type Yaml = Record<string, unknown>;

const isRecord = (value: unknown): value is Yaml =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** A file as an error names it: from the repo's root when it is in the repo. */
const shown = (file: string) => (relative(root, file).startsWith("..") ? file : relative(root, file));

/** A YAML file's top-level mapping; throws, naming the file, when it is something else. */
function readYaml(file: string): Yaml {
  const data: unknown = load(readFileSync(file, "utf8"));
  if (!isRecord(data)) throw new Error(`${shown(file)}: expected a mapping of fields`);
  return data;
}

/** A text field the catalogue needs; throws, naming the file and the field, when it is not text. */
function text(data: Yaml, key: string, file: string): string {
  const value = data[key];
  if (typeof value !== "string") throw new Error(`${shown(file)}: \`${key}\` must be text`);
  return value;
}

/** A price in cents; throws, naming the file and the field, when it is not a number. */
function cents(data: Yaml, key: string, file: string): number {
  const value = data[key];
  if (typeof value !== "number") throw new Error(`${shown(file)}: \`${key}\` must be a number of cents`);
  return value;
}

/**
 * A cohort program's start days as YYYY-MM-DD, sorted (js-yaml reads an unquoted day as a Date);
 * none for a self-paced program. Throws, naming the file, for anything that is not a day.
 */
export function cohortStarts(program: Yaml, file: string): string[] {
  const cohort = program.cohort;
  if (cohort === undefined) return [];
  const starts = isRecord(cohort) ? (cohort.starts ?? []) : undefined;
  if (!Array.isArray(starts)) throw new Error(`${shown(file)}: \`cohort.starts\` must be a list of days`);
  const days = starts.map((start) => (start instanceof Date ? start.toISOString().slice(0, 10) : start));
  const bad = days.find((day) => !isDay(day));
  if (bad !== undefined)
    throw new Error(`${shown(file)}: \`cohort.starts\` has ${String(bad)}, not a day (YYYY-MM-DD)`);
  return [...new Set(days as string[])].sort();
}

/** What the generated file lists per coached offer (its `CatalogueOffer`). */
interface CoachedOffer extends OfferContent {
  id: string;
  productKey: string;
  name: string;
  includes: string[];
}

const wholeCents = (value: unknown) => typeof value === "number" && Number.isInteger(value) && value > 0;

/**
 * The coached offers of content/offers.yaml (none without the file), each with the checkout key
 * of the program it is built around and how it can be paid. The build checks the file in full
 * (src/schemas/content.ts `offerSchema`); this names the file and the offer for what the functions
 * would misread.
 */
export function coachedOffers(contentDir: string, products: readonly Product[]): CoachedOffer[] {
  const file = join(contentDir, "offers.yaml");
  let offers: Yaml;
  try {
    offers = readYaml(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  return Object.entries(offers)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([id, offer]): CoachedOffer => {
      const where = `${shown(file)}: ${id}`;
      if (!isRecord(offer)) throw new Error(`${where} must be a mapping of fields`);
      const product = products.find((p) => p.id === offer.program);
      if (!product) throw new Error(`${where}: \`program\` must be a program of content/programs/`);
      const monthly = offer.monthlyPriceCents;
      if (monthly !== undefined && !wholeCents(monthly))
        throw new Error(`${where}: \`monthlyPriceCents\` must be whole cents`);
      const components = Array.isArray(offer.components) ? offer.components : [];
      const payment = offer.payment;
      let paid: CoachedOffer["payment"] = null;
      if (isRecord(payment)) {
        const plans = (Array.isArray(payment.plans) ? payment.plans : []).map((plan, i) => {
          const instalments = isRecord(plan) ? plan.instalmentsCents : undefined;
          if (
            !isRecord(plan) ||
            typeof plan.name !== "string" ||
            !Array.isArray(instalments) ||
            !instalments.every(wholeCents)
          ) {
            throw new Error(`${where}: \`payment.plans[${i}]\` needs a name and its instalmentsCents in whole cents`);
          }
          return {
            name: plan.name,
            instalmentsCents: instalments as number[],
            feeCents: (plan.feeCents as number | undefined) ?? 0,
          };
        });
        const membership = isRecord(payment.membership) ? payment.membership : null;
        const terms = isRecord(payment.terms) ? payment.terms.text : undefined;
        if (typeof terms !== "string") throw new Error(`${where}: \`payment.terms.text\` must be text`);
        // Plans, the membership's start or the terms the business has not set yet (`sample: true`).
        const sample =
          (Array.isArray(payment.plans) ? payment.plans : []).some((plan) => isRecord(plan) && plan.sample === true) ||
          membership?.sample === true ||
          (isRecord(payment.terms) && payment.terms.sample === true);
        paid = {
          inFull: payment.inFull !== false,
          plans,
          membership: membership ? { startsAfterMonths: Number(membership.startsAfterMonths) } : null,
          terms: terms.replace(/\s+/g, " ").trim(),
          sample,
        };
      }
      return {
        id,
        productKey: product.key,
        name: product.name,
        priceCents: cents(offer, "priceCents", file),
        monthlyPriceCents: monthly === undefined ? null : (monthly as number),
        includes: components.flatMap((component) =>
          isRecord(component) && typeof component.name === "string" ? [component.name] : [],
        ),
        payment: paid,
      };
    });
}

/** The catalogue module's source for the programs in `contentDir`, formatted as the repo formats code. */
export async function catalogueSource(contentDir = join(root, "content")): Promise<string> {
  const dir = join(contentDir, "programs");
  const products = readdirSync(dir)
    .filter((file) => file.endsWith(".yaml"))
    .sort()
    .map((name): Product => {
      const file = join(dir, name);
      const program = readYaml(file);
      return {
        id: name.slice(0, -".yaml".length),
        key: text(program, "checkoutKey", file),
        lookupKey: text(program, "stripeLookupKey", file),
        name: text(program, "name", file),
        description: text(program, "description", file).replace(/\s+/g, " ").trim(),
        priceCents: cents(program, "priceCents", file),
        currency: "usd",
        cohortStarts: cohortStarts(program, file),
      };
    });
  const site = readYaml(join(contentDir, "site.yaml")).site;
  const contact = isRecord(site) ? site.contact : undefined;
  const businessEmail = isRecord(contact) ? contact.email : undefined;
  if (typeof businessEmail !== "string" || !businessEmail.includes("@")) {
    throw new Error("content/site.yaml: site.contact.email is where lead notifications go, and must be an address");
  }
  const replyWithin = isRecord(contact) ? contact.replyWithin : undefined;
  if (typeof replyWithin !== "string" || replyWithin.trim() === "") {
    throw new Error(
      "content/site.yaml: site.contact.replyWithin is how soon a coach replies to a request, and must be a text",
    );
  }
  const timeZone = isRecord(site) ? site.timeZone : undefined;
  if (typeof timeZone !== "string" || !timeZone) {
    throw new Error("content/site.yaml: site.timeZone is the business's time zone, in which cohorts start");
  }
  const brand = isRecord(site) ? site.brand : undefined;
  if (typeof brand !== "string" || brand.trim() === "") {
    throw new Error("content/site.yaml: site.brand is the business's name the e-mails carry, and must be a text");
  }
  const offers = coachedOffers(contentDir, products);
  const source = `// Generated by scripts/catalogue.ts from content/programs/*.yaml, content/offers.yaml and content/site.yaml. Do not edit: run \`npm run catalogue\`.
import type { OfferContent } from "../../packages/shared/offer-options.ts";

/** A program the functions sell: its checkout key, its Stripe price lookup key and its price. */
export interface CatalogueProduct {
  /** The program's content id (its file name): its course in the member area is /portal/courses/<id>. */
  id: string;
  /** The checkout key, as orders record it (stripe_orders.product_key). */
  key: string;
  /** The Stripe price's \`lookup_key\`; the checkout page sends it as \`price_id\`. */
  lookupKey: string;
  name: string;
  description: string;
  /** One-time price in cents. */
  priceCents: number;
  currency: string;
  /**
   * A cohort program's start days (YYYY-MM-DD, in TIME_ZONE, sorted): the checkout sells a seat in
   * the cohort packages/shared/cohort.ts picks, and none when it picks none. Empty: self-paced.
   */
  cohortStarts: readonly string[];
}

export const CATALOGUE: readonly CatalogueProduct[] = ${JSON.stringify(products, null, 2)};

/**
 * A coached offer the team sends by application (content/offers.yaml, docs/coached-offers.md):
 * the program it enrols in, its price, what it includes, and how it can be paid once sent
 * (\`OfferContent\`: packages/shared/offer-options.ts).
 */
export interface CatalogueOffer extends OfferContent {
  /** Its key in content/offers.yaml. */
  id: string;
  /** The checkout key of the program it is built around (stripe_orders.product_key). */
  productKey: string;
  /** The program's name. */
  name: string;
  /** What it includes, as the sales page lists it. */
  includes: readonly string[];
}

export const COACHED_OFFERS: readonly CatalogueOffer[] = ${JSON.stringify(offers, null, 2)};

/** Where the leads function sends each consultation request (content/site.yaml \`site.contact.email\`). */
export const BUSINESS_EMAIL = ${JSON.stringify(businessEmail)};

/**
 * When a coach replies to a consultation request (content/site.yaml \`site.contact.replyWithin\`),
 * as the consultation form promises it before and after sending.
 */
export const LEAD_REPLY_WITHIN = ${JSON.stringify(`within ${replyWithin.trim()}`)};

/** The business's name, as the e-mails sign and brand them (content/site.yaml \`site.brand\`). */
export const BRAND = ${JSON.stringify(brand.trim())};

/** The business's time zone, in which cohorts start (content/site.yaml \`site.timeZone\`). */
export const TIME_ZONE = ${JSON.stringify(timeZone)};
`;
  return format(source, { ...(await resolveConfig(CATALOGUE_FILE)), filepath: CATALOGUE_FILE });
}

/**
 * Auth's e-mails, which carry the brand: its templates, and their subjects in supabase/config.toml
 * (`subject = "…"` lines only; the rest of that file is settings).
 */
export const AUTH_EMAIL_FILES = [
  "supabase/templates/invite.html",
  "supabase/templates/recovery.html",
  "supabase/config.toml",
] as const;

/** The brand a generated catalogue carries (its `BRAND`), or null. */
export function brandOf(catalogue: string | null): string | null {
  const match = catalogue && /^export const BRAND = ("(?:[^"\\]|\\.)*");$/m.exec(catalogue);
  return match ? (JSON.parse(match[1]!) as string) : null;
}

/** `text` of Auth's e-mail `file` with the brand `before` renamed `after`. */
export function renameBrand(text: string, file: string, before: string, after: string): string {
  if (!file.endsWith(".toml")) return text.replaceAll(before, after);
  return text.replace(/^(\s*subject\s*=\s*")(.*)("\s*)$/gm, (_, head: string, subject: string, tail: string) =>
    [head, subject.replaceAll(before, after), tail].join(""),
  );
}

/**
 * Brings `file` in line with the program collection and the site's contact: writes it when it
 * differs, and when the brand changed, renames it in Auth's e-mails under `authRoot`. Answers
 * "updated" or "current".
 */
export async function syncCatalogue(
  contentDir = join(root, "content"),
  file = CATALOGUE_FILE,
  authRoot = root,
): Promise<"updated" | "current"> {
  const source = await catalogueSource(contentDir);
  let current: string | null = null;
  try {
    current = readFileSync(file, "utf8");
  } catch {
    // No file yet: written below.
  }
  if (current === source) return "current";
  const before = brandOf(current);
  const after = brandOf(source);
  if (before && after && before !== after) {
    for (const name of AUTH_EMAIL_FILES) {
      const path = join(authRoot, name);
      const text = readFileSync(path, "utf8");
      const renamed = renameBrand(text, name, before, after);
      if (renamed !== text) writeFileSync(path, renamed);
    }
  }
  writeFileSync(file, source);
  return "updated";
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  // --quiet: a line only when something changed (npm start and npm run dev run it each time).
  const outcome = await syncCatalogue();
  const name = relative(process.cwd(), CATALOGUE_FILE);
  if (outcome === "updated")
    console.log(
      `Updated ${name} from content/programs/, content/offers.yaml and content/site.yaml: the functions sell what the pages show.`,
    );
  else if (!process.argv.includes("--quiet"))
    console.log(`${name} already matches content/programs/, content/offers.yaml and content/site.yaml.`);
}
