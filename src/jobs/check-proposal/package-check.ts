import type { CheckAnnotation } from "../../lifecycle/check-run.js";
import type { Conclusion } from "../check-report.js";

/** One package's part of a proposal check. */
export interface PackageCheck {
  pkg: string;
  ok: boolean;
  /** A line for the summary, e.g. `apps/web: rendered output matches`. */
  line: string;
  annotations: CheckAnnotation[];
  /** The resources the package holds, when it was rendered. */
  resources?: number;
  /** The package holds more resources than allowed: nothing ran. */
  tooManyResources?: { found: number; max: number };
}

/** The packages' parts as one check run: failing if any package fails. */
export function combineChecks(
  what: string,
  parts: readonly PackageCheck[],
): { conclusion: Conclusion; title: string; summary: string; annotations: CheckAnnotation[] } {
  const failing = parts.filter((p) => !p.ok);
  const title =
    failing.length === 0
      ? `${what}: ${parts.length === 1 ? "1 package" : `${parts.length} packages`} passed`
      : `${what}: ${failing.map((p) => p.pkg).join(", ")} failed`;
  return {
    conclusion: failing.length === 0 ? "success" : "failure",
    title,
    summary: parts.map((p) => `- ${p.ok ? "✅" : "❌"} ${p.line}`).join("\n"),
    annotations: parts.flatMap((p) => p.annotations),
  };
}
