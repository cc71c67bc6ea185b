/** GoTrue's second refresh-token algorithm, as packages/local-stack/src/auth/refresh-token.ts encodes it (no database). */
import { describe, expect, it } from "vitest";
import { encodeRefreshToken, newHmacKey, parseRefreshToken, signedWith } from "../../src/auth/refresh-token.ts";

const session = "5f0d1c2e-8a3b-4c6d-9e7f-0a1b2c3d4e5f";

describe("refresh tokens", () => {
  it("round-trips the session and counter, small and multi-byte counters alike", () => {
    const key = newHmacKey();
    for (const counter of [0, 1, 127, 128, 300, 2 ** 31]) {
      const token = encodeRefreshToken({ sessionId: session, counter }, key);
      expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
      const parsed = parseRefreshToken(token)!;
      expect(parsed).toMatchObject({ sessionId: session, counter });
      expect(signedWith(parsed, key)).toBe(true);
    }
  });

  it("is the same token for the same session, counter and key (so a reuse can be answered with the current one)", () => {
    const key = newHmacKey();
    expect(encodeRefreshToken({ sessionId: session, counter: 7 }, key)).toBe(
      encodeRefreshToken({ sessionId: session, counter: 7 }, key),
    );
    expect(encodeRefreshToken({ sessionId: session, counter: 7 }, key)).not.toBe(
      encodeRefreshToken({ sessionId: session, counter: 8 }, key),
    );
  });

  it("has GoTrue's layout: version 0, 16 bytes of session id, uvarint counter, 16-byte signature, 4-byte checksum", () => {
    const raw = Buffer.from(encodeRefreshToken({ sessionId: session, counter: 300 }, newHmacKey()), "base64url");
    expect(raw[0]).toBe(0);
    expect(raw.subarray(1, 17).toString("hex")).toBe(session.replace(/-/g, ""));
    expect([...raw.subarray(17, 19)]).toEqual([0xac, 0x02]); // 300 as a uvarint
    expect(raw.length).toBe(1 + 16 + 2 + 16 + 4);
  });

  it("refuses a token signed with another session's key", () => {
    const token = parseRefreshToken(encodeRefreshToken({ sessionId: session, counter: 1 }, newHmacKey()))!;
    expect(signedWith(token, newHmacKey())).toBe(false);
  });

  it("does not parse a changed, truncated, foreign-version or non-base64url token", () => {
    const token = encodeRefreshToken({ sessionId: session, counter: 1 }, newHmacKey());
    const raw = Buffer.from(token, "base64url");
    const flipped = Buffer.from(raw);
    flipped[5] = flipped[5]! ^ 1;
    const version = Buffer.from(raw);
    version[0] = 1;
    for (const bad of [
      flipped.toString("base64url"),
      raw.subarray(0, raw.length - 1).toString("base64url"),
      version.toString("base64url"),
      `${token}!`,
      "abcdefghijkl",
    ]) {
      expect(parseRefreshToken(bad)).toBeUndefined();
    }
  });
});
