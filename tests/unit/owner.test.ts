/**
 * What a page that sells programs reads to know the visitor owns one (src/components/owner/owner.ts):
 * the persisted session's access token while it is valid, by the account button's rule
 * (src/features/auth/persisted-session.ts) less the sessions only a refresh would make usable, and
 * the programs of the caller's completed orders, asked of PostgREST with that token.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { accessTokenOf, ownedPrograms, storedAccessToken } from "../../src/components/owner/owner";
import { userFromPersistedSession } from "../../src/features/auth/persisted-session";

const now = 1_800_000_000;
const persisted = (extra: Record<string, unknown>) =>
  JSON.stringify({
    access_token: "tok",
    token_type: "bearer",
    user: { id: "u-1", email: "ada@example.com" },
    ...extra,
  });

const ORDERS = "https://abcd.supabase.co/rest/v1/stripe_user_orders";

/** A fetch that answers `body` with `status`, and records what it was asked. */
function answering(status: number, body: unknown) {
  const calls: { url: string; headers: Record<string, string> }[] = [];
  const fetcher = (async (url: string, init?: RequestInit) => {
    calls.push({ url, headers: init?.headers as Record<string, string> });
    return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
  }) as typeof fetch;
  return { fetcher, calls };
}

describe("the owner's access token", () => {
  it("is the persisted session's while it has not expired", () => {
    expect(accessTokenOf(persisted({ expires_at: now + 60, refresh_token: "r" }), now)).toBe("tok");
    expect(accessTokenOf(persisted({ expires_at: now + 60 }), now)).toBe("tok");
  });

  it("is none once it has expired, though the account button still counts the session signed in (it is never refreshed)", () => {
    const expired = persisted({ expires_at: now - 1, refresh_token: "r" });
    expect(userFromPersistedSession(expired, now)?.id).toBe("u-1");
    expect(accessTokenOf(expired, now)).toBeNull();
    expect(accessTokenOf(persisted({ expires_at: now }), now)).toBeNull();
    expect(accessTokenOf(persisted({ refresh_token: "r" }), now)).toBeNull();
  });

  it("is none where the account button sees nobody signed in", () => {
    for (const raw of [
      null,
      "",
      "{not json",
      "null",
      "[]",
      JSON.stringify({ access_token: "tok", expires_at: now + 60, user: { email: "x@y.z" } }),
      JSON.stringify({ access_token: "tok", expires_at: now + 60, user: { id: "" } }),
      persisted({ expires_at: now - 60 }),
    ]) {
      expect(userFromPersistedSession(raw, now), String(raw)).toBeNull();
      expect(accessTokenOf(raw, now), String(raw)).toBeNull();
    }
  });

  it("is none without an access token to send", () => {
    expect(accessTokenOf(persisted({ expires_at: now + 60, access_token: "" }), now)).toBeNull();
    expect(accessTokenOf(persisted({ expires_at: now + 60, access_token: 42 }), now)).toBeNull();
  });
});

describe("the stored access token", () => {
  afterEach(() => vi.unstubAllGlobals());
  const storage = (items: Record<string, string>) => ({ getItem: (key: string) => items[key] ?? null });
  const KEY = "sb-abcd-auth-token";

  it("is read from sessionStorage first (Remember me unchecked), then localStorage, under the session's key", () => {
    const later = persisted({ expires_at: now + 60 });
    vi.stubGlobal("sessionStorage", storage({ [KEY]: later.replace('"tok"', '"this-tab"') }));
    vi.stubGlobal("localStorage", storage({ [KEY]: later }));
    expect(storedAccessToken(KEY, now)).toBe("this-tab");
    vi.stubGlobal("sessionStorage", storage({}));
    expect(storedAccessToken(KEY, now)).toBe("tok");
    expect(storedAccessToken("sb-other-auth-token", now)).toBeNull();
  });

  it("is none where storage is blocked", () => {
    vi.stubGlobal("sessionStorage", {
      getItem: () => {
        throw new DOMException("The operation is insecure.", "SecurityError");
      },
    });
    expect(storedAccessToken(KEY, now)).toBeNull();
  });
});

describe("the programs the caller owns", () => {
  it("asks PostgREST for the completed orders' programs, with the anon key and the caller's token", async () => {
    const { fetcher, calls } = answering(200, [{ product_key: "OS_ACCELERATOR" }, { product_key: "GROWTH_MINDSET" }]);
    expect(await ownedPrograms(ORDERS, "anon-key", "tok", fetcher)).toEqual(["OS_ACCELERATOR", "GROWTH_MINDSET"]);
    expect(calls).toEqual([
      {
        url: `${ORDERS}?select=product_key&order_status=eq.completed`,
        headers: { apikey: "anon-key", Authorization: "Bearer tok" },
      },
    ]);
  });

  it("owns nothing when the token is refused, the answer is not a list of orders, or the request fails", async () => {
    const none = async (fetcher: typeof fetch) => expect(await ownedPrograms(ORDERS, "k", "tok", fetcher)).toEqual([]);
    await none(answering(401, { message: "JWT expired" }).fetcher);
    await none(answering(200, { product_key: "OS_ACCELERATOR" }).fetcher);
    await none(answering(200, [null, { product_key: "OS_ACCELERATOR" }]).fetcher);
    await none((async () => {
      throw new TypeError("Failed to fetch");
    }) as typeof fetch);
  });
});
