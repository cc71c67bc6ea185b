// @ts-check
import mdx from "@astrojs/mdx";
import react from "@astrojs/react";
import tailwindcss from "@tailwindcss/vite";
import { readFileSync } from "node:fs";
import { defineConfig, envField } from "astro/config";
import { loadEnv } from "vite";
import courseBundle, { BUNDLE_ROUTE } from "./src/integrations/course-bundle.mjs";
import criticalCss from "./src/integrations/critical-css.mjs";
import modulePreload from "./src/integrations/module-preload.mjs";
import secretScan from "./src/integrations/secret-scan.mjs";
import securityHeaders from "./src/integrations/security-headers.mjs";
import sitemap from "./src/integrations/sitemap.mjs";
import { sessionStorageKey } from "./src/lib/session-key.ts";
import { siteUrl } from "./src/lib/site-url.ts";
import { publicAnonKey, publicSupabaseUrl } from "./src/lib/supabase-url.ts";

// Variables from the environment or .env, as astro:env reads them.
const env = {
  ...loadEnv(process.env.NODE_ENV === "development" ? "development" : "production", process.cwd(), ""),
  ...process.env,
};

// The Supabase URL the browser uses; the marketing pages only need the key supabase-js stores
// the session under, computed here.
// `npm run build:production` (PRODUCTION_BUILD=1) requires both Supabase variables, with no local
// defaults (src/lib/supabase-url.ts).
const production = env.PRODUCTION_BUILD === "1";
const supabaseUrl = publicSupabaseUrl(env.PUBLIC_SUPABASE_URL, { production });
const anonKey = publicAnonKey(env.PUBLIC_SUPABASE_ANON_KEY, { production });

// The public origin: content/site.yaml's url, or SITE_URL for a preview.
const site = siteUrl(readFileSync(new URL("content/site.yaml", import.meta.url), "utf8"), env.SITE_URL);

/** An embed URL that overrides content/site.yaml for one build (the local stack's stand-ins). */
const embedOverride = () => envField.string({ context: "server", access: "public", optional: true, url: true });

export default defineConfig({
  site,
  output: "static",
  trailingSlash: "never",
  // The site's stylesheet stays a file (above Vite's 4 KB inline limit): criticalCss() inlines the
  // rules each page's first screen uses and loads the file without blocking. Small component
  // styles are inlined whole.
  build: { format: "file", inlineStylesheets: "auto" },
  integrations: [
    react(),
    mdx(),
    // First: the lessons leave the built site before anything reads or lists it.
    courseBundle(),
    // Aliases the route table (docs/product.md §2) sends to another page (their canonical URL) stay out of the sitemap.
    sitemap({ exclude: ["/programs/ai-advisor", "/advisor-os/details", BUNDLE_ROUTE] }),
    // Pages that run a module script (the portal header's) preload what it imports.
    modulePreload(),
    // `lazy-render` (src/styles/global.css) spares the first layout the sections below the first screen.
    criticalCss({ alwaysInline: [".lazy-render"] }),
    // Last: it hashes the inline scripts of the finished HTML into each page's policy (dist/_headers).
    securityHeaders({ supabaseUrl }),
    // After everything is written: a secret in the output fails the build.
    secretScan(),
  ],
  env: {
    schema: {
      PUBLIC_SUPABASE_URL: envField.string({
        context: "client",
        access: "public",
        default: supabaseUrl,
        url: true,
      }),
      // Default: the local stack's anon key (local/jwt.ts), public like the Supabase CLI's demo keys.
      PUBLIC_SUPABASE_ANON_KEY: envField.string({
        context: "client",
        access: "public",
        default: anonKey,
      }),
      // `npm start` builds the site with these pointing at the local stack's scheduling and video stand-ins.
      EMBED_CONSULTATION_FORM_URL: embedOverride(),
      EMBED_BOOKING_WIDGET_URL: embedOverride(),
      EMBED_BOOKING_SCRIPT_URL: embedOverride(),
      // Lesson videos' player script; default Wistia's (src/features/course/course.ts).
      EMBED_WISTIA_PLAYER_URL: embedOverride(),
    },
  },
  vite: {
    plugins: [tailwindcss()],
    build: {
      rolldownOptions: {
        // Astro marks each MDX module with a "use astro:head-inject" directive, which Rolldown warns
        // it cannot keep when bundling; Astro reads it before bundling, so the warning (with a code
        // frame for every MDX page and lesson) says nothing about this site.
        onLog(level, log, handler) {
          if (log.code === "MODULE_LEVEL_DIRECTIVE" && log.message.includes("astro:head-inject")) return;
          handler(level, log);
        },
      },
    },
    define: { __SESSION_STORAGE_KEY__: JSON.stringify(sessionStorageKey(supabaseUrl)) },
  },
});
