import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { kubeconfigYaml } from "../../src/cli/kubeconfig.js";
import { kubeContext } from "../../src/cli/kubeconfig-load.js";
import { docBlock } from "../util/doc-blocks.js";

/** A kubeconfig with one cluster, user and context each, named by `n`, current unless `current` says. */
const config = (
  n: string,
  o: { token?: string; server?: string; current?: string | null; ns?: string } = {},
) =>
  `apiVersion: v1
kind: Config
clusters:
- name: c-${n}
  cluster:
    server: ${o.server ?? `https://${n}.example:6443`}
    extensions:
    - name: porchlight
      extension:
        github-api-url: https://${n}.example/api/v3
users:
- name: u-${n}
  user:
    token: ${o.token ?? `token-${n}`}
contexts:
- name: ${n}
  context:
    cluster: c-${n}
    user: u-${n}
    namespace: ${o.ns ?? `ns-${n}`}
${o.current === null ? "" : `current-context: ${o.current ?? n}\n`}`;

/** The kubeconfig rules of client-go, as kubectl and porchctl read them (docs/rpkg.md). */
describe("a kubeconfig, read as kubectl reads it", () => {
  const dir = mkdtempSync(join(tmpdir(), "porchlight-kubeconfig-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };

  it("takes the current context: its server, the GitHub porchlight's extension names, the user's token, the namespace", () => {
    const a = file("a.yaml", config("a"));
    expect(kubeContext({ kubeconfig: a }, {})).toEqual({
      name: "a",
      file: a,
      githubApiUrl: "https://a.example/api/v3",
      user: "u-a",
      token: "token-a",
      cluster: "c-a",
      server: "https://a.example:6443",
      namespace: "ns-a",
    });
  });

  it("is written as docs/rpkg.md shows a cluster: its extension names the GitHub, which is read back", () => {
    const doc = parse(docBlock("docs/rpkg.md", "clusters:").text) as { clusters: unknown };
    const text = kubeconfigYaml({
      server: "https://127.0.0.1:8443",
      githubApiUrl: "https://api.github.com",
      name: "porchlight",
      user: "u",
      token: "t",
      namespace: "acme",
    });
    expect((parse(text) as { clusters: unknown }).clusters).toEqual(doc.clusters);
    expect(kubeContext({ kubeconfig: file("written.yaml", text) }, {})?.githubApiUrl).toBe(
      "https://api.github.com",
    );
  });

  it("merges KUBECONFIG's files: the first to name an entry or set current-context wins; missing files and repeats are skipped", () => {
    const a = file("m-a.yaml", config("a", { current: null }));
    const b = file("m-b.yaml", config("b", { current: "b" }));
    // the same names as a's, another token: a's entries win
    const shadow = file("m-shadow.yaml", config("a", { token: "shadowed", current: "a" }));
    const env = { KUBECONFIG: [join(dir, "absent.yaml"), a, "", b, shadow, a].join(":") };
    expect(kubeContext({}, env)).toMatchObject({ name: "b", file: b, token: "token-b" });
    expect(kubeContext({ context: "a" }, env)).toMatchObject({ name: "a", file: a, token: "token-a" });
  });

  it("puts --cluster and --user in place of the context's", () => {
    const env = { KUBECONFIG: `${file("o-a.yaml", config("a"))}:${file("o-b.yaml", config("b"))}` };
    expect(kubeContext({ user: "u-b", cluster: "c-b" }, env)).toMatchObject({
      name: "a",
      user: "u-b",
      token: "token-b",
      githubApiUrl: "https://b.example/api/v3",
      namespace: "ns-a",
    });
  });

  it("reads ~/.kube/config when KUBECONFIG is unset, and nothing when neither is there", () => {
    const home = join(dir, "home");
    mkdirSync(join(home, ".kube"), { recursive: true });
    expect(kubeContext({}, { HOME: home })).toBeUndefined();
    file("home/.kube/config", config("h"));
    expect(kubeContext({}, { HOME: home })).toMatchObject({ name: "h", file: join(home, ".kube", "config") });
    expect(kubeContext({}, {})).toBeUndefined();
  });

  it("takes a tokenFile (relative to its kubeconfig, trimmed) over the token, as client-go does", () => {
    file("t.token", "from-file\n");
    const t = file(
      "t.yaml",
      config("t").replace("    token: token-t", "    token: token-t\n    tokenFile: t.token"),
    );
    expect(kubeContext({ kubeconfig: t }, {})?.token).toBe("from-file");
    const lost = file("lost.yaml", config("l").replace("    token: token-l", "    tokenFile: nowhere.token"));
    expect(() => kubeContext({ kubeconfig: lost }, {})).toThrow(
      `user "u-l" of context "l" (${lost}): cannot read its tokenFile ${join(dir, "nowhere.token")}`,
    );
  });

  it("names the file and what is missing: --kubeconfig's file, the context, no current-context", () => {
    const gone = join(dir, "gone.yaml");
    expect(() => kubeContext({ kubeconfig: gone }, {})).toThrow(`cannot read the kubeconfig ${gone}`);
    const a = file("e-a.yaml", config("a"));
    const b = file("e-b.yaml", config("b", { current: "z" }));
    expect(() => kubeContext({}, { KUBECONFIG: `${b}:${a}` })).toThrow(
      `context "z" is not in the kubeconfig files ${b}, ${a} (its current-context, set in ${b}); contexts there: b, a`,
    );
    const none = file("e-none.yaml", config("n", { current: null }));
    expect(() => kubeContext({ kubeconfig: none }, {})).toThrow(
      `${none} sets no current-context: name one with --context (contexts there: n)`,
    );
  });
});
