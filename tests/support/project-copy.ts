/**
 * A copy of the project in a temporary folder, for tests that run `astro` on it: the site's
 * sources, with node_modules linked and Astro's and Vite's cache folders of its own (Astro keeps a
 * build's content store in cacheDir, node_modules/.astro by default, and Vite its optimized
 * dependencies in node_modules/.vite: two builds at once through the linked node_modules would
 * share them, and race renaming Vite's deps folder, ENOTEMPTY).
 */
import { execFile } from "node:child_process";
import { cpSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify, stripVTControlCharacters } from "node:util";
import { TEST_BUILD } from "./example-project.ts";

const root = join(import.meta.dirname, "../..");
const run = promisify(execFile);
/** How long one astro run may take before it counts as stalled (a full build takes 5-20 s here). */
const STALL_MS = 90_000;
/** A test timeout for `runs` astro runs in a row, each allowed one stall and a second try. */
export const astroTimeout = (runs: number) => runs * 2 * STALL_MS + 10_000;

// packages/shared/: the site imports what it shares with the functions (the checkout and lead requests) from there.
const SOURCES = ["src", "content", "public", "packages/shared", "astro.config.ts", "package.json", "tsconfig.json"];

export interface ProjectCopy {
  dir: string;
  /**
   * Runs `astro <args>` in the copy; `output` is what it printed, without colours. NODE_ENV is left
   * out (vitest sets it to "test", under which Vite would build React's development runtime).
   * Without `env`: this process's, with a hosted project to build for and sample content allowed
   * (TEST_BUILD, tests/support/example-project.ts).
   */
  astro(args: string[], env?: Record<string, string | undefined>): Promise<{ failed: boolean; output: string }>;
  remove(): void;
}

export function copyProject({ stallMs = STALL_MS }: { stallMs?: number } = {}): ProjectCopy {
  const dir = mkdtempSync(join(tmpdir(), "project-"));
  for (const entry of SOURCES) cpSync(join(root, entry), join(dir, entry), { recursive: true });
  symlinkSync(join(root, "node_modules"), join(dir, "node_modules"));
  writeFileSync(
    join(dir, "astro.copy.config.mjs"),
    'import config from "./astro.config.ts";\nexport default { ...config, cacheDir: "./.astro-cache", vite: { ...config.vite, cacheDir: "./.vite-cache" } };\n',
  );
  const once = async (args: string[], env: Record<string, string | undefined>) => {
    try {
      const { stdout, stderr } = await run(
        process.execPath,
        [join(root, "node_modules/astro/bin/astro.mjs"), ...args, "--config", "astro.copy.config.mjs"],
        {
          cwd: dir,
          env: { ...env, NODE_ENV: undefined, ASTRO_TELEMETRY_DISABLED: "1" },
          maxBuffer: 16 * 1024 * 1024,
          timeout: stallMs,
        },
      );
      return { failed: false, stalled: false, output: stripVTControlCharacters(stdout + stderr) };
    } catch (error) {
      const {
        stdout = "",
        stderr = "",
        killed = false,
      } = error as { stdout?: string; stderr?: string; killed?: boolean };
      // Colours depend on the terminal (CI forces them); compare the plain text.
      return { failed: true, stalled: killed, output: stripVTControlCharacters(stdout + stderr) };
    }
  };
  return {
    dir,
    async astro(args, env = { ...process.env, ...TEST_BUILD }) {
      const first = await once(args, env);
      if (!first.stalled) return first;
      // One astro run in a CI log took over a minute (the same run takes about a second here, and
      // every later run in that file took its usual time). A stalled run is tried once more, saying
      // so, so a stall on the machine is a warning and a wrong build still fails.
      console.warn(
        `astro ${args.join(" ")} printed this and was stopped after ${stallMs / 1000} s; running it again:\n${first.output}`,
      );
      const second = await once(args, env);
      if (second.stalled) second.output += `\n[astro ${args.join(" ")} was stopped after ${stallMs / 1000} s, twice]`;
      return second;
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
