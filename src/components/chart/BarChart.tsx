import { useEffect, useRef, useState } from "react";
import { SampleBadge } from "~/components/ui/sample";
import { usePrefersReducedMotion } from "~/lib/useReducedMotion";

interface Props {
  title: string;
  source: string;
  /** The source (or the numbers) not confirmed by the business yet: labelled "Sample". */
  sample?: boolean;
  bars: { label: string; percent: number }[];
  /** Share of the chart that must be visible before it animates (docs/product.md, Business constants and limits: 0.3). */
  threshold?: number;
}

/** "final": values shown as they are; "waiting": bars empty until in view; "animating": growing to their values. */
type Phase = "final" | "waiting" | "animating";

/**
 * A horizontal bar chart on a 0-100% scale (each bar's track is 100%), with its source as a footnote
 * (content/charts.yaml: every chart has a `source`). It grows its bars once,
 * when 30% of it scrolls into view. The server renders the final values, which is also what
 * visitors without JavaScript or who prefer reduced motion see; a chart already on screen when
 * the page loads does not animate.
 */
export default function BarChart({ title, source, sample = false, bars, threshold = 0.3 }: Props) {
  const [phase, setPhase] = useState<Phase>("final");
  const reducedMotion = usePrefersReducedMotion();
  const root = useRef<HTMLElement>(null);
  // The same on the server and in the browser, and unique per chart: from its title.
  const sourceId = `${title.toLowerCase().replace(/[^a-z0-9]+/g, "-")}-source`;

  useEffect(() => {
    const element = root.current;
    if (reducedMotion || !element) return;
    let first = true;
    const observer = new IntersectionObserver(
      ([entry]) => {
        const inView = (entry?.intersectionRatio ?? 0) >= threshold;
        if (first) {
          first = false;
          if (inView) observer.disconnect();
          else setPhase("waiting");
          return;
        }
        if (inView) {
          setPhase("animating");
          observer.disconnect();
        }
      },
      { threshold: [0, threshold] },
    );
    observer.observe(element);
    return () => observer.disconnect();
  }, [reducedMotion, threshold]);

  return (
    <figure ref={root} data-phase={phase} className="rounded-2xl border border-white/10 bg-panel p-6 sm:p-8">
      <figcaption className="text-lg font-semibold text-white">
        {title}
        {/* The footnote mark, as SourceMark.astro draws it: the number links to the source below. */}
        <sup className="ml-0.5 text-[0.7em] font-semibold">
          <a
            href={`#${sourceId}`}
            aria-label="Source 1"
            className="rounded-sm px-0.5 text-sky-300 underline underline-offset-2 hover:text-white"
            data-source-mark="1"
          >
            1
          </a>
        </sup>
      </figcaption>
      <ol className="mt-6 space-y-5">
        {bars.map((bar, i) => (
          <li key={bar.label}>
            <div className="flex items-baseline justify-between gap-4 text-sm">
              <span className="text-slate-200">{bar.label}</span>
              <span className="font-semibold text-white">{bar.percent}%</span>
            </div>
            <div className="mt-2 h-3 overflow-hidden rounded-full bg-white/10" aria-hidden="true">
              <div
                className={`h-full rounded-full bg-gradient-to-r from-orange-500 to-rose-500 ${
                  phase === "animating" ? "transition-[width] duration-1000 ease-out" : ""
                }`}
                style={{
                  // The track is the whole scale, 0-100%: a bar of 35% fills 35% of it.
                  width: phase === "waiting" ? "0%" : `${bar.percent}%`,
                  transitionDelay: phase === "animating" ? `${i * 120}ms` : undefined,
                }}
              />
            </div>
          </li>
        ))}
      </ol>
      <p id={sourceId} className="mt-6 scroll-mt-24 text-xs leading-5 text-slate-400 target:text-slate-200">
        <span className="font-semibold tracking-wider text-slate-300 uppercase">Source</span>{" "}
        <span className="sr-only">1: </span>
        {source}
        {sample && <SampleBadge />}
      </p>
    </figure>
  );
}
