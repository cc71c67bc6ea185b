/**
 * The quote carousel's only script before React loads (QuoteCarousel.tsx renders it into the
 * server's HTML, inside the carousel, where it runs as the page is parsed). Until React takes
 * over (the root gets data-enhanced), a click on a control ([data-go]: a slide's index, "next"
 * or "previous", both wrapping around) scrolls the track ([data-track]) to that slide, so a
 * reader's first click does its work however long React takes to arrive.
 */
export const TRACK_SCRIPT =
  "(function(r){var t=r.querySelector('[data-track]');r.addEventListener('click',function(e){" +
  "var b=e.target.closest('[data-go]');if(!b||r.hasAttribute('data-enhanced'))return;" +
  "var n=t.children.length,w=t.clientWidth,i=Math.round(Math.abs(t.scrollLeft)/w),g=b.getAttribute('data-go');" +
  "i=g==='next'?(i+1)%n:g==='previous'?(i+n-1)%n:+g;t.scrollTo({left:i*w})})})(document.currentScript.parentNode)";
