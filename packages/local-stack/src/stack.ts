/**
 * The local stack: one HTTP server that serves the built site and the Supabase API the product
 * calls (`/auth/v1`, `/rest/v1`, `/storage/v1`, `/functions/v1`) plus the mail outbox, over
 * embedded Postgres (PGlite) in a data folder, or a PostgreSQL server when a URL is given; and a
 * stand-in for the part of Stripe the product uses (`/v1/...`, `/_local/stripe`;
 * packages/local-stack/src/stripe/), and one for Resend's send API (`/_local/resend`;
 * packages/local-stack/src/resend.ts), which the functions' own e-mails go through into the outbox.
 * Settings come from supabase/config.toml (packages/local-stack/src/config.ts). It listens on
 * 127.0.0.1 unless told otherwise: its API keys are signed with the Supabase CLI's public demo
 * secret. `npm start` runs it through packages/local-stack/start.ts; the integration tests start it
 * in-process. Dev and test only: production is Supabase.
 */
import { readFileSync, rmSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { isIP, type AddressInfo } from "node:net";
import { join } from "node:path";
import { Readable } from "node:stream";
import { handleAuth } from "./auth/index.ts";
import { type ConfigOverrides, loadConfig, type StackConfig } from "./config.ts";
import { makePrivateFolder, tightenDataFolder, tightenFolder, writePrivateFileSync } from "./data-folder.ts";
import { type Database, migrate, openDatabase } from "./db.ts";
import { handleFunctions } from "./functions.ts";
import { type Context, json } from "./http.ts";
import { createSigner, type Signer } from "./jwt.ts";
import { isLocalHost, misdirected } from "./local-host.ts";
import { createMailer, type Mailer, OUTBOX_PATH, outboxPage } from "./mail.ts";
import { handleRest } from "./postgrest/index.ts";
import { type Product, readProduct } from "./product.ts";
import { PROJECT_ROOT } from "./project.ts";
import { createResend, type ResendOptions, type ResendService, type ResendStandIn } from "./resend.ts";
import { businessAddress, businessName, handleScheduling, SCHEDULING_PATH } from "./scheduling.ts";
import { staticHandler } from "@advisor-accelerator/static-host";
import { handleStorage } from "./storage.ts";
import { handleWistia, WISTIA_PATH } from "./wistia.ts";
import {
  createStripe,
  STRIPE_API_PREFIX,
  type StripeOptions,
  type StripeService,
  type StripeStandIn,
} from "./stripe/index.ts";

const root = PROJECT_ROOT;

/** The demo customer supabase/seed.sql creates, with the password it sets. */
export const DEMO_USER = { email: "demo@advisoraccelerator.com", password: "advisor-demo-2026" };

/** The demo admin supabase/seed.sql puts on the team, with the password it sets. */
export const DEMO_STAFF = { email: "team@advisoraccelerator.com", password: "advisor-team-2026" };

/** Pages of the stack itself (the outbox): answered to this machine only. */
export const LOCAL_PATH = "/_local";

/** The functions' sender on the local stack, unless MAIL_FROM is set. */
export const localMailFrom = (root = PROJECT_ROOT) => `${businessName(root)} <team@advisor-accelerator.local>`;

export interface StackOptions {
  /** Port to listen on; 0 picks a free one. */
  port?: number;
  /**
   * Address to listen on; default 127.0.0.1, this machine only. Another address lets other
   * machines act as any user: the keys are the Supabase CLI's public demo keys.
   */
  listen?: string;
  /** Data folder for PGlite, bucket files, mail and keys; without one everything is in memory. */
  dataDir?: string;
  /** PostgreSQL server to use instead of PGlite. */
  databaseUrl?: string;
  /** The built site to serve; without one, non-API paths answer 404. */
  siteDir?: string;
  /** Folder of the functions `/functions/v1/<name>` runs; default `functions/`. */
  functionsDir?: string;
  /** Apply supabase/seed.sql to a new database; default true. */
  seed?: boolean;
  /** Changes to the settings supabase/config.toml gives (tests). */
  config?: ConfigOverrides;
  /** Where the scheduling stand-in sends lead notifications; default content/site.yaml's contact e-mail. */
  leadsTo?: string;
  /** The Stripe stand-in's settings: webhook retry delays and timeout (tests), the catalogue. */
  stripe?: StripeOptions;
  /** The Resend stand-in's settings: its rate limit (tests lower or raise it). */
  resend?: ResendOptions;
  /**
   * Secrets for the functions, as `supabase secrets set` gives them, over the environment's and
   * the stack's own (tests and the bench raise RATE_LIMIT_SCALE this way).
   */
  secrets?: Record<string, string>;
}

export interface Stack {
  url: string;
  port: number;
  /** The settings it runs with: supabase/config.toml and the overrides. */
  config: StackConfig;
  anonKey: string;
  serviceKey: string;
  db: Database;
  mail: Mailer;
  signer: Signer;
  outboxUrl: string;
  /** The Stripe stand-in: its keys, the dashboard's steps, the webhook delivery log. */
  stripe: StripeStandIn;
  /** The Resend stand-in: its API key and address (RESEND_API_KEY, RESEND_API_URL). */
  resend: ResendStandIn;
  close(): Promise<void>;
}

const API_PREFIXES = ["/auth/v1", "/rest/v1", "/storage/v1", "/functions/v1"];

/**
 * Headers Supabase's gateway adds to every auth, REST and storage answer, and answers their
 * preflight requests with. Functions get none: each function answers its own preflight.
 */
function corsHeaders(request: Request): Record<string, string> {
  return {
    "access-control-allow-origin": "*",
    "access-control-allow-methods": "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS",
    "access-control-allow-headers":
      request.headers.get("access-control-request-headers") ??
      "authorization, x-client-info, apikey, content-type, x-upsert, prefer, accept-profile, content-profile",
    "access-control-expose-headers": "content-range, content-location, x-supabase-api-version",
    "access-control-max-age": "86400",
  };
}

export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const functionsDir = options.functionsDir ?? join(root, "functions");
  // Read now, not at load (./product.ts); a stale catalogue stops the start here, before anything opens.
  const product: Product = await readProduct(functionsDir);
  const dataDir = options.dataDir ?? "";
  if (dataDir) makePrivateFolder(dataDir);
  const unlock = dataDir ? lockDataDir(dataDir) : () => undefined;
  if (dataDir) {
    // Everything in it is private (packages/local-stack/src/data-folder.ts); a folder an earlier
    // version wrote was not.
    const changed = tightenDataFolder(dataDir);
    if (changed > 0) {
      console.log(
        `${dataDir}: made ${changed} of its files and folders private to this user (folders 0700, files 0600): others could read or write them.`,
      );
    }
  }
  const db = await openDatabase({
    url: options.databaseUrl,
    dataDir: dataDir ? join(dataDir, "pglite") : undefined,
  }).catch((error: unknown) => {
    unlock();
    throw error;
  });
  // A new PGlite database comes out of its archive world-writable; what Postgres writes later is 0600.
  if (dataDir && !options.databaseUrl) tightenFolder(join(dataDir, "pglite"));
  const applied = await migrate(db).catch(async (error: unknown) => {
    await db.close();
    unlock();
    throw error;
  });
  if (options.seed !== false && applied.length > 0 && applied[0] === (await firstMigration())) {
    await db.exec(await readFile(join(root, "supabase/seed.sql"), "utf8"));
  }

  const signer = createSigner({ dataDir: dataDir || undefined });
  const mail = createMailer(dataDir || undefined);
  const serveSite = options.siteDir ? staticHandler(options.siteDir) : undefined;
  const leadsTo = options.leadsTo ?? businessAddress(root);

  const listen = options.listen ?? "127.0.0.1";
  const server = createServer();
  let config: StackConfig;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(options.port ?? 0, listen, () => resolve());
    });
    const port = (server.address() as AddressInfo).port;
    const url = `http://${publicHost(listen)}:${port}`;
    // When the stack serves the site, the site is here, whatever port it was given.
    config = loadConfig(
      url,
      options.siteDir ? { ...options.config, auth: { siteUrl: url, ...options.config?.auth } } : options.config,
    );
  } catch (error) {
    server.close();
    await db.close();
    unlock();
    throw error;
  }
  const { url } = config;
  const port = (server.address() as AddressInfo).port;
  let stripe: StripeService;
  let resend: ResendService;
  try {
    resend = createResend({ ...options.resend, url, dataDir: dataDir || undefined, mail });
    stripe = createStripe({ ...options.stripe, url, dataDir: dataDir || undefined, mail });
  } catch (error) {
    server.close();
    await db.close();
    unlock();
    throw error;
  }
  // The functions use the stand-ins unless a real Stripe or Resend key is set (then that one
  // runs unused), and send as the business unless MAIL_FROM is set. Their Stripe key is the
  // restricted one DEPLOY.md prescribes for them, so a call it does not permit fails here first.
  const functionEnv = (): Record<string, string> => ({
    SITE_URL: config.auth.siteUrl,
    ...(process.env.STRIPE_SECRET_KEY?.trim()
      ? {}
      : {
          STRIPE_SECRET_KEY: stripe.handle.functionsKey,
          STRIPE_API_URL: url,
          STRIPE_WEBHOOK_SECRET: stripe.handle.webhookSecret,
          // Each coached offer's buyer on a test clock of their own (docs/coached-offers.md).
          STRIPE_TEST_CLOCKS: "1",
        }),
    ...(process.env.RESEND_API_KEY?.trim()
      ? {}
      : { RESEND_API_KEY: resend.handle.apiKey, RESEND_API_URL: resend.handle.apiUrl }),
    ...(process.env.MAIL_FROM?.trim() ? {} : { MAIL_FROM: localMailFrom(root) }),
    // Sample offers may be sent, as the local site shows sample content, labelled.
    ALLOW_SAMPLE_CONTENT: "1",
    ...options.secrets,
  });

  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? "/").split("?")[0]!;
    const api = API_PREFIXES.find((prefix) => path === prefix || path.startsWith(`${prefix}/`));
    if (path === STRIPE_API_PREFIX || path.startsWith(`${STRIPE_API_PREFIX}/`)) {
      void answer(req, res, (request) => stripe.api(request));
      return;
    }
    if (path.startsWith(`${WISTIA_PATH}/`)) {
      void answer(req, res, async (request) => handleWistia(request) ?? notFound());
      return;
    }
    if (path.startsWith(`${SCHEDULING_PATH}/`)) {
      void answer(req, res, async (request) => (await handleScheduling(request, mail, leadsTo)) ?? notFound());
      return;
    }
    if (!api && path !== LOCAL_PATH && !path.startsWith(`${LOCAL_PATH}/`)) {
      if (serveSite) void serveSite(req, res);
      else res.writeHead(404, { "content-type": "text/plain" }).end("Not found");
      return;
    }
    const ip = req.socket.remoteAddress ?? "";
    const context: Context = { db, signer, mail, config, dataDir, ip };
    void answer(req, res, async (request) => {
      if (!api) {
        if (!isLoopback(ip))
          return new Response("Not found", { status: 404, headers: { "content-type": "text/plain" } });
        // A page of another domain rebound to this machine is refused (./local-host.ts).
        if (!isLocalHost(req.headers.host, listen)) return misdirected(req.headers.host, listen);
        return (
          (await resend.answer(request)) ??
          (await stripe.page(request)) ??
          outboxPage(path, mail) ??
          new Response("Not found", { status: 404 })
        );
      }
      if (api === "/functions/v1")
        return handleFunctions(request, context, functionsDir, product.envProblems, functionEnv());
      const cors = corsHeaders(request);
      if (request.method === "OPTIONS") return new Response(null, { status: 204, headers: cors });
      const response = await route(api, request, context);
      for (const [name, value] of Object.entries(cors))
        if (!response.headers.has(name)) response.headers.set(name, value);
      return response;
    });
  });

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      await stripe.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await db.close();
      await mail.close();
      unlock();
    })();
    return closing;
  };
  if (options.stripe?.catalogue !== false) {
    // The programs and coached offers on sale, as `npm run stripe:setup -- --archive` makes them at
    // Stripe (idempotent): the local functions always carry the current catalogue, so old prices are
    // archived at once.
    const client = product.stripeClient({ STRIPE_SECRET_KEY: stripe.handle.secretKey, STRIPE_API_URL: url });
    await product
      .setupCatalogue(client, product.catalogue, { archive: true })
      .then(() => product.setupOffers(client, product.offers, product.catalogue, { archive: true }))
      .catch(async (error: unknown) => {
        await close();
        throw error;
      });
  }
  return {
    url,
    port,
    config,
    anonKey: signer.anonKey,
    serviceKey: signer.serviceKey,
    db,
    mail,
    signer,
    outboxUrl: `${url}${OUTBOX_PATH}`,
    stripe: stripe.handle,
    resend: resend.handle,
    /** Stops serving and closes the database; calling it again does nothing. */
    close,
  };
}

const notFound = () => new Response("Not found", { status: 404, headers: { "content-type": "text/plain" } });

function route(api: string, request: Request, context: Context): Promise<Response> {
  if (api === "/auth/v1") return handleAuth(request, context);
  if (api === "/rest/v1") return handleRest(request, context);
  return handleStorage(request, context);
}

/** True for an address of this machine's loopback interface (127.0.0.0/8, ::1, and their IPv4-mapped forms). */
export function isLoopback(address: string): boolean {
  const v4 = address.startsWith("::ffff:") ? address.slice(7) : address;
  return v4.startsWith("127.") || address === "::1";
}

/** True for an address that accepts connections from other machines. */
export function isExposed(listen: string): boolean {
  return !isLoopback(listen) && listen !== "localhost";
}

/** The host name of the stack's public URL for the address it listens on. */
function publicHost(listen: string): string {
  if (isLoopback(listen) || listen === "0.0.0.0" || listen === "::" || listen === "localhost") return "localhost";
  return isIP(listen) === 6 ? `[${listen}]` : listen;
}

/** Turns the Node request into a Web Request, and the handler's Response back. */
/**
 * A request's body as a web stream that a handler may stop reading early, or leave unread, as the
 * functions do with a body over their limit (functions/_shared/body.ts). `discard` reads the rest
 * and drops it once the handler has answered, so the client still gets the answer instead of a
 * reset connection. (Node's own `Readable.toWeb` keeps pushing into a cancelled stream and throws
 * an uncaught ERR_INVALID_STATE, which would take the whole stack down.)
 */
function bodyStream(req: IncomingMessage): { stream: ReadableStream<Uint8Array>; discard: () => void } {
  let dropped = false;
  const discard = () => {
    dropped = true;
    req.resume();
  };
  const stream = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        req.on("data", (chunk: Buffer) => {
          if (dropped) return;
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          if ((controller.desiredSize ?? 1) <= 0) req.pause();
        });
        req.on("end", () => {
          if (!dropped) controller.close();
        });
        req.on("error", (error) => {
          if (!dropped) controller.error(error);
        });
      },
      pull() {
        req.resume();
      },
      cancel: discard,
    },
    { highWaterMark: 16 * 1024, size: (chunk) => chunk.byteLength },
  );
  return { stream, discard };
}

async function answer(req: IncomingMessage, res: ServerResponse, handle: (request: Request) => Promise<Response>) {
  let response: Response;
  try {
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (Array.isArray(value)) value.forEach((v) => headers.append(name, v));
      else if (value !== undefined) headers.set(name, value);
    }
    const body = req.method !== "GET" && req.method !== "HEAD" ? bodyStream(req) : undefined;
    const request = new Request(`http://${req.headers.host ?? "localhost"}${req.url ?? "/"}`, {
      method: req.method,
      headers,
      body: body?.stream,
      duplex: "half",
    } as RequestInit);
    response = await handle(request);
    body?.discard();
  } catch (error) {
    console.error(error);
    response = json({ message: "Internal server error" }, 500);
  }
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  res.writeHead(response.status, headers);
  if (!response.body || req.method === "HEAD") {
    res.end();
    return;
  }
  Readable.fromWeb(response.body as never).pipe(res);
}

/**
 * Embedded Postgres must have one process at a time: refuses a data folder another live stack
 * holds (a lock left by a process that died is taken over). Answers the unlock.
 */
function lockDataDir(dataDir: string): () => void {
  const file = join(dataDir, "stack.lock");
  let holder = 0;
  try {
    holder = Number(readFileSync(file, "utf8"));
  } catch {
    // No lock: the folder is free.
  }
  if (holder && holder !== process.pid && alive(holder)) {
    throw new Error(
      `${dataDir} is in use by another local stack (process ${holder}). Stop it first, or use another data folder (DATA_DIR).`,
    );
  }
  writePrivateFileSync(file, String(process.pid));
  return () => rmSync(file, { force: true });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

async function firstMigration(): Promise<string> {
  return (await readdir(join(root, "supabase/migrations"))).filter((f) => /^\d+_.+\.sql$/.test(f)).sort()[0]!;
}

/** What `npm start` and `npm run dev` print when asked to listen beyond this machine; null when they do not. */
export function exposedWarning(listen: string | undefined): string | null {
  if (!listen || !isExposed(listen)) return null;
  return [
    `WARNING: the local stack is listening on ${listen}, reachable from other machines.`,
    "Its API keys are signed with the Supabase CLI's public demo secret: anyone who can reach this",
    "port can sign requests as any user, or as the service role, and read or change every row and file.",
    "Use it only on a network you trust, and unset HOST to listen on 127.0.0.1 again.",
  ].join("\n");
}
