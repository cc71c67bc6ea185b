import { existsSync, readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { defineCollection, reference } from "astro:content";
import { file, glob, type Loader } from "astro/loaders";
import { load } from "js-yaml";
import {
  advisorOsPageSchema,
  audienceTierSchema,
  chartSchema,
  curriculumSchema,
  endorsementSchema,
  leadPageSchema,
  legalSchema,
  lessonSchema,
  mindsetPageSchema,
  offerSchema,
  phaseSchema,
  programPageSchema,
  programSchema,
  programsPageSchema,
  purchaseCoursePageSchema,
  type CourseFacts,
  type Ref,
  type RefCollection,
  type RefSchema,
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

/** One page's copy, content/pages/<name>, checked by that page's own schema. */
const page = (name: string) => glob({ base: "./content/pages", pattern: name, generateId: fileName });

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
  site: defineCollection({ loader: file("./content/site.yaml"), schema: siteSchema(ref) }),
  programs: defineCollection({ loader: folder("programs"), schema: programSchema }),
  testimonials: defineCollection({ loader: folder("testimonials"), schema: testimonialSchema(ref) }),
  endorsements: defineCollection({ loader: file("./content/endorsements.yaml"), schema: endorsementSchema }),
  stats: defineCollection({ loader: file("./content/stats.yaml"), schema: statSchema }),
  whyChoose: defineCollection({ loader: file("./content/why-choose.yaml"), schema: whyChooseSchema }),
  audienceTiers: defineCollection({ loader: file("./content/audience-tiers.yaml"), schema: audienceTierSchema }),
  curricula: defineCollection({ loader: folder("curricula"), schema: curriculumSchema(ref) }),
  phases: defineCollection({ loader: file("./content/phases.yaml"), schema: phaseSchema(ref) }),
  leadPages: defineCollection({ loader: file("./content/lead-pages.yaml"), schema: leadPageSchema }),
  programPages: defineCollection({ loader: folder("program-pages"), schema: programPageSchema(ref) }),
  successMetrics: defineCollection({ loader: file("./content/success-metrics.yaml"), schema: statSchema }),
  programsPage: defineCollection({ loader: page("programs.yaml"), schema: programsPageSchema }),
  purchaseCoursePage: defineCollection({ loader: page("purchase-course.yaml"), schema: purchaseCoursePageSchema }),
  transformationPage: defineCollection({ loader: page("transformation.mdx"), schema: transformationPageSchema(ref) }),
  mindsetPage: defineCollection({ loader: page("mindset.mdx"), schema: mindsetPageSchema(ref) }),
  advisorOsPage: defineCollection({ loader: page("advisor-os.mdx"), schema: advisorOsPageSchema(ref) }),
  offers: defineCollection({ loader: file("./content/offers.yaml"), schema: offerSchema }),
  charts: defineCollection({ loader: file("./content/charts.yaml"), schema: chartSchema }),
  legal: defineCollection({ loader: folder("legal", "*.md"), schema: legalSchema }),
  lessons: defineCollection({ loader: lessons(), schema: lessonSchema(ref, courseFacts) }),
};
