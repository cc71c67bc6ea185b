import { useCallback, useEffect, useId, useLayoutEffect, useRef, useState } from "react";
import { dotIndex, nextIndex, previousIndex } from "~/lib/carousel";
import { usePrefersReducedMotion } from "~/lib/useReducedMotion";
import { TRACK_SCRIPT } from "./track-script";

export interface Quote {
  quote: string;
  author: string;
  role: string;
}

interface Props {
  /** Accessible name of the carousel region. */
  label: string;
  quotes: Quote[];
  /** Milliseconds between slides (docs/product.md, Business constants and limits: 8000). */
  intervalMs?: number;
  /** Show previous and next buttons as well as the dots. */
  arrows?: boolean;
}

/**
 * How far the island has come. "track" is the server's HTML, which works before React loads:
 * the slides sit side by side in a scroll-snap track that a reader can swipe or scroll (with no
 * JavaScript at all), and the few lines of TRACK_SCRIPT (track-script.ts) make the dots and
 * arrows scroll it. On
 * hydration the island reads which slide the track shows and becomes the rotating carousel
 * ("stack": the slides in one grid cell), then turns its fades on a frame later ("live"), so the
 * slides it hides on arrival vanish at once instead of fading over each other.
 */
type Mode = "track" | "stack" | "live";

/** The slide a track shows: the one its scroll position is nearest. */
function shownSlide(track: HTMLElement | null, count: number): number {
  if (!track || track.clientWidth === 0) return 0;
  return dotIndex(Math.round(Math.abs(track.scrollLeft) / track.clientWidth), count);
}

/**
 * A rotating quote carousel. It advances on its interval unless the visitor hovers it, moves
 * focus into it, pauses it, or prefers reduced motion. Every slide is laid out in the same grid
 * cell, so the tallest quote sets the height and nothing shifts when slides change.
 */
export default function QuoteCarousel({ label, quotes, intervalMs = 8000, arrows = false }: Props) {
  const count = quotes.length;
  const [mode, setMode] = useState<Mode>("track");
  const [index, setIndex] = useState(0);
  const [hovered, setHovered] = useState(false);
  const [focused, setFocused] = useState(false);
  const [stopped, setStopped] = useState(false);
  const reducedMotion = usePrefersReducedMotion();
  const enhanced = mode !== "track";
  const rotating = enhanced && !hovered && !focused && !stopped && !reducedMotion && count > 1;
  // Ids start with a letter (React's own start with "_").
  const id = `carousel${useId()}`;
  const root = useRef<HTMLElement>(null);
  const track = useRef<HTMLDivElement>(null);

  // Hydrated: keep the slide the reader went to before React loaded, and become the carousel
  // before the browser paints again.
  useLayoutEffect(() => {
    setIndex(shownSlide(track.current, count));
    setMode("stack");
  }, [count]);

  useEffect(() => {
    if (mode !== "stack") return;
    const frame = window.requestAnimationFrame(() => setMode("live"));
    return () => window.cancelAnimationFrame(frame);
  }, [mode]);

  useEffect(() => {
    if (!rotating) return;
    const timer = window.setInterval(() => setIndex((i) => nextIndex(i, count)), intervalMs);
    return () => window.clearInterval(timer);
  }, [rotating, count, intervalMs]);

  const onBlur = useCallback((event: React.FocusEvent) => {
    if (!root.current?.contains(event.relatedTarget as Node | null)) setFocused(false);
  }, []);

  if (count === 0) return null;

  const slidesId = `${id}-slides`;

  return (
    <section
      ref={root}
      aria-roledescription="carousel"
      aria-label={label}
      // lazy-render (src/styles/global.css): laid out only near the viewport, and with the page's
      // critical CSS alone (before the stylesheet arrives) its track cannot widen the page.
      className="lazy-render mx-auto max-w-4xl"
      data-enhanced={enhanced ? "" : undefined}
      onMouseEnter={() => setHovered(true)}
      onMouseLeave={() => setHovered(false)}
      onFocus={() => setFocused(true)}
      onBlur={onBlur}
    >
      {/* Until hydration, the track: scrollable (so focusable, for the keyboard, its focus ring inside the carousel's clip), without a scrollbar. */}
      <div
        ref={track}
        data-track=""
        tabIndex={enhanced ? undefined : 0}
        className={
          enhanced
            ? "grid"
            : "flex snap-x snap-mandatory overflow-x-auto overscroll-x-contain [scrollbar-width:none] focus-visible:-outline-offset-2 [&::-webkit-scrollbar]:hidden"
        }
        aria-live={rotating ? "off" : "polite"}
        id={slidesId}
      >
        {quotes.map((q, i) => {
          const hidden = enhanced && i !== index;
          return (
            <div
              key={q.author}
              role="group"
              aria-roledescription="slide"
              aria-label={`${i + 1} of ${count}`}
              aria-hidden={hidden || undefined}
              inert={hidden}
              className={
                enhanced
                  ? `col-start-1 row-start-1 text-center ${mode === "live" ? "transition-opacity duration-700" : ""} ${
                      hidden ? "pointer-events-none opacity-0" : "opacity-100"
                    }`
                  : "w-full shrink-0 snap-start text-center"
              }
            >
              <figure>
                <blockquote className="text-xl leading-relaxed text-white sm:text-2xl">
                  <p>{`“${q.quote}”`}</p>
                </blockquote>
                <figcaption className="mt-6 text-base">
                  <span className="font-semibold text-white">{q.author}</span>
                  <span className="text-slate-300">{`, ${q.role}`}</span>
                </figcaption>
              </figure>
            </div>
          );
        })}
      </div>
      <div className="mt-8 flex items-center justify-center gap-3">
        {arrows && (
          <button
            type="button"
            className="rounded-full p-2 text-slate-200 hover:bg-white/10"
            aria-controls={slidesId}
            aria-label="Previous quote"
            data-go="previous"
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
              aria-controls={slidesId}
              data-go={i}
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
            aria-controls={slidesId}
            aria-label="Next quote"
            data-go="next"
            onClick={() => setIndex((i) => nextIndex(i, count))}
          >
            <svg aria-hidden="true" viewBox="0 0 20 20" className="size-5" fill="currentColor">
              <path d="M7.3 15.7a1 1 0 0 1 0-1.4l4.3-4.3-4.3-4.3a1 1 0 0 1 1.4-1.4l5 5a1 1 0 0 1 0 1.4l-5 5a1 1 0 0 1-1.4 0Z" />
            </svg>
          </button>
        )}
        {/* Nothing rotates before hydration, so there is nothing to pause until then. */}
        <button
          type="button"
          className={`ml-2 rounded-full border border-white/20 px-3 py-1 text-xs font-medium text-slate-200 hover:bg-white/10 ${
            enhanced ? "" : "invisible"
          }`}
          onClick={() => setStopped((s) => !s)}
        >
          {stopped ? "Play quotes" : "Pause quotes"}
        </button>
      </div>
      {!enhanced && <script dangerouslySetInnerHTML={{ __html: TRACK_SCRIPT }} />}
    </section>
  );
}
