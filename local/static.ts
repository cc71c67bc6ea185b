// Serves the production build the way the static CDN does: pretty URLs (`/mindset` ->
// `mindset.html`), gzip for text, long caching for hashed assets, and the 404 page.
// Usage: node scripts/serve.mjs [--port 4321] [--dir dist]
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { createServer } from "node:http";
import { extname, join, normalize, resolve } from "node:path";
import { parseArgs } from "node:util";
import { createGzip } from "node:zlib";

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".xml": "application/xml; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".webp": "image/webp",
  ".avif": "image/avif",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
  ".webmanifest": "application/manifest+json",
};
const COMPRESSIBLE = new Set([".html", ".css", ".js", ".mjs", ".json", ".xml", ".txt", ".svg", ".webmanifest"]);

async function isFile(path) {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/** Maps a URL path to the built file that answers it, or null. */
export async function resolveFile(root, pathname) {
  let path;
  try {
    path = decodeURIComponent(pathname);
  } catch {
    return null;
  }
  const safe = normalize(path).replace(/^(\.\.[/\\])+/, "");
  const base = join(root, safe);
  if (!base.startsWith(root)) return null;
  const candidates = safe.endsWith("/") ? [join(base, "index.html")] : [base, `${base}.html`, join(base, "index.html")];
  for (const file of candidates) if (await isFile(file)) return file;
  return null;
}

/** A request handler for the static site; `next` answers what is not a file (404 by default). */
export function staticHandler(dir) {
  const root = resolve(dir);
  return async function handle(req, res) {
    const url = new URL(req.url ?? "/", "http://localhost");
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { allow: "GET, HEAD" }).end();
      return;
    }
    // Canonical URLs have no trailing slash; redirect like the CDN's pretty-URL rule does.
    if (url.pathname.length > 1 && url.pathname.endsWith("/")) {
      res.writeHead(301, { location: url.pathname.slice(0, -1) + url.search }).end();
      return;
    }
    let file = await resolveFile(root, url.pathname);
    let status = 200;
    if (!file) {
      file = join(root, "404.html");
      status = 404;
    }
    const ext = extname(file);
    const headers = {
      "content-type": TYPES[ext] ?? "application/octet-stream",
      "cache-control": url.pathname.startsWith("/_astro/")
        ? "public, max-age=31536000, immutable"
        : "public, max-age=0, must-revalidate",
      "x-content-type-options": "nosniff",
      vary: "accept-encoding",
    };
    const gzip = COMPRESSIBLE.has(ext) && /\bgzip\b/.test(String(req.headers["accept-encoding"] ?? ""));
    if (gzip) headers["content-encoding"] = "gzip";
    res.writeHead(status, headers);
    if (req.method === "HEAD") {
      res.end();
      return;
    }
    const stream = createReadStream(file);
    (gzip ? stream.pipe(createGzip()) : stream).pipe(res);
  };
}

const isMain = import.meta.url === `file://${process.argv[1]}`;
if (isMain) {
  const { values } = parseArgs({
    options: {
      port: { type: "string", default: process.env.PORT ?? "4321" },
      dir: { type: "string", default: "dist" },
    },
  });
  const server = createServer(staticHandler(values.dir));
  server.on("error", (error) => {
    if (error.code === "EADDRINUSE") {
      console.error(`Port ${values.port} is already in use. Stop the other server, or run with PORT=<free port>.`);
    } else {
      console.error(`Could not start the server: ${error.message}`);
    }
    process.exit(1);
  });
  server.listen(Number(values.port), () => {
    console.log(`Site: http://localhost:${values.port}`);
  });
}
