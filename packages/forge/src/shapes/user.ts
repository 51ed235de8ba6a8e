import type { ForgeCore } from "../context.js";
import { nodeId } from "../http.js";
import type { UserRec } from "../types.js";

/** GitHub's `simple-user` object. */
export function simpleUser(core: ForgeCore, u: UserRec): Record<string, unknown> {
  const login = encodeURIComponent(u.login);
  const api = `${core.urls.api}/users/${login}`;
  return {
    login: u.login,
    id: u.id,
    node_id: nodeId(u.type, u.id),
    avatar_url: `${core.urls.web}/avatars/u/${u.id}?v=4`,
    gravatar_id: "",
    url: api,
    html_url: `${core.urls.web}/${login}`,
    followers_url: `${api}/followers`,
    following_url: `${api}/following{/other_user}`,
    gists_url: `${api}/gists{/gist_id}`,
    starred_url: `${api}/starred{/owner}{/repo}`,
    subscriptions_url: `${api}/subscriptions`,
    organizations_url: `${api}/orgs`,
    repos_url: `${api}/repos`,
    events_url: `${api}/events{/privacy}`,
    received_events_url: `${api}/received_events`,
    type: u.type,
    user_view_type: "public",
    site_admin: u.siteAdmin,
  };
}

/** A user by login (created on first sight, as a plain User). */
export function userByLogin(core: ForgeCore, login: string): Record<string, unknown> {
  return simpleUser(core, core.store.ensureUser(login));
}
