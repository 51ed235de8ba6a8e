import type { ForgeCore } from "../context.js";
import { nodeId } from "../http.js";
import type { AppRec, InstallationRec, RepoRec } from "../types.js";
import { simpleUser } from "./user.js";

export function repoLite(r: RepoRec): Record<string, unknown> {
  return {
    id: r.id,
    node_id: nodeId("Repository", r.id),
    name: r.name,
    full_name: `${r.ownerLogin}/${r.name}`,
    private: r.private,
  };
}

export function installationShape(
  core: ForgeCore,
  inst: InstallationRec,
  opts: { webhook?: boolean } = {},
): Record<string, unknown> {
  const app = core.store.app(inst.appId)!;
  const acct = core.store.ensureUser(inst.accountLogin);
  return {
    id: inst.id,
    // The description of `GET /app/installations` types the account as simple-user *and*
    // enterprise (allOf), so it carries the enterprise fields too.
    account: opts.webhook
      ? simpleUser(core, acct)
      : {
          ...simpleUser(core, acct),
          name: acct.name,
          slug: acct.login.toLowerCase(),
          created_at: acct.createdAt,
          updated_at: acct.createdAt,
        },
    repository_selection: inst.repositorySelection,
    access_tokens_url: `${core.urls.api}/app/installations/${inst.id}/access_tokens`,
    repositories_url: `${core.urls.api}/installation/repositories`,
    html_url: `${core.urls.web}/organizations/${acct.login}/settings/installations/${inst.id}`,
    app_id: app.id,
    app_slug: app.slug,
    ...(opts.webhook ? {} : { client_id: app.clientId }),
    target_id: acct.id,
    target_type: acct.type === "Organization" ? "Organization" : "User",
    permissions: app.permissions,
    events: app.events,
    created_at: inst.createdAt,
    updated_at: inst.updatedAt,
    single_file_name: null,
    has_multiple_single_files: false,
    single_file_paths: [],
    suspended_by: null,
    suspended_at: null,
  };
}

export function appShape(
  core: ForgeCore,
  app: AppRec,
  opts: { webhook?: boolean } = {},
): Record<string, unknown> {
  const shape: Record<string, unknown> = {
    id: app.id,
    slug: app.slug,
    node_id: nodeId("Integration", app.id),
    client_id: app.clientId,
    owner: simpleUser(core, core.store.ensureUser(app.ownerLogin, "Organization")),
    name: app.name,
    description: "",
    external_url: core.urls.web,
    html_url: `${core.urls.web}/apps/${app.slug}`,
    created_at: app.createdAt,
    updated_at: app.createdAt,
    permissions: app.permissions,
    events: app.events,
    installations_count: core.store.data.installations.filter((i) => i.appId === app.id).length,
  };
  if (opts.webhook) {
    // The published webhook schemas do not list these two app fields.
    delete shape.client_id;
    delete shape.installations_count;
  }
  return shape;
}
