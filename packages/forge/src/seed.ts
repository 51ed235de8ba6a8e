import { join } from "node:path";
import type { Forge } from "./forge.js";
import { writePrivateFile } from "./private-file.js";
import type { Permission } from "./types.js";

interface SeedOptions {
  /** Organization owning the example repositories (default `acme`). */
  org?: string;
  /** Where to write the app's private key (default `<dataDir>/porchlight-app.pem`). */
  privateKeyPath?: string;
}

interface SeededUser {
  login: string;
  permission: Permission;
  pat: string;
}

export interface SeedResult {
  /** The site administrator: creates organizations and repositories, administers every repository. */
  admin: { login: string; pat: string };
  appId: number;
  installationId: number;
  privateKeyPath: string;
  webhookSecret: string;
  org: string;
  repos: string[];
  users: SeededUser[];
}

const KPTFILE = `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: hello
  annotations:
    config.kubernetes.io/local-config: "true"
info:
  description: An example blueprint, a small web application
pipeline:
  mutators:
    - image: gcr.io/kpt-fn/set-namespace:v0.4.1
      configMap:
        namespace: hello
    - image: gcr.io/kpt-fn/set-labels:v0.2.0
      configMap:
        app.kubernetes.io/name: hello
`;

const PACKAGE_CONTEXT = `apiVersion: v1
kind: ConfigMap
metadata:
  name: kptfile.kpt.dev
  annotations:
    config.kubernetes.io/local-config: "true"
data:
  name: hello
`;

const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: hello
  namespace: hello
  labels:
    app.kubernetes.io/name: hello
spec:
  replicas: 1
  selector:
    matchLabels:
      app.kubernetes.io/name: hello
  template:
    metadata:
      labels:
        app.kubernetes.io/name: hello
    spec:
      containers:
        - name: hello
          image: nginx:1.27
          ports:
            - containerPort: 80
`;

const SERVICE = `apiVersion: v1
kind: Service
metadata:
  name: hello
  namespace: hello
  labels:
    app.kubernetes.io/name: hello
spec:
  selector:
    app.kubernetes.io/name: hello
  ports:
    - port: 80
      targetPort: 80
`;

/**
 * dev follows the `stable` channel (porchlight's addition: every publish there updates it); prod pins
 * revision v1, as a Porch PackageVariant does, and moves only when its file is edited.
 */
function variant(org: string, env: string): string {
  const follow = env === "dev" ? "channel: stable" : "revision: v1";
  return `apiVersion: config.porch.kpt.dev/v1alpha1
kind: PackageVariant
metadata:
  name: hello-${env}
spec:
  upstream:
    repo: ${org}/blueprints
    package: hello
    ${follow}
  downstream:
    repo: ${org}/deploy-${env}
    package: hello
  labels:
    env: ${env}
  packageContext:
    data:
      env: ${env}
`;
}

const USERS: { login: string; permission: Permission }[] = [
  { login: "maintainer", permission: "maintain" },
  { login: "reviewer", permission: "write" },
  { login: "reader", permission: "read" },
];

/**
 * A world a new user can try porchlight in: the app installed on an organization with an
 * upstream blueprint repository (package `hello`, published as `hello/v1`, a pipeline of
 * builtin functions, PackageVariants for two downstreams), two deployment repositories, and
 * users with PATs at each permission level.
 */
export async function seed(forge: Forge, opts: SeedOptions = {}): Promise<SeedResult> {
  const org = opts.org ?? "acme";
  const existing = forge.core.store.data.apps.find((a) => a.slug === "porchlight");
  const app = existing
    ? { appId: existing.id, privateKeyPem: existing.privateKeyPem, webhookSecret: existing.webhookSecret }
    : forge.createApp({ name: "porchlight", owner: org });
  forge.createUser(org, { type: "Organization" });
  const repos = [`${org}/blueprints`, `${org}/deploy-dev`, `${org}/deploy-prod`];
  if (!forge.core.store.repo(org, "blueprints")) {
    await forge.createRepo(repos[0]!, {
      description: "Upstream kpt blueprints",
      files: {
        "README.md": "# blueprints\n\nUpstream kpt packages. `hello/` is published as `hello/v1`.\n",
        "hello/Kptfile": KPTFILE,
        "hello/package-context.yaml": PACKAGE_CONTEXT,
        "hello/deployment.yaml": DEPLOYMENT,
        "hello/service.yaml": SERVICE,
        ".porchlight/variants/hello-dev.yaml": variant(org, "dev"),
        ".porchlight/variants/hello-prod.yaml": variant(org, "prod"),
      },
      topics: ["kpt", "blueprints"],
    });
    const repo = forge.repo(repos[0]!);
    const dir = forge.core.git.dir(repo.ownerLogin, repo.name);
    const main = await forge.core.git.resolve(dir, "refs/heads/main");
    await forge.core.git.updateRef(dir, "refs/tags/hello/v1", main!, "0".repeat(40));
  }
  for (const full of repos.slice(1)) {
    if (!forge.core.store.repo(org, full.split("/")[1]!)) {
      await forge.createRepo(full, { autoInit: true, description: "Deployment repository (downstream)" });
    }
  }
  const inst =
    forge.core.store.data.installations.find((i) => i.appId === app.appId && i.accountLogin === org) ??
    forge.createInstallation(app.appId, org);
  const users: SeededUser[] = [];
  for (const u of USERS) {
    const known = forge.core.store.data.tokens.find((t) => t.kind === "pat" && t.login === u.login);
    const pat = known?.token ?? forge.createUser(u.login, { pat: true }).pat!;
    for (const full of repos) forge.setPermission(full, u.login, u.permission);
    users.push({ ...u, pat });
  }
  const adminToken = forge.core.store.data.tokens.find((t) => t.kind === "pat" && t.login === "admin");
  const admin = {
    login: "admin",
    pat: adminToken?.token ?? forge.createUser("admin", { pat: true, siteAdmin: true }).pat!,
  };
  const privateKeyPath = opts.privateKeyPath ?? join(forge.dataDir, "porchlight-app.pem");
  // 0600 also over a key file an earlier seed left readable by others
  writePrivateFile(privateKeyPath, app.privateKeyPem);
  return {
    admin,
    appId: app.appId,
    installationId: inst.id,
    privateKeyPath,
    webhookSecret: app.webhookSecret,
    org,
    repos,
    users,
  };
}

/** What `porchlight forge seed` prints: probot's environment, then the rest. */
export function formatSeed(r: SeedResult, url: string, installationToken?: string): string {
  const u = new URL(url);
  const lines = [
    "# porchlight forge: seeded. Environment for the app (probot):",
    `APP_ID=${r.appId}`,
    `PRIVATE_KEY_PATH=${r.privateKeyPath}`,
    `WEBHOOK_SECRET=${r.webhookSecret}`,
    `GHE_HOST=${u.host}`,
    `GHE_PROTOCOL=${u.protocol.replace(":", "")}`,
    "",
    `# installation id: ${r.installationId}`,
    ...(installationToken
      ? [
          `# installation token (the app's, as porchlight action needs for check runs; an hour, as GitHub's): ${installationToken}`,
          "# the app's login, for PORCHLIGHT_BOT_LOGIN: porchlight[bot]",
        ]
      : []),
    `# forge: ${url} (REST also at ${url}/api/v3)`,
    ...r.repos.map((full) => `# repository: ${url}/${full}.git`),
    `# site administrator ${r.admin.login} (creates organizations and repositories) PAT: ${r.admin.pat}`,
    ...r.users.map((x) => `# user ${x.login} (${x.permission}) PAT: ${x.pat}`),
    `# clone: git clone http://${r.users[0]?.login}:${r.users[0]?.pat}@${u.host}/${r.repos[0]}.git`,
    "",
  ];
  return lines.join("\n");
}
