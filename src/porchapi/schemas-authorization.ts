import { arr, bool, obj, ref, type Schema, str } from "./schema-dsl.js";
import { OBJECT_META } from "./schemas-meta.js";

/** authorization.k8s.io/v1's self reviews, under the API server's names: what `kubectl auth can-i` sends. */
export const AUTHORIZATION = "io.k8s.api.authorization.v1";

const strings = (description: string) => arr(str("One of them."), description);

const resourceAttributes = obj("A request on a resource: may the caller make it?", {
  namespace: str("The namespace (a GitHub owner); empty for all of them."),
  verb: str("get, list, watch, create, update, patch or delete."),
  group: str("The API group."),
  version: str("The API version."),
  resource: str("The resource (plural)."),
  subresource: str("The subresource (approval, status)."),
  name: str("The object's name; empty for any."),
});

const nonResourceAttributes = obj("A request on a path that is not a resource.", {
  path: str("The path (/apis, /version)."),
  verb: str("The HTTP verb, lower case."),
});

const review = (kind: string, spec: Schema, status: Schema) =>
  obj(`${kind}: what the caller (the token's GitHub user) may do, as GitHub's permissions say.`, {
    apiVersion: str("authorization.k8s.io/v1"),
    kind: str(kind),
    metadata: ref(OBJECT_META),
    spec,
    status,
  });

const rules = (items: Record<string, Schema>, description: string) =>
  arr(obj("One rule.", items), description);

export const AUTHORIZATION_SCHEMAS: Record<string, Schema> = {
  [`${AUTHORIZATION}.SelfSubjectAccessReview`]: review(
    "SelfSubjectAccessReview",
    obj("The request asked about: one of resourceAttributes and nonResourceAttributes.", {
      resourceAttributes,
      nonResourceAttributes,
    }),
    obj("The answer.", {
      allowed: bool("Whether the caller may."),
      denied: bool("Whether the caller may not, for certain."),
      reason: str("Why: the repositories and the permission GitHub gives the caller on them."),
      evaluationError: str("What could not be read to answer."),
    }),
  ),
  [`${AUTHORIZATION}.SelfSubjectRulesReview`]: review(
    "SelfSubjectRulesReview",
    obj("The namespace asked about.", { namespace: str("The namespace (a GitHub owner).") }),
    obj("The rules that hold for the caller there.", {
      resourceRules: rules(
        {
          verbs: strings("The verbs."),
          apiGroups: strings("The API groups."),
          resources: strings("The resources."),
          resourceNames: strings("The objects' names; empty for all."),
        },
        "What the caller may do to resources.",
      ),
      nonResourceRules: rules(
        { verbs: strings("The verbs."), nonResourceURLs: strings("The paths.") },
        "What the caller may read besides resources.",
      ),
      incomplete: bool("Whether some rules could not be read."),
      evaluationError: str("What could not be read."),
    }),
  ),
};
