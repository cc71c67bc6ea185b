/** Supabase Edge (Deno) entry of `billing-portal`: its environment checked at start, then its handler (functions/_shared/serve.ts). */
import { serve } from "../_shared/serve.ts";
import handler, { ENV } from "./handler.ts";

serve("billing-portal", handler, ENV);
