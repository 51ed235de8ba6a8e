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
  /** Not failing, not passed: functions were held back until a maintainer vouches for the content. */
  pending?: boolean;
}

/**
 * The packages' parts as one check run: failing if any package fails, else waiting for a maintainer
 * (action required, which publishing does not take as green) if any package's functions were held back.
 */
export function combineChecks(
  what: string,
  parts: readonly PackageCheck[],
): { conclusion: Conclusion; title: string; summary: string; annotations: CheckAnnotation[] } {
  const failing = parts.filter((p) => !p.ok && !p.pending);
  const pending = parts.filter((p) => !p.ok && p.pending);
  const title =
    failing.length > 0
      ? `${what}: ${failing.map((p) => p.pkg).join(", ")} failed`
      : pending.length > 0
        ? `${what}: ${pending.map((p) => p.pkg).join(", ")} ${pending.length === 1 ? "waits" : "wait"} for a maintainer`
        : `${what}: ${parts.length === 1 ? "1 package" : `${parts.length} packages`} passed`;
  return {
    conclusion: failing.length > 0 ? "failure" : pending.length > 0 ? "action_required" : "success",
    title,
    summary: parts.map((p) => `- ${p.ok ? "✅" : p.pending ? "⏸️" : "❌"} ${p.line}`).join("\n"),
    annotations: parts.flatMap((p) => p.annotations),
  };
}
