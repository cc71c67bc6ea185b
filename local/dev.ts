/**
 * `npm run dev`: Astro's dev server with hot reload on PORT (4321), and beside it the local
 * stack's API on API_PORT (54321, the Supabase CLI's port) with the same data folder as
 * `npm start` (.data/, or DATA_DIR; not both at once). The site's supabase-js is pointed at it,
 * the lead pages embed its scheduling stand-in, and e-mailed links lead back to the dev server.
 * HOST opens the API to other machines, with a warning.
 * Usage: npm run dev [-- <astro dev options>]
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { BOOKING_PATH, CONSULTATION_PATH, EMBED_SCRIPT_PATH } from "./scheduling.ts";
import { exposedWarning, startStack } from "./stack.ts";

const sitePort = Number(process.env.PORT || 4321);
const apiPort = Number(process.env.API_PORT || 54321);
const dataDir = process.env.DATA_DIR || ".data";

const listen = process.env.HOST || undefined;
let stack;
try {
  stack = await startStack({
    port: apiPort,
    listen,
    dataDir,
    databaseUrl: process.env.DATABASE_URL || undefined,
    // E-mailed links lead to the dev server's pages.
    config: { auth: { siteUrl: `http://localhost:${sitePort}` } },
  });
} catch (error) {
  const code = (error as NodeJS.ErrnoException).code;
  console.error(
    code === "EADDRINUSE"
      ? `Port ${apiPort} is already in use. Stop the other server, or run with API_PORT=<free port>.`
      : `Could not start the local stack: ${(error as Error).message}`,
  );
  process.exit(1);
}
console.log(`API:    ${stack.url}   (Supabase stand-in; data in ${dataDir}/)`);
console.log(`Outbox: ${stack.outboxUrl}`);
const warning = exposedWarning(listen);
if (warning) console.warn(warning);

const astro = join(import.meta.dirname, "..", "node_modules", "astro", "bin", "astro.mjs");
const child = spawn(process.execPath, [astro, "dev", "--port", String(sitePort), ...process.argv.slice(2)], {
  stdio: "inherit",
  env: {
    ...process.env,
    PUBLIC_SUPABASE_URL: stack.url,
    EMBED_CONSULTATION_FORM_URL: `${stack.url}${CONSULTATION_PATH}`,
    EMBED_BOOKING_WIDGET_URL: `${stack.url}${BOOKING_PATH}`,
    EMBED_BOOKING_SCRIPT_URL: `${stack.url}${EMBED_SCRIPT_PATH}`,
  },
});
const stop = () => void stack.close().then(() => process.exit(child.exitCode ?? 0));
child.on("exit", stop);
process.once("SIGTERM", () => child.kill("SIGTERM"));
