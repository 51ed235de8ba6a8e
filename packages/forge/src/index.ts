/**
 * The embedded forge: a small GitHub look-alike for local use and end-to-end tests.
 *
 * It serves, over one HTTP port,
 * - GitHub's REST API (at the root and under `/api/v3`, so `baseUrl` may be either; probot's
 *   `GHE_HOST`/`GHE_PROTOCOL` work) for what porchlight uses: app JWT auth (RS256, checked against
 *   the app's public key) and installation tokens (one hour), installations, repositories,
 *   topics, branches, collaborator permissions, users, git refs/commits/tags/trees/blobs,
 *   contents (get, and PUT with the sha precondition), commits and compare, pulls (create, list
 *   with filters, update, merge/squash/rebase with the `sha` precondition, files, commits),
 *   issues, comments, reactions, labels, reviews, check runs (≤ 50 annotations per call) and
 *   suites, commit statuses, hook deliveries and redelivery. Lists paginate with `Link` headers.
 *   Errors have GitHub's shape and wording (`Bad credentials`, `Not Found`, `Validation Failed`
 *   with `errors`, `Update is not a fast forward`, `Head branch was modified…`).
 * - git smart HTTP at `${url}/{owner}/{repo}.git` via `git http-backend`, with basic auth
 *   `x-access-token:<installation token>` or `<login>:<PAT>`.
 * - webhooks to each app's URL, signed with its secret (`X-Hub-Signature-256`), in order per
 *   repository: push, create, delete (for every ref change, by git or REST), pull_request
 *   (opened, synchronize, edited, closed, reopened, labeled, unlabeled), pull_request_review,
 *   issue_comment, issues, check_run (created and completed to every installed app, rerequested to
 *   the run's own), check_suite (requested, rerequested; completed to every installed app), status
 *   (a commit status created, with the branches holding the commit), installation,
 *   installation_repositories. Without a URL, deliveries are recorded only.
 *
 * Usage (tests):
 * ```ts
 * const forge = await startForge({ webhookUrl });            // port 0: a free port; no dataDir: temp, in memory
 * const app = forge.createApp();                             // { appId, privateKeyPem, webhookSecret }
 * await forge.createRepo("acme/blueprints", { autoInit: true });   // or { files: {...} }
 * const inst = forge.createInstallation(app.appId, "acme");  // all repositories of acme (or a list)
 * const { pat } = forge.createUser("alice", { pat: true });
 * forge.setPermission("acme/blueprints", "alice", "write");  // admin | maintain | write | triage | read
 * const octokit = new Octokit({ baseUrl: forge.apiUrl, auth: forge.installationToken(inst.id) });
 * // git clone forge.cloneUrl("acme/blueprints", token)
 * await forge.webhooks.idle();                               // every delivery queued so far sent
 * forge.webhooks.deliveries / forge.webhooks.find("pull_request", "closed")
 * forge.requestLog.count({ method: "POST", route: "/repos/{owner}/{repo}/pulls" })
 * forge.faults.add({ route: "/repos/{owner}/{repo}/pulls", method: "POST", status: 500, times: 1 })
 * forge.faults.add({ route: "/{owner}/{repo}.git/git-receive-pack", reset: true })
 * forge.rateLimit.primary({ limit: 10 }); forge.rateLimit.secondary({ everyNthMutation: 3, retryAfter: 1 })
 * forge.errors                                               // internal failures; expect none
 * await forge.waitFor(() => forge.core.store.data.issues.find(…), "the dashboard issue")
 * await forge.stop();
 * ```
 * `seed()` builds a demo world (app, installation, upstream blueprint `hello` published as
 * `hello/v1`, two deployments, users maintainer/reviewer/reader with PATs);
 * `porchlight forge [--port P] --data DIR [--webhook-url URL] [--seed]` serves it and
 * `porchlight forge seed --data DIR` seeds and prints probot's environment.
 */

export {
  applyForgeConfig,
  type ForgeConfig,
  ForgeConfigError,
  parseFaultFlag,
  parseForgeConfig,
} from "./config.js";
export { Forge, startForge } from "./forge.js";
export { formatSeed, type SeedResult, seed } from "./seed.js";

export type * from "./types.js";
