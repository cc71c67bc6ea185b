/**
 * The Host rule of the stack's `/_local` pages (packages/local-stack/src/local-host.ts): a name of
 * this machine's loopback or the address the stack listens on, written as browsers write it, on
 * any port; anything else, malformed included, is refused. The stack itself is tested over HTTP in
 * packages/local-stack/tests/integration/local-host.test.ts.
 */
import { describe, expect, it } from "vitest";
import { hostOf, isLocalHost, misdirected } from "../../src/local-host.ts";

describe("the Host rule of the /_local pages", () => {
  it("reads the host as a browser writes it: lower case, IPv4 and IPv6 in their usual form, port dropped", () => {
    expect(hostOf("LocalHost:4321")).toBe("localhost");
    expect(hostOf("127.1:4321")).toBe("127.0.0.1");
    expect(hostOf("[0:0:0:0:0:0:0:1]:4321")).toBe("[::1]");
    expect(hostOf("[::1]")).toBe("[::1]");
    for (const malformed of [
      undefined,
      "",
      "localhost@evil.example",
      "localhost:4321/x",
      "localhost evil",
      "::1",
      "localhost:port",
    ])
      expect(hostOf(malformed), String(malformed)).toBeNull();
  });

  it("accepts localhost and loopback addresses on any port, whatever the stack listens on", () => {
    for (const listen of ["127.0.0.1", "0.0.0.0", "192.0.2.10"]) {
      for (const host of ["localhost", "localhost:4321", "localhost:8080", "127.0.0.1:4321", "127.0.0.2", "[::1]:4321"])
        expect(isLocalHost(host, listen), `${host} on ${listen}`).toBe(true);
    }
  });

  it("accepts the address it was told to listen on only when it was told so", () => {
    expect(isLocalHost("0.0.0.0:4321", "0.0.0.0")).toBe(true);
    expect(isLocalHost("0.0.0.0:4321", "127.0.0.1")).toBe(false);
    expect(isLocalHost("[::]:4321", "::")).toBe(true);
    expect(isLocalHost("192.0.2.10:4321", "192.0.2.10")).toBe(true);
    expect(isLocalHost("192.0.2.10:4321", "0.0.0.0")).toBe(false);
    expect(isLocalHost("devbox.lan:4321", "DevBox.lan")).toBe(true);
    expect(isLocalHost("devbox.lan:4321", "127.0.0.1")).toBe(false);
  });

  it("refuses names a rebinding page can have, and a missing or malformed Host", () => {
    for (const host of [
      "evil.example:4321",
      "127.0.0.1.nip.io:4321",
      "localtest.me",
      "localhost.evil.example",
      "localhost.",
      "localhost@evil.example",
      undefined,
      "",
    ])
      expect(isLocalHost(host, "0.0.0.0"), String(host)).toBe(false);
  });

  it("answers a refused Host with 421 naming the rule and the names it accepts", async () => {
    const answer = misdirected("evil.example:4321", "0.0.0.0");
    expect(answer.status).toBe(421);
    const text = await answer.text();
    expect(text).toContain('the Host header "evil.example:4321" does not name this local stack');
    expect(text).toContain("localhost, 127.0.0.1, [::1], 0.0.0.0 (on any port)");
    expect(text).toContain("DNS rebinding");
    expect(await misdirected(undefined, "127.0.0.1").text()).toContain("the request has no Host header");
  });
});
