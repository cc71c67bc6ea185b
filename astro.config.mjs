// @ts-check
import mdx from "@astrojs/mdx";
import react from "@astrojs/react";
import tailwindcss from "@tailwindcss/vite";
import { defineConfig, envField } from "astro/config";
import sitemap from "./src/integrations/sitemap.mjs";

// The public origin the site is deployed at; canonical URLs and the sitemap use it.
const site = process.env.SITE_URL || "http://localhost:4321";

export default defineConfig({
  site,
  output: "static",
  trailingSlash: "never",
  build: { format: "file", inlineStylesheets: "always" },
  // Aliases the spec routes to another page (their canonical URL) stay out of the sitemap.
  integrations: [react(), mdx(), sitemap({ exclude: ["/programs/ai-advisor", "/advisor-os/details"] })],
  env: {
    schema: {
      PUBLIC_SUPABASE_URL: envField.string({
        context: "client",
        access: "public",
        default: "http://localhost:4321",
      }),
      PUBLIC_SUPABASE_ANON_KEY: envField.string({ context: "client", access: "public", default: "" }),
    },
  },
  vite: { plugins: [tailwindcss()] },
});
