/**
 * The local mail outbox: every e-mail the stack would send is kept in the data folder (or in
 * memory) and listed on a local page, `/_local/outbox`, newest first; each message has its own
 * page with its links clickable and its attachments to download
 * (`/_local/outbox/<id>/attachments/<index>`), and `/_local/outbox.json` lists them for tests and
 * scripts, attachments included (their bytes in base64). Dev and test only: nothing leaves the
 * machine.
 */
import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { makePrivateFolder, privateAppendStream } from "./data-folder.ts";

/** A file sent with a message (the functions' e-mails through Resend: packages/local-stack/src/resend.ts). */
export interface MailAttachment {
  /** The file's name, as the sender gave it. */
  filename: string;
  /** Its media type: the sender's, or derived from the file name's extension. */
  contentType: string;
  /** Its bytes, in base64 (RFC 4648, padded). */
  content: string;
}

export interface Mail {
  id: string;
  /** The sender, `Name <address>`, when the message says (the functions' e-mails through Resend, Stripe's receipts). */
  from?: string;
  to: string;
  /** Where replies go, when not to the sender. */
  replyTo?: string;
  subject: string;
  text: string;
  html: string;
  /** The files sent with it, in the order given; absent when none (and in outboxes kept before attachments were). */
  attachments?: MailAttachment[];
  sentAt: string;
}

export interface Mailer {
  send(message: Omit<Mail, "id" | "sentAt">): Mail;
  /** Every message kept, newest first. */
  list(): Mail[];
  /** Resolves once every message sent so far is in the data folder. */
  flush(): Promise<void>;
  /** Writes what is still queued, then lets go of the data folder's file. */
  close(): Promise<void>;
}

export const OUTBOX_PATH = "/_local/outbox";

/** The outbox file in the data folder's `mail/`: one message per line, as JSON. */
export const OUTBOX_FILE = "outbox.jsonl";

/**
 * The messages a data folder keeps: the lines of the outbox file, and the one-file-per-message
 * JSON files earlier versions wrote; and whether the outbox file's last line was cut short by a
 * kill mid-write (that message is skipped: it was never reported sent).
 */
function readKept(dir: string): { kept: Mail[]; torn: boolean } {
  const kept: Mail[] = [];
  let torn = false;
  for (const name of readdirSync(dir)) {
    if (name !== OUTBOX_FILE && !name.endsWith(".json")) continue;
    const text = readFileSync(join(dir, name), "utf8");
    if (name === OUTBOX_FILE) torn = text.length > 0 && !text.endsWith("\n");
    for (const record of name === OUTBOX_FILE ? text.split("\n") : [text]) {
      try {
        if (record.trim()) kept.push(JSON.parse(record) as Mail);
      } catch {
        // The torn line.
      }
    }
  }
  return { kept, torn };
}

/**
 * With a data folder, each message is appended to the outbox file, through one file kept open:
 * the writes run in the background and a burst of buyers' invites coalesces into few of them (a
 * file per message, each opened, written and closed, cost a launch-day burst about a millisecond
 * of CPU per e-mail). Messages are listed from memory, so one is listed the moment it is sent.
 */
export function createMailer(dataDir?: string): Mailer {
  const memory: Mail[] = [];
  let file: ReturnType<typeof privateAppendStream> | undefined;
  if (dataDir) {
    const dir = join(dataDir, "mail");
    makePrivateFolder(dir);
    const { kept, torn } = readKept(dir);
    memory.push(...kept);
    const path = join(dir, OUTBOX_FILE);
    file = privateAppendStream(path);
    file.on("error", (error) => console.error(`The outbox could not keep e-mails in ${path}:`, error));
    // After a kill mid-write, start on a line of our own.
    if (torn) file.write("\n");
  }
  const drained = () =>
    new Promise<void>((resolve) => {
      if (!file || file.destroyed || file.writableEnded) resolve();
      else file.write("", () => resolve());
    });
  return {
    send(message) {
      const sentAt = new Date().toISOString();
      const mail: Mail = { id: `${sentAt.replace(/[-:.TZ]/g, "")}-${randomUUID().slice(0, 8)}`, sentAt, ...message };
      memory.push(mail);
      file?.write(`${JSON.stringify(mail)}\n`);
      return mail;
    },
    list() {
      return [...memory].sort((a, b) => (a.id < b.id ? 1 : -1));
    },
    flush: drained,
    async close() {
      // end() writes what is still queued before the file closes.
      const open = file && !file.destroyed && !file.writableEnded ? file : undefined;
      if (open) await new Promise<void>((resolve) => open.end(() => resolve()));
    },
  };
}

const escape = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

/**
 * `attachment; filename="…"` (RFC 6266): the name as it is when it is printable ASCII without a
 * quote or backslash; otherwise those characters become `_` there, and `filename*` (RFC 8187)
 * carries the whole name in UTF-8, which browsers prefer.
 */
export function contentDisposition(filename: string): string {
  const plain = filename.replace(/[^\x20-\x7e]|["\\]/g, "_");
  const header = `attachment; filename="${plain}"`;
  if (plain === filename) return header;
  const encoded = encodeURIComponent(filename.toWellFormed()).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `${header}; filename*=UTF-8''${encoded}`;
}

const page = (title: string, body: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${escape(title)}</title>
<style>
body{font:16px/1.5 system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;color:#0f172a}
table{width:100%;border-collapse:collapse}th,td{text-align:left;padding:.5rem;border-bottom:1px solid #e2e8f0}
a{color:#1d4ed8}.meta{color:#475569}.mail{display:block;width:100%;height:70vh;border:1px solid #e2e8f0;border-radius:.5rem}
</style></head><body>${body}</body></html>`;

/** Answers the outbox pages; null when the path is not one of them. */
export function outboxPage(pathname: string, mailer: Mailer): Response | null {
  const html = (body: string, status = 200) =>
    new Response(body, {
      status,
      headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" },
    });
  if (pathname === `${OUTBOX_PATH}.json`) {
    return new Response(JSON.stringify(mailer.list()), {
      headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" },
    });
  }
  if (pathname === OUTBOX_PATH) {
    const mails = mailer.list();
    const rows = mails
      .map(
        (m) =>
          `<tr><td>${escape(new Date(m.sentAt).toLocaleString("en-US"))}</td><td>${escape(m.to)}</td>` +
          `<td><a href="${OUTBOX_PATH}/${m.id}">${escape(m.subject)}</a></td></tr>`,
      )
      .join("");
    return html(
      page(
        "Outbox",
        `<h1>Outbox</h1><p class="meta">E-mails the local stack would have sent. Nothing leaves this machine.</p>` +
          (mails.length
            ? `<table><thead><tr><th scope="col">Sent</th><th scope="col">To</th><th scope="col">Subject</th></tr></thead><tbody>${rows}</tbody></table>`
            : `<p>No e-mails yet.</p>`),
      ),
    );
  }
  if (pathname.startsWith(`${OUTBOX_PATH}/`)) {
    // `<id>`, or `<id>/attachments/<index>` (mail ids have no slash).
    const [id, ...rest] = pathname.slice(OUTBOX_PATH.length + 1).split("/");
    const mail = mailer.list().find((m) => m.id === id);
    if (!mail) return html(page("Not found", `<h1>No such e-mail</h1><p><a href="${OUTBOX_PATH}">Outbox</a></p>`), 404);
    if (rest.length > 0) {
      const index = rest.length === 2 && rest[0] === "attachments" ? rest[1]! : "";
      const attachment = /^(?:0|[1-9]\d{0,5})$/.test(index) ? mail.attachments?.[Number(index)] : undefined;
      if (!attachment) {
        return html(
          page(
            "Not found",
            `<h1>No such attachment</h1><p><a href="${OUTBOX_PATH}/${mail.id}">${escape(mail.subject)}</a></p>`,
          ),
          404,
        );
      }
      const bytes = Buffer.from(attachment.content, "base64");
      return new Response(bytes, {
        headers: {
          "content-type": attachment.contentType,
          "content-length": String(bytes.byteLength),
          "content-disposition": contentDisposition(attachment.filename),
          "cache-control": "no-store",
          // The file is the sender's, served from the stack's origin: never sniffed or run as a page.
          "x-content-type-options": "nosniff",
          "content-security-policy": "sandbox",
        },
      });
    }
    const attachments = mail.attachments ?? [];
    return html(
      page(
        mail.subject,
        `<p><a href="${OUTBOX_PATH}">Outbox</a></p><h1>${escape(mail.subject)}</h1>` +
          (mail.from ? `<p class="meta">From ${escape(mail.from)}</p>` : "") +
          `<p class="meta">To ${escape(mail.to)} · ${escape(new Date(mail.sentAt).toLocaleString("en-US"))}</p>` +
          (mail.replyTo ? `<p class="meta">Reply to ${escape(mail.replyTo)}</p>` : "") +
          (attachments.length
            ? `<h2>Attachments</h2><ul>${attachments
                .map(
                  (a, i) =>
                    `<li><a href="${OUTBOX_PATH}/${mail.id}/attachments/${i}" download="${escape(a.filename)}">${escape(a.filename)}</a> ` +
                    `<span class="meta">${escape(a.contentType)} · ${Buffer.byteLength(a.content, "base64").toLocaleString("en-US")} bytes</span></li>`,
                )
                .join("")}</ul>`
            : "") +
          // The e-mail is a document of its own (supabase/templates/): shown in a sandboxed frame,
          // its links opening in this tab as they would from a mail client. A text-only message
          // is shown as its text.
          `<iframe class="mail" title="${escape(mail.subject)}" sandbox="allow-popups allow-top-navigation-by-user-activation" ` +
          `srcdoc="${escape(`<base target="_top">${mail.html || `<pre style="white-space:pre-wrap;font:15px/1.5 system-ui,sans-serif">${escape(mail.text)}</pre>`}`)}"></iframe>`,
      ),
    );
  }
  return null;
}
