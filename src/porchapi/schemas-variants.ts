import { arr, bool, free, obj, ref, type Schema, str, strMap } from "./schema-dsl.js";
import { LIST_META, META, OBJECT_META } from "./schemas-meta.js";

/**
 * Porch's PackageVariant (config.porch.kpt.dev/v1alpha1) and PackageVariantSet (v1alpha2, the only
 * version Porch serves) with porchlight's additions (`channel`, `oci`, `tarball`, `paused`, a
 * repositorySelector's GitHub criteria), under the names Porch's CRDs give them. src/variants' zod schemas
 * decide what is valid; these say which fields exist, for `kubectl explain` and strict field validation
 * (test/porchapi/schemas-variants.test.ts holds the two to the same fields).
 */
const V1 = "dev.kpt.porch.config.v1alpha1";
const V2 = "dev.kpt.porch.config.v1alpha2";

const upstreamFields = {
  repo: str("The upstream repository (the management repository when left out)."),
  package: str("The upstream package's path."),
  revision: {
    "x-kubernetes-int-or-string": true,
    description:
      "A published revision: Porch's number (3) or its tag's (v3); -1, Porch's placeholder, is the latest.",
  },
  workspaceName: str("The revision published from that workspace."),
  channel: str("porchlight's addition: follow the head of this catalog channel."),
  oci: str("porchlight's addition: an OCI image, oci://REGISTRY/REPO[//DIR]:TAG or …@sha256:…, instead."),
  tarball: str("porchlight's addition: a tarball, https://HOST/PATH.tar.gz[//DIR][#sha256=HEX], instead."),
};
const upstream = obj(
  "The upstream package revision (none of revision, workspaceName and channel: the latest published).",
  upstreamFields,
);

const kptFunction = (extra: Record<string, Schema> = {}) =>
  obj("A KRM function, as in a Kptfile's pipeline.", {
    image: str("The function's image."),
    exec: str("An executable to run instead of an image."),
    name: str("Its name (no '.'): the function is added as PackageVariant.VARIANT.NAME.INDEX."),
    configPath: str("A file of the package holding its configuration."),
    configMap: strMap("Its configuration, inline."),
    selectors: arr(free("A selector of the resources it acts on."), "Which resources it acts on."),
    exclude: arr(free("A selector of resources it leaves alone."), "Which resources it leaves alone."),
    ...extra,
  });

const policies = {
  adoptionPolicy: str(
    "adoptNone (default): an existing package not made by this variant is left alone; adoptExisting: taken over.",
    {
      enum: ["adoptExisting", "adoptNone"],
    },
  ),
  deletionPolicy: str("delete (default) or orphan: what happens to the downstream when the variant goes.", {
    enum: ["delete", "orphan"],
  }),
};

const conditions = arr(
  ref(`${META}.Condition`),
  "Stalled (the spec is invalid) and Ready (what fan-out did downstream, as porchlight reads it).",
);

const packageVariant = obj(
  "An upstream and a downstream package: fan-out keeps the downstream a variant of the upstream.",
  {
    apiVersion: str("config.porch.kpt.dev/v1alpha1"),
    kind: str("PackageVariant"),
    metadata: ref(OBJECT_META),
    spec: obj("What the downstream is.", {
      upstream,
      downstream: obj("Where the variant lives.", {
        repo: str("The downstream repository."),
        package: str("The downstream package's path."),
      }),
      ...policies,
      labels: strMap("Written into the downstream Kptfile's labels when it is cloned."),
      annotations: strMap("Written into the downstream Kptfile's annotations when it is cloned."),
      packageContext: obj("Keys of the package context (package-context.yaml).", {
        data: strMap("Keys set."),
        removeKeys: arr(str("A key."), "Keys removed."),
      }),
      pipeline: obj("Functions prepended to the downstream Kptfile's pipeline.", {
        mutators: arr(kptFunction(), "Mutators."),
        validators: arr(kptFunction(), "Validators."),
      }),
      injectors: arr(
        obj("Which resource to inject.", {
          group: str("Its API group."),
          version: str("Its version."),
          kind: str("Its kind."),
          name: str("Its name."),
        }),
        "Config injection: resources of the downstream repository injected into the package.",
      ),
      paused: bool("porchlight's addition: fan-out leaves the downstream alone."),
    }),
    status: obj("What porchlight knows of it.", {
      conditions,
      downstreamTargets: arr(
        obj("A downstream package revision.", {
          name: str("Its name, REPOSITORY.PACKAGE.WORKSPACE (the workspace is the variant's name)."),
          renderStatus: free("Not set."),
        }),
        "The downstream package revision fan-out made.",
      ),
    }),
  },
);

const mapExpr = obj("A computed map entry.", {
  key: str("The key."),
  value: str("The value."),
  keyExpr: str("A CEL expression giving the key."),
  valueExpr: str("A CEL expression giving the value."),
});
const mapExprs = (what: string) => arr(mapExpr, what);
const labelSelector = {
  matchLabels: strMap("Labels that must all be there."),
  matchExpressions: arr(
    obj("A requirement.", {
      key: str("The label."),
      operator: str("In, NotIn, Exists or DoesNotExist."),
      values: arr(str("A value."), "The values."),
    }),
    "Requirements that must all hold.",
  ),
};
const fnTemplate = kptFunction({ configMapExprs: mapExprs("configMap entries computed by CEL.") });

const template = obj("What each generated PackageVariant is.", {
  downstream: obj("The downstream.", {
    repo: str("Its repository."),
    package: str("Its package."),
    repoExpr: str("A CEL expression giving its repository."),
    packageExpr: str("A CEL expression giving its package."),
  }),
  ...policies,
  labels: strMap("Labels."),
  labelExprs: mapExprs("Labels computed by CEL."),
  annotations: strMap("Annotations."),
  annotationExprs: mapExprs("Annotations computed by CEL."),
  packageContext: obj("The package context.", {
    data: strMap("Keys set."),
    removeKeys: arr(str("A key."), "Keys removed."),
    dataExprs: mapExprs("Keys set, computed by CEL."),
    removeKeyExprs: arr(str("A CEL expression."), "Keys removed, computed by CEL."),
  }),
  pipeline: obj("Functions prepended.", {
    mutators: arr(fnTemplate, "Mutators."),
    validators: arr(fnTemplate, "Validators."),
  }),
  injectors: arr(
    obj("Which resource to inject.", {
      group: str("Its API group."),
      version: str("Its version."),
      kind: str("Its kind."),
      name: str("Its name."),
      nameExpr: str("A CEL expression giving its name."),
    }),
    "Config injection.",
  ),
  paused: bool("porchlight's addition: the generated variants are paused."),
});

const packageVariantSet = obj(
  "An upstream package and the downstream repositories a variant of it goes to.",
  {
    apiVersion: str("config.porch.kpt.dev/v1alpha2"),
    kind: str("PackageVariantSet"),
    metadata: ref(OBJECT_META),
    spec: obj("The upstream and the targets.", {
      upstream,
      targets: arr(
        obj("One kind of target (repositories, repositorySelector or objectSelector) and its template.", {
          repositories: arr(
            obj("A repository.", {
              name: str("Its name."),
              packageNames: arr(str("A package path."), "The downstream packages (default: the upstream's)."),
            }),
            "Repositories named.",
          ),
          repositorySelector: obj(
            "Repositories selected by their registrations' labels (and porchlight's GitHub criteria).",
            {
              ...labelSelector,
              names: arr(str("A glob."), "porchlight's addition: repository names, any may match."),
              excludeNames: arr(str("A glob."), "porchlight's addition: repository names left out."),
              topics: arr(str("A topic."), "porchlight's addition: GitHub topics, all must be there."),
            },
          ),
          objectSelector: obj("Objects of the management repository, one downstream each.", {
            ...labelSelector,
            apiVersion: str("Their apiVersion."),
            kind: str("Their kind."),
            name: str("Their name."),
          }),
          template,
        }),
        "Where variants go.",
      ),
      paused: bool("porchlight's addition: every generated variant is paused."),
    }),
    status: obj("What porchlight knows of it.", { conditions }),
  },
);

const list = (group: string, version: string, kind: string, item: string) =>
  obj(
    `A list of ${kind}s.`,
    {
      apiVersion: str(`${group}/${version}`),
      kind: str(`${kind}List`),
      metadata: ref(LIST_META),
      items: arr(ref(item), `The ${kind} objects.`),
    },
    ["items"],
  );

export const VARIANT_SCHEMAS: Record<string, Schema> = {
  [`${V1}.PackageVariant`]: packageVariant,
  [`${V1}.PackageVariantList`]: list(
    "config.porch.kpt.dev",
    "v1alpha1",
    "PackageVariant",
    `${V1}.PackageVariant`,
  ),
  [`${V2}.PackageVariantSet`]: packageVariantSet,
  [`${V2}.PackageVariantSetList`]: list(
    "config.porch.kpt.dev",
    "v1alpha2",
    "PackageVariantSet",
    `${V2}.PackageVariantSet`,
  ),
};
