/** The build refuses to publish a secret (src/integrations/secret-scan.ts); the anon key may appear. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { apiKey } from "@advisor-accelerator/local-stack";
import { scanDirectory, secretsIn } from "../../src/integrations/secret-scan.ts";

describe("secret scan", () => {
  it("lets the public anon key through", () => {
    expect(secretsIn(`const key = "${apiKey("anon")}";`)).toEqual([]);
  });

  it("finds the service-role key, Stripe's secret, restricted and signing keys, Supabase secret keys and private keys", () => {
    const text = [
      apiKey("service_role"),
      "sk_live_51Habcdefghijklmnop",
      "rk_test_51Habcdefghijklmnop",
      "whsec_0123456789abcdef",
      "sb_secret_abcdefghijklmnop",
      "-----BEGIN PRIVATE KEY-----",
    ].join("\n");
    expect(secretsIn(text).map((s) => s.kind)).toEqual([
      "a Stripe secret key",
      "a Stripe restricted key",
      "a Stripe webhook signing secret",
      "a Supabase secret API key",
      "a private key",
      "a JWT with role service_role",
    ]);
    // Publishable keys and prose are not secrets.
    expect(secretsIn("pk_live_51Habcdefghijklmnop, the sk_live_ prefix, whsec_ alone")).toEqual([]);
  });

  it("reads every file of the output, nested, binary or not, and names the file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "scan-"));
    try {
      mkdirSync(join(dir, "_astro"));
      writeFileSync(join(dir, "index.html"), `<script>const k = "${apiKey("anon")}"</script>`);
      expect(await scanDirectory(dir)).toEqual([]);
      writeFileSync(join(dir, "_astro", "chunk.js"), `fetch(u, { headers: { apikey: "${apiKey("service_role")}" } })`);
      writeFileSync(
        join(dir, "_astro", "logo.png"),
        Buffer.concat([Buffer.from([0x89, 0x50, 0x00]), Buffer.from("sk_test_51Habcdefghijkl")]),
      );
      const found = await scanDirectory(dir);
      expect(found.map((f) => `${f.file}: ${f.kind}`).sort()).toEqual([
        "_astro/chunk.js: a JWT with role service_role",
        "_astro/logo.png: a Stripe secret key",
      ]);
      expect(found.every((f) => f.excerpt.endsWith("…") && f.excerpt.length <= 13)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
