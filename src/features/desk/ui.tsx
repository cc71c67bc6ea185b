/**
 * The desk's shared parts (src/features/desk/Desk.tsx and its lazily loaded views): remote reads,
 * labelled fields, tables that scroll inside their box on a phone, the pager, dates in the
 * business's time zone, CSV downloads, and the bench's time-to-data mark.
 */
import { useEffect, useId, useRef, useState, type ReactNode } from "react";
import { LoadingNote, pillButtonClass, Skeleton } from "~/components/ui/panel";
import type { Remote } from "../portal/store";
import type { Page } from "./data";
import { pageCount } from "./logic";

/** What the page marks once its first list is on screen (the bench's desk time-to-data). */
export const DESK_MARK = "desk-data-shown";

/** What every view gets: the address's query, a way to change it, and the business's time zone. */
export interface ViewProps {
  query: URLSearchParams;
  setQuery: (changes: Record<string, string | null>) => void;
  timeZone: string;
}

/**
 * Loads `load()` whenever `key` changes, and again on `reload()`; a stale answer never shows. An
 * answer `arrived()` already has (a prefetched read, data.ts `takeArrived`) is the first render's.
 */
export function useRemote<T>(
  key: string,
  load: () => Promise<T>,
  arrived?: () => T | undefined,
): [Remote<T>, () => void] {
  const [nonce, setNonce] = useState(0);
  const id = `${key}#${nonce}`;
  const [answer, setAnswer] = useState<{ id: string; state: Remote<T> } | null>(() => {
    const data = arrived?.();
    return data === undefined ? null : { id, state: { status: "ready", data } };
  });
  // The first effect has nothing to load when the first render had the answer.
  const given = useRef(answer?.id);
  const loadRef = useRef(load);
  useEffect(() => {
    loadRef.current = load;
  });
  useEffect(() => {
    if (given.current === id) return;
    given.current = undefined;
    let current = true;
    loadRef.current().then(
      (data) => current && setAnswer({ id, state: { status: "ready", data } }),
      (error: unknown) => {
        console.error("The desk could not load:", error);
        if (current) setAnswer({ id, state: { status: "error" } });
      },
    );
    return () => {
      current = false;
    };
  }, [id]);
  return [answer?.id === id ? answer.state : { status: "loading" }, () => setNonce((n) => n + 1)];
}

export const inputClass =
  "mt-1 block w-full rounded-lg border border-white/15 bg-slate-900 px-3 py-2 text-sm text-white placeholder:text-slate-500 focus:border-violet-400 focus:outline-none";

export function Field({
  label,
  children,
  className = "",
}: {
  label: string;
  children: (id: string) => ReactNode;
  className?: string;
}) {
  const id = useId();
  return (
    <div className={className}>
      <label htmlFor={id} className="block text-xs font-semibold uppercase tracking-wide text-slate-400">
        {label}
      </label>
      {children(id)}
    </div>
  );
}

/** A labelled select of `options` ([value, label]); "" is the first option's value where it means "any". */
export function SelectField({
  label,
  value,
  options,
  onChange,
  className,
}: {
  label: string;
  value: string;
  options: readonly (readonly [value: string, label: string])[];
  onChange: (value: string) => void;
  className?: string;
}) {
  return (
    <Field label={label} className={className}>
      {(id) => (
        <select id={id} className={inputClass} value={value} onChange={(e) => onChange(e.target.value)}>
          {options.map(([optionValue, optionLabel]) => (
            <option key={optionValue} value={optionValue}>
              {optionLabel}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

export function Pager({
  page,
  total,
  noun,
  onPage,
}: {
  page: number;
  total: number;
  noun: string;
  onPage: (page: number) => void;
}) {
  const pages = pageCount(total);
  return (
    <div className="mt-4 flex flex-wrap items-center justify-between gap-3 text-sm text-slate-300">
      <p aria-live="polite">
        {total.toLocaleString("en-US")} {noun}
        {total === 1 ? "" : "s"} · page {Math.min(page, pages)} of {pages}
      </p>
      {/* One page has nowhere to go; on the first or last, the way that is not there looks it. */}
      {pages > 1 && (
        <div className="flex gap-2">
          <button type="button" className={pageButtonClass} disabled={page <= 1} onClick={() => onPage(page - 1)}>
            Previous page
          </button>
          <button type="button" className={pageButtonClass} disabled={page >= pages} onClick={() => onPage(page + 1)}>
            Next page
          </button>
        </div>
      )}
    </div>
  );
}

/** A page button: outlined, and plainly out of reach where there is no page to go to. */
export const pageButtonClass =
  "inline-flex min-h-11 items-center justify-center rounded-3xl border border-white/20 px-6 py-2.5 text-sm font-semibold text-white hover:bg-white/10 disabled:cursor-not-allowed disabled:border-white/10 disabled:text-slate-500 disabled:hover:bg-transparent";

/** A table that says what it holds, with a loading state and an error in words. */
export function Table<T>({
  caption,
  state,
  columns,
  rowKey,
  empty,
  expanded,
}: {
  caption: string;
  state: Remote<Page<T>>;
  columns: { label: string; cell: (row: T) => ReactNode; className?: string }[];
  rowKey: (row: T) => string | number;
  empty: string;
  expanded?: (row: T) => ReactNode;
}) {
  // Nothing to list: said in a box as wide as the screen, not in a table row wider than a phone.
  if (state.status === "ready" && state.data.rows.length === 0) {
    return (
      <p className="rounded-2xl border border-dashed border-white/15 bg-panel/60 px-4 py-6 text-center text-slate-300">
        {empty}
      </p>
    );
  }
  return (
    // Focusable, so that a keyboard can scroll a table wider than a phone (axe: scrollable-region-focusable);
    // relative, so that what is positioned in it (the screen-reader-only text) scrolls with it
    // instead of widening the page.
    // A size container, so that a row's details (TableRow) can be as wide as the box, not the table.
    <div
      className="@container relative overflow-x-auto rounded-2xl border border-white/10 bg-panel"
      aria-busy={state.status === "loading"}
      tabIndex={0}
      role="group"
      aria-label={caption}
    >
      <table className="w-full min-w-[48rem] text-left text-sm">
        <caption className="sr-only">{caption}</caption>
        <thead className="border-b border-white/10 text-xs uppercase tracking-wide text-slate-400">
          <tr>
            {columns.map((column) => (
              <th key={column.label} scope="col" className={`px-4 py-3 font-semibold ${column.className ?? ""}`}>
                {column.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-white/5">
          {state.status === "loading" &&
            Array.from({ length: 5 }, (_, i) => (
              <tr key={i}>
                <td colSpan={columns.length} className="px-4 py-3">
                  {i === 0 && <LoadingNote />}
                  <Skeleton className="h-5 w-full" />
                </td>
              </tr>
            ))}
          {state.status === "error" && (
            <tr>
              <td colSpan={columns.length} className="px-4 py-6 text-center text-red-300" role="alert">
                This list could not be loaded. Please try again in a moment.
              </td>
            </tr>
          )}
          {state.status === "ready" &&
            state.data.rows.map((row) => (
              <TableRow key={rowKey(row)} row={row} columns={columns} expanded={expanded?.(row)} />
            ))}
        </tbody>
      </table>
    </div>
  );
}

export function TableRow<T>({
  row,
  columns,
  expanded,
}: {
  row: T;
  columns: { label: string; cell: (row: T) => ReactNode; className?: string }[];
  expanded?: ReactNode;
}) {
  return (
    <>
      <tr className="align-top text-slate-200">
        {columns.map((column) => (
          <td key={column.label} className={`px-4 py-3 ${column.className ?? ""}`}>
            {column.cell(row)}
          </td>
        ))}
      </tr>
      {expanded && (
        <tr className="bg-white/[0.03]">
          <td colSpan={columns.length} className="px-4 py-4">
            {/* As wide as the box shows and held at its left edge, so that on a phone the form and
                the history fit the screen while the table beside it scrolls. */}
            <div className="sticky left-4 w-[calc(100cqw-2rem)]">{expanded}</div>
          </td>
        </tr>
      )}
    </>
  );
}

export function dateTime(value: string | null, timeZone: string): string {
  if (!value) return "—";
  return new Intl.DateTimeFormat("en-US", { timeZone, dateStyle: "medium", timeStyle: "short" }).format(
    new Date(value),
  );
}

export function day(value: string | null, timeZone: string): string {
  if (!value) return "—";
  // A calendar day (YYYY-MM-DD) is that day wherever the reader is.
  const date = /^\d{4}-\d{2}-\d{2}$/.test(value) ? new Date(`${value}T12:00:00Z`) : new Date(value);
  return new Intl.DateTimeFormat("en-US", {
    timeZone: /^\d{4}-\d{2}-\d{2}$/.test(value) ? "UTC" : timeZone,
    dateStyle: "medium",
  }).format(date);
}

/** Saves `csv` as a file the browser downloads. */
export function download(name: string, csv: string) {
  const url = URL.createObjectURL(new Blob([csv], { type: "text/csv;charset=utf-8" }));
  const link = Object.assign(document.createElement("a"), { href: url, download: name });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

export function ExportButton({ label, run }: { label: string; run: () => Promise<void> }) {
  const [busy, setBusy] = useState(false);
  const [failed, setFailed] = useState(false);
  return (
    <div>
      <button
        type="button"
        className={pillButtonClass.secondary}
        disabled={busy}
        onClick={() => {
          setBusy(true);
          setFailed(false);
          run()
            .catch((error: unknown) => {
              console.error("The export failed:", error);
              setFailed(true);
            })
            .finally(() => setBusy(false));
        }}
      >
        {busy ? "Preparing the file…" : label}
      </button>
      {failed && (
        <p role="alert" className="mt-2 text-sm text-red-300">
          The file could not be made. Please try again.
        </p>
      )}
    </div>
  );
}

/**
 * Marks DESK_MARK once the view's first page of rows is on screen: what the bench times
 * (tools/bench/portal.ts, the desk's time-to-data).
 */
export function useDeskMark(ready: boolean) {
  useEffect(() => {
    if (ready && performance.getEntriesByName(DESK_MARK).length === 0) performance.mark(DESK_MARK);
  }, [ready]);
}

export const pageOf = (query: URLSearchParams) => Math.max(1, Number(query.get("page")) || 1);

/** The colours of the desk's status pills. */
const PILL_TONES = {
  sky: "bg-sky-500/15 text-sky-200",
  violet: "bg-violet-500/15 text-violet-200",
  amber: "bg-amber-400/15 text-amber-200",
  green: "bg-green-500/15 text-green-200",
  slate: "bg-slate-500/20 text-slate-300",
} as const;

/** A status as a small coloured pill: a lead's, an offer's. */
export function Pill({ tone, children }: { tone: keyof typeof PILL_TONES; children: ReactNode }) {
  return (
    <span className={`inline-flex rounded-full px-2.5 py-0.5 text-xs font-semibold ${PILL_TONES[tone]}`}>
      {children}
    </span>
  );
}
