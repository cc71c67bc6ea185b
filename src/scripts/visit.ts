/**
 * Runs on every page: records the visit's first touch (UTM parameters, referrer, landing page)
 * and defines <lead-embed>, which loads a provider's frame with that attribution appended.
 * One small module, so no page waits on a second request for it.
 */
import { recordVisit, withAttribution } from "~/lib/attribution";

const attribution = recordVisit();

/** The tallest a frame may ask to be, in CSS pixels; past it the frame scrolls. */
const MAX_HEIGHT = 4000;

/**
 * <lead-embed data-src="…" data-script="…"><iframe height="600"></iframe></lead-embed>
 *
 * Height protocol: on every load of the frame (each page the frame navigates to), the element
 * posts `{type: "embed:measure"}` to it, addressed to the embed URL's origin; the frame answers
 * `{type: "embed:height", height}` (its document's height in CSS pixels) and posts the same
 * whenever that height changes. The frame's height follows, never less than the height the page
 * reserved (the iframe's height attribute, [lead].astro) nor more than MAX_HEIGHT. The page asks
 * and the frame answers, so there is no race: this listens before the frame has a src, and the
 * frame is listening by its load. A message counts only from this frame's window, from the embed's
 * origin, of that type and with a finite height. The local stand-in (packages/local-stack/src/scheduling.ts) speaks
 * it; a provider that does not ignores the ask and resizes its frame with its own script
 * (data-script, loaded here), or leaves it at the reserved height.
 */
class LeadEmbed extends HTMLElement {
  connectedCallback() {
    const frame = this.querySelector("iframe");
    const src = this.dataset.src;
    if (!frame || !src) return;
    const url = withAttribution(src, attribution);
    const origin = new URL(url).origin;
    const reserved = Number(frame.getAttribute("height")) || 0;
    addEventListener("message", (event) => {
      const data: unknown = event.data;
      if (event.source !== frame.contentWindow || event.origin !== origin) return;
      if (typeof data !== "object" || data === null) return;
      const { type, height } = data as { type?: unknown; height?: unknown };
      if (type !== "embed:height" || typeof height !== "number" || !Number.isFinite(height)) return;
      frame.style.height = `${Math.min(MAX_HEIGHT, Math.max(reserved, Math.ceil(height)))}px`;
    });
    frame.addEventListener("load", () => frame.contentWindow?.postMessage({ type: "embed:measure" }, origin));
    frame.src = url;
    const scriptUrl = this.dataset.script;
    if (scriptUrl) {
      const script = document.createElement("script");
      script.src = scriptUrl;
      script.async = true;
      script.onerror = () => console.warn("Failed to load the booking widget script");
      document.body.append(script);
    }
  }
}
customElements.define("lead-embed", LeadEmbed);
