/**
 * Who is calling the Auth stand-in, as GoTrue's api/auth.go decides it: the signed-in user and
 * session behind a bearer token (`requireAuthentication`, for `/user` and `/logout`), or an admin
 * role (`requireAdmin`, for the calls the Stripe webhook makes with the service key), each refusal
 * with GoTrue's error. Dev and test only.
 */
import { bearer, type Context } from "../http.ts";
import type { Claims } from "../jwt.ts";
import { AuthError } from "./errors.ts";
import { INSTANCE, UUID, userById, type UserRow } from "./users.ts";

/** The admin roles of GoTrue's default configuration. */
const ADMIN_ROLES = ["service_role", "supabase_admin"];

/** The signed-in user and session behind the bearer token (GoTrue's `requireAuthentication`). */
export async function currentUser(request: Request, context: Context): Promise<{ user: UserRow; claims: Claims }> {
  const token = bearer(request);
  if (!token) throw new AuthError(401, "no_authorization", "This endpoint requires a valid Bearer token");
  const verified = context.signer.verify(token);
  if (!verified.ok) {
    const why =
      verified.reason === "expired"
        ? "token has invalid claims: token is expired"
        : verified.reason === "signature"
          ? "token signature is invalid"
          : "token is malformed";
    throw new AuthError(403, "bad_jwt", `invalid JWT: unable to parse or verify signature, ${why}`);
  }
  const { claims } = verified;
  if (!claims.sub) throw new AuthError(403, "bad_jwt", "invalid claim: missing sub claim");
  if (!UUID.test(claims.sub)) throw new AuthError(400, "bad_jwt", "invalid claim: sub claim must be a UUID");
  const user = await userById(context.db, claims.sub);
  if (!user) throw new AuthError(403, "user_not_found", "User from sub claim in JWT does not exist");
  const sessionId = typeof claims.session_id === "string" ? claims.session_id : "";
  if (sessionId && sessionId !== INSTANCE) {
    if (!UUID.test(sessionId)) throw new AuthError(403, "bad_jwt", "invalid claim: session_id claim must be a UUID");
    const { rows } = await context.db.query("select 1 from auth.sessions where id = $1", [sessionId]);
    if (rows.length === 0) {
      throw new AuthError(403, "session_not_found", "Session from session_id claim in JWT does not exist");
    }
  }
  return { user, claims };
}

/** GoTrue's `requireAdmin`: a bearer JWT whose role is an admin role. */
export function requireAdmin(request: Request, context: Context) {
  const token = bearer(request);
  if (!token) throw new AuthError(401, "no_authorization", "This endpoint requires a valid Bearer token");
  const verified = context.signer.verify(token);
  if (!verified.ok) throw new AuthError(403, "bad_jwt", "invalid JWT: unable to parse or verify signature");
  if (!ADMIN_ROLES.includes(verified.claims.role)) throw new AuthError(403, "not_admin", "User not allowed");
}
