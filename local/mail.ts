/**
 * The local mail outbox: every e-mail the stack would send is kept as a JSON file in the data
 * folder (or in memory) and listed on a local page, `/_local/outbox`, newest first; each
 * message has its own page with its links clickable, and `/_local/outbox.json` lists them for
 * tests and scripts. Dev and test only: nothing leaves the machine.
 */
import { randomUUID } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";

export interface Mail {
  id: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  sentAt: string;
}

export interface Mailer {
  send(message: Omit<Mail, "id" | "sentAt">): Mail;
  /** Every message kept, newest first. */
  list(): Mail[];
  /** Resolves once every message sent so far is in the data folder. */
  flush(): Promise<void>;
}

export const OUTBOX_PATH = "/_local/outbox";

/**
 * With a data folder, each message is a file there. The file is written in the background (a
 * synchronous write per message held the stack's one thread for a launch-day burst of buyers'
 * e-mails); until it is, the message is listed from memory, and closing the stack waits for it.
 */
export function createMailer(dataDir?: string): Mailer {
  const dir = dataDir ? join(dataDir, "mail") : undefined;
  if (dir) mkdirSync(dir, { recursive: true });
  const memory: Mail[] = [];
  const unwritten = new Map<string, Mail>();
  const writes = new Set<Promise<void>>();
  return {
    send(message) {
      const sentAt = new Date().toISOString();
      const mail: Mail = { id: `${sentAt.replace(/[-:.TZ]/g, "")}-${randomUUID().slice(0, 8)}`, sentAt, ...message };
      if (!dir) {
        memory.push(mail);
        return mail;
      }
      unwritten.set(mail.id, mail);
      const write = writeFile(join(dir, `${mail.id}.json`), JSON.stringify(mail, null, 2))
        .then(
          () => {
            unwritten.delete(mail.id);
          },
          (error: unknown) => console.error(`The outbox could not keep the e-mail to ${mail.to}:`, error),
        )
        .finally(() => writes.delete(write));
      writes.add(write);
      return mail;
    },
    list() {
      // A file still being written is read from memory instead.
      const all = dir
        ? readdirSync(dir)
            .filter((f) => f.endsWith(".json") && !unwritten.has(f.slice(0, -".json".length)))
            .map((f) => JSON.parse(readFileSync(join(dir, f), "utf8")) as Mail)
        : [...memory];
      all.push(...unwritten.values());
      return all.sort((a, b) => (a.id < b.id ? 1 : -1));
    },
    async flush() {
      await Promise.all([...writes]);
    },
  };
}

const escape = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

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
    const mail = mailer.list().find((m) => m.id === pathname.slice(OUTBOX_PATH.length + 1));
    if (!mail) return html(page("Not found", `<h1>No such e-mail</h1><p><a href="${OUTBOX_PATH}">Outbox</a></p>`), 404);
    return html(
      page(
        mail.subject,
        `<p><a href="${OUTBOX_PATH}">Outbox</a></p><h1>${escape(mail.subject)}</h1>` +
          `<p class="meta">To ${escape(mail.to)} · ${escape(new Date(mail.sentAt).toLocaleString("en-US"))}</p>` +
          // The e-mail is a document of its own (supabase/templates/): shown in a sandboxed frame,
          // its links opening in this tab as they would from a mail client.
          `<iframe class="mail" title="${escape(mail.subject)}" sandbox="allow-popups allow-top-navigation-by-user-activation" ` +
          `srcdoc="${escape(`<base target="_top">${mail.html}`)}"></iframe>`,
      ),
    );
  }
  return null;
}
