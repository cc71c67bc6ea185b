/**
 * The portal's data (docs/architecture.md, Client state): the signed-in customer's orders,
 * profile and lesson progress, as nanostores, and what changes them (profile save, avatar
 * upload, logout).
 *
 * The portal header's script calls `startPortal()` as soon as the page is parsed, so the fetches
 * start as soon as supabase-js reports the session to the session store, in parallel, and not
 * after React has hydrated the islands that show them. A signed-out visitor is sent to /login,
 * with the page to come back to.
 */
import { atom } from "nanostores";
import type { LessonProgressRow, OrderRow, ProfileRow } from "~/lib/database";
import { supabase } from "~/lib/supabase";
import { $auth, type SessionUser } from "~/stores/session";
import { isStaffRole, type StaffRole } from "@advisor-accelerator/shared/staff-roles.ts";
import {
  avatarPath,
  checkAvatar,
  contactFields,
  type ContactField,
  loginRedirect,
  ownAvatarUrl,
  versionedUrl,
} from "./logic";

/** Data from the backend: loading, here, or not to be had (the error is logged, never shown raw). */
export type Remote<T> = { status: "loading" } | { status: "ready"; data: T } | { status: "error" };

export const LOADING = { status: "loading" } as const;

/** The customer's orders, newest first (the view `stripe_user_orders`). */
export const $orders = atom<Remote<OrderRow[]>>(LOADING);

/** The customer's profile; `null` when they have never saved one. */
export const $profile = atom<Remote<ProfileRow | null>>(LOADING);

/** The customer's progress through their lessons (lesson_progress: their own rows). */
export const $progress = atom<Remote<LessonProgressRow[]>>(LOADING);

/**
 * The signed-in user's role on the team (the `staff` table: their own row), or null for a customer.
 * Every portal page asks, in parallel with its data: the header links staff to the desk.
 */
export const $staffRole = atom<Remote<StaffRole | null>>(LOADING);

/** What a portal page shows, and so fetches. */
export type PortalData = "orders" | "profile" | "progress";

let started = false;
/** The user whose data the stores hold (or are fetching). */
let loadedFor: string | null = null;
/** Set while logging out, so the guard does not send the leaving customer to /login. */
let leaving = false;

/**
 * Follows the session store: fetches `needs` for the signed-in user, in parallel, once per user;
 * sends a signed-out visitor to /login?next=<this page>. Once per page; a no-op on the server.
 */
export function startPortal(needs: readonly PortalData[]): void {
  if (typeof window === "undefined" || started) return;
  started = true;
  $auth.subscribe((auth) => {
    if (auth.status === "signed-out") {
      loadedFor = null;
      if (!leaving) window.location.replace(loginRedirect(window.location.pathname, window.location.search));
      return;
    }
    // TOKEN_REFRESHED and USER_UPDATED report the same user again: nothing to fetch.
    if (auth.status !== "signed-in" || auth.user.id === loadedFor) return;
    const userId = auth.user.id;
    const first = loadedFor === null;
    loadedFor = userId;
    if (!first) {
      // Another account signed in (in another tab): start again from loading.
      $orders.set(LOADING);
      $profile.set(LOADING);
      $progress.set(LOADING);
      $staffRole.set(LOADING);
    }
    // supabase-js reports the session from inside its auth callback; start the requests after it.
    queueMicrotask(() => {
      if (needs.includes("orders")) void loadOrders(userId);
      if (needs.includes("profile")) void loadProfile(userId);
      if (needs.includes("progress")) void loadProgress(userId);
      void loadStaffRole(userId);
    });
  });
}

async function loadStaffRole(userId: string): Promise<void> {
  try {
    const { data, error } = await supabase.from("staff").select("role").eq("user_id", userId).maybeSingle();
    if (loadedFor !== userId) return;
    if (error) throw error;
    $staffRole.set({ status: "ready", data: isStaffRole(data?.role) ? data.role : null });
  } catch (error) {
    if (loadedFor !== userId) return;
    console.error("Could not load your role:", error);
    $staffRole.set({ status: "error" });
  }
}

async function loadOrders(userId: string): Promise<void> {
  try {
    const { data, error } = await supabase
      .from("stripe_user_orders")
      .select("*")
      .order("order_date", { ascending: false });
    if (loadedFor !== userId) return;
    if (error) throw error;
    $orders.set({ status: "ready", data: data ?? [] });
  } catch (error) {
    if (loadedFor !== userId) return;
    console.error("Could not load your orders:", error);
    $orders.set({ status: "error" });
  }
}

/** A path's public URL in the project's avatars bucket. */
const avatarPublicUrl = (path: string) => supabase.storage.from("avatars").getPublicUrl(path).data.publicUrl;

async function loadProfile(userId: string): Promise<void> {
  try {
    const { data, error } = await supabase.from("profiles").select("*").eq("id", userId).maybeSingle();
    if (loadedFor !== userId) return;
    if (error) throw error;
    // Only the user's own avatar in this site's project is shown (logic.ts, ownAvatarUrl).
    $profile.set({
      status: "ready",
      data: data && { ...data, avatar_url: ownAvatarUrl(data.avatar_url, userId, avatarPublicUrl) },
    });
  } catch (error) {
    if (loadedFor !== userId) return;
    console.error("Could not load your profile:", error);
    $profile.set({ status: "error" });
  }
}

async function loadProgress(userId: string): Promise<void> {
  try {
    // Asked by owner: a staff member reads every student's progress (the desk), and their own
    // portal must show only theirs.
    const { data, error } = await supabase.from("lesson_progress").select("*").eq("user_id", userId);
    if (loadedFor !== userId) return;
    if (error) throw error;
    $progress.set({ status: "ready", data: data ?? [] });
  } catch (error) {
    if (loadedFor !== userId) return;
    console.error("Could not load your progress:", error);
    $progress.set({ status: "error" });
  }
}

/** Replaces (or adds) one lesson's progress row in the store, after it was saved. */
export function mergeProgress(row: LessonProgressRow): void {
  const current = $progress.get();
  const rows = current.status === "ready" ? current.data.filter((r) => r.lesson_id !== row.lesson_id) : [];
  $progress.set({ status: "ready", data: [...rows, row] });
}

/** The signed-in user, or null. */
export function currentUser(): SessionUser | null {
  const auth = $auth.get();
  return auth.status === "signed-in" ? auth.user : null;
}

/** What an action tells the page: done, or the message to show after its prefix (docs/product.md, Messages and errors). */
export type Outcome = { ok: true } | { ok: false; message: string };

const SIGNED_OUT = "You are signed out. Please sign in again.";

/** Merges saved columns into the profile the stores hold. */
function mergeProfile(userId: string, fields: Partial<ProfileRow>): void {
  const current = $profile.get();
  const base: ProfileRow =
    current.status === "ready" && current.data
      ? current.data
      : {
          id: userId,
          full_name: null,
          address: null,
          address_2: null,
          city: null,
          state: null,
          country: null,
          zip: null,
          avatar_url: null,
          updated_at: new Date().toISOString(),
        };
  $profile.set({ status: "ready", data: { ...base, ...fields } });
}

/**
 * Saves the contact form: `upsert({ id, ...fields })`, each field trimmed and an empty one null.
 * `updated_at` is the database's.
 */
export async function saveProfile(values: Partial<Record<ContactField, string>>): Promise<Outcome> {
  const user = currentUser();
  if (!user) return { ok: false, message: SIGNED_OUT };
  const fields = contactFields(values);
  try {
    const { error } = await supabase.from("profiles").upsert({ id: user.id, ...fields });
    if (error) return { ok: false, message: error.message };
  } catch (error) {
    console.error("Could not save the profile:", error);
    return { ok: false, message: "The server could not be reached. Please try again." };
  }
  mergeProfile(user.id, fields);
  return { ok: true };
}

/**
 * Uploads a new avatar: checked here first (PNG, JPEG or WebP, at most 2 MB; the bucket checks
 * again), stored at `{userId}/{userId}.{ext}` over the previous one, then its public URL with a
 * version saved as the profile's avatar_url, so every page shows the new picture at once.
 */
export async function uploadAvatar(file: File): Promise<Outcome> {
  const user = currentUser();
  if (!user) return { ok: false, message: SIGNED_OUT };
  const checked = checkAvatar(file);
  if (!checked.ok) return checked;
  const path = avatarPath(user.id, checked.ext);
  const bucket = supabase.storage.from("avatars");
  try {
    const { error } = await bucket.upload(path, file, { upsert: true, contentType: checked.contentType });
    if (error) return { ok: false, message: error.message };
    const avatar_url = versionedUrl(avatarPublicUrl(path), Date.now());
    const { error: saveError } = await supabase.from("profiles").upsert({ id: user.id, avatar_url });
    if (saveError) return { ok: false, message: saveError.message };
    mergeProfile(user.id, { avatar_url });
    return { ok: true };
  } catch (error) {
    console.error("Could not upload the avatar:", error);
    return { ok: false, message: "The server could not be reached. Please try again." };
  }
}

/** Signs out on this device (errors only logged, docs/product.md, Messages and errors), then goes home. */
export async function logout(): Promise<void> {
  leaving = true;
  try {
    const { error } = await supabase.auth.signOut({ scope: "local" });
    if (error) console.error("Logout failed:", error);
  } catch (error) {
    console.error("Logout failed:", error);
  }
  window.location.assign("/");
}

let marked = false;

/**
 * Marks the moment /portal shows both the orders and the profile, once per page: `npm run bench`
 * measures from navigation to this mark.
 */
export function markPortalDataShown(): void {
  if (marked || typeof performance === "undefined") return;
  marked = true;
  performance.mark("portal-data-shown");
}
