/**
 * A cohort's first day as an iCalendar file (RFC 5545), attached to a cohort program's access
 * e-mail so the buyer can put it in their calendar: one all-day event on the start day (the
 * business gives no hour), marked free, with the course's address. The same order always gives
 * the same file (its UID and DTSTAMP come from the order), so a resent e-mail is the same e-mail.
 */

export interface CohortEvent {
  /** A stable identifier of the order, e.g. its reference. */
  id: string;
  programName: string;
  /** The cohort's start day, YYYY-MM-DD. */
  start: string;
  /** The course's page in the portal. */
  courseUrl: string;
  /** When the order was made (the event's DTSTAMP). */
  orderedAt: Date;
}

/** TEXT escaping of RFC 5545, 3.3.11: backslash, semicolon, comma and line breaks. */
const text = (value: string) => value.replace(/[\\;,]/g, (c) => `\\${c}`).replace(/\r?\n/g, "\\n");

/** A DATE value (3.3.4): YYYYMMDD. */
const date = (day: string) => day.replaceAll("-", "");

/** The day after `day`: an all-day event's DTEND is exclusive (3.6.1). */
function nextDay(day: string): string {
  const next = new Date(`${day}T00:00:00Z`);
  next.setUTCDate(next.getUTCDate() + 1);
  return next.toISOString().slice(0, 10);
}

/** A DATE-TIME in UTC (3.3.5, form #2): YYYYMMDDTHHMMSSZ. */
const utc = (at: Date) =>
  at
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}/, "");

/** Folds a content line longer than 75 octets (3.1): CRLF and a space, never inside a character. */
function fold(line: string): string {
  const encoder = new TextEncoder();
  const parts: string[] = [];
  let current = "";
  let octets = 0;
  for (const char of line) {
    const size = encoder.encode(char).length;
    // The first line holds 75 octets; each continuation 74 after its leading space.
    if (octets + size > (parts.length === 0 ? 75 : 74)) {
      parts.push(current);
      current = "";
      octets = 0;
    }
    current += char;
    octets += size;
  }
  parts.push(current);
  return parts.join("\r\n ");
}

/** The file's name as the e-mail attaches it. */
export const COHORT_CALENDAR_FILE = "cohort-start.ics";

/** The iCalendar text of the cohort's first day. */
export function cohortCalendar(event: CohortEvent, brand: string): string {
  const host = new URL(event.courseUrl).hostname;
  const lines = [
    "BEGIN:VCALENDAR",
    "VERSION:2.0",
    `PRODID:-//${text(brand)}//Cohorts//EN`,
    "CALSCALE:GREGORIAN",
    "METHOD:PUBLISH",
    "BEGIN:VEVENT",
    `UID:${event.id}-cohort@${host}`,
    `DTSTAMP:${utc(event.orderedAt)}`,
    `DTSTART;VALUE=DATE:${date(event.start)}`,
    `DTEND;VALUE=DATE:${date(nextDay(event.start))}`,
    `SUMMARY:${text(`${event.programName}: your cohort starts`)}`,
    `DESCRIPTION:${text(`Week 1 of your ${event.programName} cohort opens today in your client portal: ${event.courseUrl}`)}`,
    `URL:${event.courseUrl}`,
    "TRANSP:TRANSPARENT",
    "END:VEVENT",
    "END:VCALENDAR",
  ];
  return `${lines.map(fold).join("\r\n")}\r\n`;
}
