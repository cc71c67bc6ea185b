/**
 * `POST /logout`, as GoTrue's api/logout.go answers it: the signed-in user's sessions end by
 * `scope` (this one, the others, or all of them), and the answer is an empty 204. Dev and test
 * only.
 */
import type { Context } from "../http.ts";
import { currentUser } from "./auth.ts";
import { UUID } from "./users.ts";

/** `signOut` (GoTrue's `Logout`): this session, the others, or all of them (the default). */
export async function logout(url: URL, request: Request, context: Context): Promise<Response> {
  const { user, claims } = await currentUser(request, context);
  const scope = url.searchParams.get("scope") ?? "global";
  const sessionId = typeof claims.session_id === "string" && UUID.test(claims.session_id) ? claims.session_id : null;
  if (scope === "local") await context.db.query("delete from auth.sessions where id = $1", [sessionId]);
  else if (scope === "others") {
    await context.db.query("delete from auth.sessions where user_id = $1 and id is distinct from $2", [
      user.id,
      sessionId,
    ]);
  } else await context.db.query("delete from auth.sessions where user_id = $1", [user.id]);
  return new Response(null, { status: 204 });
}
