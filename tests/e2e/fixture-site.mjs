// Builds a copy of the site whose content/site.yaml configures every third-party embed, and
// serves it. The real content leaves them empty until the business supplies them, so this is
// how the tests see the consultation form, the booking widget and the Wistia video in place.
// It is built for a production-like Supabase project URL too.
// Usage: node tests/e2e/fixture-site.mjs --port 4398
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { staticHandler } from "../../local/static.ts";

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
// functions/: the checkout island builds its request with functions/_shared/checkout-request.ts.
for (const entry of ["src", "content", "public", "functions", "astro.config.mjs", "package.json", "tsconfig.json"]) {
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
  'import config from "./astro.config.mjs";\nexport default { ...config, cacheDir: "./.astro-cache" };\n',
);

execFileSync(
  process.execPath,
  [join(root, "node_modules/astro/bin/astro.mjs"), "build", "--config", "astro.fixture.config.mjs"],
  {
    cwd: dir,
    stdio: ["ignore", "ignore", "inherit"],
    env: { ...process.env, ASTRO_TELEMETRY_DISABLED: "1", PUBLIC_SUPABASE_URL: SUPABASE_URL },
  },
);

const server = createServer(staticHandler(join(dir, "dist")));
server.listen(Number(values.port), () => console.log(`Fixture site: http://localhost:${values.port}`));
const cleanUp = () => {
  server.close();
  rmSync(dir, { recursive: true, force: true });
  process.exit(0);
};
process.on("SIGTERM", cleanUp);
process.on("SIGINT", cleanUp);
