/** Supabase Edge (Deno) entry of `offer`: its environment checked at start, then its handler (functions/_shared/serve.ts). */
import { serve } from "../_shared/serve.ts";
import handler, { ENV } from "./handler.ts";

serve("offer", handler, ENV);
