/**
 * What an Edge Function answered when supabase-js `functions.invoke` reports it failed with an
 * HTTP status (its FunctionsHttpError carries the Response as `context`): the status and the JSON
 * body (null when it is not JSON). Null for any other failure: the network, the relay.
 */
export async function functionFailure(error: unknown): Promise<{ status: number; body: unknown } | null> {
  const context = (error as { context?: unknown } | null)?.context;
  if (!(context instanceof Response)) return null;
  const body: unknown = await context
    .clone()
    .json()
    .catch(() => null);
  return { status: context.status, body };
}

/** The `error` a function answered with, in words for the person (functions/*: `{ error }`); null when it said none. */
export async function functionErrorMessage(error: unknown): Promise<string | null> {
  const said = (await functionFailure(error))?.body as { error?: unknown } | null | undefined;
  return typeof said?.error === "string" ? said.error : null;
}
