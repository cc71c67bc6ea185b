/** The local outbox (local/mail.ts): what the stack "sends" is listed at once and kept across restarts. */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createMailer } from "../../../local/mail.ts";

const message = (n: number) => ({ to: `buyer-${n}@example.com`, subject: `Invite ${n}`, text: "t", html: "<p>h</p>" });

describe("the outbox", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const dataDir = () => {
    const dir = mkdtempSync(join(tmpdir(), "outbox-"));
    dirs.push(dir);
    return dir;
  };

  it("lists a message the moment it is sent, while its file is still being written, newest first", () => {
    const mailer = createMailer(dataDir());
    const sent = Array.from({ length: 30 }, (_, i) => mailer.send(message(i)));
    const listed = mailer.list();
    expect(listed).toHaveLength(30);
    expect(new Set(listed.map((m) => m.id))).toEqual(new Set(sent.map((m) => m.id)));
    expect(listed.map((m) => m.id)).toEqual([...listed.map((m) => m.id)].sort().reverse());
  });

  it("keeps every message sent before the stack closed: a restarted outbox lists them all", async () => {
    const dir = dataDir();
    const mailer = createMailer(dir);
    const sent = Array.from({ length: 50 }, (_, i) => mailer.send(message(i)));
    await mailer.flush();
    expect(readdirSync(join(dir, "mail"))).toHaveLength(50);
    const restarted = createMailer(dir).list();
    expect(restarted.map((m) => m.to).sort()).toEqual(sent.map((m) => m.to).sort());
    expect(restarted.find((m) => m.to === "buyer-7@example.com")).toMatchObject({
      subject: "Invite 7",
      html: "<p>h</p>",
    });
  });

  it("without a data folder, keeps messages in memory", async () => {
    const mailer = createMailer();
    mailer.send(message(1));
    await mailer.flush();
    expect(mailer.list()).toMatchObject([{ to: "buyer-1@example.com" }]);
  });
});
