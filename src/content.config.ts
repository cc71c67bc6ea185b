import { defineCollection } from "astro:content";
import { file, glob } from "astro/loaders";
import {
  audienceTierSchema,
  curriculumSchema,
  endorsementSchema,
  chartSchema,
  leadPageSchema,
  offerSchema,
  pageCopySchema,
  legalSchema,
  phaseSchema,
  programPageSchema,
  programSchema,
  siteSchema,
  statSchema,
  testimonialSchema,
  whyChooseSchema,
} from "./schemas/content";

const yaml = (base: string) => glob({ base: `./content/${base}`, pattern: "*.yaml" });

export const collections = {
  site: defineCollection({ loader: file("./content/site.yaml"), schema: siteSchema }),
  programs: defineCollection({ loader: yaml("programs"), schema: programSchema }),
  testimonials: defineCollection({ loader: yaml("testimonials"), schema: testimonialSchema }),
  endorsements: defineCollection({ loader: file("./content/endorsements.yaml"), schema: endorsementSchema }),
  stats: defineCollection({ loader: file("./content/stats.yaml"), schema: statSchema }),
  whyChoose: defineCollection({ loader: file("./content/why-choose.yaml"), schema: whyChooseSchema }),
  audienceTiers: defineCollection({ loader: file("./content/audience-tiers.yaml"), schema: audienceTierSchema }),
  curricula: defineCollection({ loader: yaml("curricula"), schema: curriculumSchema }),
  phases: defineCollection({ loader: file("./content/phases.yaml"), schema: phaseSchema }),
  leadPages: defineCollection({ loader: file("./content/lead-pages.yaml"), schema: leadPageSchema }),
  programPages: defineCollection({ loader: yaml("program-pages"), schema: programPageSchema }),
  successMetrics: defineCollection({ loader: file("./content/success-metrics.yaml"), schema: statSchema }),
  pages: defineCollection({
    loader: glob({ base: "./content/pages", pattern: "*.{yaml,mdx}" }),
    schema: pageCopySchema,
  }),
  offers: defineCollection({ loader: file("./content/offers.yaml"), schema: offerSchema }),
  charts: defineCollection({ loader: file("./content/charts.yaml"), schema: chartSchema }),
  legal: defineCollection({ loader: glob({ base: "./content/legal", pattern: "*.md" }), schema: legalSchema }),
};
