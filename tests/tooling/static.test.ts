/** The local static server answers like the CDN: pretty URLs, gzip, the 404 page, no escapes. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, get, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { staticHandler } from "../../local/static.ts";

let dir: string;
let server: Server;
let base: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "serve-"));
  mkdirSync(join(dir, "advisor-os"));
  mkdirSync(join(dir, "_astro"));
  writeFileSync(join(dir, "index.html"), "<h1>home</h1>");
  writeFileSync(join(dir, "dmca.html"), "<h1>dmca</h1>");
  writeFileSync(join(dir, "advisor-os", "details.html"), "<h1>details</h1>");
  writeFileSync(join(dir, "404.html"), "<h1>Page not found</h1>");
  writeFileSync(join(dir, "_astro", "app.abc123.js"), "console.log(1)".repeat(50));
  writeFileSync(join(tmpdir(), "secret.txt"), "outside the site");
  server = createServer(staticHandler(dir));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => {
  server.close();
  rmSync(dir, { recursive: true, force: true });
});

function rawGet(path: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
    get(`${base}${path}`, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    }).on("error", reject);
  });
}

describe("static server", () => {
  it("serves pages at their pretty URLs", async () => {
    for (const [path, text] of [
      ["/", "home"],
      ["/dmca", "dmca"],
      ["/advisor-os/details", "details"],
    ]) {
      const res = await fetch(base + path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(await res.text()).toContain(text);
    }
  });

  it("answers unknown paths with the 404 page and status", async () => {
    const res = await fetch(`${base}/no-such-page`);
    expect(res.status).toBe(404);
    expect(await res.text()).toContain("Page not found");
  });

  it("answers 404 and keeps running while a site without a 404 page is being built", async () => {
    const empty = mkdtempSync(join(tmpdir(), "serve-empty-"));
    const bare = createServer(staticHandler(empty));
    await new Promise<void>((resolve) => bare.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(bare.address() as AddressInfo).port}`;
    try {
      for (let i = 0; i < 2; i++) {
        const res = await fetch(`${url}/`);
        expect(res.status).toBe(404);
        expect(await res.text()).toBe("Not found");
      }
    } finally {
      bare.close();
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it("redirects trailing slashes to the canonical URL", async () => {
    const res = await fetch(`${base}/dmca/?a=1`, { redirect: "manual" });
    expect(res.status).toBe(301);
    expect(res.headers.get("location")).toBe("/dmca?a=1");
  });

  it("gzips text for clients that accept it and caches hashed assets for a year", async () => {
    const res = await rawGet("/_astro/app.abc123.js", { "accept-encoding": "gzip" });
    expect(res.headers["content-encoding"]).toBe("gzip");
    expect(res.headers["cache-control"]).toContain("immutable");
    expect(gunzipSync(res.body).toString()).toBe("console.log(1)".repeat(50));
  });

  it("never serves files outside the site", async () => {
    // Sent as raw request targets: fetch would normalise the dots away before sending.
    for (const path of ["/../secret.txt", "/%2e%2e/secret.txt", "/..%2fsecret.txt", "/%2e%2e%2f%2e%2e%2fsecret.txt"]) {
      const res = await rawGet(path);
      expect(res.status, path).toBe(404);
      expect(res.body.toString(), path).not.toContain("outside the site");
    }
  });

  it("refuses methods a static site does not take", async () => {
    expect((await fetch(base, { method: "POST" })).status).toBe(405);
  });
});

describe("scripts/serve.mjs as a command", () => {
  it("says which port is taken instead of crashing with a stack trace", async () => {
    const { execFile } = await import("node:child_process");
    const port = (server.address() as AddressInfo).port;
    const script = join(import.meta.dirname, "../../scripts/serve.mjs");
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
