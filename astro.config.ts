import mdx from "@astrojs/mdx";
import react from "@astrojs/react";
import tailwindcss from "@tailwindcss/vite";
import { readFileSync } from "node:fs";
import type { AstroIntegration } from "astro";
import { defineConfig, envField } from "astro/config";
import { loadEnv } from "vite";
import courseBundle, { BUNDLE_ROUTE } from "./src/integrations/course-bundle.ts";
import criticalCss from "./src/integrations/critical-css.ts";
import modulePreload from "./src/integrations/module-preload.ts";
import sampleContent from "./src/integrations/sample-content.ts";
import secretScan from "./src/integrations/secret-scan.ts";
import securityHeaders from "./src/integrations/security-headers.ts";
import sitemap from "./src/integrations/sitemap.ts";
import { sessionStorageKey } from "./src/lib/session-key.ts";
import { siteUrl } from "./src/lib/site-url.ts";
import { supabaseProject } from "./src/lib/supabase-url.ts";

// Variables from the environment or .env, as astro:env reads them.
const env = {
  ...loadEnv(process.env.NODE_ENV === "development" ? "development" : "production", process.cwd(), ""),
  ...process.env,
};

// The Supabase project the browser talks to (PUBLIC_SUPABASE_URL, PUBLIC_SUPABASE_ANON_KEY), with
// no default. A build is of the site you deploy, whoever runs it (`npm run build`, or a host's own
// `astro build`): both must name the hosted project, or it stops before writing anything, naming
// each variable (supabaseCheck() below; the rules in src/lib/supabase-url.ts). The local stack
// builds for itself with its own address and key and LOCAL_STACK_BUILD=1 (packages/local-stack/src/site.ts), read from
// the process's environment only, so no .env file can turn a deploy's build into one. `astro
// check`, the tests' Vite server and `npm run dev` (which passes the stack's) build nothing to deploy.
const localStack = process.env.LOCAL_STACK_BUILD === "1";
const supabaseUrl = env.PUBLIC_SUPABASE_URL?.trim() ?? "";

/**
 * Stops a build whose Supabase variables are missing, malformed or (unless it is the local stack's)
 * this machine's, before anything is written.
 */
function supabaseCheck(): AstroIntegration {
  return {
    name: "supabase-project",
    hooks: {
      "astro:config:setup": ({ command }) => {
        if (command !== "build") return;
        try {
          supabaseProject(env, { local: localStack });
        } catch (error) {
          if (!localStack && error instanceof Error) {
            error.message += `\n\`npm run build\` builds the site you deploy (DEPLOY.md); \`npm start\` builds it for the local stack.`;
          }
          throw error;
        }
      },
    },
  };
}

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
    // Ahead of all: a build for no project, or for this machine, stops before anything is written.
    supabaseCheck(),
    // Then: a deploy's build that would publish sample content stops, naming every item
    // (ALLOW_SAMPLE_CONTENT=1 lets a staging or preview build through, labelled).
    sampleContent(),
    react(),
    mdx(),
    // First: the lessons leave the built site before anything reads or lists it.
    courseBundle(),
    // Aliases the route table (docs/product.md, "Route table") sends to another page (their canonical URL) stay out of the sitemap.
    sitemap({ exclude: ["/programs/ai-advisor", "/advisor-os/details", BUNDLE_ROUTE] }),
    // Pages that run a module script (the portal header's) preload what it imports.
    modulePreload(),
    // `lazy-render` (src/styles/global.css) spares the first layout the sections below the first screen.
    // Always inlined: the lazy blocks' rule, and the layout classes of the page's own <body> and
    // <main> (src/layouts/BaseLayout.astro), which no first-screen block carries: without them a
    // short page (sign-in, checkout, portal) lays out as a row until the stylesheet comes (CLS 0.32).
    criticalCss({ alwaysInline: [".lazy-render", ".min-h-dvh", ".flex-col", ".flex-1"] }),
    // Last: it hashes the inline scripts of the finished HTML into each page's policy (dist/_headers).
    securityHeaders({ supabaseUrl }),
    // After everything is written: a secret in the output fails the build.
    secretScan(),
  ],
  env: {
    schema: {
      PUBLIC_SUPABASE_URL: envField.string({ context: "client", access: "public", url: true }),
      PUBLIC_SUPABASE_ANON_KEY: envField.string({ context: "client", access: "public" }),
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
    // The key supabase-js keeps the session under, so marketing pages carry it, not the project's
    // URL; none where no URL is given (`astro check`, the tests' Vite server), which build no page.
    define: {
      __SESSION_STORAGE_KEY__: JSON.stringify(URL.canParse(supabaseUrl) ? sessionStorageKey(supabaseUrl) : ""),
    },
  },
});
