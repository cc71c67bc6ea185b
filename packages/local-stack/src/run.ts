/**
 * The scripts `npm start` and `npm run dev` run as separate Node processes (the stack imports
 * nothing from scripts/): `runNode` runs one to its end, `startNode` one that runs on (Astro's dev
 * server); `syncCatalogue` brings what the functions sell (functions/_shared/catalogue.ts) in line
 * with content/programs/ (`npm run catalogue`) before the stack starts, since the stack reads the
 * catalogue as it starts (./product.ts) and moves the Stripe stand-in's prices to it: a price
 * edited in content is what the local checkout charges, with no extra step. `stopOnSignals` stops
 * both commands, and what they run, alike however they are asked to stop.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { PROJECT_ROOT } from "./project.ts";

/** The processes this command runs now: a stop ends them first. */
const running = new Set<ChildProcess>();
let stopping = false;

/**
 * Runs `node <args>` with this process's environment plus `env`; resolves when it exits 0, else
 * rejects with "<what> failed (exit N)". Its stderr is shown; its stdout too unless `quiet`. Once a
 * stop has begun (`stopOnSignals`), it starts nothing and rejects.
 */
export function runNode(
  args: string[],
  what: string,
  options: { env?: Record<string, string>; quiet?: boolean } = {},
): Promise<void> {
  if (stopping) return Promise.reject(new Error(`${what} was not started: stopping`));
  const child = track(
    spawn(process.execPath, args, {
      stdio: ["ignore", options.quiet ? "ignore" : "inherit", "inherit"],
      env: { ...process.env, ...options.env },
    }),
  );
  return new Promise((resolve, reject) =>
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`${what} failed (exit ${code})`)))),
  );
}

/** Starts `node <args>` on this terminal (its input too) with `env` added; a stop ends it. */
export function startNode(args: string[], env: Record<string, string>): ChildProcess {
  return track(spawn(process.execPath, args, { stdio: "inherit", env: { ...process.env, ...env } }));
}

function track(child: ChildProcess): ChildProcess {
  running.add(child);
  child.on("exit", () => running.delete(child));
  return child;
}

export function syncCatalogue(): Promise<void> {
  const script = join(PROJECT_ROOT, "scripts", "catalogue.ts");
  return runNode([script, "--quiet"], "bringing the catalogue in line with content");
}

/**
 * Makes every way of stopping this command stop it as Ctrl+C does: SIGINT, SIGTERM (a process
 * manager, `kill`), SIGHUP (a closed terminal) and, run by an npm script, npm's own end (npm passes
 * on SIGINT and SIGTERM only: a SIGHUP or a SIGKILL ends npm alone, and this process would go on
 * holding the port and the data folder). The processes it runs are stopped (`runNode`'s then
 * rejects), then `close` runs, then the process exits 0, as Ctrl+C has it exit.
 */
export function stopOnSignals(close: () => Promise<void>): void {
  const stop = () => {
    if (stopping) return;
    stopping = true;
    void Promise.all([...running].map(stopProcess))
      .then(close)
      .then(
        () => process.exit(0),
        (error: unknown) => {
          console.error(`Could not stop cleanly: ${(error as Error).message}`);
          process.exit(1);
        },
      );
  };
  // `on`, not `once`: a Ctrl+C comes twice, from the terminal and passed on by npm.
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, stop);
  // npm runs this command with `exec` (package.json), so npm is the parent; a new one means npm is gone.
  if (process.env.npm_lifecycle_event) {
    const parent = process.ppid;
    setInterval(() => process.ppid !== parent && stop(), 500).unref();
  }
}

/**
 * `step`'s value, unless a stop has begun meanwhile: then it never settles, and the stop exits the
 * process. So a step the stop interrupted is not reported as failed, and nothing starts after it.
 */
export async function unlessStopped<T>(step: Promise<T>): Promise<T> {
  try {
    const value = await step;
    if (!stopping) return value;
  } catch (error) {
    if (!stopping) throw error;
  }
  return new Promise<T>(() => {});
}

/** Ends a process (SIGTERM, SIGKILL after 5 s) and resolves once it has exited. */
function stopProcess(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const kill = setTimeout(() => child.kill("SIGKILL"), 5_000);
    child.once("exit", () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill("SIGTERM");
  });
}
