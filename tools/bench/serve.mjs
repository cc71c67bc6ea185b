// The built site served as the CDN serves it (gzip, pretty URLs; local/static.ts) on a free local
// port, for the bench's browsers.
import { createServer } from "node:http";
import { staticHandler } from "../../local/static.ts";

/** Starts serving `dist` on 127.0.0.1; returns its origin and a close() that ends every connection. */
export async function serveDist(dist) {
  const server = createServer(staticHandler(dist));
  server.keepAliveTimeout = 1000;
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  return {
    origin: `http://127.0.0.1:${server.address().port}`,
    close: async () => {
      server.closeAllConnections?.();
      await new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
