import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { defaultRegistry } from "../../src/fn/registry.js";
import { DEFAULT_RUN_OPTIONS } from "../../src/fn/runtime/types.js";
import { treeFromText, treeToText } from "../../src/kpt/tree.js";
import { render } from "../../src/render/render.js";
import { catTrip } from "./cat-trip.js";
import { hasKpt } from "./kpt-oracle.js";

/** The first lines of a resource, before each case's body unless told otherwise. */
const RESOURCE = "apiVersion: v1\nkind: X\nmetadata:\n  name: x\n";
const BARE = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: p\n";

/**
 * A file's body (after a resource's header) and what kpt v1.0.0-beta.56 writes of it with no function
 * and through `exec: cat` (unset: the body as it was).
 */
export type KptCase = [name: string, body: string, none?: string, throughCat?: string];

/**
 * The cases rendered by porchlight with no function and through `exec: cat`, each compared with what
 * kpt writes; where kpt is installed, kpt renders them too, so that the expectations are kpt's. Each
 * body follows `header` (a resource's first lines; "" where the bodies are whole files). Call at a test
 * file's top level.
 */
export function kptCases(title: string, cases: readonly KptCase[], header = RESOURCE): void {
  const cat = catTrip(title.replace(/\W+/g, "-").slice(0, 24));

  describe(`${title}, with no function`, () => {
    it.each(cases)("%s", async (_name, body, kpt = body) => {
      const out = await render(treeFromText({ Kptfile: BARE, "f.yaml": header + body }), "", {
        registry: defaultRegistry(),
        run: DEFAULT_RUN_OPTIONS,
      });
      expect(out.ok, out.error?.message).toBe(true);
      expect(treeToText(out.tree)["f.yaml"]).toBe(header + kpt);
    });
  });

  describe(`${title}, through \`exec: cat\``, () => {
    it.each(cases)("%s", async (_name, body, _none, kpt = body) => {
      expect(await cat.throughCat(header + body)).toBe(header + kpt);
    });
  });

  describe.skipIf(!hasKpt)(`${title}: the expectations are what kpt writes`, () => {
    it("with no function and with `exec: cat`", () => {
      const dir = join(cat.work, "kpt");
      mkdirSync(dir);
      writeFileSync(join(dir, "Kptfile"), BARE);
      cases.forEach(([, body], i) => {
        for (const [name, kptfile] of [
          [`n${i}`, BARE],
          [`c${i}`, cat.kptfile(`c${i}`)],
        ] as const) {
          mkdirSync(join(dir, name));
          writeFileSync(join(dir, name, "Kptfile"), kptfile);
          writeFileSync(join(dir, name, "f.yaml"), header + body);
        }
      });
      execFileSync("kpt", ["fn", "render", dir, "--allow-exec"], { stdio: "pipe" });
      cases.forEach(([name, body, none = body, throughCat = body], i) => {
        expect(readFileSync(join(dir, `n${i}`, "f.yaml"), "utf8"), `no function: ${name}`).toBe(
          header + none,
        );
        expect(readFileSync(join(dir, `c${i}`, "f.yaml"), "utf8"), `exec: cat: ${name}`).toBe(
          header + throughCat,
        );
      });
    });
  });
}
