/**
 * What the functions sell (functions/_shared/catalogue.ts), brought in line with content/programs/
 * by `npm run catalogue` (scripts/catalogue.mjs, run as a separate process: the stack imports
 * nothing from scripts/). `npm start` and `npm run dev` run it before they load the stack, which
 * reads the catalogue once and moves the Stripe stand-in's prices to it as it starts: a price
 * edited in content is what the local checkout charges, with no extra step.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";

export function syncCatalogue(): Promise<void> {
  const script = join(import.meta.dirname, "..", "scripts", "catalogue.mjs");
  const child = spawn(process.execPath, [script, "--quiet"], { stdio: ["ignore", "inherit", "inherit"] });
  return new Promise((resolve, reject) =>
    child.on("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`bringing the catalogue in line with content failed (exit ${code})`)),
    ),
  );
}
