/** `node scripts/serve.ts`, the production build served alone (packages/static-host/ answers it), as a command. */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const script = join(import.meta.dirname, "../../scripts/serve.ts");
let dir: string;
let taken: Server;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "serve-"));
  taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
});

afterAll(() => {
  taken.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("scripts/serve.ts as a command", () => {
  it("says which port is taken instead of crashing with a stack trace", async () => {
    const port = (taken.address() as AddressInfo).port;
    const result = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [script, "--port", String(port), "--dir", dir],
        { timeout: 10_000 },
        (error, _stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stderr }),
      );
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`Port ${port} is already in use`);
    expect(result.stderr).not.toContain("at Server.");
  });
});
