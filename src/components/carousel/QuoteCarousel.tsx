import { useCallback, useEffect, useId, useRef, useState } from "react";
import { dotIndex, nextIndex, previousIndex } from "../../lib/carousel";
import { usePrefersReducedMotion } from "../../lib/useReducedMotion";

export interface Quote {
  quote: string;
  author: string;
  role: string;
}

interface Props {
  /** Accessible name of the carousel region. */
  label: string;
  quotes: Quote[];
  /** Milliseconds between slides (docs/product.md §9: 8000). */
  intervalMs?: number;
  /** Show previous and next buttons as well as the dots. */
  arrows?: boolean;
}

/**
 * A rotating quote carousel. It advances on its interval unless the visitor hovers it, moves
 * focus into it, pauses it, or prefers reduced motion. Every slide is laid out in the same grid
 * cell, so the tallest quote sets the height and nothing shifts when slides change.
 */
export default function QuoteCarousel({ label, quotes, intervalMs = 8000, arrows = false }: Props) {
  const count = quotes.length;
  const [index, setIndex] = useState(0);
  const [hovered, setHovered] = useState(false);
  const [focused, setFocused] = useState(false);
  const [stopped, setStopped] = useState(false);
  const reducedMotion = usePrefersReducedMotion();
  const rotating = !hovered && !focused && !stopped && !reducedMotion && count > 1;
  const id = useId();
  const root = useRef<HTMLElement>(null);

  useEffect(() => {
    if (!rotating) return;
    const timer = window.setInterval(() => setIndex((i) => nextIndex(i, count)), intervalMs);
    return () => window.clearInterval(timer);
  }, [rotating, count, intervalMs]);

  const onBlur = useCallback((event: React.FocusEvent) => {
    if (!root.current?.contains(event.relatedTarget as Node | null)) setFocused(false);
  }, []);

  if (count === 0) return null;

  return (
    <section
      ref={root}
      aria-roledescription="carousel"
      aria-label={label}
      className="mx-auto max-w-4xl"
      onMouseEnter={() => setHovered(true)}
      onMouseLeave={() => setHovered(false)}
      onFocus={() => setFocused(true)}
      onBlur={onBlur}
    >
      <div className="grid" aria-live={rotating ? "off" : "polite"} id={`${id}-slides`}>
        {quotes.map((q, i) => (
          <div
            key={q.author}
            role="group"
            aria-roledescription="slide"
            aria-label={`${i + 1} of ${count}`}
            aria-hidden={i !== index}
            inert={i !== index}
            className={`col-start-1 row-start-1 text-center transition-opacity duration-700 ${
              i === index ? "opacity-100" : "pointer-events-none opacity-0"
            }`}
          >
            <figure>
              <blockquote className="text-xl leading-relaxed text-white sm:text-2xl">
                <p>“{q.quote}”</p>
              </blockquote>
              <figcaption className="mt-6 text-base">
                <span className="font-semibold text-white">{q.author}</span>
                <span className="text-slate-300">, {q.role}</span>
              </figcaption>
            </figure>
          </div>
        ))}
      </div>
      <div className="mt-8 flex items-center justify-center gap-3">
        {arrows && (
          <button
            type="button"
            className="rounded-full p-2 text-slate-200 hover:bg-white/10"
            aria-controls={`${id}-slides`}
            aria-label="Previous quote"
            onClick={() => setIndex((i) => previousIndex(i, count))}
          >
            <svg aria-hidden="true" viewBox="0 0 20 20" className="size-5" fill="currentColor">
              <path d="M12.7 4.3a1 1 0 0 1 0 1.4L8.4 10l4.3 4.3a1 1 0 0 1-1.4 1.4l-5-5a1 1 0 0 1 0-1.4l5-5a1 1 0 0 1 1.4 0Z" />
            </svg>
          </button>
        )}
        <div className="flex items-center">
          {quotes.map((q, i) => (
            <button
              key={q.author}
              type="button"
              className="group grid size-6 place-items-center"
              aria-label={`Show quote ${i + 1}`}
              aria-current={i === index ? "true" : undefined}
              aria-controls={`${id}-slides`}
              onClick={() => setIndex(dotIndex(i, count))}
            >
              <span
                aria-hidden="true"
                className={`block size-2.5 rounded-full transition-colors ${
                  i === index ? "bg-white" : "bg-slate-500 group-hover:bg-slate-300"
                }`}
              />
            </button>
          ))}
        </div>
        {arrows && (
          <button
            type="button"
            className="rounded-full p-2 text-slate-200 hover:bg-white/10"
            aria-controls={`${id}-slides`}
            aria-label="Next quote"
            onClick={() => setIndex((i) => nextIndex(i, count))}
          >
            <svg aria-hidden="true" viewBox="0 0 20 20" className="size-5" fill="currentColor">
              <path d="M7.3 15.7a1 1 0 0 1 0-1.4l4.3-4.3-4.3-4.3a1 1 0 0 1 1.4-1.4l5 5a1 1 0 0 1 0 1.4l-5 5a1 1 0 0 1-1.4 0Z" />
            </svg>
          </button>
        )}
        <button
          type="button"
          className="ml-2 rounded-full border border-white/20 px-3 py-1 text-xs font-medium text-slate-200 hover:bg-white/10"
          onClick={() => setStopped((s) => !s)}
        >
          {stopped ? "Play quotes" : "Pause quotes"}
        </button>
      </div>
    </section>
  );
}
