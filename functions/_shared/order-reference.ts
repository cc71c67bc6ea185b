/**
 * The order reference a customer quotes ("3F9A27C1"), one definition for the functions and the
 * success page, which computes it in the browser: packages/shared/order-reference.ts.
 */
export { orderReference } from "../../packages/shared/order-reference.ts";
