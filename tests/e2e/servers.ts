/**
 * The sites the end-to-end tests run against (playwright.config.ts starts them): what
 * `npm start` serves (the default base URL), the production build as the CDN serves it, and a
 * production-like build with every third-party embed configured (fixture-site.ts).
 */
const port = Number(process.env.E2E_PORT ?? 4399);

export const LOCAL_SITE = `http://localhost:${port}`;
export const FIXTURE_SITE = `http://localhost:${port - 1}`;
export const PRODUCTION_SITE = `http://localhost:${port - 2}`;
