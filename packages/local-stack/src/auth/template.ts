/**
 * The auth e-mails' templates, rendered as Supabase Auth renders them: Go's html/template with
 * the fields GoTrue passes (`{{ .ConfirmationURL }}`, `{{ .Token }}`, `{{ .TokenHash }}`,
 * `{{ .SiteURL }}`, `{{ .RedirectTo }}`, `{{ .Email }}`, `{{ .Data.<key> }}`). Only field
 * references are supported; anything else (`{{ if }}`, pipelines) is refused when the template
 * is loaded, so the outbox never shows an e-mail production would render differently. Values
 * are HTML-escaped, and a URL that starts an `href` or `src` must be http(s) or mailto, as
 * html/template requires (it writes `#ZgotmplZ` otherwise). Pure.
 */

export const TEMPLATE_FIELDS = [
  "ConfirmationURL",
  "Token",
  "TokenHash",
  "SiteURL",
  "RedirectTo",
  "Email",
  "Data",
] as const;
type Field = (typeof TEMPLATE_FIELDS)[number];
export type TemplateData = Partial<Record<Exclude<Field, "Data">, string>> & { Data?: Record<string, unknown> };

const ACTION = /\{\{-?\s*([\s\S]*?)\s*-?\}\}/g;
const REFERENCE = /^\.([A-Za-z]+)(?:\.([A-Za-z0-9_]+))?$/;

/** Refuses what the renderer cannot render faithfully, naming the template and the action. */
export function checkTemplate(text: string, where: string): void {
  for (const [action, inner] of text.matchAll(ACTION)) {
    const match = REFERENCE.exec(inner!);
    if (!match || !TEMPLATE_FIELDS.includes(match[1] as Field) || (match[2] && match[1] !== "Data")) {
      throw new Error(
        `${where}: ${action} is not supported by the local stack; use only {{ .${TEMPLATE_FIELDS.join(" }}, {{ .")} }}`,
      );
    }
  }
}

const escapeHtml = (value: string) =>
  value.replace(
    /[&<>"'\0]/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&#34;", "'": "&#39;", "\0": "\uFFFD" })[c]!,
  );

export function renderTemplate(text: string, data: TemplateData): string {
  return text.replace(ACTION, (_action, inner: string, offset: number) => {
    const [, field, key] = REFERENCE.exec(inner)!;
    const raw = field === "Data" ? (key ? data.Data?.[key] : data.Data) : data[field as Exclude<Field, "Data">];
    const value = raw === undefined || raw === null ? "" : typeof raw === "string" ? raw : JSON.stringify(raw);
    const startsUrl = /\b(?:href|src)\s*=\s*["']?$/i.test(text.slice(Math.max(0, offset - 20), offset));
    if (startsUrl && value !== "" && !/^(?:https?:|mailto:)/i.test(value) && /^[a-z][a-z0-9+.-]*:/i.test(value)) {
      return "#ZgotmplZ";
    }
    return escapeHtml(value);
  });
}

/** A plain-text rendering of an e-mail's HTML, for the outbox's list and for tests. */
export function htmlToText(html: string): string {
  return html
    .replace(/<a\s[^>]*href="([^"]*)"[^>]*>([\s\S]*?)<\/a>/gi, "$2 ($1)")
    .replace(/<(?:br|\/p|\/h[1-6]|\/li|\/tr)\s*\/?>/gi, "\n")
    .replace(/<[^>]+>/g, "")
    .replace(/&#34;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&")
    .replace(/[ \t]+\n/g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}
