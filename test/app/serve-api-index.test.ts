import { readFileSync } from "node:fs";
import { request } from "node:https";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { pushDraft } from "../util/git-draft.js";
import { gitAs } from "../util/git-identity.js";
import { useTempDir } from "../util/temp-dirs.js";
import { until as waitFor } from "../util/waits.js";
import { startServe } from "./serving.js";

const git = gitAs("dev");

/** What the test waits for, asked every 50 ms, 1200 times at the most (test/util/waits.ts). */
const until = (what: string, check: () => boolean | Promise<boolean>) => waitFor(check, what, 50, 1200);

/**
 * `porchlight serve` runs the app and Porch's API in one process: the app's webhooks keep the API's index
 * of package revisions current. With every poll and the index's safety age set to ten minutes, a draft
 * pushed with git reaches an open watch and the next list only because the app heard its push.
 */
describe("serve: Porch's API kept current by the app's webhooks", () => {
  const data = useTempDir("porchlight-serve-index-");

  it("shows a draft pushed with git in a watch and the next list, woken by the push's webhook", async () => {
    const served = await startServe(["--data", data], {
      PORCHLIGHT_RECONCILE_INTERVAL_MS: "0",
      PORCHLIGHT_API_WATCH_POLL_MS: "600000",
      PORCHLIGHT_API_INDEX_MAX_AGE_MS: "600000",
    });
    const out = served.out;
    const forge = /forge: (\S+) /.exec(out)?.[1] ?? "";
    const kube = parse(readFileSync(/export KUBECONFIG=(\S+)/.exec(out)?.[1] ?? "", "utf8"));
    const server = kube.clusters[0].cluster.server as string;
    const ca = Buffer.from(kube.clusters[0].cluster["certificate-authority-data"] as string, "base64");
    const token = kube.users[0].user.token as string;
    const revisions = "/apis/porch.kpt.dev/v1alpha1/namespaces/acme/packagerevisions";
    const get = (path: string) =>
      new Promise<string>((resolve, reject) => {
        const req = request(
          `${server}${path}`,
          { ca, headers: { authorization: `Bearer ${token}` } },
          (res) => {
            let text = "";
            res.setEncoding("utf8");
            res.on("data", (d: string) => {
              text += d;
            });
            res.on("end", () => resolve(text));
          },
        );
        req.on("error", reject);
        req.end();
      });
    const names = async () =>
      (JSON.parse(await get(revisions)) as { items: { metadata: { name: string } }[] }).items.map(
        (o) => o.metadata.name,
      );
    const lines: string[] = [];
    const watching = request(`${server}${revisions}?watch=true`, {
      ca,
      headers: { authorization: `Bearer ${token}` },
    });
    watching.on("response", (res) => {
      res.setEncoding("utf8");
      res.on("data", (d: string) => lines.push(...d.split("\n").filter(Boolean)));
    });
    watching.on("error", () => {});
    watching.end();
    try {
      const before = await names();
      await until("the watch's first events", () => lines.length >= before.length);
      const repo = /--repository (\S+)/.exec(out)?.[1] ?? "acme/blueprints";
      const name = repo.split("/")[1] ?? "blueprints";
      const clone = join(data, "clone");
      const url = new URL(`${forge}/${repo}.git`);
      url.username = "x-access-token";
      url.password = token;
      await git(data, "clone", "-q", url.toString(), clone);
      await pushDraft(
        git,
        clone,
        "drafts/indexed/ws",
        {
          "indexed/Kptfile":
            "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: indexed\ninfo:\n  description: pushed with git\n",
        },
        "indexed: a draft made with git",
      );
      const pushed = `${name}.indexed.ws`;
      await until("the pushed draft in the watch", () =>
        lines.some((l) => l.includes('"type":"ADDED"') && l.includes(`"name":"${pushed}"`)),
      );
      expect(await names()).toContain(pushed);
    } finally {
      watching.destroy();
      await served.stop();
    }
  }, 240_000);
});
