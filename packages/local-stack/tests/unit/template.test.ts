/** The auth e-mail templates, rendered as Go's html/template renders GoTrue's (packages/local-stack/src/auth/template.ts). */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { checkTemplate, htmlToText, renderTemplate } from "../../src/auth/template.ts";

describe("e-mail templates", () => {
  it("fills GoTrue's fields, with and without spaces, and Data's keys", () => {
    const html = renderTemplate('<a href="{{ .SiteURL }}/r?token_hash={{.TokenHash}}">{{ .Data.full_name }}</a>', {
      SiteURL: "https://advisor.example",
      TokenHash: "ab12",
      Data: { full_name: "Dana" },
    });
    expect(html).toBe('<a href="https://advisor.example/r?token_hash=ab12">Dana</a>');
  });

  it("escapes values as HTML, and refuses a non-web URL where a link starts", () => {
    expect(renderTemplate("<p>{{ .Email }}</p>", { Email: '<b>"x"&</b>' })).toBe(
      "<p>&lt;b&gt;&#34;x&#34;&amp;&lt;/b&gt;</p>",
    );
    expect(renderTemplate('<a href="{{ .RedirectTo }}">', { RedirectTo: "javascript:alert(1)" })).toBe(
      '<a href="#ZgotmplZ">',
    );
    expect(renderTemplate('<a href="{{ .RedirectTo }}">', { RedirectTo: "https://advisor.example" })).toBe(
      '<a href="https://advisor.example">',
    );
    expect(renderTemplate("<p>{{ .Token }}</p>", {})).toBe("<p></p>");
  });

  it("refuses what it cannot render as production would, naming the template", () => {
    expect(() => checkTemplate("{{ if .Token }}x{{ end }}", "t.html")).toThrow(
      /t\.html: \{\{ if \.Token \}\} is not supported/,
    );
    expect(() => checkTemplate("{{ .ConfirmationUrl }}", "t.html")).toThrow(/ConfirmationUrl/);
    expect(() => checkTemplate("{{ .Email | upper }}", "t.html")).toThrow(/not supported/);
    expect(() => checkTemplate("{{ .Data.full_name }} {{ .ConfirmationURL }}", "t.html")).not.toThrow();
  });

  it("accepts the project's own templates", () => {
    const recovery = readFileSync(new URL("../../../../supabase/templates/recovery.html", import.meta.url), "utf8");
    expect(() => checkTemplate(recovery, "recovery.html")).not.toThrow();
  });

  it("gives a plain-text version with each link's address", () => {
    expect(htmlToText('<h1>Reset</h1><p>Open <a href="https://a.example/x?a=1&amp;b=2">this</a>.</p>')).toBe(
      "Reset\nOpen this (https://a.example/x?a=1&b=2).",
    );
  });
});
