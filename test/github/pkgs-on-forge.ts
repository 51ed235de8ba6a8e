import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Forge, startForge } from "@porchlight/forge";
import { type FileTree, treeFromText } from "../../src/kpt/tree.js";

/** The embedded forge with repository acme/pkgs (one commit on main) that alice may write, and a temporary directory. */
export async function pkgsOnForge(
  tmpPrefix: string,
): Promise<{ forge: Forge; token: string; url: string; tmp: string }> {
  const forge = await startForge();
  forge.createUser("acme", { type: "Organization" });
  await forge.createRepo("acme/pkgs", { autoInit: true });
  const token = forge.createUser("alice", { pat: true }).pat as string;
  forge.setPermission("acme/pkgs", "alice", "write");
  const tmp = mkdtempSync(join(tmpdir(), tmpPrefix));
  return { forge, token, url: `${forge.url}/acme/pkgs.git`, tmp };
}

/** `count` files of a package, file `i` holding `text(i)`. */
export function files(count: number, text: (i: number) => string): FileTree {
  const out: Record<string, string> = { Kptfile: "apiVersion: kpt.dev/v1\nkind: Kptfile\n" };
  for (let i = 0; i < count; i++) out[`f-${i}.yaml`] = text(i);
  return treeFromText(out);
}
