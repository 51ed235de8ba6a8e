import { arr, bool, free, int, obj, ref, type Schema, str, strMap } from "./schema-dsl.js";
import { LIST_META, OBJECT_META } from "./schemas-meta.js";

/** porch.kpt.dev/v1alpha1's schemas, under the names Porch's API server gives them. */
export const PORCH = "dev.kpt.porch.v1alpha1";

const named = (name: string) => ({
  [`${PORCH}.${name}Ref`]: obj(`A ${name.toLowerCase()} named.`, { name: str("Its name.") }, ["name"]),
});

const LIFECYCLES = ["Draft", "Proposed", "Published", "DeletionProposed"];

const task = obj(
  "One step of how the revision was made; porchlight keeps the first (how it began), as Porch does.",
  {
    type: str("init, clone, edit, upgrade, render or push.", {
      enum: ["init", "clone", "edit", "upgrade", "render", "push"],
    }),
    init: obj("A new package.", {
      subpackage: str("The path of a subpackage to make, inside the package."),
      description: str("A short description of the package (the Kptfile's info.description)."),
      keywords: arr(str("A keyword."), "Keywords of the package."),
      site: str("A page about the package."),
    }),
    clone: obj("A copy of an upstream package, which it then tracks.", {
      upstreamRef: ref(`${PORCH}.UpstreamPackage`, "The upstream package."),
    }),
    edit: obj("A new revision of the same package, from another of its revisions.", {
      sourceRef: ref(`${PORCH}.PackageRevisionRef`, "The revision copied."),
    }),
    upgrade: obj("The revision's upstream moved to a newer revision, merged with its local changes.", {
      oldUpstreamRef: ref(`${PORCH}.PackageRevisionRef`, "The upstream revision it was made from."),
      newUpstreamRef: ref(`${PORCH}.PackageRevisionRef`, "The upstream revision it moves to."),
      localPackageRevisionRef: ref(`${PORCH}.PackageRevisionRef`, "The downstream revision upgraded."),
      strategy: str("How to merge.", {
        enum: ["resource-merge", "fast-forward", "force-delete-replace", "copy-merge"],
      }),
    }),
  },
  ["type"],
);

const locator = obj("Where a package's content came from.", {
  type: str("git or oci."),
  git: obj("The git origin.", {
    repo: str("The repository's address."),
    directory: str("The package's directory in it."),
    ref: str("The ref (a tag such as pkg/v1, or a branch)."),
    commit: str("The commit."),
  }),
});

const packageRevision = obj(
  "A revision of a package: a draft branch, a proposal (a pull request) or a tag.",
  {
    apiVersion: str("porch.kpt.dev/v1alpha1"),
    kind: str("PackageRevision"),
    metadata: ref(OBJECT_META),
    spec: obj("What the revision is.", {
      packageName: str("The package's path in its repository."),
      repository: str("The Repository (registration) holding the package."),
      workspaceName: str("The revision's workspace: its name among the package's revisions, kept for life."),
      revision: int(
        "Its number once published (v1, v2… as 1, 2…); -1 for the registered branch's placeholder.",
      ),
      parent: ref(`${PORCH}.ParentRef`, "Deprecated."),
      lifecycle: str("Draft, Proposed, Published or DeletionProposed.", { enum: LIFECYCLES }),
      tasks: arr(task, "How the revision began (create only: init, clone, edit or upgrade)."),
      readinessGates: arr(
        obj("A condition that must hold.", { conditionType: str("Its type.") }),
        "Conditions that must hold before publishing.",
      ),
      packageMetadata: obj("The labels and annotations of the package's Kptfile.", {
        labels: strMap("The Kptfile's labels."),
        annotations: strMap("The Kptfile's annotations."),
      }),
    }),
    status: obj("What the revision is at.", {
      upstreamLock: { ...locator, description: "The upstream revision a downstream package carries." },
      selfLock: { ...locator, description: "Where this revision itself is." },
      publishedBy: str("Who published it."),
      publishTimestamp: str("When it was published.", { format: "date-time" }),
      deployment: bool("Whether its repository is a deployment repository."),
      conditions: arr(
        obj(
          "A condition of the revision.",
          {
            type: str("Its type (for example Rendered)."),
            status: str("True, False or Unknown."),
            reason: str("Why, in one word."),
            message: str("Why, for people."),
          },
          ["type", "status"],
        ),
        "Conditions of the revision.",
      ),
    }),
  },
);

const renderStatus = obj("The result of rendering the package when it was last pushed.", {
  result: free("kpt's FunctionResultList."),
  error: str("Why rendering failed; empty when it succeeded."),
});

const packageRevisionResources = obj("The files of a package revision.", {
  apiVersion: str("porch.kpt.dev/v1alpha1"),
  kind: str("PackageRevisionResources"),
  metadata: ref(OBJECT_META),
  spec: obj("The revision and its files.", {
    packageName: str("The package's path in its repository."),
    workspaceName: str("The revision's workspace."),
    revision: int("Its number once published."),
    repository: str("The Repository (registration) holding the package."),
    resources: strMap(
      "Each file of the package by its path in it, with its content. Updating them pushes to the draft.",
    ),
  }),
  status: obj("What the last update did.", { renderStatus }),
});

const list = (kind: string, description: string): Schema =>
  obj(
    description,
    {
      apiVersion: str("porch.kpt.dev/v1alpha1"),
      kind: str(`${kind}List`),
      metadata: ref(LIST_META),
      items: arr(ref(`${PORCH}.${kind}`), `The ${kind} objects.`),
    },
    ["items"],
  );

export const PORCH_SCHEMAS: Record<string, Schema> = {
  ...named("PackageRevision"),
  ...named("Parent"),
  [`${PORCH}.UpstreamPackage`]: obj("An upstream package: a revision of this API, or a git or OCI address.", {
    type: str("git or oci."),
    git: obj("A package in a git repository.", {
      repo: str("The repository's address."),
      ref: str("A tag, branch or commit."),
      directory: str("The package's directory."),
      secretRef: obj("Credentials (unused: porchlight acts with the caller's token).", {
        name: str("Its name."),
      }),
    }),
    oci: obj("A package in an OCI image.", { image: str("The image.") }),
    upstreamRef: ref(`${PORCH}.PackageRevisionRef`, "A package revision of this API."),
  }),
  [`${PORCH}.PackageRevision`]: packageRevision,
  [`${PORCH}.PackageRevisionList`]: list("PackageRevision", "A list of package revisions."),
  [`${PORCH}.PackageRevisionResources`]: packageRevisionResources,
  [`${PORCH}.PackageRevisionResourcesList`]: list(
    "PackageRevisionResources",
    "A list of package revisions' files.",
  ),
};
