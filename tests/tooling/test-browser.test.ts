/**
 * The end-to-end tests' browser (scripts/ensure-chromium.ts): Chromium's headless shell when Debian's
 * chromium-headless-shell is installed (as .ci/run installs it), else the full browser; the binary
 * CHROME_PATH names whenever it is set. The bench keeps the full browser either way.
 */
import { existsSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { CANDIDATES, HEADLESS_SHELL, findChromium, findTestBrowser } from "../../scripts/ensure-chromium.ts";
import config from "../../playwright.config.ts";

const saved = process.env.CHROME_PATH;
afterEach(() => {
  if (saved === undefined) delete process.env.CHROME_PATH;
  else process.env.CHROME_PATH = saved;
});

describe("the end-to-end tests' browser", () => {
  it("is the headless shell when installed, else the first full Chromium found", () => {
    delete process.env.CHROME_PATH;
    const full = CANDIDATES.find((path) => existsSync(path)) ?? null;
    expect(findTestBrowser()).toBe(existsSync(HEADLESS_SHELL) ? HEADLESS_SHELL : full);
    // The bench's browser is never the shell: it measures what people use.
    expect(findChromium()).toBe(full);
  });

  it("is the binary CHROME_PATH names, for the tests and the bench alike, and none when it names nothing", () => {
    process.env.CHROME_PATH = process.execPath;
    expect(findTestBrowser()).toBe(process.execPath);
    expect(findChromium()).toBe(process.execPath);
    process.env.CHROME_PATH = "/nonexistent/chrome";
    expect(findTestBrowser()).toBeNull();
  });

  it("is what Playwright launches", () => {
    if (saved) expect(config.use?.launchOptions?.executablePath).toBe(saved);
    else
      expect(config.use?.launchOptions?.executablePath).toBe(
        existsSync(HEADLESS_SHELL) ? HEADLESS_SHELL : findChromium(),
      );
  });
});
