/**
 * `npm start`: the built site and the local Supabase stand-in on one port, data in `.data/`
 * (kept across restarts), or in the PostgreSQL server DATABASE_URL names. It listens on
 * 127.0.0.1; HOST=<address> opens it to other machines, with a warning.
 * Usage: node local/start.ts [--port 4321] [--dir dist] [--data .data] [--reset]
 * (--reset empties the data folder first, for a run that starts from the seed alone.)
 */
import { existsSync, rmSync } from "node:fs";
import { parseArgs } from "node:util";
import { DEMO_USER, exposedWarning, startStack } from "./stack.ts";

const { values } = parseArgs({
  options: {
    port: { type: "string", default: process.env.PORT || "4321" },
    dir: { type: "string", default: "dist" },
    data: { type: "string", default: process.env.DATA_DIR || ".data" },
    reset: { type: "boolean", default: false },
  },
});

if (!existsSync(values.dir)) {
  console.error(`No built site in ${values.dir}/: run \`npm run build\` first (\`npm start\` does both).`);
  process.exit(1);
}
if (values.reset) rmSync(values.data, { recursive: true, force: true });

const listen = process.env.HOST || undefined;
try {
  const stack = await startStack({
    port: Number(values.port),
    listen,
    siteDir: values.dir,
    dataDir: values.data,
    databaseUrl: process.env.DATABASE_URL || undefined,
  });
  const database = process.env.DATABASE_URL ? "PostgreSQL (DATABASE_URL)" : `embedded Postgres in ${values.data}/`;
  console.log(`Site:     ${stack.url}`);
  console.log(`Outbox:   ${stack.outboxUrl}   (e-mails the site sends, kept in ${values.data}/mail/)`);
  console.log(
    `Demo:     ${DEMO_USER.email} / ${DEMO_USER.password}   (a customer with one completed and one pending order)`,
  );
  console.log(`Database: ${database}`);
  const warning = exposedWarning(listen);
  if (warning) console.warn(warning);
  const stop = () => void stack.close().then(() => process.exit(0));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
} catch (error) {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "EADDRINUSE") {
    console.error(`Port ${values.port} is already in use. Stop the other server, or run with PORT=<free port>.`);
  } else {
    console.error(`Could not start the local stack: ${(error as Error).message}`);
  }
  process.exit(1);
}
