/** The addresses the Resend stand-in (packages/local-stack/src/resend.ts) takes: Resend's `email@example.com` or `Name <email@example.com>`. */
import { describe, expect, it } from "vitest";
import { parseAddress } from "../../src/resend.ts";

describe("Resend's address forms", () => {
  it("takes a bare address and a named one, the name quoted or not", () => {
    expect(parseAddress("team@advisor-accelerator.local")).toEqual({
      name: null,
      address: "team@advisor-accelerator.local",
    });
    expect(parseAddress("Advisor Accelerator <team@advisor-accelerator.local>")).toEqual({
      name: "Advisor Accelerator",
      address: "team@advisor-accelerator.local",
    });
    expect(parseAddress('"Advisor, Accelerator" <team@advisor-accelerator.local>')).toEqual({
      name: "Advisor, Accelerator",
      address: "team@advisor-accelerator.local",
    });
    expect(parseAddress("<team@advisor-accelerator.local>")).toEqual({
      name: null,
      address: "team@advisor-accelerator.local",
    });
  });

  it("refuses a name alone, an address without a domain, an unclosed bracket and spaces in the address", () => {
    for (const value of [
      "Advisor Accelerator",
      "team@",
      "team@localhost",
      "Advisor <team@advisor-accelerator.local",
      "a b@example.com",
      "",
    ]) {
      expect(parseAddress(value), value).toBeNull();
    }
  });
});
