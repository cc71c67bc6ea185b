// The built site served as the CDN serves it (gzip, pretty URLs; packages/static-host/index.ts) on
// a free local port, for the bench's browsers.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { staticHandler } from "@advisor-accelerator/static-host";

/** A running server of a build: its origin, and close(), which ends every connection. */
export interface ServedSite {
  origin: string;
  close(): Promise<void>;
}

/** Starts serving `dist` on 127.0.0.1. */
export async function serveDist(dist: string): Promise<ServedSite> {
  const server = createServer(staticHandler(dist));
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
