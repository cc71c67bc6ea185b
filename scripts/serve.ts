// Serves the production build alone, the way the static CDN does (packages/static-host/index.ts),
// without the local backend: for measuring the pages (`npm run bench` uses the same handler).
// Usage: node scripts/serve.ts [--port 4321] [--dir dist]
import { createServer } from "node:http";
import { parseArgs } from "node:util";
import { staticHandler } from "@advisor-accelerator/static-host";

const { values } = parseArgs({
  options: {
    port: { type: "string", default: process.env.PORT ?? "4321" },
    dir: { type: "string", default: "dist" },
  },
});
const server = createServer(staticHandler(values.dir));
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
