/** The catalogue as the portal's islands take it: a few facts per program (small props). */
import { getPrograms } from "../../lib/content";
import type { PortalProgram } from "./logic";

export async function portalPrograms(): Promise<PortalProgram[]> {
  return (await getPrograms()).map((p) => ({
    key: p.checkoutKey,
    name: p.name,
    page: p.page,
    image: p.image,
    imageAlt: p.imageAlt,
    description: p.description,
  }));
}
