import { existsSync, readdirSync, readFileSync } from "node:fs";
import { relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { defineCollection, reference } from "astro:content";
import { glob, type Loader } from "astro/loaders";
import { load } from "js-yaml";
import {
  accountPagesSchema,
  advisorOsPageSchema,
  audienceTierSchema,
  chartSchema,
  checkoutPagesSchema,
  coachSchema,
  curriculumSchema,
  endorsementSchema,
  homePageSchema,
  leadPageSchema,
  legalSchema,
  lessonSchema,
  mindsetPageSchema,
  notFoundPageSchema,
  offerSchema,
  phaseSchema,
  portalPagesSchema,
  programPageSchema,
  programSchema,
  programsPageSchema,
  purchaseCoursePageSchema,
  type CourseFacts,
  type Ref,
  type RefCollection,
  type RefSchema,
  sharedCopySchema,
  siteSchema,
  statSchema,
  testimonialSchema,
  transformationPageSchema,
  whyChooseSchema,
} from "./schemas/content";

/** The entry's id is its file name without the extension: content/programs/os-accelerator.yaml is `os-accelerator`. */
const fileName = ({ entry }: { entry: string }) => entry.replace(/\.[^./]+$/, "");

/** One entry per file in content/<dir>/, named by the file. */
const folder = (dir: string, pattern = "*.yaml") => glob({ base: `./content/${dir}`, pattern, generateId: fileName });

/**
 * One file of content/ as one entry: `path` under content/. The file must be there: a glob that
 * finds nothing would build on without the page's copy, and fail later naming the collection.
 */
function single(path: string): Loader {
  const slash = path.lastIndexOf("/");
  const inner = glob({
    base: `./content/${path.slice(0, slash + 1)}`,
    pattern: path.slice(slash + 1),
    generateId: fileName,
  });
  return {
    name: "single-file",
    load: (context) => {
      if (!existsSync(fileURLToPath(new URL(`content/${path}`, context.config.root)))) {
        throw new Error(`content/${path} is missing: the site reads its copy from it (src/content.config.ts)`);
      }
      return inner.load(context);
    },
  };
}

/** One page's copy, content/pages/<name>, checked by that page's own schema. */
const page = (name: string) => single(`pages/${name}`);

/**
 * The entries of one YAML file of content/: a map of entries by name (the name is the id). Astro's
 * `file()` loader logs a file it cannot read or parse and builds on without its entries (one stray
 * quote in content/lead-pages.yaml dropped every lead page, and every Apply button's target, with
 * exit 0); here anything wrong fails the build, naming the file and, for YAML, the line and
 * column. An entry written twice under one name is an error too (js-yaml refuses duplicate keys).
 */
function readDataFile(path: string, name: string): [string, Record<string, unknown>][] {
  if (!existsSync(path)) throw new Error(`${name}: the file is missing`);
  let data: unknown;
  try {
    data = load(readFileSync(path, "utf8"), { filename: name });
  } catch (error) {
    // js-yaml's message names the file, the line and column, and shows the line; `loc` is where
    // Astro's error report says the error is (the content file, not this loader).
    const mark = (error as { mark?: { line: number; column: number } }).mark;
    throw Object.assign(new Error(`${name} cannot be read as YAML: ${(error as Error).message}`, { cause: error }), {
      ...(mark ? { loc: { file: path, line: mark.line + 1, column: mark.column + 1 } } : {}),
    });
  }
  // A file emptied of its entries (or left with only comments) has none: its sections are left out.
  if (data === null || data === undefined) return [];
  if (typeof data !== "object" || Array.isArray(data))
    throw new Error(`${name} must be a map of entries by name (name: followed by the entry's fields)`);
  return Object.entries(data as Record<string, Record<string, unknown>>);
}

/**
 * One collection from one YAML file of content/ (readDataFile), each entry checked by the schema.
 * Under `npm run dev` an edit that breaks the file is reported and the last good entries stay.
 */
function dataFile(name: string): Loader {
  return {
    name: "data-file",
    async load({ config, store, parseData, watcher, logger }) {
      const path = fileURLToPath(new URL(name, config.root));
      const stored = relative(fileURLToPath(config.root), path).split(sep).join("/");
      const sync = async () => {
        const entries = readDataFile(path, name);
        const parsed = [];
        for (const [id, data] of entries) parsed.push({ id, data: await parseData({ id, data, filePath: path }) });
        store.clear();
        for (const entry of parsed) store.set({ ...entry, filePath: stored });
      };
      await sync();
      watcher?.add(path);
      watcher?.on("change", (changed) => {
        if (changed === path) sync().catch((error: unknown) => logger.error((error as Error).message));
      });
    },
  };
}

/** content/, found from this file so that `astro --root` works too. */
const contentDir = fileURLToPath(new URL("../content", import.meta.url));

/** The ids a reference may name, read from content/ as the loaders read it, and where they live. */
const referable = {
  programs: {
    where: "content/programs/ (a file name without .yaml)",
    ids: () =>
      readdirSync(`${contentDir}/programs`).flatMap((f) => (f.endsWith(".yaml") ? [fileName({ entry: f })] : [])),
  },
  offers: { where: "content/offers.yaml (a top-level key)", ids: () => yamlKeys("offers.yaml") },
  charts: { where: "content/charts.yaml (a top-level key)", ids: () => yamlKeys("charts.yaml") },
};

function yamlKeys(name: string) {
  const data = load(readFileSync(`${contentDir}/${name}`, "utf8"));
  return data && typeof data === "object" ? Object.keys(data) : [];
}

/**
 * A reference to another entry. Astro checks references only after loading and then just logs,
 * so this also checks the id against the entries that exist: a wrong id fails the entry's schema,
 * and the build names the file and the field.
 */
const ref: Ref = <C extends RefCollection>(collection: C) =>
  reference(collection).superRefine((value, context) => {
    const { ids, where } = referable[collection];
    const known = ids();
    if (value && !known.includes(value.id)) {
      context.addIssue({
        code: "custom",
        message: `"${value.id}" is not in ${where}; expected one of: ${known.join(", ")}`,
      });
    }
    // reference()'s declared type resolves `C` only for a literal collection name; it is the same schema.
  }) as unknown as RefSchema<C>;

/** What a lesson's schema checks against the other content files, read as the loaders read them. */
const courseFacts: CourseFacts = {
  modules(program) {
    const path = `${contentDir}/curricula/${program}.yaml`;
    if (!existsSync(path)) return undefined;
    const items = (load(readFileSync(path, "utf8")) as { items?: unknown } | null)?.items;
    return Array.isArray(items) ? items.length : undefined;
  },
  isCohort(program) {
    const path = `${contentDir}/programs/${program}.yaml`;
    return existsSync(path) && !!(load(readFileSync(path, "utf8")) as { cohort?: unknown } | null)?.cohort;
  },
  hasDownload: (program, name) => existsSync(`${contentDir}/lessons/${program}/downloads/${name}`),
};

/**
 * content/lessons/<program>/<slug>.mdx, id `<program>/<slug>`. The loader hands the schema the
 * program (the folder's name) with the front matter, so a lesson need not repeat it, and keeps no
 * copy of the MDX source in the content store: the bodies are for buyers only.
 */
function lessons(): Loader {
  const inner = glob({
    base: "./content/lessons",
    pattern: "*/*.mdx",
    generateId: fileName,
    retainBody: false,
  });
  return {
    name: "lessons",
    load: (context) =>
      inner.load({
        ...context,
        parseData: (entry) => context.parseData({ ...entry, data: { ...entry.data, program: entry.id.split("/")[0] } }),
      }),
  };
}

export const collections = {
  site: defineCollection({ loader: dataFile("./content/site.yaml"), schema: siteSchema(ref) }),
  sharedCopy: defineCollection({ loader: single("shared-copy.yaml"), schema: sharedCopySchema }),
  programs: defineCollection({ loader: folder("programs"), schema: programSchema }),
  testimonials: defineCollection({
    loader: folder("testimonials"),
    schema: ({ image }) => testimonialSchema(ref, image),
  }),
  coaches: defineCollection({ loader: folder("coaches"), schema: ({ image }) => coachSchema(ref, image) }),
  endorsements: defineCollection({ loader: dataFile("./content/endorsements.yaml"), schema: endorsementSchema }),
  stats: defineCollection({ loader: dataFile("./content/stats.yaml"), schema: statSchema }),
  whyChoose: defineCollection({ loader: dataFile("./content/why-choose.yaml"), schema: whyChooseSchema }),
  audienceTiers: defineCollection({ loader: dataFile("./content/audience-tiers.yaml"), schema: audienceTierSchema }),
  curricula: defineCollection({ loader: folder("curricula"), schema: curriculumSchema(ref) }),
  phases: defineCollection({ loader: dataFile("./content/phases.yaml"), schema: phaseSchema(ref) }),
  leadPages: defineCollection({ loader: dataFile("./content/lead-pages.yaml"), schema: leadPageSchema }),
  programPages: defineCollection({ loader: folder("program-pages"), schema: programPageSchema(ref) }),
  successMetrics: defineCollection({ loader: dataFile("./content/success-metrics.yaml"), schema: statSchema }),
  homePage: defineCollection({ loader: page("home.yaml"), schema: homePageSchema }),
  programsPage: defineCollection({ loader: page("programs.yaml"), schema: programsPageSchema }),
  purchaseCoursePage: defineCollection({ loader: page("purchase-course.yaml"), schema: purchaseCoursePageSchema }),
  transformationPage: defineCollection({ loader: page("transformation.mdx"), schema: transformationPageSchema(ref) }),
  mindsetPage: defineCollection({ loader: page("mindset.mdx"), schema: mindsetPageSchema(ref) }),
  advisorOsPage: defineCollection({ loader: page("advisor-os.mdx"), schema: advisorOsPageSchema(ref) }),
  notFoundPage: defineCollection({ loader: page("not-found.yaml"), schema: notFoundPageSchema }),
  accountPages: defineCollection({ loader: page("account.yaml"), schema: accountPagesSchema }),
  portalPages: defineCollection({ loader: page("portal.yaml"), schema: portalPagesSchema }),
  checkoutPages: defineCollection({ loader: page("checkout.yaml"), schema: checkoutPagesSchema }),
  offers: defineCollection({ loader: dataFile("./content/offers.yaml"), schema: offerSchema(ref) }),
  charts: defineCollection({ loader: dataFile("./content/charts.yaml"), schema: chartSchema }),
  legal: defineCollection({ loader: folder("legal", "*.md"), schema: legalSchema }),
  lessons: defineCollection({ loader: lessons(), schema: lessonSchema(ref, courseFacts) }),
};
