/**
 * What the stack learns of the product it stands in for, read when it starts from the functions
 * folder its caller gives it (`functionsDir`, default functions/), never by an `import` at load:
 * an import runs whenever some module happens to load this package, which may be before `npm
 * start` brought the catalogue in line with content (packages/local-stack/src/run.ts), and Node
 * keeps the first copy of a module for the life of the process. That is how a price edit once
 * stopped reaching the local checkout: the stand-in's prices and the functions both sold the old
 * amount while the site showed the new one.
 *
 * So the catalogue is read twice at start: as the functions will see it (Node's copy, shared with
 * the handlers `/functions/v1` runs) and as the file says now (a fresh copy of the same file). A
 * stack whose functions would sell from an older copy than the file refuses to start, naming the
 * programs that differ, instead of charging a price the site no longer shows.
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { CatalogueOffer, CatalogueProduct } from "../../../functions/_shared/catalogue.ts";
import type { envProblems } from "../../../functions/_shared/env.ts";
import type { stripeClient } from "../../../functions/_shared/stripe.ts";
import type { setupCatalogue, setupOffers } from "../../../functions/_shared/stripe-setup.ts";

export interface Product {
  /** The programs the functions sell (functions/_shared/catalogue.ts), as the file says at start. */
  catalogue: readonly CatalogueProduct[];
  /** The coached offers the team sends (the same file's COACHED_OFFERS). */
  offers: readonly CatalogueOffer[];
  /** The functions' Stripe client and the catalogue's setup at Stripe (what `npm run stripe:setup` runs). */
  stripeClient: typeof stripeClient;
  setupCatalogue: typeof setupCatalogue;
  setupOffers: typeof setupOffers;
  /** The functions' own check of their environment, run before a handler is called. */
  envProblems: typeof envProblems;
}

interface CatalogueModule {
  CATALOGUE: readonly CatalogueProduct[];
  COACHED_OFFERS: readonly CatalogueOffer[];
}

const load = <T>(file: string, query = ""): Promise<T> => import(pathToFileURL(file).href + query) as Promise<T>;

/** The programs whose entries differ between two catalogues, by key. */
function changedPrograms(a: readonly CatalogueProduct[], b: readonly CatalogueProduct[]): string[] {
  const keys = new Set([...a, ...b].map((p) => p.key));
  const byKey = (list: readonly CatalogueProduct[], key: string) =>
    JSON.stringify(list.find((p) => p.key === key) ?? null);
  return [...keys].filter((key) => byKey(a, key) !== byKey(b, key));
}

/** Reads the product from `functionsDir`; throws when the functions would sell from a stale catalogue. */
export async function readProduct(functionsDir: string): Promise<Product> {
  const file = join(functionsDir, "_shared", "catalogue.ts");
  const [shared, env, stripe, setup] = await Promise.all([
    load<CatalogueModule>(file),
    load<{ envProblems: typeof envProblems }>(join(functionsDir, "_shared", "env.ts")),
    load<{ stripeClient: typeof stripeClient }>(join(functionsDir, "_shared", "stripe.ts")),
    load<{ setupCatalogue: typeof setupCatalogue; setupOffers: typeof setupOffers }>(
      join(functionsDir, "_shared", "stripe-setup.ts"),
    ),
  ]);
  // The file has no imports of its own, so a URL of its own reads all of it afresh.
  const onDisk = await load<CatalogueModule>(file, `?read=${statSync(file).mtimeMs}-${process.hrtime.bigint()}`);
  const stale = [
    ...changedPrograms(shared.CATALOGUE, onDisk.CATALOGUE),
    ...(JSON.stringify(shared.COACHED_OFFERS) === JSON.stringify(onDisk.COACHED_OFFERS) ? [] : ["COACHED_OFFERS"]),
  ];
  if (stale.length > 0) {
    throw new Error(
      `${file} changed after this process loaded it (${stale.join(", ")}): the functions would sell what it said before. ` +
        "Start the stack in a new process, after `npm run catalogue`, and load no function module before it starts.",
    );
  }
  return {
    catalogue: onDisk.CATALOGUE,
    offers: onDisk.COACHED_OFFERS,
    stripeClient: stripe.stripeClient,
    setupCatalogue: setup.setupCatalogue,
    setupOffers: setup.setupOffers,
    envProblems: env.envProblems,
  };
}
