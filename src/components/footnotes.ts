/**
 * Footnotes for a section's figures: each figure gets the number of its source, and a source
 * that several figures share is listed once, numbered in the order it is first used. `prefix`
 * makes the notes' ids unique on the page (a page may have more than one section of figures).
 */
export function footnotes<T extends { source: string; sample?: boolean }>(items: T[], prefix: string) {
  const sources: string[] = [];
  const samples = new Set<string>();
  const noteId = (n: number) => `${prefix}-source-${n}`;
  const marked = items.map((item) => {
    const n = sources.includes(item.source) ? sources.indexOf(item.source) + 1 : sources.push(item.source);
    if (item.sample) samples.add(item.source);
    return { ...item, note: { n, id: noteId(n) } };
  });
  return {
    items: marked,
    // A source that any of its figures' entries marks `sample` is labelled "Sample".
    sources: sources.map((text, i) => ({ n: i + 1, id: noteId(i + 1), text, sample: samples.has(text) })),
  };
}

/** A figure's footnote: its number and the id of its note. */
export type Note = { n: number; id: string };
