/**
 * The project the stack stands in for: the repository this package lives in
 * (packages/local-stack/src/ is three levels down). The stack reads it as the hosted services
 * would be given it: supabase/ (migrations, config.toml, templates, seed), functions/ (the
 * handlers it runs), content/site.yaml (the business), and runs its commands (scripts/, Astro).
 */
import { join } from "node:path";

export const PROJECT_ROOT = join(import.meta.dirname, "..", "..", "..");
