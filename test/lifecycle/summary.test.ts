import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import {
  formatSummary,
  type PackageChangeSummary,
  parseSummary,
  type SummaryInput,
  summaryNeedsUpdate,
} from "../../src/lifecycle/index.js";
import { codeBlock } from "../util/codeblock.js";

const HEAD = "0123456789abcdef0123456789abcdef01234567";

const summary = (yaml: string): SummaryInput => ({
  headSha: HEAD,
  ...(parse(yaml) as { packages: PackageChangeSummary[] }),
});

describe("the proposal summary comment", () => {
  it("shows resources, images, RBAC and namespaces per package, and the revision it publishes as", () => {
    const body = formatSummary(
      summary(codeBlock`
        packages:
          - package: net/dns/coredns
            revision: 4
            resources:
              - {resource: {apiVersion: apps/v1, kind: Deployment, namespace: dns, name: coredns}, change: changed, file: deployment.yaml}
              - {resource: {apiVersion: v1, kind: Namespace, name: dns}, change: added, file: ns.yaml}
              - {resource: {apiVersion: v1, kind: ConfigMap, namespace: dns, name: old}, change: removed, file: "cm|old.yaml"}
            images:
              - {resource: {apiVersion: apps/v1, kind: Deployment, namespace: dns, name: coredns}, container: coredns, from: "coredns/coredns:1.10.1", to: "coredns/coredns:1.11.1"}
            rbac:
              - resource: {apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRole, name: coredns}
                change: changed
                details: ["+ list, watch on endpointslices"]
            namespaces: {added: [dns], removed: []}
      `),
    );
    expect(body).toBe(codeBlock`
      <!-- porchlight:summary -->
      <!-- porchlight:summary-meta version=1 head=${HEAD} -->
      ## What publishing this proposal changes

      ### \`net/dns/coredns\` → \`net/dns/coredns/v4\`

      1 added, 1 changed, 1 removed

      | | Resource | File |
      |---|---|---|
      | + | Namespace dns | ns.yaml |
      | ~ | Deployment dns/coredns | deployment.yaml |
      | − | ConfigMap dns/old | cm\\|old.yaml |

      **Images**

      - Deployment dns/coredns, container \`coredns\`: \`coredns/coredns:1.10.1\` → \`coredns/coredns:1.11.1\`

      **RBAC** (review who may do what)

      - ~ ClusterRole coredns
        - + list, watch on endpointslices

      **Namespaces:** + \`dns\`
    `);
  });

  it("says so when no package changes", () => {
    expect(formatSummary({ headSha: HEAD, packages: [] })).toContain("No package changes");
  });

  it("marks a deletion proposal", () => {
    const body = formatSummary(
      summary(codeBlock`
        packages:
          - package: app
            deletion: true
            resources: [{resource: {apiVersion: v1, kind: Service, name: web}, change: removed}]
            images: []
            rbac: []
            namespaces: {added: [], removed: []}
      `),
    );
    expect(body).toContain("### `app` (deleted)\n\n0 added, 0 changed, 1 removed");
  });

  it("finds its markers again, and knows when the head moved", () => {
    const body = formatSummary({ headSha: HEAD, packages: [] });
    expect(parseSummary(body)).toEqual({ version: 1, headSha: HEAD });
    expect(summaryNeedsUpdate(body, HEAD)).toBe(false);
    expect(summaryNeedsUpdate(body, "ffff")).toBe(true);
    expect(summaryNeedsUpdate(body, HEAD, 2)).toBe(true);
    expect(summaryNeedsUpdate(undefined, HEAD)).toBe(true);
    expect(parseSummary("LGTM")).toBeUndefined();
    expect(parseSummary("quoting: <!-- porchlight:summary-meta version=1 head=abc -->")).toBeUndefined();
  });

  describe("stays under GitHub's 65,536 characters", () => {
    const many = (packages: number, resources: number): SummaryInput => ({
      headSha: HEAD,
      packages: Array.from({ length: packages }, (_, p) => ({
        package: `apps/app-${p}`,
        revision: 1,
        resources: Array.from({ length: resources }, (_, r) => ({
          resource: { apiVersion: "v1", kind: "ConfigMap", namespace: `ns-${p}`, name: `config-${r}` },
          change: "added" as const,
          file: `config-${r}.yaml`,
        })),
        images: [
          {
            resource: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
            container: "web",
            to: "web:1",
          },
        ],
        rbac: [],
        namespaces: { added: [`ns-${p}`], removed: [] },
      })),
    });

    it("drops the resource tables first, keeping counts and images", () => {
      const body = formatSummary(many(20, 200));
      expect(body.length).toBeLessThanOrEqual(65_535);
      expect(body).not.toContain("| Resource |");
      expect(body).toContain("### `apps/app-19` → `apps/app-19/v1`\n\n200 added, 0 changed, 0 removed");
      expect(body).toContain("**Images**");
    });

    it("then leaves out packages with a note, markers intact", () => {
      const body = formatSummary(many(2000, 1));
      expect(body.length).toBeLessThanOrEqual(65_535);
      expect(body).toMatch(
        /_…and \d+ more packages not shown: this comment has a size limit\. The check run lists every change\._\n$/,
      );
      expect(parseSummary(body)).toEqual({ version: 1, headSha: HEAD });
    });

    it("cuts even a single huge section at the limit", () => {
      const input = many(1, 1);
      const first = input.packages[0] as PackageChangeSummary;
      first.rbac = [
        {
          resource: { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", name: "big" },
          change: "added",
          details: Array.from({ length: 5000 }, (_, i) => `rule ${i}: get, list, watch on everything`),
        },
      ];
      const body = formatSummary(input, 10_000);
      expect(body.length).toBeLessThanOrEqual(10_000);
      expect(body).toContain("truncated");
      expect(parseSummary(body)?.headSha).toBe(HEAD);
    });
  });
});
