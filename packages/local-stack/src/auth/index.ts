/**
 * `/auth/v1`: the part of Supabase Auth (GoTrue) the product calls, speaking its wire format and
 * following its rules, read from its source: password sign-in (refused for an unconfirmed e-mail),
 * refresh tokens of GoTrue's second algorithm (packages/local-stack/src/auth/refresh-token.ts), get
 * and update the user (a new password ends the user's other sessions and spends their e-mailed
 * links), sign out, password recovery and invitations by e-mailed link (the templates in
 * supabase/templates/, verified by the link itself, GET, or by `verifyOtp`, POST), the admin calls
 * the Stripe webhook uses (create, invite, delete, generate link), and the JWKS. Users are found as
 * GoTrue finds them (instance, audience, lower-case e-mail), so rows written by hand must be
 * complete, as on the platform. Rate limits are GoTrue's token buckets per client address, sized by
 * `[auth.rate_limit]` in supabase/config.toml. Dev and test only: production is Supabase Auth.
 *
 * This file is the router (GoTrue's api/api.go): the open routes, the gateway's key check, then
 * each endpoint in the module GoTrue keeps it in (packages/local-stack/src/auth/token.ts, user.ts,
 * logout.ts, recover.ts, verify.ts, invite.ts, admin.ts, mail.ts, settings.ts, signup.ts), over the
 * user and session stores (users.ts, sessions.ts) and GoTrue's errors (errors.ts).
 */
import { type Context, gateway, json } from "../http.ts";
import { adminCreateUser, adminDeleteUser, adminGetUser } from "./admin.ts";
import { AuthError } from "./errors.ts";
import { invite } from "./invite.ts";
import { logout } from "./logout.ts";
import { adminGenerateLink } from "./mail.ts";
import { recover } from "./recover.ts";
import { settings } from "./settings.ts";
import { signup } from "./signup.ts";
import { token } from "./token.ts";
import { getUser, updateUser } from "./user.ts";
import { verifyLink, verifyPost } from "./verify.ts";

export async function handleAuth(request: Request, context: Context): Promise<Response> {
  const url = new URL(request.url);
  const path = url.pathname.slice("/auth/v1".length) || "/";
  let response: Response;
  try {
    response = await dispatch(path, request.method, url, request, context);
  } catch (error) {
    if (!(error instanceof AuthError)) throw error;
    response = error.response();
  }
  response.headers.set("x-supabase-api-version", "2024-01-01");
  return response;
}

async function dispatch(path: string, method: string, url: URL, request: Request, context: Context): Promise<Response> {
  // Open routes (Supabase's gateway lets them through without an API key): the e-mailed link,
  // the public keys, the health check.
  if (path === "/verify" && method === "GET") return verifyLink(url, request, context);
  if (path === "/.well-known/jwks.json" && method === "GET") return json(context.signer.jwks());
  if (path === "/health" && method === "GET") {
    return json({ version: "local", name: "GoTrue", description: "Local stand-in for Supabase Auth" });
  }

  const key = gateway(request, context);
  if (key instanceof Response) return key;

  if (path === "/settings" && method === "GET") return settings(context);
  if (path === "/signup" && method === "POST") return signup();
  if (path === "/token" && method === "POST") return token(url, request, context);
  if (path === "/user" && method === "GET") return getUser(request, context);
  if (path === "/user" && method === "PUT") return updateUser(request, context);
  if (path === "/logout" && method === "POST") return logout(url, request, context);
  if (path === "/recover" && method === "POST") return recover(request, context);
  if (path === "/verify" && method === "POST") return verifyPost(request, context);
  if (path === "/admin/users" && method === "POST") return adminCreateUser(request, context);
  if (path === "/invite" && method === "POST") return invite(request, context);
  const adminUser = /^\/admin\/users\/([^/]+)$/.exec(path);
  if (adminUser && method === "GET") return adminGetUser(decodeURIComponent(adminUser[1]!), request, context);
  if (adminUser && method === "DELETE") return adminDeleteUser(decodeURIComponent(adminUser[1]!), request, context);
  if (path === "/admin/generate_link" && method === "POST") return adminGenerateLink(request, context);
  throw new AuthError(404, "not_found", "Not Found");
}
