/**
 * Object shapes checked against the installed stripe-node's declarations (`resources/*.d.ts`), so
 * the stand-in's answers stay pinned to the library version the project uses: the fields an
 * interface declares (required and optional), and the keys of an answer it does not declare or
 * requires and the answer lacks. Shared by the Stripe stand-in's integration tests.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dirname, "../../../..");

/**
 * The fields stripe-node declares on an interface of `resources/<file>`, found by its namespaces
 * (`Dispute`, `Evidence`): those it requires and those it marks optional.
 */
export function declared(file: string, ...path: string[]): { required: string[]; optional: string[] } {
  let text = readFileSync(join(ROOT, "node_modules/stripe/cjs/resources", file), "utf8");
  let indent = "";
  path.forEach((name, i) => {
    const kind = i === path.length - 1 ? "interface" : "namespace";
    const open = new RegExp(`^( *)(?:export )?(?:declare )?${kind} ${name} \\{$`, "m").exec(text);
    if (!open) throw new Error(`stripe-node ${file} declares no ${kind} ${path.slice(0, i + 1).join(".")}`);
    indent = open[1]!;
    const start = open.index + open[0].length;
    text = text.slice(start, text.indexOf(`\n${indent}}`, start));
  });
  const fields = [...text.matchAll(new RegExp(`^${indent}    (\\w+)(\\??):`, "gm"))];
  return {
    required: fields.filter((f) => !f[2]).map((f) => f[1]!),
    optional: fields.filter((f) => f[2]).map((f) => f[1]!),
  };
}

/** The keys of `object` stripe-node does not declare, and the ones it requires that `object` lacks. */
export function undeclared(object: unknown, file: string, ...path: string[]) {
  const { required, optional } = declared(file, ...path);
  const keys = Object.keys(object as Record<string, unknown>);
  return {
    unknown: keys.filter((k) => !required.includes(k) && !optional.includes(k)),
    missing: required.filter((k) => !keys.includes(k)),
  };
}
