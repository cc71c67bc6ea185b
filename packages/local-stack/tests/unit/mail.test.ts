/** The local outbox (packages/local-stack/src/mail.ts): what the stack "sends" is listed at once and kept across restarts. */
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createMailer, OUTBOX_FILE } from "../../src/mail.ts";

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
  /** What an outbox started again on `dir` lists (closed after, so no file is left open). */
  const afterRestart = async (dir: string) => {
    const mailer = createMailer(dir);
    await mailer.close();
    return mailer.list();
  };

  it("lists a message the moment it is sent, while it is still being written, newest first", async () => {
    const mailer = createMailer(dataDir());
    const sent = Array.from({ length: 30 }, (_, i) => mailer.send(message(i)));
    const listed = mailer.list();
    expect(listed).toHaveLength(30);
    expect(new Set(listed.map((m) => m.id))).toEqual(new Set(sent.map((m) => m.id)));
    expect(listed.map((m) => m.id)).toEqual([...listed.map((m) => m.id)].sort().reverse());
    await mailer.close();
  });

  it("keeps every message sent before the stack closed: a restarted outbox lists them all", async () => {
    const dir = dataDir();
    const mailer = createMailer(dir);
    const sent = Array.from({ length: 50 }, (_, i) => mailer.send(message(i)));
    await mailer.close();
    expect(
      readFileSync(join(dir, "mail", OUTBOX_FILE), "utf8")
        .trim()
        .split("\n"),
    ).toHaveLength(50);
    const restarted = await afterRestart(dir);
    expect(restarted.map((m) => m.to).sort()).toEqual(sent.map((m) => m.to).sort());
    expect(restarted.find((m) => m.to === "buyer-7@example.com")).toMatchObject({
      subject: "Invite 7",
      html: "<p>h</p>",
    });
  });

  it("skips a message torn by a kill mid-write, and keeps the ones sent after the restart whole", async () => {
    const dir = dataDir();
    const first = createMailer(dir);
    first.send(message(1));
    await first.close();
    // The process was killed while the next line was being written.
    appendFileSync(join(dir, "mail", OUTBOX_FILE), '{"id":"20261125000000000-torn","to":"buyer-2@exa');
    const second = createMailer(dir);
    expect(second.list().map((m) => m.to)).toEqual(["buyer-1@example.com"]);
    second.send(message(3));
    await second.close();
    expect((await afterRestart(dir)).map((m) => m.to).sort()).toEqual(["buyer-1@example.com", "buyer-3@example.com"]);
  });

  it("still lists the messages an earlier version kept, one JSON file each", async () => {
    const dir = dataDir();
    mkdirSync(join(dir, "mail"));
    const old = { id: "20261120101010000-abcd1234", sentAt: "2026-11-20T10:10:10.000Z", ...message(9) };
    writeFileSync(join(dir, "mail", `${old.id}.json`), JSON.stringify(old, null, 2));
    const mailer = createMailer(dir);
    mailer.send(message(10));
    expect(mailer.list().map((m) => m.to)).toEqual(["buyer-10@example.com", "buyer-9@example.com"]);
    await mailer.close();
  });

  it("without a data folder, keeps messages in memory", async () => {
    const mailer = createMailer();
    mailer.send(message(1));
    await mailer.flush();
    expect(mailer.list()).toMatchObject([{ to: "buyer-1@example.com" }]);
  });
});
