/**
 * Runs on every page: records the visit's first touch (UTM parameters, referrer, landing page)
 * and defines <lead-embed>, which loads a provider's frame with that attribution appended.
 * One small module, so no page waits on a second request for it.
 */
import { recordVisit, withAttribution } from "../lib/attribution";

const attribution = recordVisit();

class LeadEmbed extends HTMLElement {
  connectedCallback() {
    const frame = this.querySelector("iframe");
    const src = this.dataset.src;
    if (!frame || !src) return;
    frame.src = withAttribution(src, attribution);
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
