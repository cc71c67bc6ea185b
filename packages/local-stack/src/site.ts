/**
 * The site on the local stack, as `npm start` (packages/local-stack/start.ts) and the end-to-end
 * tests serve it: built for the stack's own address and key (`npm run build` builds only for a
 * hosted project, astro.config.ts), and served only once it is built. Dev and test only.
 */
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { apiKey } from "./jwt.ts";
import { PROJECT_ROOT } from "./project.ts";
import { runNode } from "./run.ts";
import { BOOKING_PATH, EMBED_SCRIPT_PATH } from "./scheduling.ts";
import type { Stack, StackOptions } from "./stack.ts";
import { WISTIA_PLAYER_PATH } from "./wistia.ts";

/**
 * What `astro build` needs to build the site for a local stack at `url`: the stack's address and
 * its anon key (packages/local-stack/src/jwt.ts, signed with the Supabase CLI's demo secret, as
 * every stack's is), and LOCAL_STACK_BUILD=1, which lets the build take this machine's address and
 * a demo key (src/lib/supabase-url.ts). The bench builds with it too.
 */
export function siteBuildEnv(url: string): {
  LOCAL_STACK_BUILD: "1";
  PUBLIC_SUPABASE_URL: string;
  PUBLIC_SUPABASE_ANON_KEY: string;
} {
  return { LOCAL_STACK_BUILD: "1", PUBLIC_SUPABASE_URL: url, PUBLIC_SUPABASE_ANON_KEY: apiKey("anon") };
}

/**
 * Builds the site into `dir` for the stack at `url`, as `npm start` serves it: as production is
 * with the content as it ships (the consultation pages have the site's own form), but for /apply's
 * booking widget, the stack's scheduling stand-in, lesson videos on its Wistia stand-in, and
 * supabase-js pointed at the stack. Its lessons go beside it (`<dir>-course/`).
 */
export function buildSite(url: string, dir: string): Promise<void> {
  const astro = join(PROJECT_ROOT, "node_modules", "astro", "bin", "astro.mjs");
  return runNode([astro, "build", "--outDir", dir], "the site's build", {
    quiet: true,
    env: {
      ASTRO_TELEMETRY_DISABLED: "1",
      ...siteBuildEnv(url),
      EMBED_BOOKING_WIDGET_URL: `${url}${BOOKING_PATH}`,
      EMBED_BOOKING_SCRIPT_URL: `${url}${EMBED_SCRIPT_PATH}`,
      EMBED_WISTIA_PLAYER_URL: `${url}${WISTIA_PLAYER_PATH}`,
    },
  });
}

export interface SiteStackOptions extends Omit<StackOptions, "siteDir"> {
  /** The built site the stack serves. */
  siteDir: string;
  /**
   * Builds the site into `siteDir` for the stack at `url` first (`buildSite`, or a test's own). The
   * port opens only once it is done: until then it answers nothing, so no browser, test runner or
   * script waiting for it is served the previous build in the folder, or a half-written one.
   */
  build?: (url: string, siteDir: string) => Promise<void>;
}

/** Starts the stack serving the site, built first when `build` is given. */
export async function startSiteStack({ build, ...options }: SiteStackOptions): Promise<Stack> {
  // Loaded now, not with this file: the stack reads the catalogue as it starts (./product.ts), which
  // `npm start` first brings in line with content (./run.ts).
  const { isLoopback, startStack } = await import("./stack.ts");
  if (!build) return startStack(options);
  const listen = options.listen ?? "127.0.0.1";
  // The port is tried first, so a taken one is reported before a build is spent on it.
  const port = await freePort(options.port ?? 0, listen);
  const host = isLoopback(listen) || ["0.0.0.0", "::", "localhost"].includes(listen) ? "localhost" : listen;
  // The stack's own URL, as packages/local-stack/src/stack.ts names it; checked below.
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
  await build(url, options.siteDir);
  const stack = await startStack({ ...options, port });
  if (stack.url !== url) {
    await stack.close();
    throw new Error(`The site was built for ${url}, but the stack answers at ${stack.url}`);
  }
  return stack;
}

/** `port` once it is free on `listen` (0: a free one, chosen now); rejects as listening would (EADDRINUSE). */
function freePort(port: number, listen: string): Promise<number> {
  const server = createServer();
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, listen, () => {
      const { port: free } = server.address() as AddressInfo;
      server.close(() => resolve(free));
    });
  });
}
