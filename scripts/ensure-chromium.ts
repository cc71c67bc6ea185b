// Finds the Chromium the end-to-end tests drive (never a downloaded browser). On a Debian
// machine where we are root and it is missing, installs Debian's package; otherwise says how.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { pathToFileURL } from "node:url";

export const CANDIDATES = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"];

/** CHROME_PATH when it exists, else the first of CANDIDATES installed; null without a browser. */
export function findChromium(): string | null {
  if (process.env.CHROME_PATH) return existsSync(process.env.CHROME_PATH) ? process.env.CHROME_PATH : null;
  return CANDIDATES.find((path) => existsSync(path)) ?? null;
}

const isMain = import.meta.url === pathToFileURL(process.argv[1] ?? "").href;
if (isMain && !findChromium()) {
  const root = process.getuid?.() === 0;
  if (root && existsSync("/usr/bin/apt-get")) {
    console.log("Chromium not found: installing Debian's chromium package");
    const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
    execFileSync("apt-get", ["update", "-qq"], { stdio: "inherit", env });
    execFileSync("apt-get", ["install", "-y", "-qq", "chromium", "fonts-liberation"], { stdio: "inherit", env });
  } else {
    console.error(
      "The end-to-end tests need Chromium. Install it (Debian/Ubuntu: sudo apt-get install chromium) " +
        "or set CHROME_PATH to a Chrome or Chromium binary.",
    );
    process.exit(1);
  }
}
