// Serves the production build alone, the way the static CDN does (packages/static-host/index.ts),
// without the local backend: for measuring the pages (`npm run bench` uses the same handler).
// `--host cloudflare` answers a page's file name (`/login.html`) as Cloudflare Pages does, with a
// redirect to the page; Netlify's way, the default, serves it as the page.
// Usage: node scripts/serve.ts [--port 4321] [--dir dist] [--host netlify|cloudflare]
import { createServer } from "node:http";
import { parseArgs } from "node:util";
import { HOSTS, staticHandler, type Host } from "@advisor-accelerator/static-host";

const { values } = parseArgs({
  options: {
    port: { type: "string", default: process.env.PORT ?? "4321" },
    dir: { type: "string", default: "dist" },
    host: { type: "string", default: "netlify" },
  },
});
if (!HOSTS.includes(values.host as Host)) {
  console.error(`--host must be one of ${HOSTS.join(", ")}, not "${values.host}"`);
  process.exit(1);
}
const server = createServer(staticHandler(values.dir, { host: values.host as Host }));
server.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EADDRINUSE") {
    console.error(`Port ${values.port} is already in use. Stop the other server, or run with PORT=<free port>.`);
  } else {
    console.error(`Could not start the server: ${error.message}`);
  }
  process.exit(1);
});
server.listen(Number(values.port), "127.0.0.1", () => {
  console.log(`Site: http://localhost:${values.port}`);
});
