/**
 * The team's membership, as `npm run staff` changes it (scripts/staff.ts): with the project's
 * service role, through the database's own functions (supabase/migrations/*_staff.sql `staff_add`,
 * `staff_remove`, `staff_list`), which nothing but the service role may call.
 *
 * Adding someone with no account yet creates one, as the Stripe webhook does for a buyer: Auth's
 * invite link (`generateLink` of type invite), sent in the product's own e-mail
 * (functions/_shared/emails.ts `staffEmail`), whose button is the same scanner-proof
 * `/reset-password?token_hash=…&type=invite` link: a mail scanner that follows it spends nothing,
 * the person presses Continue. Someone who already has a password is told the desk is theirs.
 */
import type { SupabaseClient } from "@supabase/supabase-js";
import { isEmail } from "@advisor-accelerator/shared/checkout-request.ts";
import { isStaffRole, type StaffRole } from "@advisor-accelerator/shared/staff-roles.ts";
import { staffEmail } from "./emails.ts";
import type { Env } from "./env.ts";
import { sendEmail } from "./mail.ts";

/** A mistake in what was asked (the address, the role, someone not on the team): said as it is. */
export class StaffError extends Error {}

/** An address as Auth keeps it, trimmed and in lower case, checked as the checkout checks one. */
function address(email: string): string {
  const trimmed = email.trim().toLowerCase();
  if (!isEmail(trimmed)) throw new StaffError(`"${email}" is not an e-mail address.`);
  return trimmed;
}

interface Added {
  found: boolean;
  user_id?: string;
  email?: string;
  confirmed?: boolean;
  previous_role?: StaffRole | null;
}

async function staffAdd(admin: SupabaseClient, email: string, role: StaffRole): Promise<Added> {
  const { data, error } = await admin.rpc("staff_add", { p_email: email, p_role: role });
  if (error) throw new Error(`Adding ${email} failed: ${error.message}`);
  return data as Added;
}

export interface AddReport {
  email: string;
  role: StaffRole;
  /** Their role before, when they were on the team already. */
  previousRole: StaffRole | null;
  /** A new account, or one whose invite was never taken: the e-mail carries a set-password link. */
  invited: boolean;
}

/**
 * Makes `email` staff in `role` (a new account when there is none) and e-mails them. The role is
 * in place before the e-mail goes: if the e-mail fails, running the command again sends it.
 */
export async function addStaff(
  admin: SupabaseClient,
  env: Env,
  site: string,
  email: string,
  role: string,
): Promise<AddReport> {
  if (!isStaffRole(role)) throw new StaffError(`The role must be coach or admin, not "${role}".`);
  const to = address(email);
  let added = await staffAdd(admin, to, role);
  let link: string | null = null;
  if (!added.found || !added.confirmed) {
    // An account without a password: Auth makes one if needed, and the link that sets it.
    const { data, error } = await admin.auth.admin.generateLink({ type: "invite", email: to });
    if (error && error.code !== "email_exists") throw new Error(`Inviting ${to} failed: ${error.message}`);
    if (data?.properties) {
      const url = new URL("/reset-password", site);
      url.searchParams.set("token_hash", data.properties.hashed_token);
      url.searchParams.set("type", "invite");
      link = url.href;
    }
    if (!added.found) added = await staffAdd(admin, to, role);
    if (!added.found) throw new Error(`Inviting ${to} made no account`);
  }
  // One e-mail per link (or per role, for someone with a password): a repeat within Resend's 24
  // hours under the same key is not sent twice.
  const key = `staff:${added.user_id}:${role}:${link ? link.slice(-16) : "desk"}`;
  await sendEmail(env, staffEmail(to, site, role, link), key);
  return { email: to, role, previousRole: added.previous_role ?? null, invited: link !== null };
}

/** Takes `email` off the team; answers the role they had. Their account and any purchases stay. */
export async function removeStaff(admin: SupabaseClient, email: string): Promise<StaffRole> {
  const to = address(email);
  const { data, error } = await admin.rpc("staff_remove", { p_email: to });
  if (error) throw new Error(`Removing ${to} failed: ${error.message}`);
  if (!isStaffRole(data)) throw new StaffError(`${to} is not on the team.`);
  return data;
}

export interface StaffMember {
  email: string;
  role: StaffRole;
  since: string;
  last_sign_in_at: string | null;
}

/** The team, admins first, by address. */
export async function listStaff(admin: SupabaseClient): Promise<StaffMember[]> {
  const { data, error } = await admin.rpc("staff_list");
  if (error) throw new Error(`Listing the team failed: ${error.message}`);
  return (data ?? []) as StaffMember[];
}
