import type { IncomingMessage } from "node:http";
import type { TokenHolder } from "../github/connect.js";
import { ApiError } from "./status.js";

/**
 * Impersonation (`kubectl --as`, `--as-group`, `--as-uid`, the `Impersonate-*` headers) refused, as the
 * API server refuses a user not allowed to impersonate: a token speaks for its own GitHub user only, so
 * a request that asks to act as someone else is answered 403 at the edge, before anything runs for it —
 * never served as the token's user, which would answer `kubectl auth can-i --as maintainer` for the
 * reader who asked.
 */

/** One identity a request asks to act as, as the API server's impersonation filter names it. */
interface Impersonation {
  /** The resource `impersonate` is asked on (`users`, `groups`, `userextras/KEY`…), and its API group. */
  resource: string;
  group: string;
  name: string;
  namespace?: string;
}

const CORE = "";
const AUTHENTICATION = "authentication.k8s.io";
const SERVICE_ACCOUNT = /^system:serviceaccount:([^:]+):([^:]+)$/;
const EXTRA_PREFIX = "impersonate-extra-";

const WHY =
  "porchlight acts as each token's own GitHub user and serves no impersonation: send the request without Impersonate-* headers (kubectl without --as, --as-group, --as-uid), with the token of the GitHub user it should act as";

/** The values of one header, each line sent on its own (Node joins no value here), empty ones left out. */
function values(req: IncomingMessage, name: string): string[] {
  return (req.headersDistinct[name] ?? []).filter((v) => v !== "");
}

/** An `Impersonate-Extra-` key as the API server reads it: lower case, its %-escapes undone. */
function extraKey(suffix: string): string {
  try {
    return decodeURIComponent(suffix);
  } catch {
    return suffix;
  }
}

/**
 * What the request asks to act as, in the API server's order (the user or service account, the groups,
 * the extras by key, the uid); none when it carries no impersonation header.
 */
function impersonations(req: IncomingMessage): Impersonation[] {
  const asked: Impersonation[] = [];
  for (const user of values(req, "impersonate-user")) {
    const sa = SERVICE_ACCOUNT.exec(user);
    asked.push(
      sa?.[1] && sa[2]
        ? { resource: "serviceaccounts", group: CORE, name: sa[2], namespace: sa[1] }
        : { resource: "users", group: CORE, name: user },
    );
  }
  for (const group of values(req, "impersonate-group"))
    asked.push({ resource: "groups", group: CORE, name: group });
  const extras = Object.keys(req.headersDistinct)
    .filter((h) => h.startsWith(EXTRA_PREFIX))
    .sort();
  for (const header of extras) {
    const key = extraKey(header.slice(EXTRA_PREFIX.length));
    for (const value of values(req, header))
      asked.push({ resource: `userextras/${key}`, group: AUTHENTICATION, name: value });
  }
  for (const uid of values(req, "impersonate-uid"))
    asked.push({ resource: "uids", group: AUTHENTICATION, name: uid });
  return asked;
}

/**
 * Throws the API server's Forbidden for the first identity the request asks to act as (Kubernetes'
 * `responsewriters.Forbidden`: the resource and name, who cannot impersonate it, where, and why).
 */
export function refuseImpersonation(req: IncomingMessage, holder: TokenHolder): void {
  const [first] = impersonations(req);
  if (first === undefined) return;
  const who = holder.kind === "user" ? holder.login : "the token's user";
  const kind = first.resource.split("/")[0] ?? first.resource;
  const qualified = first.group === CORE ? kind : `${kind}.${first.group}`;
  const scope =
    first.namespace === undefined ? "at the cluster scope" : `in the namespace "${first.namespace}"`;
  throw new ApiError(
    "Forbidden",
    `${qualified} "${first.name}" is forbidden: User "${who}" cannot impersonate resource "${first.resource}" in API group "${first.group}" ${scope}: ${WHY}`,
    { name: first.name, ...(first.group === CORE ? {} : { group: first.group }), kind },
  );
}
