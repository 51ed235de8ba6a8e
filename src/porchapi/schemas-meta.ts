import { arr, free, int, obj, ref, type Schema, str, strMap } from "./schema-dsl.js";

/** Kubernetes' own schemas every object and list uses, under the names the API server gives them. */
export const META = "io.k8s.apimachinery.pkg.apis.meta.v1";
export const OBJECT_META = `${META}.ObjectMeta`;
export const LIST_META = `${META}.ListMeta`;
const TIME = `${META}.Time`;

const time = (description: string): Schema => ({ ...ref(TIME), description });

export const META_SCHEMAS: Record<string, Schema> = {
  [TIME]: { type: "string", format: "date-time", description: "A time, RFC 3339, to the second." },
  [OBJECT_META]: obj("Standard object metadata: the object's name, namespace, labels and annotations.", {
    name: str("The object's name, unique in its namespace. It cannot be changed."),
    generateName: str("A prefix the server completes to a unique name when no name is given."),
    namespace: str("The namespace the object is in: in porchlight, a GitHub owner (a user or organization)."),
    uid: str("A unique id the server gives the object; it never changes."),
    resourceVersion: str(
      "The version of the object the server holds, derived from its git state. Send it back on update: a changed object answers 409 Conflict.",
    ),
    generation: { type: "integer", format: "int64", description: "A number for the desired state." },
    creationTimestamp: time("When the object was made."),
    deletionTimestamp: time("When the object is to be deleted."),
    deletionGracePeriodSeconds: { type: "integer", format: "int64", description: "Seconds before deletion." },
    labels: strMap("Labels: keys and values to select objects by."),
    annotations: strMap("Annotations: keys and values tools keep on the object."),
    ownerReferences: arr(free("An object this one depends on."), "Objects this one depends on."),
    finalizers: arr(str("A finalizer."), "What must happen before the object is removed."),
    managedFields: arr(free("A manager's fields."), "Which manager set which fields."),
    selfLink: str("Deprecated; not set."),
  }),
  [LIST_META]: obj("Standard list metadata.", {
    resourceVersion: str("The version of the list, derived from its objects' git state."),
    continue: str("Set when the list has more items: not used, every list is whole."),
    remainingItemCount: { type: "integer", format: "int64", description: "Items not in this list." },
    selfLink: str("Deprecated; not set."),
  }),
  [`${META}.Condition`]: obj(
    "One aspect of the object's state.",
    {
      type: str("The condition's type, in CamelCase."),
      status: str("True, False or Unknown.", { enum: ["True", "False", "Unknown"] }),
      observedGeneration: { type: "integer", format: "int64", description: "The generation it was set for." },
      lastTransitionTime: time("When the status last changed."),
      reason: str("Why, in one CamelCase word."),
      message: str("Why, for people."),
    },
    ["type", "status"],
  ),
  "io.k8s.api.core.v1.Namespace": obj(
    "A namespace: in porchlight, a GitHub owner (a user or organization).",
    {
      apiVersion: str("v1"),
      kind: str("Namespace"),
      metadata: ref(OBJECT_META),
      spec: obj("Nothing to set.", { finalizers: arr(str("A finalizer."), "Not used.") }),
      status: obj("Its state.", { phase: str("Active: the owner exists on GitHub.") }),
    },
  ),
  [`${META}.Status`]: obj("The answer to a request that returns no object, or failed.", {
    apiVersion: str("v1"),
    kind: str("Status"),
    metadata: ref(LIST_META),
    status: str("Success or Failure."),
    message: str("What happened, for people."),
    reason: str("Why it failed, for programs: NotFound, AlreadyExists, Conflict, Forbidden, Invalid…"),
    details: free("The object it was about, and the fields that are invalid."),
    code: int("The HTTP status code."),
  }),
};
