// Builds a copy of the site whose content/site.yaml configures every third-party embed, and serves
// it. The real content leaves them empty until the business supplies them, so this is how the tests
// see the consultation form, the booking widget and the Wistia video in place. It is built for a
// production-like Supabase project URL too. It also answers the scheduling provider's stand-in
// (packages/local-stack/src/scheduling.ts) under /_scheduling/, its notifications kept in memory
// and dropped: embeds.spec.ts routes the provider's addresses there, so the frames are the real
// stand-in pages on another origin, speaking the height protocol as a provider's frame would.
// Usage: node tests/e2e/fixture-site.ts --port 4398
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { parseArgs } from "node:util";
import { createMailer, handleScheduling, SCHEDULING_PATH } from "@advisor-accelerator/local-stack";
import { staticHandler } from "@advisor-accelerator/static-host";
import { TEST_BUILD } from "../support/example-project.ts";

/** A production-like Supabase project URL: the built pages must carry its session key, not the URL. */
export const SUPABASE_URL = "https://fixtureproject.supabase.co";

export const EMBEDS = {
  consultationFormUrl: "https://forms.scheduling-provider.test/widget/form/consult?source=site",
  bookingWidgetUrl: "https://forms.scheduling-provider.test/widget/booking/strategy-call",
  bookingScriptUrl: "https://forms.scheduling-provider.test/js/form_embed.js",
  wistiaOsMediaId: "abc123xyz",
};

const { values } = parseArgs({ options: { port: { type: "string", default: "4398" } } });
const root = join(import.meta.dirname, "../..");
const dir = mkdtempSync(join(tmpdir(), "fixture-site-"));
// packages/shared/: the site imports what it shares with the functions (the checkout and lead requests) from there.
for (const entry of [
  "src",
  "content",
  "public",
  "packages/shared",
  "astro.config.ts",
  "package.json",
  "tsconfig.json",
]) {
  cpSync(join(root, entry), join(dir, entry), { recursive: true });
}
symlinkSync(join(root, "node_modules"), join(dir, "node_modules"));

const sitePath = join(dir, "content/site.yaml");
let site = readFileSync(sitePath, "utf8");
for (const [key, value] of Object.entries(EMBEDS)) {
  const before = site;
  site = site.replace(new RegExp(`(\\n\\s+${key}: )"[^"]*"`), `$1"${value}"`);
  if (site === before) throw new Error(`content/site.yaml has no empty ${key} to configure`);
}
writeFileSync(sitePath, site);

// Its own cache folder: Astro keeps the content store of a build in cacheDir, node_modules/.astro
// by default, which the symlink above would share with the local stack's build of the real
// content, running at the same time; the other build could then read these embeds.
writeFileSync(
  join(dir, "astro.fixture.config.mjs"),
  'import config from "./astro.config.ts";\nexport default { ...config, cacheDir: "./.astro-cache", vite: { ...config.vite, cacheDir: "./.vite-cache" } };\n',
);

execFileSync(
  process.execPath,
  [join(root, "node_modules/astro/bin/astro.mjs"), "build", "--config", "astro.fixture.config.mjs"],
  {
    cwd: dir,
    stdio: ["ignore", "ignore", "inherit"],
    env: {
      ...process.env,
      ...TEST_BUILD,
      ASTRO_TELEMETRY_DISABLED: "1",
      PUBLIC_SUPABASE_URL: SUPABASE_URL,
    },
  },
);

const serveSite = staticHandler(join(dir, "dist"));
const mail = createMailer();
/** The scheduling stand-in, as the local stack answers it (packages/local-stack/src/stack.ts), or the built site. */
const server = createServer(async (req, res) => {
  if (!(req.url ?? "/").startsWith(`${SCHEDULING_PATH}/`)) return serveSite(req, res);
  const body = req.method === "GET" || req.method === "HEAD" ? undefined : (Readable.toWeb(req) as ReadableStream);
  const headers = Object.entries(req.headers).flatMap(([name, value]) =>
    [value ?? []].flat().map((v): [string, string] => [name, v]),
  );
  // `duplex` streams the body in; the DOM's RequestInit (TypeScript's lib) does not name it yet.
  const request = new Request(`http://localhost:${values.port}${req.url}`, {
    method: req.method,
    headers,
    body,
    duplex: "half",
  } as RequestInit);
  const response = await handleScheduling(request, mail, "leads@fixture.test").catch((error) => {
    console.error(error);
    return new Response("Internal server error", { status: 500 });
  });
  if (!response) {
    res.writeHead(404, { "content-type": "text/plain" }).end("Not found");
    return;
  }
  res.writeHead(response.status, Object.fromEntries(response.headers));
  res.end(Buffer.from(await response.arrayBuffer()));
});
server.listen(Number(values.port), () => console.log(`Fixture site: http://localhost:${values.port}`));
const cleanUp = () => {
  server.close();
  rmSync(dir, { recursive: true, force: true });
  process.exit(0);
};
process.on("SIGTERM", cleanUp);
process.on("SIGINT", cleanUp);
