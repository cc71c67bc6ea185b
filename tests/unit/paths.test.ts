import { expect, it } from "vitest";
import { publicPath } from "../../src/lib/paths";

it("maps built file names to the paths the CDN serves", () => {
  expect(publicPath("/index.html")).toBe("/");
  expect(publicPath("/dmca.html")).toBe("/dmca");
  expect(publicPath("/advisor-os/details.html")).toBe("/advisor-os/details");
  expect(publicPath("/advisor-os/index.html")).toBe("/advisor-os");
  expect(publicPath("/dmca")).toBe("/dmca");
  expect(publicPath("/")).toBe("/");
  // The forms the build hooks report.
  expect(publicPath("")).toBe("/");
  expect(publicPath("dmca/")).toBe("/dmca");
  expect(publicPath("advisor-os/index")).toBe("/advisor-os");
});
