/**
 * The local outbox (packages/local-stack/src/mail.ts): what the stack "sends" is listed at once and
 * kept across restarts, attachments included, and its pages show each message and its files.
 */
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { contentDisposition, createMailer, type Mail, OUTBOX_FILE, OUTBOX_PATH, outboxPage } from "../../src/mail.ts";

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

  it("keeps a message's attachments across a restart, and still lists messages kept before there were any (no `attachments` field)", async () => {
    const dir = dataDir();
    mkdirSync(join(dir, "mail"));
    // A line an earlier version wrote: no `attachments`.
    const old = { id: "20261120101010000-abcd1234", sentAt: "2026-11-20T10:10:10.000Z", ...message(1) };
    writeFileSync(join(dir, "mail", OUTBOX_FILE), `${JSON.stringify(old)}\n`);
    const mailer = createMailer(dir);
    mailer.send({ ...message(2), attachments: [ics] });
    await mailer.close();
    const restarted = await afterRestart(dir);
    expect(restarted.find((m) => m.to === "buyer-2@example.com")!.attachments).toEqual([ics]);
    const kept = restarted.find((m) => m.to === "buyer-1@example.com")!;
    expect(kept).toEqual(old);
    expect(outboxPage(`${OUTBOX_PATH}/${kept.id}`, { list: () => restarted } as never)!.status).toBe(200);
  });
});

const ICS = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nSUMMARY:Cohort kick-off — Zoë\r\nEND:VCALENDAR\r\n";
const ics = { filename: "cohort.ics", contentType: "text/calendar", content: Buffer.from(ICS).toString("base64") };
const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
const bin = { filename: "all-bytes.bin", contentType: "application/octet-stream", content: bytes.toString("base64") };

describe("the outbox's pages", () => {
  const outbox = () => {
    const mailer = createMailer();
    const mail = mailer.send({ ...message(1), attachments: [ics, bin] });
    const plain = mailer.send(message(2));
    return { mailer, mail, plain, get: (path: string) => outboxPage(path, mailer)! };
  };

  it("lists each attachment on the message's page by file name, with a link to download it", async () => {
    const { mail, get } = outbox();
    const page = await get(`${OUTBOX_PATH}/${mail.id}`).text();
    expect(page).toContain("<h2>Attachments</h2>");
    expect(page).toContain(
      `<a href="${OUTBOX_PATH}/${mail.id}/attachments/0" download="cohort.ics">cohort.ics</a> <span class="meta">text/calendar · ${Buffer.byteLength(ICS)} bytes</span>`,
    );
    expect(page).toContain(
      `<a href="${OUTBOX_PATH}/${mail.id}/attachments/1" download="all-bytes.bin">all-bytes.bin</a> <span class="meta">application/octet-stream · 256 bytes</span>`,
    );
  });

  it("shows no attachments on the page of a message without them", async () => {
    const { plain, get } = outbox();
    expect(await get(`${OUTBOX_PATH}/${plain.id}`).text()).not.toContain("Attachments");
  });

  it("answers an attachment's bytes at /_local/outbox/<id>/attachments/<index>, with its type, its length and content-disposition: attachment", async () => {
    const { mail, get } = outbox();
    const calendar = get(`${OUTBOX_PATH}/${mail.id}/attachments/0`);
    expect(calendar.status).toBe(200);
    expect(Object.fromEntries(calendar.headers)).toMatchObject({
      "content-type": "text/calendar",
      "content-length": String(Buffer.byteLength(ICS)),
      "content-disposition": 'attachment; filename="cohort.ics"',
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
    });
    expect(await calendar.text()).toBe(ICS);
    const binary = get(`${OUTBOX_PATH}/${mail.id}/attachments/1`);
    expect(Buffer.from(await binary.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it("answers 404 for an attachment the message does not have, and for a message that does not exist", () => {
    const { mail, plain, get } = outbox();
    for (const path of [
      `${mail.id}/attachments/2`,
      `${mail.id}/attachments/01`,
      `${mail.id}/attachments/-1`,
      `${mail.id}/attachments/cohort.ics`,
      `${mail.id}/attachments`,
      `${mail.id}/attachments/0/more`,
      `${mail.id}/other/0`,
      `${plain.id}/attachments/0`,
      `20261120101010000-00000000/attachments/0`,
    ]) {
      expect(get(`${OUTBOX_PATH}/${path}`).status, path).toBe(404);
    }
  });

  it("lists attachments in /_local/outbox.json: filename, contentType and the bytes in base64", async () => {
    const { mail, get } = outbox();
    const listed = (await get(`${OUTBOX_PATH}.json`).json()) as Mail[];
    const [first] = listed.filter((m) => m.id === mail.id);
    expect(first!.attachments).toEqual([ics, bin]);
    expect(Buffer.from(first!.attachments![0]!.content, "base64").toString("utf8")).toBe(ICS);
    expect(listed.find((m) => m.id !== mail.id)).not.toHaveProperty("attachments");
  });

  it("names a file with quotes or letters beyond ASCII in content-disposition's filename* (RFC 8187), with a plain fallback (RFC 6266)", () => {
    expect(contentDisposition("cohort.ics")).toBe('attachment; filename="cohort.ics"');
    expect(contentDisposition('Zoë\'s "kick-off".ics')).toBe(
      `attachment; filename="Zo_'s _kick-off_.ics"; filename*=UTF-8''Zo%C3%AB%27s%20%22kick-off%22.ics`,
    );
    expect(contentDisposition("a\r\nb.ics")).toBe(`attachment; filename="a__b.ics"; filename*=UTF-8''a%0D%0Ab.ics`);
  });
});
