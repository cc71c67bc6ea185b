/**
 * Valid markup: every built page passes html-validate's recommended rules (inline style
 * attributes allowed), as served to visitors.
 */
import { expect, test } from "@playwright/test";
import { HtmlValidate } from "html-validate";
import { sitemapPaths } from "./routes";

const validator = new HtmlValidate({
  extends: ["html-validate:recommended"],
  rules: { "no-inline-style": "off" },
});

test("every page is valid HTML", async ({ request }) => {
  const problems: string[] = [];
  for (const path of [...(await sitemapPaths(request)), "/404"]) {
    const html = await (await request.get(path)).text();
    const report = await validator.validateString(html, path);
    for (const result of report.results) {
      for (const message of result.messages) {
        problems.push(`${path}:${message.line}:${message.column} ${message.ruleId}: ${message.message}`);
      }
    }
  }
  expect(problems).toEqual([]);
});
