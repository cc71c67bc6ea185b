/** The localStorage key of the Supabase session, computed by the build from PUBLIC_SUPABASE_URL (astro.config.ts). */
declare const __SESSION_STORAGE_KEY__: string;
