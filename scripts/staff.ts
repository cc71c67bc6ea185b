/**
 * `npm run staff -- add <email> --role admin|coach`, `npm run staff -- remove <email>`,
 * `npm run staff -- list`: the team who use the desk (/desk), and their roles
 * (docs/operations.md, "The team and its roles"; functions/_shared/staff.ts).
 *
 * Against the Supabase project SUPABASE_URL names, with SUPABASE_SERVICE_ROLE_KEY; `add` e-mails
 * the person through Resend (RESEND_API_KEY, MAIL_FROM) with links to SITE_URL, else
 * content/site.yaml's `url`. With SUPABASE_URL unset it works on the local stack that `npm start`
 * runs (http://localhost:4321, or PORT), whose e-mails land in its outbox.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { apiKey, localMailFrom, RESEND_PATH } from "@advisor-accelerator/local-stack";
import { ConfigError, type Env } from "../functions/_shared/env.ts";
import { MailError } from "../functions/_shared/mail.ts";
import { adminClient } from "../functions/_shared/supabase-admin.ts";
import { siteUrl } from "../src/lib/site-url.ts";
import { addStaff, listStaff, removeStaff, StaffError } from "../functions/_shared/staff.ts";

const USAGE = `Usage:
  npm run staff -- add <email> --role admin|coach   add someone to the team, or change their role
  npm run staff -- remove <email>                   take someone off the team (their account stays)
  npm run staff -- list                             the team and their roles`;

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { role: { type: "string" } },
});
const [command, email] = positionals;

/** The environment to work in: the one given, or the local stack's when no project is named. */
function environment(): { env: Env; site: string; where: string } {
  if (process.env.SUPABASE_URL?.trim()) {
    const site = siteUrl(readFileSync("content/site.yaml", "utf8"), process.env.SITE_URL);
    return { env: process.env, site, where: process.env.SUPABASE_URL.trim() };
  }
  const url = `http://localhost:${process.env.PORT?.trim() || "4321"}`;
  // The local Resend stand-in's key, made once per data folder (packages/local-stack/src/resend.ts).
  const keys = join(process.env.DATA_DIR?.trim() || ".data", "resend", "keys.json");
  const resendKey = existsSync(keys) ? (JSON.parse(readFileSync(keys, "utf8")) as { apiKey: string }).apiKey : "";
  return {
    env: {
      SUPABASE_URL: url,
      SUPABASE_SERVICE_ROLE_KEY: apiKey("service_role"),
      RESEND_API_KEY: resendKey,
      RESEND_API_URL: `${url}${RESEND_PATH}`,
      MAIL_FROM: localMailFrom(),
    },
    site: url,
    where: `the local stack at ${url} (SUPABASE_URL is not set)`,
  };
}

try {
  const { env, site, where } = environment();
  const admin = adminClient(env);
  if (command === "add" && email && positionals.length === 2) {
    if (!values.role) throw new StaffError("Say which role: --role admin or --role coach.");
    const report = await addStaff(admin, env, site, email, values.role);
    const change =
      report.previousRole === null
        ? `added as ${report.role}`
        : report.previousRole === report.role
          ? `already ${report.role}`
          : `now ${report.role} (was ${report.previousRole})`;
    console.log(`${report.email}: ${change}, on ${where}.`);
    console.log(
      report.invited
        ? `E-mailed a link to set a password; the desk is at ${new URL("/desk", site).href}.`
        : `E-mailed that the desk at ${new URL("/desk", site).href} is theirs.`,
    );
  } else if (command === "remove" && email && positionals.length === 2) {
    const role = await removeStaff(admin, email);
    console.log(`${email.trim().toLowerCase()}: no longer on the team (was ${role}). Their account stays.`);
  } else if (command === "list" && positionals.length === 1) {
    const team = await listStaff(admin);
    if (team.length === 0) console.log(`Nobody is on the team on ${where}.`);
    for (const member of team) {
      const seen = member.last_sign_in_at ? `last signed in ${member.last_sign_in_at.slice(0, 10)}` : "never signed in";
      console.log(`${member.role.padEnd(6)} ${member.email}   (since ${member.since.slice(0, 10)}, ${seen})`);
    }
  } else {
    console.error(USAGE);
    process.exit(2);
  }
} catch (error) {
  if (error instanceof StaffError || error instanceof ConfigError) console.error(error.message);
  else if (error instanceof MailError)
    console.error(
      `The role is saved, but the e-mail was not sent: ${error.message}. Run the same command again to send it.`,
    );
  else console.error(error);
  process.exit(1);
}
