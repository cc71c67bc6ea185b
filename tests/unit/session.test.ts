import { describe, expect, it } from "vitest";
import { userFromPersistedSession } from "../../src/features/auth/persisted-session";
import { sessionStorageKey } from "../../src/lib/session-key";

const now = 1_800_000_000;
const persisted = (extra: Record<string, unknown>) =>
  JSON.stringify({ access_token: "a", token_type: "bearer", user: { id: "u-1", email: "ada@example.com" }, ...extra });

describe("persisted session", () => {
  it("uses supabase-js's storage key for the project URL", () => {
    expect(sessionStorageKey("https://abcdefgh.supabase.co")).toBe("sb-abcdefgh-auth-token");
    expect(sessionStorageKey("http://localhost:4321")).toBe("sb-localhost-auth-token");
  });

  it("signs in a session with a refresh token, even once the access token expired", () => {
    expect(userFromPersistedSession(persisted({ refresh_token: "r", expires_at: now - 60 }), now)).toEqual({
      id: "u-1",
      email: "ada@example.com",
    });
  });

  it("signs in an unexpired session without a refresh token", () => {
    expect(userFromPersistedSession(persisted({ expires_at: now + 60 }), now)?.id).toBe("u-1");
  });

  it("signs out an expired session that cannot be renewed", () => {
    expect(userFromPersistedSession(persisted({ expires_at: now - 1 }), now)).toBeNull();
  });

  it("signs out when nothing, garbage or a session without a user is stored", () => {
    expect(userFromPersistedSession(null, now)).toBeNull();
    expect(userFromPersistedSession("{not json", now)).toBeNull();
    expect(userFromPersistedSession("null", now)).toBeNull();
    expect(userFromPersistedSession(JSON.stringify({ refresh_token: "r", user: { email: "x@y.z" } }), now)).toBeNull();
  });
});
