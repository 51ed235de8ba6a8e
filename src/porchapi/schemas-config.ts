import { arr, bool, obj, ref, type Schema, str } from "./schema-dsl.js";
import { LIST_META, OBJECT_META } from "./schemas-meta.js";

/** config.porch.kpt.dev/v1alpha1's schemas, under the names Porch's API server gives them. */
const CONFIG = "dev.kpt.porch.config.v1alpha1";

const secretRef = obj("Credentials (not used: porchlight reaches GitHub with the caller's token).", {
  name: str("Its name."),
});

const repository = obj(
  "A registered package repository: a GitHub repository (or a directory of one) holding packages.",
  {
    apiVersion: str("config.porch.kpt.dev/v1alpha1"),
    kind: str("Repository"),
    metadata: ref(OBJECT_META),
    spec: obj("What is registered.", {
      description: str("What the repository holds, for people."),
      deployment: bool("Whether its packages are deployed (a deployment repository)."),
      type: str("git (porchlight keeps no OCI repositories).", { enum: ["git", "oci"] }),
      content: str("Package.", { enum: ["Package"] }),
      sync: obj("How often Porch reads it again (porchlight reads it on every request).", {
        runOnceAt: str("A time to read it once.", { format: "date-time" }),
        schedule: str("A cron schedule."),
      }),
      git: obj(
        "The git repository.",
        {
          repo: str("Its address: a GitHub URL, or OWNER/REPO."),
          branch: str("The branch its packages are published to (default: the default branch)."),
          createBranch: bool("Create the branch if it is missing."),
          directory: str("The directory of it holding the packages (default: all of it)."),
          secretRef,
          author: str("The commit author's name."),
          email: str("The commit author's email."),
        },
        ["repo"],
      ),
      oci: obj("An OCI registry (not served by porchlight).", { registry: str("Its address."), secretRef }),
    }),
    status: obj("Whether porchlight can read it.", {
      conditions: arr(
        ref("io.k8s.apimachinery.pkg.apis.meta.v1.Condition"),
        "Ready: porchlight reads it with the caller's token.",
      ),
      lastFullSyncTime: str("Not set.", { format: "date-time" }),
      observedGeneration: { type: "integer", format: "int64", description: "Not set." },
      observedRunOnceAt: str("Not set.", { format: "date-time" }),
      packageCount: { type: "integer", format: "int32", description: "Not set." },
      gitCommitHash: str("Not set."),
      nextFullSyncTime: str("Not set.", { format: "date-time" }),
    }),
  },
);

export const CONFIG_SCHEMAS: Record<string, Schema> = {
  [`${CONFIG}.Repository`]: repository,
  [`${CONFIG}.RepositoryList`]: obj(
    "A list of repositories.",
    {
      apiVersion: str("config.porch.kpt.dev/v1alpha1"),
      kind: str("RepositoryList"),
      metadata: ref(LIST_META),
      items: arr(ref(`${CONFIG}.Repository`), "The Repository objects."),
    },
    ["items"],
  ),
};
