/** The team's roles (docs/operations.md, "The team and its roles"), as the `staff` table's check allows them. */
export const STAFF_ROLES = ["coach", "admin"] as const;
export type StaffRole = (typeof STAFF_ROLES)[number];

export const isStaffRole = (value: unknown): value is StaffRole => STAFF_ROLES.includes(value as StaffRole);
