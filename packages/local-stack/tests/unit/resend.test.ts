/**
 * What the Resend stand-in (packages/local-stack/src/resend.ts) takes: Resend's address forms
 * (`email@example.com` or `Name <email@example.com>`), and its attachments (Send Email,
 * `attachments`), each test naming the rule it pins.
 */
import { describe, expect, it } from "vitest";
import { contentTypeFor, MAX_ATTACHMENTS_BYTES, parseAddress, readAttachments, ResendError } from "../../src/resend.ts";

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

/** How the stand-in answers `attachments`: null when taken, else the error body it sends. */
function refusal(value: unknown) {
  try {
    readAttachments(value);
  } catch (error) {
    if (error instanceof ResendError) return { statusCode: error.status, name: error.code, message: error.message };
    throw error;
  }
  return null;
}
const validation = (message: string) => ({ statusCode: 422, name: "validation_error", message });

const ICS = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Advisor Accelerator//Cohort//EN\r\nEND:VCALENDAR\r\n";
const ICS_BASE64 = Buffer.from(ICS).toString("base64");

describe("Resend's attachments", () => {
  it("takes each attachment as `filename` and `content`, the file's bytes in base64, and keeps them in order (Send Email: attachments)", () => {
    const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    expect(
      readAttachments([
        { filename: "cohort.ics", content: ICS_BASE64, content_type: "text/calendar" },
        { filename: "all-bytes.bin", content: bytes.toString("base64") },
      ]),
    ).toEqual([
      { filename: "cohort.ics", contentType: "text/calendar", content: ICS_BASE64 },
      { filename: "all-bytes.bin", contentType: "application/octet-stream", content: bytes.toString("base64") },
    ]);
  });

  it("takes none when `attachments` is left out, null or empty", () => {
    expect(readAttachments(undefined)).toEqual([]);
    expect(readAttachments(null)).toEqual([]);
    expect(readAttachments([])).toEqual([]);
  });

  it("derives content_type from the filename when it is not set, and keeps the one given (Send Email: attachments.content_type)", () => {
    expect(contentTypeFor("cohort.ics")).toBe("text/calendar");
    expect(contentTypeFor("COHORT.ICS")).toBe("text/calendar");
    expect(contentTypeFor("invoice.pdf")).toBe("application/pdf");
    expect(contentTypeFor("photo.JPG")).toBe("image/jpeg");
    expect(contentTypeFor("backup.tar.gz")).toBe("application/gzip");
    for (const filename of ["notes", "data.bin", "cohort.", ".ics.unknown", "constructor", "x.constructor"]) {
      expect(contentTypeFor(filename), filename).toBe("application/octet-stream");
    }
    expect(readAttachments([{ filename: "invite.ics", content: ICS_BASE64 }])[0]!.contentType).toBe("text/calendar");
    expect(
      readAttachments([
        { filename: "invite.txt", content: ICS_BASE64, content_type: "text/calendar; method=REQUEST" },
      ])[0]!.contentType,
    ).toBe("text/calendar; method=REQUEST");
  });

  it("refuses a content_type that is not a media type with 422 validation_error (the stand-in's own words)", () => {
    for (const content_type of [
      "calendar",
      "text/calendar\r\nx-injected: 1",
      "text/calendar\n; a=b",
      42,
      "tëxt/calendar",
    ]) {
      expect(refusal([{ filename: "cohort.ics", content: ICS_BASE64, content_type }]), String(content_type)).toEqual(
        validation("Invalid `attachments[0].content_type` field. It must be a media type, such as `text/calendar`."),
      );
    }
  });

  it("refuses `path` (a remote file) and `content_id` (an inline image), which the product does not send, naming the stand-in", () => {
    expect(refusal([{ filename: "invoice.pdf", path: "https://example.com/invoice.pdf" }])).toEqual(
      validation(
        "The local Resend stand-in does not implement `attachments[0].path` (a file fetched from a URL): the product does not send it.",
      ),
    );
    expect(refusal([{ filename: "logo.png", content: ICS_BASE64, content_id: "logo" }])).toEqual(
      validation(
        "The local Resend stand-in does not implement `attachments[0].content_id` (an inline image): the product does not send it.",
      ),
    );
    // Content as anything but a base64 string: over JSON, a Buffer would be `{ type, data }`.
    expect(refusal([{ filename: "cohort.ics", content: { type: "Buffer", data: [66, 69] } }])).toEqual(
      validation(
        "The local Resend stand-in does not implement `attachments[0].content` other than a base64 string: the product does not send it.",
      ),
    );
  });

  it("refuses an attachment without `filename` or without `content` with 422 validation_error, naming the attachment (the stand-in's own words)", () => {
    const ok = { filename: "cohort.ics", content: ICS_BASE64 };
    expect(refusal([ok, { content: ICS_BASE64 }])).toEqual(validation("Missing `attachments[1].filename` field."));
    expect(refusal([{ filename: "", content: ICS_BASE64 }])).toEqual(
      validation("Missing `attachments[0].filename` field."),
    );
    expect(refusal([{ filename: 7, content: ICS_BASE64 }])).toEqual(
      validation("Invalid `attachments[0].filename` field. It must be the file's name, a string."),
    );
    for (const content of [undefined, null, "", " \r\n "]) {
      expect(refusal([{ filename: "cohort.ics", content }]), JSON.stringify(content)).toEqual(
        validation("Missing `attachments[0].content` field."),
      );
    }
    expect(refusal({ filename: "cohort.ics", content: ICS_BASE64 })).toEqual(
      validation("Invalid `attachments` field. It must be a list of attachments, each with `filename` and `content`."),
    );
    expect(refusal([ok, "cohort.ics"])).toEqual(
      validation("Invalid `attachments[1]` field. An attachment is an object with `filename` and `content`."),
    );
  });

  it("refuses content that is not base64 (RFC 4648: its alphabet, padded) with 422 validation_error, and allows line breaks between its characters", () => {
    for (const content of [
      ICS, // the file itself, not encoded
      "QkVHSU46VkNBTEVOREFS!", // a letter not of the alphabet
      Buffer.from([251, 255]).toString("base64url"), // base64url's - and _
      "QQ", // no padding
      "QQ==QQ==", // padding inside
      "QR==", // bits set past the last byte
      "Q", // a torn group
    ]) {
      expect(refusal([{ filename: "cohort.ics", content }]), content).toEqual(
        validation("Invalid `attachments[0].content` field. It must be the file's bytes in base64 (RFC 4648, padded)."),
      );
    }
    // As `base64` wraps its output at 76 characters (RFC 2045); kept without the breaks.
    const wrapped = ICS_BASE64.replace(/.{76}/g, "$&\r\n");
    expect(wrapped).not.toBe(ICS_BASE64);
    expect(readAttachments([{ filename: "cohort.ics", content: wrapped }])[0]!.content).toBe(ICS_BASE64);
  });

  it("refuses more than 40MB of base64 in all, counted over every attachment, and takes exactly 40MB (Send Email: max 40MB per email, after Base64 encoding)", () => {
    expect(MAX_ATTACHMENTS_BYTES).toBe(40_000_000);
    const half = "A".repeat(MAX_ATTACHMENTS_BYTES / 2);
    expect(
      refusal([
        { filename: "a.bin", content: half },
        { filename: "b.bin", content: `${half}AAAA` },
      ]),
    ).toEqual(
      validation(
        "Attachments may be at most 40MB per email (40000000 bytes), after Base64 encoding; these are 40000004 bytes.",
      ),
    );
    const taken = readAttachments([
      { filename: "a.bin", content: half },
      { filename: "b.bin", content: half },
    ]);
    expect(taken.map((a) => a.content.length)).toEqual([20_000_000, 20_000_000]);
  });
});
