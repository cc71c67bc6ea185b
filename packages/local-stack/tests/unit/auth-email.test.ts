/**
 * The Auth stand-in's e-mail address check (packages/local-stack/src/auth/mail.ts `validEmail`)
 * against GoTrue's `validateEmail` (supabase/auth internal/api/mail.go): present, at most 255
 * bytes, of checkmail's `ValidateFormat` (github.com/badoux/checkmail at d0a759655d62, the version
 * GoTrue's go.mod pins) as sent, then lower-cased. Neither looser nor stricter: the refused cases
 * include checkmail's own test samples and auth-js's INVALID_EMAIL, the accepted ones what real
 * buyers type. The endpoints that call it are pinned in tests/integration/auth.test.ts.
 */
import { describe, expect, it } from "vitest";
import { AuthError } from "../../src/auth/errors.ts";
import { validEmail } from "../../src/auth/mail.ts";

/** What `validEmail` answers: the address it keeps, or GoTrue's error as `{ status, code, message }`. */
function check(value: unknown) {
  try {
    return validEmail(value);
  } catch (error) {
    if (!(error instanceof AuthError)) throw error;
    return { status: error.status, code: error.code, message: error.message };
  }
}

const invalidFormat = {
  status: 400,
  code: "validation_failed",
  message: "Unable to validate email address: invalid format",
};

describe("GoTrue's validateEmail", () => {
  it("refuses what checkmail's format refuses, with 400 validation_failed, invalid format", () => {
    const refused = [
      ["xx:;x@x.x", "auth-js's INVALID_EMAIL (packages/core/auth-js/test/GoTrueApi.test.ts)"],
      [" florian@carrere.cc", "checkmail_test.go: a leading space (GoTrue trims nothing)"],
      ["florian@carrere.cc ", "checkmail_test.go: a trailing space"],
      ["@gmail.com", "checkmail_test.go: no local part"],
      ["test@gmail@gmail.com", "checkmail_test.go: two @"],
      ["test test@gmail.com", "checkmail_test.go: a space in the local part"],
      ["test@wrong domain.com", "checkmail_test.go: a space in the domain"],
      ["é&ààà@gmail.com", "checkmail_test.go: non-ASCII letters"],
      ["josé.garcia@example.com", "an accented local part"],
      ["advisor@exämple.com", "an internationalized domain not in punycode"],
      ['"quoted"@example.com', "a quoted local part"],
      ["advisor@[192.0.2.1]", "an address literal"],
      ["advisor@ex_ample.com", "an underscore in the domain"],
      ["advisor@example.com.", "a trailing dot"],
      ["advisor@example..com", "an empty label"],
      ["advisor@-example.com", "a label starting with a hyphen"],
      ["advisor@example-.com", "a label ending with a hyphen"],
      [`advisor@${"a".repeat(64)}.com`, "a label of 64 characters"],
      ["advisor", "no @"],
    ];
    for (const [address, why] of refused) expect(check(address), why).toEqual(invalidFormat);
  });

  it("accepts what checkmail's format accepts, lower-cased", () => {
    const accepted = [
      ["buyer+spring-cohort@example.com", "buyer+spring-cohort@example.com"],
      ["first.last@mail.advisor-firm.example.co.uk", "first.last@mail.advisor-firm.example.co.uk"],
      ["planner@localhost", "planner@localhost"],
      ["O'Brien@Example.COM", "o'brien@example.com"],
      ["!#$%&'*+/=?^_`{|}~-.@example.com", "!#$%&'*+/=?^_`{|}~-.@example.com"],
      ["x@x.x", "x@x.x"],
      ["1234@192.0.2.1", "1234@192.0.2.1"],
      [`advisor@${"a".repeat(63)}.com`, `advisor@${"a".repeat(63)}.com`],
    ];
    for (const [address, kept] of accepted) expect(check(address), address).toBe(kept);
  });

  it("refuses an empty address as required, and anything past 255 bytes as too long before its format", () => {
    expect(check("")).toEqual({ status: 400, code: "validation_failed", message: "An email address is required" });
    expect(check(undefined)).toEqual({
      status: 400,
      code: "validation_failed",
      message: "An email address is required",
    });
    const longest = `${"a".repeat(243)}@example.com`;
    expect(check(longest)).toBe(longest);
    const tooLong = { status: 400, code: "validation_failed", message: "An email address is too long" };
    expect(check(`a${longest}`)).toEqual(tooLong);
    // Go's len() counts bytes: 135 characters of 265 bytes are too long, not of a bad format.
    expect(check(`${"é".repeat(130)}@x.co`)).toEqual(tooLong);
  });
});
