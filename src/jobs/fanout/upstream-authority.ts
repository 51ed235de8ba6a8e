import type { InstallationRepository, RepoAccess } from "../../github/port.js";
import {
  type LoadedVariant,
  refusalHint,
  refusalMessage,
  type UpstreamRefusal,
  type VariantProblem,
} from "../../variants/index.js";

/** A repository as the authority check reads it: its name, whether it is private, and who may do what. */
export interface AuthorityRepo {
  repository: Pick<InstallationRepository, "fullName" | "private">;
  port: Pick<RepoAccess, "permissionOf" | "writers">;
}

/**
 * Who may make the bot read what (issue #76, docs/variants.md "Who may make the bot read what"). A variant
 * file is written by whoever may push to its management repository; the bot reads the variant's
 * upstream with its installation's token, which reaches every repository the app is installed on. So a
 * variant whose git upstream is another repository is honoured only when that repository is public, or
 * when every person who may push the variant files (the management repository's writers) may read it
 * themselves: a variant file then makes the bot read nothing its author could not have read, whoever of
 * them wrote it. (Through Porch's API a variant is committed as its caller, to the management repository,
 * and held to the same rule when fan-out runs.) Answers, by upstream `owner/name`, why it is refused; an
 * upstream not in the answer is allowed. The management repository's own packages are always allowed.
 */
export async function refusedUpstreams(
  management: AuthorityRepo,
  upstreams: readonly AuthorityRepo[],
): Promise<Map<string, UpstreamRefusal>> {
  const refused = new Map<string, UpstreamRefusal>();
  const managementName = management.repository.fullName;
  const own = management.repository.fullName.toLowerCase();
  const guarded = upstreams.filter(
    (u) => u.repository.fullName.toLowerCase() !== own && u.repository.private !== false,
  );
  if (guarded.length === 0) return refused;
  let writers: string[];
  try {
    writers = await management.port.writers();
  } catch (e) {
    // who may write the variant files cannot be told: nothing private is read for them
    for (const u of guarded)
      refused.set(u.repository.fullName, {
        kind: "writers-unknown",
        upstream: u.repository.fullName,
        management: managementName,
        error: e instanceof Error ? e.message : String(e),
      });
    return refused;
  }
  for (const u of guarded) {
    for (const writer of writers) {
      const level = await u.port.permissionOf(writer).catch(() => "none" as const);
      if (level !== "none") continue;
      refused.set(u.repository.fullName, {
        kind: "unreadable",
        upstream: u.repository.fullName,
        management: managementName,
        writer,
      });
      break;
    }
  }
  return refused;
}

/**
 * Each refused variant's problem, at its `spec.upstream.repo`, saying what was refused, why and what to do,
 * and carrying the refusal (the dashboard keeps it for Porch's API): as the dashboard and the
 * `porchlight/variants` check list it.
 */
export function refusalProblems(
  variants: readonly LoadedVariant[],
  refusalOf: (lv: LoadedVariant) => UpstreamRefusal | undefined,
): VariantProblem[] {
  return variants.flatMap((lv) => {
    const refusal = refusalOf(lv);
    if (!refusal) return [];
    const at = lv.locate?.(["spec", "upstream", "repo"]) ?? lv.source;
    return [
      {
        file: lv.source.file,
        line: at.line,
        column: at.column,
        field: "spec.upstream.repo",
        variant: lv.variant.metadata.name,
        message: `${refusalMessage(refusal)}; nothing is cloned or updated for this variant`,
        hint: refusalHint(refusal),
        refusal,
      },
    ];
  });
}
