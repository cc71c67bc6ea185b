/**
 * Reads the checkout page's request (packages/shared/checkout-request.ts) and trusts none of
 * it: the price must be a catalogue lookup key, the e-mail valid, both return URLs on one of the
 * site's origins, the mode 'payment'. Answers the checked request or the 4xx error to send.
 */
import { CATALOGUE, type CatalogueProduct } from "../_shared/catalogue.ts";
import { type AttributionKey, isEmail, keptAttribution } from "../../packages/shared/checkout-request.ts";

export interface CheckedRequest {
  product: CatalogueProduct;
  email: string;
  successUrl: string;
  cancelUrl: string;
  attribution: Partial<Record<AttributionKey, string>>;
}

export type ReadResult = { ok: true; request: CheckedRequest } | { ok: false; status: number; error: string };

const refuse = (error: string, status = 400): ReadResult => ({ ok: false, status, error });

/** `value` as a URL on one of `origins`, or null. */
function onOrigin(value: unknown, origins: readonly string[]): string | null {
  if (typeof value !== "string" || value.length > 2000) return null;
  try {
    const url = new URL(value);
    return origins.includes(url.origin) && !url.username && !url.password ? value : null;
  } catch {
    return null;
  }
}

export function readCheckoutRequest(body: unknown, origins: readonly string[]): ReadResult {
  if (!body || typeof body !== "object" || Array.isArray(body))
    return refuse("The request body must be a JSON object.");
  const input = body as Record<string, unknown>;
  if (input.mode !== "payment") return refuse("mode must be 'payment'.");
  const product = CATALOGUE.find((p) => p.lookupKey === input.price_id);
  if (!product) return refuse("Unknown price_id: not a program we sell.");
  const email = typeof input.customer_email === "string" ? input.customer_email.trim().toLowerCase() : "";
  if (!isEmail(email)) return refuse("customer_email must be a valid e-mail address.");
  const successUrl = onOrigin(input.success_url, origins);
  if (!successUrl) return refuse("success_url must be a page of this site.");
  const cancelUrl = onOrigin(input.cancel_url, origins);
  if (!cancelUrl) return refuse("cancel_url must be a page of this site.");
  if (
    input.attribution !== undefined &&
    (!input.attribution || typeof input.attribution !== "object" || Array.isArray(input.attribution))
  ) {
    return refuse("attribution must be an object.");
  }
  const attribution = keptAttribution(input.attribution);
  return { ok: true, request: { product, email, successUrl, cancelUrl, attribution } };
}
