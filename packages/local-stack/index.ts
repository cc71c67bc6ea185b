/**
 * The local stack's one entry: what the project outside this package may use of it (README.md
 * here says what the stack is). Everything under src/ is internal; eslint.config.js refuses an
 * import of it from outside. The two commands, start.ts (`npm start`, `npm run preview`) and dev.ts
 * (`npm run dev`), are run, not imported.
 * Dev and test only: production is Supabase, Stripe and the CDN, and never loads this package.
 */
import { join } from "node:path";

/**
 * The stack as `npm start` runs it, for a test or a runner that starts it as its own process:
 * `node START_SCRIPT [--build] [--port 4321] [--dir dist-local] [--data .data] [--reset]
 * [--jwt-expiry <seconds>]`, from the project's root (the folders are relative to it).
 */
export const START_SCRIPT = join(import.meta.dirname, "start.ts");

// The stack in this process: its options and answer, the demo customer supabase/seed.sql makes,
// the sender of the functions' e-mails.
export { DEMO_STAFF, DEMO_USER, localMailFrom, type Stack, type StackOptions } from "./src/stack.ts";

// The site built for a stack (the bench, the production build's test).
export { siteBuildEnv } from "./src/site.ts";

// Tests and the bench: a stack or a migrated database on PGlite and on a throw-away PostgreSQL
// server, removed afterwards.
export {
  BACKENDS,
  type Backend,
  checkBackends,
  openTestDatabase,
  startTestStack,
  type TestStack,
} from "./src/harness.ts";
export { type PostgresServer, startPostgres } from "./src/postgres-server.ts";

// The database as the stack migrates it (the migrations after the platform stand-in), and a
// statement run as PostgREST runs it: in the role and with the claims of a JWT.
export { asRole, type Database, migrate, MIGRATIONS_DIR, openPglite, type Sql } from "./src/db.ts";
export { apiKey, type Claims } from "./src/jwt.ts";

// supabase/config.toml as the stack reads it.
export { CONFIG_FILE, loadConfig } from "./src/config.ts";

// The outbox, and the scheduling provider's stand-in (the e2e fixture site serves it alone).
export { createMailer, type Mail } from "./src/mail.ts";
export { RESEND_PATH } from "./src/resend.ts";
export {
  BOOKING_PATH,
  BOOKING_WINDOW_DAYS,
  businessTimeZone,
  CONSULTATION_PATH,
  EMBED_SCRIPT_PATH,
  handleScheduling,
  SCHEDULING_PATH,
} from "./src/scheduling.ts";
