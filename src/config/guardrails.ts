import { minimatch } from "minimatch";
import type { Guardrail } from "./schema.js";

/**
 * The guardrails that apply to a package: those without `packages`, and those with a glob matching the
 * package path (`apps/**` matches `apps/web` and `apps/web/api` but not `apps` itself; `apps/*` only
 * `apps/web`).
 */
export function guardrailsFor(packagePath: string, guardrails: readonly Guardrail[]): Guardrail[] {
  return guardrails.filter(
    (g) => !g.packages || g.packages.some((glob) => minimatch(packagePath, glob, { dot: true })),
  );
}

/** The name a guardrail's results are shown under: its `name`, or its image. */
export function guardrailName(g: Guardrail): string {
  return g.name ?? g.image;
}
