/**
 * What the account pages share beyond the form parts every island takes from
 * src/components/ui/form.tsx: the id of their heading.
 */

/** The id of the account pages' h1 (AuthLayout.astro), which an island may reword. */
export const AUTH_HEADING_ID = "auth-heading";
