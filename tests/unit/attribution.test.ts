import { describe, expect, it } from "vitest";
import { firstTouch, parseStored, withAttribution } from "../../src/lib/attribution";

const landing = new URL(
  "https://advisoraccelerator.com/transformation?utm_source=linkedin&utm_medium=paid&utm_campaign=q4-ria&gclid=x",
);

describe("lead attribution", () => {
  it("keeps the UTM parameters, the external referrer and the landing page of the first visit", () => {
    expect(firstTouch(null, landing, "https://www.linkedin.com/feed/?trk=abc")).toEqual({
      landing_page: "/transformation",
      utm_source: "linkedin",
      utm_medium: "paid",
      utm_campaign: "q4-ria",
      referrer: "https://www.linkedin.com/feed/",
    });
  });

  it("keeps the first touch for the rest of the visit", () => {
    const first = firstTouch(null, landing, "");
    const later = firstTouch(first, new URL("https://advisoraccelerator.com/get-started-ai?utm_source=email"), "");
    expect(later).toBe(first);
  });

  it("ignores the site's own pages as referrers and direct visits", () => {
    expect(firstTouch(null, landing, "https://advisoraccelerator.com/").referrer).toBeUndefined();
    expect(firstTouch(null, landing, "").referrer).toBeUndefined();
  });

  it("appends the attribution to the form URL without overriding the provider's own parameters", () => {
    const url = withAttribution("https://forms.example.com/f/abc?utm_source=site", {
      utm_source: "linkedin",
      utm_campaign: "q4 ria",
      landing_page: "/transformation",
    });
    const params = new URL(url).searchParams;
    expect(params.get("utm_source")).toBe("site");
    expect(params.get("utm_campaign")).toBe("q4 ria");
    expect(params.get("landing_page")).toBe("/transformation");
  });

  it("reads back only well-formed stored attribution", () => {
    expect(parseStored('{"utm_source":"x","n":3}')).toEqual({ utm_source: "x" });
    expect(parseStored("[1]")).toBeNull();
    expect(parseStored("{oops")).toBeNull();
    expect(parseStored(null)).toBeNull();
  });
});
