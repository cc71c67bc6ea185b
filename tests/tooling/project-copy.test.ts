/**
 * The tooling tests' astro runs (tests/support/project-copy.ts): a run that stalls is stopped and
 * tried once more, with a warning that prints what it had said; one that stalls twice fails,
 * saying so. A run that finishes is never repeated.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { copyProject } from "../support/project-copy.ts";

const copy = copyProject({ stallMs: 4_000 });
afterAll(() => copy.remove());
afterEach(() => vi.restoreAllMocks());

describe("an astro run in a copy of the project", () => {
  it("that finishes is run once", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const result = await copy.astro(["--version"]);
    expect(result.failed, result.output).toBe(false);
    expect(result.output).toMatch(/\d+\.\d+\.\d+/);
    expect(warn).not.toHaveBeenCalled();
  });

  it("that stalls is stopped, tried once more with a warning, and fails when it stalls again", async () => {
    // A configuration that never finishes loading: astro prints its banner, then waits.
    writeFileSync(
      join(copy.dir, "astro.copy.config.mjs"),
      'console.log("loading the configuration");\nawait new Promise((resolve) => setTimeout(resolve, 600_000));\nexport default {};\n',
    );
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const started = Date.now();
    const result = await copy.astro(["build", "--outDir", "stalled"]);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(result.failed).toBe(true);
    expect(result.output).toContain("[astro build --outDir stalled was stopped after 4 s, twice]");
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]![0])).toContain("was stopped after 4 s; running it again");
    expect(String(warn.mock.calls[0]![0])).toContain("loading the configuration");
  }, 30_000);
});
