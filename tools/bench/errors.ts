// What the bench reports of a thrown value: its message, which the catch clause types as unknown.

/** The message of what was thrown (an Error's, else the value as text). */
export const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** Its first line: a browser's errors go on with a call log. */
export const firstLine = (error: unknown): string => messageOf(error).split("\n")[0] ?? "";
