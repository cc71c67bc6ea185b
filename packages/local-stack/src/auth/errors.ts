/**
 * GoTrue's error answers (api/errors.go), for every endpoint of the Auth stand-in: an `AuthError`
 * carries the HTTP status, GoTrue's error code and its message, and the router
 * (packages/local-stack/src/auth/index.ts) answers it as the JSON body supabase-js reads; a
 * database failure inside a step GoTrue wraps becomes that step's own error. Dev and test only.
 */
import { json } from "../http.ts";

/** GoTrue's error answer; supabase-js reads `error_code` and `msg`. */
export class AuthError extends Error {
  readonly status: number;
  readonly code: string;
  readonly extra: Record<string, unknown>;
  constructor(status: number, code: string, message: string, extra: Record<string, unknown> = {}) {
    super(message);
    this.status = status;
    this.code = code;
    this.extra = extra;
  }
  response(): Response {
    return json({ code: this.status, error_code: this.code, msg: this.message, ...this.extra }, this.status);
  }
}

/** Runs a database step, answering a database error (one with a SQLSTATE) as `failed`, as GoTrue wraps them. */
export async function databaseStep<T>(failed: AuthError, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (!(error instanceof AuthError) && typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) throw failed;
    throw error;
  }
}
