import { afterAll, describe, expect, it } from "vitest";
import { branchHead, checkRuns, useWorld } from "./harness.js";

/** A package whose validator finds one error in each of `n` Services (and none in the Kptfile). */
const KPTFILE = `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: big
pipeline:
  validators:
    - image: ghcr.io/kptdev/krm-functions-catalog/kubeconform:v0.1
      configMap:
        ignore_missing_schemas: "true"
`;
const services = (n: number) =>
  Array.from(
    { length: n },
    (_, i) => `apiVersion: v1\nkind: Service\nmetadata:\n  name: s-${i}\nspec:\n  ports: "none"\n`,
  ).join("---\n");

/**
 * A draft whose render reports 2,001 findings, then its proposal, over real HTTP and git: the
 * `porchlight/render` check on the head is reported twice (the draft's render, then the proposal's), and
 * what it shows adds up to 2,001 — 500 annotations and "…and 1,501 more" — not 1,000 under a summary
 * counting 500.
 */
describe("a check's annotations and its summary count the same findings (forge over HTTP and git)", () => {
  const [owner, repo] = ["acme", "blueprints"];
  const w = useWorld({});
  afterAll(async () => {
    expect(w.forge.errors).toEqual([]);
  });

  const renderCheck = async (head: string) => {
    const run = (await checkRuns(w, head)).find((r) => r.name === "porchlight/render");
    const rest = w.users.alice!.rest;
    const shown = await rest.paginate(rest.checks.listAnnotations, {
      owner,
      repo,
      check_run_id: run?.id ?? 0,
      per_page: 100,
    });
    return { summary: run?.output.summary ?? "", shown: shown.length };
  };

  it("2,001 findings: 500 shown and 1,501 more, on the draft and again once proposed", async () => {
    const branch = "drafts/apps/big/v1";
    await (await w.clone("alice")).push(branch, {
      "apps/big/Kptfile": KPTFILE,
      "apps/big/svc.yaml": services(2001),
    });
    await w.settle();
    const head = await branchHead(w, branch);
    const drafted = await renderCheck(head);
    expect(drafted.summary).toContain("reported 2001 error(s)");
    expect(drafted.summary).toContain("…and 1,501 more annotations");
    expect(drafted.shown).toBe(500);

    await w.users.alice!.rest.pulls.create({ owner, repo, head: branch, base: "main", title: "big" });
    await w.settle();
    const proposed = await renderCheck(head);
    expect(proposed.summary).toContain("…and 1,501 more annotations");
    expect(proposed.shown).toBe(500);
  }, 120_000);
});
