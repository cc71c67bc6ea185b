/**
 * The data folder is its owner's alone (packages/local-stack/src/data-folder.ts): it holds the
 * outbox's reset links, the signing key, the stand-ins' keys and state, stored files and the
 * database. After a start, a sent e-mail, an upload, a Stripe object and a Resend send, every
 * folder in it is 0700 and every file 0600 (PGlite's own files included, which it makes 0666); a
 * folder an earlier version left open is tightened at the next start, which says so, and a start
 * that changes nothing says nothing. Modes are checked on the files, so this holds whatever the
 * umask and whoever runs it.
 */
import { chmodSync, lstatSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { Resend } from "resend";
import { afterAll, describe, expect, it, vi } from "vitest";
import { startTestStack } from "../../src/harness.ts";
import { DEMO_USER } from "../../src/stack.ts";

/** Every folder and file under `root` (itself included) with its permission bits, as `ls -l` would show them. */
function modes(root: string): Map<string, number> {
  const found = new Map<string, number>();
  const visit = (path: string) => {
    const stat = lstatSync(path);
    found.set(relative(root, path) || ".", stat.mode & 0o777);
    if (stat.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(root);
  return found;
}

/** The entries whose mode is not 0700 (folders) or 0600 (files), as `path 0mode`. */
function notPrivate(root: string): string[] {
  return [...modes(root)]
    .filter(([path, mode]) => mode !== (statSync(join(root, path)).isDirectory() ? 0o700 : 0o600))
    .map(([path, mode]) => `${path} 0${mode.toString(8)}`);
}

/** Opens everything under `root` to the group and others, as a folder written before this rule was. */
function loosen(root: string) {
  for (const [path] of modes(root)) {
    const full = join(root, path);
    chmodSync(full, statSync(full).isDirectory() ? 0o755 : 0o666);
  }
}

describe("the data folder", () => {
  const parent = mkdtempSync(join(tmpdir(), "data-folder-"));
  // A folder the stack makes itself, as `npm start` makes .data/ on a fresh clone.
  const dataDir = join(parent, "data");
  afterAll(() => rmSync(parent, { recursive: true, force: true }));

  it("is private to its owner after a start, a sent e-mail, an upload, a Stripe object and a Resend send: folders 0700, files 0600", async () => {
    const stack = await startTestStack({ name: "PGlite" }, { dataDir });
    try {
      // A password-reset e-mail, into the outbox.
      const client = stack.client();
      expect((await client.auth.resetPasswordForEmail(DEMO_USER.email)).error).toBeNull();
      // An avatar, into the stored bucket files.
      const { data } = await client.auth.signInWithPassword(DEMO_USER);
      const id = data.user!.id;
      const upload = await client.storage
        .from("avatars")
        .upload(`${id}/${id}.png`, new Blob([new Uint8Array([137, 80, 78, 71])], { type: "image/png" }));
      expect(upload.error).toBeNull();
      // A kept idempotency key at the Resend stand-in, and a Stripe customer in its state.
      const resend = new Resend(stack.resend.apiKey, { baseUrl: stack.resend.apiUrl });
      const sent = await resend.emails.send(
        { from: "team@example.com", to: "member@example.com", subject: "Welcome", text: "Welcome aboard." },
        { idempotencyKey: "data-folder-test" },
      );
      expect(sent.error).toBeNull();
      const customer = await fetch(`${stack.url}/v1/customers`, {
        method: "POST",
        headers: { authorization: `Bearer ${stack.stripe.secretKey}` },
        body: new URLSearchParams({ email: "member@example.com" }),
      });
      expect(customer.status).toBe(200);
      await stack.mail.flush();

      const kept = [...modes(dataDir).keys()];
      for (const path of [
        ".",
        "stack.lock",
        "auth-signing-key.json",
        "mail/outbox.jsonl",
        "stripe/keys.json",
        "resend/idempotency.jsonl",
        `storage/avatars/${id}/${id}.png`,
        "pglite/PG_VERSION",
        "pglite/postgresql.conf",
      ])
        expect(kept, path).toContain(path);
      expect(notPrivate(dataDir)).toEqual([]);
    } finally {
      await stack.close();
    }
    // What the stack writes as it stops (the Stripe stand-in's state) too.
    expect([...modes(dataDir).keys()]).toContain("stripe/state.json");
    expect(notPrivate(dataDir)).toEqual([]);
  }, 90_000);

  it("tightens a folder left open by an earlier version at the next start and says so, leaving alone what is not the stack's; a private folder starts silently", async () => {
    loosen(dataDir);
    expect(notPrivate(dataDir).length).toBeGreaterThan(100);
    // Not the stack's: a data folder pointed at a folder with other things in it leaves them, and
    // the folder's own mode, as they are.
    writeFileSync(join(dataDir, "notes.txt"), "mine");
    chmodSync(join(dataDir, "notes.txt"), 0o644);
    const log = vi.spyOn(console, "log");
    const said = () =>
      log.mock.calls.map((call) => call.join(" ")).filter((line) => line.includes("private to this user"));
    const restart = async () => {
      log.mockClear();
      await (await startTestStack({ name: "PGlite" }, { dataDir })).close();
      return said();
    };
    try {
      const first = await restart();
      expect(first).toHaveLength(1);
      expect(first[0]).toMatch(
        /^.+: made \d+ of its files and folders private to this user \(folders 0700, files 0600\)/,
      );
      expect(first[0]!.startsWith(`${dataDir}: `)).toBe(true);
      expect(notPrivate(dataDir)).toEqual([". 0755", "notes.txt 0644"]);

      rmSync(join(dataDir, "notes.txt"));
      expect(await restart()).toEqual([
        `${dataDir}: made 1 of its files and folders private to this user (folders 0700, files 0600): others could read or write them.`,
      ]);
      expect(notPrivate(dataDir)).toEqual([]);

      expect(await restart()).toEqual([]);
    } finally {
      log.mockRestore();
    }
  }, 90_000);
});
