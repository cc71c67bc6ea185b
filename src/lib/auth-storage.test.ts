import { describe, expect, it } from "vitest";
import { type KeyValueStorage, rememberMeStorage } from "./auth-storage";

const KEY = "sb-localhost-auth-token";

function memory(): KeyValueStorage & { data: Map<string, string> } {
  const data = new Map<string, string>();
  return {
    data,
    getItem: (k) => data.get(k) ?? null,
    setItem: (k, v) => void data.set(k, v),
    removeItem: (k) => void data.delete(k),
  };
}

describe("remember-me storage", () => {
  it("keeps a remembered session in localStorage only", () => {
    const [local, session] = [memory(), memory()];
    const storage = rememberMeStorage(local, session, KEY);
    storage.remember(true);
    storage.setItem(KEY, "s1");
    expect(local.data.get(KEY)).toBe("s1");
    expect(session.data.has(KEY)).toBe(false);
  });

  it("keeps a session without Remember me in sessionStorage, and clears a remembered one", () => {
    const [local, session] = [memory(), memory()];
    local.data.set(KEY, "old");
    const storage = rememberMeStorage(local, session, KEY);
    storage.remember(false);
    storage.setItem(KEY, "s2");
    expect(session.data.get(KEY)).toBe("s2");
    expect(local.data.has(KEY)).toBe(false);
    expect(storage.getItem(KEY)).toBe("s2");
  });

  it("keeps refreshing a tab's not-remembered session where it is", () => {
    const [local, session] = [memory(), memory()];
    session.data.set(KEY, "s3");
    const storage = rememberMeStorage(local, session, KEY);
    expect(storage.remembering).toBe(false);
    storage.setItem(KEY, "s3-refreshed");
    expect(session.data.get(KEY)).toBe("s3-refreshed");
    expect(local.data.size).toBe(0);
  });

  it("signs out of both places", () => {
    const [local, session] = [memory(), memory()];
    local.data.set(KEY, "a");
    session.data.set(KEY, "b");
    rememberMeStorage(local, session, KEY).removeItem(KEY);
    expect(local.data.size + session.data.size).toBe(0);
  });

  it("survives a storage that throws on write (full or blocked)", () => {
    const [local, session] = [memory(), memory()];
    local.setItem = () => {
      throw new DOMException("full", "QuotaExceededError");
    };
    const storage = rememberMeStorage(local, session, KEY);
    expect(() => storage.setItem(KEY, "x")).not.toThrow();
  });
});
