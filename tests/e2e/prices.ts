/**
 * What the site charges for each program, read from content/programs/ as the build reads it and
 * shown as the pages show it (packages/shared/money.ts): the end-to-end tests check that pages and checkout
 * agree with content, not today's numbers, so a price edited in content keeps the suite green.
 */
import { formatCents } from "../../packages/shared/money.ts";
import { loadPrograms } from "../unit/content-files";

const programs = loadPrograms();

/** The price of the program with checkout key `key`, as shown ("$2,999"). */
export function priceOf(key: string): string {
  const program = programs.find((p) => p.checkoutKey === key);
  if (!program) throw new Error(`No program in content/programs/ has the checkout key ${key}`);
  return formatCents(program.priceCents);
}
