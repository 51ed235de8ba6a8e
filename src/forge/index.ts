/**
 * The embedded forge: a small GitHub look-alike for local use and end-to-end tests.
 *
 * It serves, over one HTTP port,
 * - GitHub's REST API (at the root and under `/api/v3`, so `baseUrl` may be either) for what
 *   porchlight uses: app JWT auth and installation tokens, installations, repositories, topics,
 *   git refs/commits/tags, contents, commits and compare, pulls (create/list/update/merge/files),
 *   issues, comments, reactions, labels, reviews, check runs and suites, commit statuses,
 *   collaborator permissions, hook deliveries;
 * - git smart HTTP at `${url}/{owner}/{repo}.git` via `git http-backend`, with basic auth
 *   `x-access-token:<installation token>` or `<login>:<PAT>`;
 * - webhooks to each app's URL, signed with its secret, in order per repository.
 *
 * Usage (tests):
 * ```ts
 * const forge = await startForge({ webhookUrl });            // port 0: a free port
 * const app = forge.createApp();                             // { appId, privateKeyPem, webhookSecret }
 * await forge.createRepo("acme/blueprints", { autoInit: true });
 * const inst = forge.createInstallation(app.appId, "acme");  // all repositories of acme
 * const { pat } = forge.createUser("alice", { pat: true });
 * forge.setPermission("acme/blueprints", "alice", "write");
 * const octokit = new Octokit({ baseUrl: forge.apiUrl, auth: forge.installationToken(inst.id) });
 * // git clone forge.cloneUrl("acme/blueprints", token)
 * await forge.webhooks.idle();                               // every delivery sent
 * forge.webhooks.deliveries / forge.webhooks.find("push")
 * forge.requestLog.count({ method: "POST", route: "/repos/{owner}/{repo}/pulls" })
 * forge.faults.add({ route: "/repos/{owner}/{repo}/pulls", method: "POST", status: 500, times: 1 })
 * forge.rateLimit.secondary({ everyNthMutation: 3, retryAfter: 1 })
 * await forge.stop();
 * ```
 * `seed()` builds a demo world (app, installation, upstream blueprint, two deployments,
 * users with PATs); `porchlight forge [--port P] [--data DIR]` and `porchlight forge seed` run it.
 */

export type { ActiveFault, FaultSpec } from "./faults.js";
export { Faults } from "./faults.js";
export type { AppCredentials, ForgeOptions } from "./forge.js";
export { Forge, startForge } from "./forge.js";
export type { SecondaryLimit } from "./ratelimit.js";
export { RateLimiter } from "./ratelimit.js";
export type { LoggedRequest } from "./requestlog.js";
export { RequestLog } from "./requestlog.js";
export type * from "./types.js";
export { signBody, Webhooks } from "./webhooks.js";
