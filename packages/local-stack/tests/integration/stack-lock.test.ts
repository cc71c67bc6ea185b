/** One local stack per data folder: embedded Postgres must not be opened by two processes. */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startStack } from "../../src/stack.ts";

const dataDir = mkdtempSync(join(tmpdir(), "stack-lock-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe("the data folder lock", () => {
  it("refuses a data folder another live process holds, and takes over a dead one's", async () => {
    // A live process other than this one: the shell that runs this test's parent.
    writeFileSync(join(dataDir, "stack.lock"), String(process.ppid));
    await expect(startStack({ dataDir, seed: false })).rejects.toThrow(/in use by another local stack/);

    // A process that has exited leaves a stale lock: the next stack takes the folder.
    const dead = spawnSync(process.execPath, ["-e", "process.exit(0)"]).pid!;
    writeFileSync(join(dataDir, "stack.lock"), String(dead));
    const stack = await startStack({ dataDir, seed: false });
    await stack.close();
    const again = await startStack({ dataDir, seed: false });
    await again.close();
  }, 60_000);
});
