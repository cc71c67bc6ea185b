/**
 * `npm run dev`: Astro's dev server with hot reload on PORT (4321), and beside it the local
 * stack's API on API_PORT (54321, the Supabase CLI's port) with the same data folder as
 * `npm start` (.data/, or DATA_DIR; not both at once). The site's supabase-js is pointed at it
 * with its anon key (the site has no default, astro.config.ts), /apply embeds its booking
 * stand-in (the consultation pages have the site's own form, as the content ships), and e-mailed
 * links lead back to the dev server.
 * HOST opens the API to other machines, with a warning. Once the dev server answers, the lessons
 * it renders (its /course-bundle.json) are published to the stack, and again whenever a file of
 * content/lessons/ changes, as `npm run course:publish` does on a deploy. Ctrl+C, SIGTERM and SIGHUP
 * stop it alike: the dev server and any publish stopped, the stack closed, exit 0
 * (packages/local-stack/src/run.ts).
 * Usage: npm run dev [-- <astro dev options>]
 */
import { watch } from "node:fs";
import { readFile, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { makePrivateFolderAsync, writePrivateFile } from "./src/data-folder.ts";
import { PROJECT_ROOT } from "./src/project.ts";
import { BOOKING_PATH, EMBED_SCRIPT_PATH } from "./src/scheduling.ts";
import { WISTIA_PLAYER_PATH } from "./src/wistia.ts";
import { runNode, startNode, stopOnSignals, syncCatalogue, unlessStopped } from "./src/run.ts";
import type { Stack } from "./src/stack.ts";

const sitePort = Number(process.env.PORT || 4321);
const apiPort = Number(process.env.API_PORT || 54321);
const dataDir = process.env.DATA_DIR || ".data";

let starting: Promise<Stack> | undefined;
// A stop ends the dev server and any script first; then it closes the stack once it is up.
stopOnSignals(async () => (await starting?.catch(() => undefined))?.close());

// The catalogue is brought in line with content first (packages/local-stack/src/run.ts); the stack
// reads it as it starts, and refuses to start on an older copy (packages/local-stack/src/product.ts).
await unlessStopped(syncCatalogue());
const { exposedWarning, startStack } = await import("./src/stack.ts");

const listen = process.env.HOST || undefined;
let stack: Stack;
try {
  starting = startStack({
    port: apiPort,
    listen,
    dataDir,
    databaseUrl: process.env.DATABASE_URL || undefined,
    // E-mailed links lead to the dev server's pages.
    config: { auth: { siteUrl: `http://localhost:${sitePort}` } },
  });
  stack = await unlessStopped(starting);
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

const astro = join(PROJECT_ROOT, "node_modules", "astro", "bin", "astro.mjs");
const child = startNode([astro, "dev", "--port", String(sitePort), ...process.argv.slice(2)], {
  PUBLIC_SUPABASE_URL: stack.url,
  PUBLIC_SUPABASE_ANON_KEY: stack.anonKey,
  EMBED_BOOKING_WIDGET_URL: `${stack.url}${BOOKING_PATH}`,
  EMBED_BOOKING_SCRIPT_URL: `${stack.url}${EMBED_SCRIPT_PATH}`,
  EMBED_WISTIA_PLAYER_URL: `${stack.url}${WISTIA_PLAYER_PATH}`,
});
const root = PROJECT_ROOT;
const bundleDir = join(dataDir, "dev-course");

/**
 * Publishes what the dev server renders of content/lessons/: its bundle written to
 * <data>/dev-course/ with copies of the downloads, then scripts/course.ts, as a deploy runs it.
 */
async function publishLessons(): Promise<boolean> {
  let bundle: { programs: { lessons: { downloads: { path: string }[] }[] }[] };
  let text: string;
  try {
    const answer = await fetch(`http://localhost:${sitePort}/course-bundle.json`);
    if (!answer.ok) return false;
    text = await answer.text();
    bundle = JSON.parse(text);
  } catch {
    return false;
  }
  await rm(bundleDir, { recursive: true, force: true });
  await makePrivateFolderAsync(bundleDir);
  await writePrivateFile(join(bundleDir, "course.json"), text);
  for (const download of bundle.programs.flatMap((p) => p.lessons.flatMap((l) => l.downloads))) {
    const [program, file] = download.path.split("/");
    const copy = join(bundleDir, "downloads", download.path);
    await makePrivateFolderAsync(dirname(copy));
    await writePrivateFile(copy, await readFile(join(root, "content", "lessons", program!, "downloads", file!)));
  }
  return runNode([join(root, "scripts", "course.ts"), "publish", "--bundle", bundleDir], "publishing the lessons", {
    env: { SUPABASE_URL: stack.url, SUPABASE_SERVICE_ROLE_KEY: stack.serviceKey },
  }).then(
    () => true,
    () => false,
  );
}

// The dev server takes a few seconds to answer; then publish, and again on every lesson change.
void (async () => {
  for (let tries = 0; tries < 120 && !(await publishLessons()); tries++) {
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  let pending: NodeJS.Timeout | undefined;
  watch(join(root, "content", "lessons"), { recursive: true }, () => {
    clearTimeout(pending);
    pending = setTimeout(() => void publishLessons(), 500);
  });
})();

// The dev server ended by itself: the stack goes with it (when a stop ended it, the stop exits).
child.on("exit", (code) => void unlessStopped(stack.close()).then(() => process.exit(code ?? 0)));
