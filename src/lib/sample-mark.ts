/**
 * How a sample item's "Sample" label looks (src/components/SampleMark.astro, and SampleBadge in
 * src/components/ui/sample.tsx for the islands): one look wherever sample content shows.
 */
export const SAMPLE_MARK_CLASS =
  "inline-flex items-center rounded-full border border-amber-300/60 bg-amber-400/15 px-2 py-0.5 align-middle text-xs font-semibold tracking-wide text-amber-200 normal-case not-italic";
