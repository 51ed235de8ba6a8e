import type { PullRequest } from "../../github/port.js";
import { readKptfileFields } from "../../kpt/kptfile.js";
import { formatVariantBranch, parseVariantBranch } from "../../lifecycle/variant-branch.js";
import { readKptfileFacts } from "../../variants/downstream-state.js";
import {
  type LoadedVariant,
  type ManagedPackage,
  managedPackage,
  type OpenPullRequest,
  openPullRequestFromBody,
} from "../../variants/index.js";
import { parseTakeover } from "./edited.js";
import type { RepoSnapshot } from "./snapshot.js";

/**
 * The open fan-out pull request on `branch`, as the planner sees it: its marker, and whether anyone but
 * the bot (`botEmail`) committed to it (git, no REST).
 */
export async function readOpenPull(
  snap: RepoSnapshot,
  branch: string,
  botEmail: string,
): Promise<{ pr: PullRequest; open: OpenPullRequest | undefined } | undefined> {
  const pr = snap.pulls.find((p) => p.headRef === branch);
  if (!pr || !snap.baseSha) return undefined;
  // Handed back by `/update` at a head: only commits by others after it hold the pull request again.
  const commits = await snap.port.listCommits(parseTakeover(pr.body) ?? snap.baseSha, pr.headSha);
  const editedByOthers = commits.some((c) => c.author.email !== botEmail);
  return {
    pr,
    open: openPullRequestFromBody(pr.number, pr.body, {
      headSha: pr.headSha,
      editedByOthers,
      draft: pr.draft,
    }),
  };
}

/**
 * Packages a variant of this management repository manages (its annotations say so, and their upstream
 * is the management repository), in every repository read: those whose variant is gone or moved get a
 * removal step. Their open fan-out pull requests are recorded in `pulls` under `<repo>/<package>`.
 */
export async function findManaged(input: {
  snapshots: ReadonlyMap<string, RepoSnapshot>;
  managementUrl: string;
  variants: readonly LoadedVariant[];
  botEmail: string;
  pulls: Map<string, PullRequest>;
}): Promise<ManagedPackage[]> {
  const managed: ManagedPackage[] = [];
  const upstreamUrl = normalizeUrl(input.managementUrl);
  for (const [name, snap] of input.snapshots) {
    for (const [path, bytes] of snap.tree) {
      if (!path.endsWith("/Kptfile")) continue;
      const pkg = path.slice(0, -"/Kptfile".length);
      const text = bytes.toString("utf8");
      const facts = readKptfileFacts(text);
      if (!facts.managedBy || normalizeUrl(upstreamRepoOf(text)) !== upstreamUrl) continue;
      const variant = facts.managedBy;
      const active = input.variants.find((v) => v.variant.metadata.name === variant)?.variant.spec.downstream;
      let open: OpenPullRequest | undefined;
      if (active?.repo !== name || active.package !== pkg) {
        const found = await readOpenPull(
          snap,
          formatVariantBranch({ package: pkg, variant }),
          input.botEmail,
        );
        if (found) input.pulls.set(`${name}/${pkg}`, found.pr);
        open = found?.open;
      }
      const m = managedPackage(name, pkg, text, open);
      if (m) managed.push(m);
    }
    managed.push(...(await findUnpublished(name, snap, upstreamUrl, input)));
  }
  return managed;
}

/**
 * The downstreams of this management repository's variants that were never published: a fan-out pull
 * request proposes the package, which the base branch does not hold. Only those whose variant is gone
 * or moved are read (their branch's Kptfile: which variant, its deletion policy, its upstream).
 */
async function findUnpublished(
  name: string,
  snap: RepoSnapshot,
  upstreamUrl: string,
  input: { variants: readonly LoadedVariant[]; botEmail: string; pulls: Map<string, PullRequest> },
): Promise<ManagedPackage[]> {
  const out: ManagedPackage[] = [];
  for (const pr of snap.pulls) {
    const branch = parseVariantBranch(pr.headRef);
    if (!branch.ok) continue;
    const { package: pkg, variant } = branch.value;
    if (snap.tree.has(`${pkg}/Kptfile`)) continue;
    const active = input.variants.find((v) => v.variant.metadata.name === variant)?.variant.spec.downstream;
    if (active?.repo === name && active.package === pkg) continue;
    const text = (await snap.port.readTree(pr.headSha, pkg)).tree.get("Kptfile")?.toString("utf8");
    if (text === undefined || readKptfileFacts(text).managedBy !== variant) continue;
    if (normalizeUrl(upstreamRepoOf(text)) !== upstreamUrl) continue;
    const found = await readOpenPull(snap, pr.headRef, input.botEmail);
    if (found) input.pulls.set(`${name}/${pkg}`, found.pr);
    const m = managedPackage(name, pkg, text, found?.open);
    if (m) out.push({ ...m, unpublished: true });
  }
  return out;
}

function upstreamRepoOf(kptfileText: string): string {
  return readKptfileFields(kptfileText).upstreamRepo ?? "";
}

/** A clone URL compared loosely: no scheme, credentials, `.git` or trailing slash. */
function normalizeUrl(url: string): string {
  return url
    .replace(/^[a-z+]+:\/\//i, "")
    .replace(/^[^@/]+@/, "")
    .replace(/\.git\/?$/, "")
    .replace(/\/+$/, "")
    .toLowerCase();
}
