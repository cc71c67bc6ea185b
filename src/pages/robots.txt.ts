import type { APIRoute } from "astro";

export const GET: APIRoute = ({ site }) => {
  const sitemap = new URL("sitemap.xml", site);
  return new Response(`User-agent: *\nAllow: /\nDisallow: /portal\nDisallow: /checkout\n\nSitemap: ${sitemap.href}\n`, {
    headers: { "content-type": "text/plain; charset=utf-8" },
  });
};
