// Finds the Chromium the end-to-end tests drive (never a downloaded browser). On a Debian
// machine where we are root and it is missing, installs Debian's packages; otherwise says how.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { pathToFileURL } from "node:url";

export const CANDIDATES = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"];

/**
 * Chromium's headless shell: the same engine without the desktop browser around it (no GPU
 * process, no browser UI), which Playwright itself runs for headless tests. Debian packages it as
 * chromium-headless-shell, from the same build as chromium. The end-to-end suite takes about 40%
 * less time in it on 2 cores (4.7 minutes instead of 7.5); the bench and Lighthouse keep the full browser,
 * which is what people use.
 */
export const HEADLESS_SHELL = "/usr/bin/chromium-headless-shell";

/** CHROME_PATH when it exists, else the first of CANDIDATES installed; null without a browser. */
export function findChromium(): string | null {
  if (process.env.CHROME_PATH) return existsSync(process.env.CHROME_PATH) ? process.env.CHROME_PATH : null;
  return CANDIDATES.find((path) => existsSync(path)) ?? null;
}

/** The end-to-end tests' browser: CHROME_PATH when set, else the headless shell, else findChromium(). */
export function findTestBrowser(): string | null {
  if (!process.env.CHROME_PATH && existsSync(HEADLESS_SHELL)) return HEADLESS_SHELL;
  return findChromium();
}

const isMain = import.meta.url === pathToFileURL(process.argv[1] ?? "").href;
if (isMain && !process.env.CHROME_PATH && !existsSync(HEADLESS_SHELL)) {
  const root = process.getuid?.() === 0;
  const packages = ["chromium-headless-shell", ...(findChromium() ? [] : ["chromium", "fonts-liberation"])];
  if (root && existsSync("/usr/bin/apt-get")) {
    console.log(`Installing Debian's ${packages.join(", ")} for the end-to-end tests`);
    const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
    execFileSync("apt-get", ["update", "-qq"], { stdio: "inherit", env });
    execFileSync("apt-get", ["install", "-y", "-qq", ...packages], { stdio: "inherit", env });
  } else if (findChromium()) {
    console.log(
      "The end-to-end tests run in Chromium; Debian's chromium-headless-shell package would make them " +
        "faster (sudo apt-get install chromium-headless-shell).",
    );
  } else {
    console.error(
      "The end-to-end tests need Chromium. Install it (Debian/Ubuntu: sudo apt-get install chromium-headless-shell) " +
        "or set CHROME_PATH to a Chrome or Chromium binary.",
    );
    process.exit(1);
  }
}
