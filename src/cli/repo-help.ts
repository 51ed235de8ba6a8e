import { REGISTRY_REPO } from "../porch/repo-address.js";
import { KUBE_FLAGS } from "./kube-access.js";

/**
 * `porchlight repo`'s flags (parsed by repo.ts, before any verb is loaded) and help, apart from its
 * verbs (repo-verbs.ts): `repo --help` loads nothing that reads a registry.
 */
export const FLAGS = {
  namespace: "value",
  "api-url": "value",
  ...KUBE_FLAGS,
  output: "value",
  "no-headers": "switch",
  name: "value",
  description: "value",
  labels: "value",
  branch: "value",
  directory: "value",
  deployment: "switch",
  "create-branch": "switch",
  "repo-basic-username": "value",
  "repo-basic-password": "value",
  "repo-workload-identity": "switch",
  "sync-schedule": "value",
  "all-namespaces": "switch",
  "keep-auth-secret": "switch",
  all: "switch",
  "run-once": "value",
  "request-timeout": "value",
  filename: "value",
} as const;

export const HELP = `porchlight repo — Porch's repository registrations, kept in git (as porchctl repo)

Usage:
  porchlight repo register REPOSITORY_URL --namespace=OWNER [--name=NAME] [--description=TEXT]
                           [--branch=main] [--directory=/] [--deployment] [--create-branch]
                           [--labels=KEY=VALUE,...]
  porchlight repo get [NAME...] --namespace=OWNER [-o yaml|json|custom-columns=...|jsonpath=...] [--no-headers]
                      [--request-timeout=30s]
  porchlight repo apply -f FILE|- --namespace=OWNER
  porchlight repo unregister NAME... --namespace=OWNER
  porchlight repo sync NAME... | --all --namespace=OWNER
  (each also with --kubeconfig=FILE, --context=NAME, --cluster=NAME, --user=NAME, --api-url=URL)

A namespace is a GitHub owner: its registrations are Repository objects (config.porch.kpt.dev/v1alpha1)
in the files repositories/<name>.yaml of the repository OWNER/${REGISTRY_REPO}, which register creates
when it is missing. 'porchlight rpkg --namespace=OWNER --repository=NAME' then works on the registered
repository, and names its revisions NAME.<package>.<workspace>, as Porch does.
--repo-basic-username and --repo-basic-password are accepted for porchctl's scripts and never stored:
porchlight reaches every repository with your token; so is unregister's
--keep-auth-secret (there is no secret). porchlight keeps no cache of a repository: every command reads
git, so sync only checks that each registration's repository can be read (--run-once is accepted).

The token, the GitHub and the namespace come as rpkg takes them (docs/rpkg.md): GH_TOKEN (or
GITHUB_TOKEN), --api-url (else PORCHLIGHT_API_URL, GITHUB_API_URL), --namespace (else
GITHUB_REPOSITORY_OWNER), and what they leave unset from a kubeconfig porchlight wrote (--kubeconfig
FILE, else KUBECONFIG, else ~/.kube/config; --context, else its current one): its user's token, the
GitHub its cluster's extension "porchlight" names, its namespace. With GH_TOKEN set and none of
--kubeconfig, --context, --cluster, --user, no kubeconfig is read.

Any git URL can be registered, as in Porch; porchlight reads the repositories of the GitHub it talks to
(--api-url), and get shows any other as Ready False, with the reason (a host that does not resolve,
a server that does not answer, or that it is not on that GitHub). Each readiness check waits at most
--request-timeout (kubectl's: 500ms, 10s, 2m; 0 waits as long as it takes; default
PORCHLIGHT_REQUEST_TIMEOUT, else 30s), so one repository that never answers holds no listing up.
apply -f takes Repository objects (as get -o yaml prints them, or a file kubectl applies to Porch):
a new name is registered, an existing one replaced, except its spec.type, spec.git.repo, spec.git.branch
and spec.git.directory, which Porch makes immutable.
`;
