import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { draftOf, REVISIONS } from "../porchapi/fleet-replicas.js";
import { approveAsMaintainer, type PorchWorld, porchWorld } from "./porch-world.js";

const LISTING = "/repos/{owner}/{repo}/pulls";

/** A step's answer from Porch's API, refused with its message in the failure. */
function ok(r: { status: number; body: { message?: string } }, what: string) {
  expect(r.status, `${what}: ${r.body.message}`).toBeLessThan(300);
  return r.body as { spec?: { lifecycle?: string } };
}

/**
 * Porch's API keeps each repository's open pull requests as it last listed them, with every change
 * its writes made and the app's webhooks told since (src/github/open-pulls.ts, issue #77): a revision
 * proposed, approved, opened and closed on GitHub directly, is answered at once as it now is, and the
 * callers' tokens list no pull requests to learn it. Three registrations of one repository publishing
 * together listed them 3.1 times a revision, in full (each after another's change), before.
 */
describe("Porch's API and the open pull requests it knows", () => {
  let w: PorchWorld;
  beforeAll(async () => {
    // the index's max age past any wait of this test: what is answered comes from what was heard
    w = await porchWorld({ env: { PORCHLIGHT_API_INDEX_MAX_AGE_MS: String(3_600_000) } });
    await w.settle();
  }, 120_000);
  afterAll(() => w?.stop());

  /** The callers' listings of pull requests since log entry `from` (the app's are its own), each as its path and status. */
  const listings = (from: number) =>
    w.forge.requestLog.entries
      .slice(from)
      .filter((e) => e.method === "GET" && e.route === LISTING && e.installationId === null)
      .map((e) => `${e.path} ${e.status}`);

  const lifecycle = async (name: string) =>
    ok(await w.request("reviewer", "GET", `${REVISIONS}/${name}`), `get ${name}`).spec?.lifecycle;

  const patch = (name: string, lifecycle: string) =>
    w.request(
      "reviewer",
      "PATCH",
      `${REVISIONS}/${name}`,
      { spec: { lifecycle } },
      "application/merge-patch+json",
    );

  /** A new Draft `blueprints.PKG.ws`, the app done with it: its name, and where the request log is then. */
  const created = async (pkg: string) => {
    const name = `blueprints.${pkg}.ws`;
    ok(await w.request("reviewer", "POST", REVISIONS, draftOf(pkg).body), "create");
    await w.settle();
    expect(await lifecycle(name)).toBe("Draft");
    return { name, from: w.forge.requestLog.entries.length };
  };

  it("answers a proposal and its approval made through it without listing them again", async () => {
    const { name, from } = await created("known");
    expect(ok(await patch(name, "Proposed"), "propose").spec?.lifecycle).toBe("Proposed");
    expect(await lifecycle(name)).toBe("Proposed");
    await w.settle();
    expect(ok(await approveAsMaintainer(w, name), "approve").spec?.lifecycle).toBe("Published");
    expect(await lifecycle(name)).toBe("Published");
    await w.settle();
    expect(await lifecycle(name)).toBe("Published");
    expect(listings(from)).toEqual([]);
  }, 300_000);

  it("answers a pull request opened and closed on GitHub directly as its webhooks told, listing nothing", async () => {
    const { name, from } = await created("outside");
    const rest = async (method: string, path: string, body: unknown) => {
      const res = await fetch(`${w.forge.apiUrl}${path}`, {
        method,
        headers: { authorization: `token ${w.tokens.maintainer}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      expect(res.status, `${method} ${path}`).toBeLessThan(300);
      return (await res.json()) as { number: number };
    };
    // the maintainer proposes it on GitHub, as its pull request opened by hand
    const opened = await rest("POST", "/repos/acme/blueprints/pulls", {
      head: "drafts/outside/ws",
      base: "main",
      title: "outside",
      body: "",
    });
    await w.settle();
    expect(await lifecycle(name)).toBe("Proposed");
    // and closes it there: a Draft again
    await rest("PATCH", `/repos/acme/blueprints/pulls/${opened.number}`, { state: "closed" });
    await w.settle();
    expect(await lifecycle(name)).toBe("Draft");
    expect(listings(from)).toEqual([]);
  }, 300_000);
});
