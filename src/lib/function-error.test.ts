import { describe, expect, it } from "vitest";
import { functionErrorMessage, functionFailure } from "./function-error";

/** What supabase-js rejects `functions.invoke` with for an answer of `status`: its Response as `context`. */
const httpError = (status: number, body: string) => ({
  name: "FunctionsHttpError",
  context: new Response(body, { status }),
});

describe("a function's failure as supabase-js reports it", () => {
  it("reads the status and the JSON body, and the `error` in words", async () => {
    const failure = httpError(409, JSON.stringify({ error: "Sign in to continue.", code: "sign_in_required" }));
    expect(await functionFailure(failure)).toEqual({
      status: 409,
      body: { error: "Sign in to continue.", code: "sign_in_required" },
    });
    expect(await functionErrorMessage(httpError(404, JSON.stringify({ error: "The file is not available." })))).toBe(
      "The file is not available.",
    );
  });

  it("says nothing of a gateway's page, a body without an error, or a network failure", async () => {
    expect(await functionFailure(httpError(502, "<html>Bad gateway</html>"))).toEqual({ status: 502, body: null });
    expect(await functionErrorMessage(httpError(502, "<html>Bad gateway</html>"))).toBeNull();
    expect(await functionErrorMessage(httpError(400, JSON.stringify({ code: "x" })))).toBeNull();
    expect(await functionFailure(new TypeError("Failed to fetch"))).toBeNull();
    expect(await functionErrorMessage(null)).toBeNull();
  });
});
