/**
 * `npm start` and `npm run preview` stop however they are asked to, as Ctrl+C stops them
 * (packages/local-stack/src/run.ts): a process manager's SIGTERM and a closed terminal's SIGHUP,
 * sent to npm's process (npm passes on SIGINT and SIGTERM only, to the shell it runs the script in
 * unless the script `exec`s) or to the stack's own, while the site builds or once it serves. Every
 * process the command started exits, the port takes a new listener, and the data folder's lock is
 * released: the next start on it succeeds. The commands run as a person runs them, through npm.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../../src/project.ts";
import { startStack } from "../../src/stack.ts";

/** How long a stop may take, the build's own stop included, on a busy 2-core machine. */
const STOP_MS = 10_000;

let folder: string;
let dataDir: string;
let siteDir: string;
beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), "stop-"));
  // One data folder for every case: each start on it is also the next start after a stop.
  dataDir = join(folder, "data");
  siteDir = join(folder, "site");
  mkdirSync(siteDir);
  writeFileSync(join(siteDir, "index.html"), "<h1>home</h1>");
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** The commands' process groups: what a failed case left in one is killed, and gone, before the next. */
const groups: number[] = [];
afterEach(async () => {
  for (const group of groups.splice(0)) {
    const left = processes().filter((entry) => entry.group === group);
    if (left.length === 0) continue;
    process.kill(-group, "SIGKILL");
    // Reaped too: the lock counts a process not reaped yet as holding the data folder.
    await until(
      () => `killed, but still there: ${JSON.stringify(left)}`,
      () => left.every(({ pid }) => !exists(pid)),
      STOP_MS,
    );
  }
});

interface Process {
  pid: number;
  parent: number;
  group: number;
  /** Exited, not yet reaped. */
  zombie: boolean;
  args: string[];
}

/** This machine's processes, from Linux's /proc. */
function processes(): Process[] {
  const found: Process[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // After the name in parentheses: the state, the parent's pid, the process group.
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const [state, parent, group] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const args = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").filter(Boolean);
      found.push({ pid: Number(entry), parent: Number(parent), group: Number(group), zombie: state === "Z", args });
    } catch {
      // Exited while listed.
    }
  }
  return found;
}

/** The processes below `root`. */
function descendants(root: number): Process[] {
  const all = processes();
  const below = (parent: number): Process[] =>
    all.filter((entry) => entry.parent === parent).flatMap((entry) => [entry, ...below(entry.pid)]);
  return below(root);
}

/** Whether `pid` is still a process (a zombie is). */
function exists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Whether `pid` still runs (a zombie has exited). */
function running(pid: number): boolean {
  return exists(pid) && !processes().some((entry) => entry.pid === pid && entry.zombie);
}

/** Waits for `check` to pass, at most `ms`; then fails saying `what`, read only then (the output so far). */
async function until(what: () => string, check: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Not within ${ms} ms: ${what()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function freePort(): Promise<number> {
  const server = createServer();
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    }),
  );
}

/** Whether `port` takes a new listener now. */
function portFree(port: number): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

interface Command {
  child: ChildProcess;
  output: () => string;
  exited: () => boolean;
}

/** `npm <args>` in the project, as a person runs it: in its own process group, as a terminal's job is. */
function npm(args: string[]): Command {
  const env: Record<string, string | undefined> = { ...process.env, NODE_ENV: undefined };
  for (const name of ["STRIPE_SECRET_KEY", "RESEND_API_KEY", "DATABASE_URL", "PORT", "HOST", "DATA_DIR"])
    delete env[name];
  const child = spawn("npm", args, { cwd: PROJECT_ROOT, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  groups.push(child.pid!);
  let output = "";
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  return { child, output: () => output, exited: () => child.exitCode !== null || child.signalCode !== null };
}

/** Waits until `ready` holds for a running `command`; fails at once if it has exited. */
async function waitFor(command: Command, what: string, ready: () => boolean, ms: number): Promise<void> {
  await until(
    () => `${what}; output:\n${command.output()}`,
    () => ready() || command.exited(),
    ms,
  );
  expect(command.exited(), `exited before ${what}; output:\n${command.output()}`).toBe(false);
}

/** Where a signal goes: npm's process, the stack's (node running start.ts), or the whole job. */
type Target = "npm" | "the stack's process" | "the whole job";

/**
 * Sends `signal` to `target` of a running command (to the whole job as a terminal sends Ctrl+C,
 * SIGINT, or its closing, SIGHUP). Then checks that everything the command started exits, that npm
 * ends as after Ctrl+C, that the port is free and that the data folder takes the next start.
 */
async function stopAndCheck(command: Command, port: number, signal: NodeJS.Signals, target: Target): Promise<void> {
  const { child, output } = command;
  const started = descendants(child.pid!);
  const stack = started.find(({ args }) => args[1]?.endsWith("start.ts"));
  expect(stack, `the stack's process, among: ${JSON.stringify(started)}`).toBeDefined();
  const npmExit = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  if (target === "npm") process.kill(child.pid!, signal);
  else if (target === "the stack's process") process.kill(stack!.pid, signal);
  else process.kill(-child.pid!, signal);

  await until(() => `npm still running after ${signal}; output:\n${output()}`, command.exited, STOP_MS);
  const left = () => started.filter(({ pid }) => running(pid));
  await until(
    () => `all it started has exited; still running: ${JSON.stringify(left())}`,
    () => !left().length,
    STOP_MS,
  );
  // npm ends as after Ctrl+C, on the stack's exit 0; but a SIGHUP npm gets itself ends npm at once.
  expect(await npmExit).toEqual(
    target !== "the stack's process" && signal === "SIGHUP"
      ? { code: null, signal: "SIGHUP" }
      : { code: 0, signal: null },
  );
  expect(output()).not.toMatch(/Could not|failed|Error/);
  expect(await portFree(port)).toBe(true);
  // Released, not left for the next start to find its holder gone.
  expect(existsSync(join(dataDir, "stack.lock"))).toBe(false);
  const next = await startStack({ dataDir, port, seed: false });
  await next.close();
}

describe.skipIf(!existsSync("/proc/self/stat"))("stopping npm run preview once it serves", () => {
  it.each<[NodeJS.Signals, Target]>([
    ["SIGINT", "the whole job"],
    ["SIGTERM", "npm"],
    ["SIGTERM", "the stack's process"],
    ["SIGHUP", "npm"],
    ["SIGHUP", "the stack's process"],
    ["SIGHUP", "the whole job"],
  ])(
    "%s to %s stops it as Ctrl+C does",
    async (signal, target) => {
      const port = await freePort();
      const command = npm(["run", "preview", "--", "--port", String(port), "--dir", siteDir, "--data", dataDir]);
      // The first start migrates a new database.
      await waitFor(command, "serving", () => /^Site:/m.test(command.output()), 90_000);
      await stopAndCheck(command, port, signal, target);
    },
    150_000,
  );
});

describe.skipIf(!existsSync("/proc/self/stat"))("stopping npm start while it builds the site", () => {
  it.each<[NodeJS.Signals, Target]>([
    ["SIGTERM", "npm"],
    ["SIGHUP", "the stack's process"],
  ])(
    "%s to %s stops the build too",
    async (signal, target) => {
      const port = await freePort();
      const out = join(folder, `build-${signal}`);
      const command = npm(["start", "--", "--port", String(port), "--dir", out, "--data", dataDir]);
      // `astro build --outDir <out>`, run by the stack's process.
      const building = () =>
        descendants(command.child.pid!).some(({ args }) => args[1]?.endsWith("astro.mjs") && args.includes(out));
      await waitFor(command, "building", building, 60_000);
      await stopAndCheck(command, port, signal, target);
    },
    150_000,
  );
});
