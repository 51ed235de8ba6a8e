/**
 * The commit `/adopt` writes: a fork's package copied onto a draft of this repository. Its trailer
 * marks the content as the fork author's, so porchlight runs none of its exec or container functions
 * until a maintainer vouches for it (a push of their own on top, or an approving review).
 */
const ADOPTED_TRAILER = "Porchlight-Adopted";

export interface AdoptedFrom {
  /** `owner/repo` of the fork, null when it was deleted. */
  repo: string | null;
  pull: number;
  sha: string;
}

/** The adopt commit's message: what was copied from where, by whom, and the trailer. */
export function formatAdoptMessage(pkg: string, from: AdoptedFrom, actor: string): string {
  const where = from.repo ?? "a deleted fork";
  return `${pkg}: adopt #${from.pull} from ${where} at ${from.sha.slice(0, 7)}\n\nAdopted by @${actor} with /adopt.\n\n${ADOPTED_TRAILER}: ${from.repo ?? "-"}#${from.pull}@${from.sha}\n`;
}

/** The fork pull request an adopt commit's message names, or undefined for any other commit. */
export function parseAdoptMessage(message: string): AdoptedFrom | undefined {
  const m = new RegExp(`^${ADOPTED_TRAILER}: (\\S+)#(\\d+)@([0-9a-f]{40})$`, "m").exec(message);
  if (!m) return undefined;
  const [, repo = "", pull, sha = ""] = m;
  return { repo: repo === "-" ? null : repo, pull: Number(pull), sha };
}
