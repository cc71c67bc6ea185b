/**
 * The scripts `npm start` and `npm run dev` run as separate Node processes (the stack imports
 * nothing from scripts/): `runNode` runs one to its end; `syncCatalogue` brings what the functions
 * sell (functions/_shared/catalogue.ts) in line with content/programs/ (`npm run catalogue`)
 * before the stack starts, since the stack reads the catalogue as it starts (./product.ts) and moves
 * the Stripe stand-in's prices to it: a price edited in content is what the local checkout
 * charges, with no extra step.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { PROJECT_ROOT } from "./project.ts";

/**
 * Runs `node <args>` with this process's environment plus `env`; resolves when it exits 0, else
 * rejects with "<what> failed (exit N)". Its stderr is shown; its stdout too unless `quiet`.
 */
export function runNode(
  args: string[],
  what: string,
  options: { env?: Record<string, string>; quiet?: boolean } = {},
): Promise<void> {
  const child = spawn(process.execPath, args, {
    stdio: ["ignore", options.quiet ? "ignore" : "inherit", "inherit"],
    env: { ...process.env, ...options.env },
  });
  return new Promise((resolve, reject) =>
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`${what} failed (exit ${code})`)))),
  );
}

export function syncCatalogue(): Promise<void> {
  const script = join(PROJECT_ROOT, "scripts", "catalogue.ts");
  return runNode([script, "--quiet"], "bringing the catalogue in line with content");
}
