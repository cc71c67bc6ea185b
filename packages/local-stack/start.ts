/**
 * `npm start` (with --build) and `npm run preview` (without): the site and the local Supabase and
 * Stripe stand-ins on one port, data in `.data/` (kept across restarts), or in the PostgreSQL server
 * DATABASE_URL names. With --build it first builds the site for the stack into its own folder
 * (dist-local/, never the production dist/; packages/local-stack/src/site.ts) and opens the port
 * only once the build is done, so nothing half-built or left from the previous build is ever
 * served; then it publishes the build's lessons to the stack (scripts/course.ts, as a deploy does).
 * It listens on 127.0.0.1; HOST=<address> opens it to other machines, with a warning. Ctrl+C,
 * SIGTERM and SIGHUP stop it alike at any step: the build or the publish stopped, the stack closed
 * (the port and the data folder released), exit 0 (packages/local-stack/src/run.ts).
 * Usage, from the project's root: node packages/local-stack/start.ts [--build] [--port 4321]
 *   [--dir dist-local] [--data .data] [--reset] [--jwt-expiry <seconds>]
 * (--reset empties the data folder first, for a run that starts from the seed alone; --jwt-expiry
 * replaces config.toml's access-token lifetime, for tests of sessions that outlive many tokens.)
 */
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { PROJECT_ROOT } from "./src/project.ts";
import { runNode, stopOnSignals, syncCatalogue, unlessStopped } from "./src/run.ts";
import { buildSite, startSiteStack } from "./src/site.ts";
import type { Stack } from "./src/stack.ts";

const { values } = parseArgs({
  options: {
    build: { type: "boolean", default: false },
    port: { type: "string", default: process.env.PORT || "4321" },
    dir: { type: "string", default: "dist-local" },
    data: { type: "string", default: process.env.DATA_DIR || ".data" },
    reset: { type: "boolean", default: false },
    "jwt-expiry": { type: "string" },
  },
});

const jwtExpiry = values["jwt-expiry"] === undefined ? undefined : Number(values["jwt-expiry"]);
if (jwtExpiry !== undefined && !(Number.isInteger(jwtExpiry) && jwtExpiry > 0)) {
  console.error(`--jwt-expiry must be a whole number of seconds, got "${values["jwt-expiry"]}".`);
  process.exit(1);
}

if (!values.build && !existsSync(values.dir)) {
  console.error(`No built site in ${values.dir}/: run \`npm start\`, which builds it.`);
  process.exit(1);
}
if (values.reset) rmSync(values.data, { recursive: true, force: true });

let starting: Promise<Stack> | undefined;
// A stop ends the running script first (a start still building fails with it); a started stack is closed.
stopOnSignals(async () => (await starting?.catch(() => undefined))?.close());

// The catalogue is brought in line with content first (packages/local-stack/src/run.ts); the stack
// reads it as it starts, and refuses to start on an older copy (packages/local-stack/src/product.ts).
await unlessStopped(syncCatalogue());
const { DEMO_STAFF, DEMO_USER, exposedWarning } = await import("./src/stack.ts");

/**
 * Publishes the build's lessons to this stack, as production's deploy does (`npm run
 * course:publish`, with the stack's service role): from `dir`'s course bundle, idempotently.
 */
function publishCourse(url: string, serviceKey: string, dir: string): Promise<void> {
  const script = join(PROJECT_ROOT, "scripts", "course.ts");
  return runNode([script, "publish", "--dir", dir, "--quiet"], "publishing the course", {
    quiet: true,
    env: { SUPABASE_URL: url, SUPABASE_SERVICE_ROLE_KEY: serviceKey },
  });
}

const listen = process.env.HOST || undefined;
try {
  starting = startSiteStack({
    port: Number(values.port),
    listen,
    siteDir: values.dir,
    dataDir: values.data,
    databaseUrl: process.env.DATABASE_URL || undefined,
    config: jwtExpiry ? { auth: { jwtExpiry } } : undefined,
    build: values.build
      ? (url, dir) => {
          console.log(`Building the site into ${dir}/ for ${url}…`);
          return buildSite(url, dir);
        }
      : undefined,
  });
  const stack = await unlessStopped(starting);
  // A build writes its lessons beside it (<dir>-course/); a site built otherwise has none to publish.
  if (values.build || existsSync(join(`${values.dir.replace(/[/\\]+$/, "")}-course`, "course.json"))) {
    await unlessStopped(
      publishCourse(stack.url, stack.serviceKey, values.dir).catch(async (error: unknown) => {
        await stack.close();
        throw error;
      }),
    );
  } else {
    console.log(`No course bundle beside ${values.dir}/: its lessons are not published (npm start builds them).`);
  }
  const database = process.env.DATABASE_URL ? "PostgreSQL (DATABASE_URL)" : `embedded Postgres in ${values.data}/`;
  console.log(`Site:     ${stack.url}`);
  console.log(`Outbox:   ${stack.outboxUrl}   (e-mails the site sends, kept in ${values.data}/mail/)`);
  console.log(
    `Demo:     ${DEMO_USER.email} / ${DEMO_USER.password}   (owns Growth Mindset Mastery, three lessons in; one order pending)`,
  );
  console.log(
    `Staff:    ${DEMO_STAFF.email} / ${DEMO_STAFF.password}   (an admin of the team; \`npm run staff -- list\` lists it)`,
  );
  console.log(
    `Leads:    ${stack.url}/get-started   (the site's own form, requests in the outbox; /apply has the booking widget's stand-in)`,
  );
  console.log(`Database: ${database}`);
  console.log(
    process.env.STRIPE_SECRET_KEY?.trim()
      ? `Stripe:   STRIPE_SECRET_KEY is set: the functions use Stripe itself (the stand-in at ${stack.stripe.dashboardUrl} is not used)`
      : `Stripe:   stand-in at ${stack.stripe.dashboardUrl}   webhook signing secret ${stack.stripe.webhookSecret}  (as \`stripe listen\` prints it)`,
  );
  console.log(
    process.env.RESEND_API_KEY?.trim()
      ? "Resend:   RESEND_API_KEY is set: the functions' e-mails go out through Resend itself (set MAIL_FROM to a verified sender)"
      : `Resend:   stand-in at ${stack.resend.apiUrl}   (the functions' e-mails land in the outbox)`,
  );
  const warning = exposedWarning(listen);
  if (warning) console.warn(warning);
} catch (error) {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "EADDRINUSE") {
    console.error(`Port ${values.port} is already in use. Stop the other server, or run with PORT=<free port>.`);
  } else {
    console.error(`Could not start the local stack: ${(error as Error).message}`);
  }
  process.exit(1);
}
