/**
 * `npm run course:publish [-- --dir dist]`: publishes the course bundle of a build (the folder
 * beside its output: dist-course/ for dist/; `--bundle <folder>` names one directly) to the
 * Supabase project SUPABASE_URL names, with SUPABASE_SERVICE_ROLE_KEY: the lessons into the
 * database, their downloads into the private bucket (src/features/course/publish.server.ts).
 * Idempotent, and safe to run on every deploy. `npm start` and `npm run dev` run it against the
 * local stack.
 */
import { parseArgs } from "node:util";
import { ConfigError } from "../functions/_shared/env.ts";
import { adminClient } from "../functions/_shared/supabase-admin.ts";
import { bundleDirOf } from "../src/features/course/bundle.ts";
import { PublishError, publishCourse, summary } from "../src/features/course/publish.server.ts";

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    dir: { type: "string", default: "dist" },
    bundle: { type: "string" },
    quiet: { type: "boolean", default: false },
  },
});

if (positionals[0] !== "publish") {
  console.error("Usage: node scripts/course.ts publish [--dir dist | --bundle dist-course] [--quiet]");
  process.exit(2);
}
try {
  const admin = adminClient(process.env);
  const bundle = values.bundle ?? bundleDirOf(values.dir);
  const report = await publishCourse(admin, bundle, values.quiet ? undefined : (line) => console.log(line));
  console.log(summary(report));
} catch (error) {
  console.error(error instanceof ConfigError || error instanceof PublishError ? error.message : error);
  process.exit(1);
}
