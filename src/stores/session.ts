/**
 * The session store: who is signed in, on the pages that load supabase-js (login, reset,
 * checkout, portal), where its `onAuthStateChange` drives the store (src/lib/supabase.ts, the one
 * listener) and every island reads it (docs/architecture.md, Client state). Marketing pages do not
 * load it: their account button reads the persisted session itself
 * (src/features/auth/persisted-session.ts), so that its few hundred bytes share no module with
 * the supabase pages and stay inline in each page.
 */
import { atom } from "nanostores";

export interface SessionUser {
  id: string;
  email?: string;
  /** When the account was created (ISO 8601), known where supabase-js drives the store. */
  createdAt?: string;
}

/** The auth events the store follows (docs/product.md, States and transitions). */
export type AuthEvent =
  | "INITIAL_SESSION"
  | "SIGNED_IN"
  | "SIGNED_OUT"
  | "TOKEN_REFRESHED"
  | "USER_UPDATED"
  | "PASSWORD_RECOVERY"
  | "MFA_CHALLENGE_VERIFIED";

export type AuthState = { status: "loading" } | { status: "signed-in"; user: SessionUser } | { status: "signed-out" };

export const $auth = atom<AuthState>({ status: "loading" });

/** The last auth event supabase-js reported on this page (the reset page waits for PASSWORD_RECOVERY). */
export const $authEvent = atom<AuthEvent | null>(null);

export function setSignedIn(user: SessionUser): void {
  $auth.set({ status: "signed-in", user });
}

export function setSignedOut(): void {
  $auth.set({ status: "signed-out" });
}

/** Applies one supabase-js auth event: who is signed in after it, and which event it was. */
export function applyAuthEvent(
  event: AuthEvent,
  user: { id: string; email?: string; created_at?: string } | null,
): void {
  $authEvent.set(event);
  if (user) setSignedIn({ id: user.id, email: user.email, createdAt: user.created_at });
  else setSignedOut();
}
