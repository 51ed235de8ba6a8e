import type { Triple } from "../kpt-oracle.js";
import { clone, get, render, s, type YMap } from "./model.js";
import { mutate } from "./mutate.js";
import { kustomization, pick, TEMPLATES, type TemplateName, xorshift } from "./resources.js";

/**
 * Seeded (original upstream, new upstream, local edit) triples for the differential test against
 * kpt: one to three files of one or two documents, sometimes a kustomization.yaml and a license
 * header; each side edits some documents (see mutate.ts), upstream may add or remove a document.
 */

interface Doc {
  file: string;
  y: YMap;
}

const HEADER = "# Copyright 2024 Example\n# SPDX-License-Identifier: Apache-2.0\n\n";

function renderFiles(docs: Doc[], headers: ReadonlySet<string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const d of docs) {
    const t = render(d.y);
    out[d.file] =
      out[d.file] === undefined ? (headers.has(d.file) ? HEADER : "") + t : `${out[d.file]}---\n${t}`;
  }
  return out;
}

function group(apiVersion: string): string {
  const i = apiVersion.indexOf("/");
  return i < 0 ? "" : apiVersion.slice(0, i);
}

/** kpt's marks from `pkg get`: `# kpt-merge: ns/name` on metadata and the upstream-identifier annotation. */
function withMarks(doc: YMap): YMap {
  const y = clone(doc);
  const md = get(y, "metadata");
  const name = get(md, "name");
  if (md?.t !== "m" || name?.t !== "s") return y;
  const ns = get(md, "namespace");
  const nsv = ns?.t === "s" ? ns.v : "";
  const entry = y.entries.find((e) => e.key === "metadata")!;
  entry.line = `kpt-merge: ${nsv}/${name.v}`;
  let ann = md.entries.find((e) => e.key === "annotations");
  if (ann?.value.t !== "m") {
    ann = { key: "annotations", keyStyle: "plain", value: { t: "m", entries: [] } };
    md.entries.push(ann);
  }
  const apiVersion = get(y, "apiVersion");
  const kind = get(y, "kind");
  (ann.value as YMap).entries.push({
    key: "internal.kpt.dev/upstream-identifier",
    keyStyle: "plain",
    value: s(
      `${group(apiVersion?.t === "s" ? apiVersion.v : "")}|${kind?.t === "s" ? kind.v : ""}|${nsv || "default"}|${name.v}`,
      "single",
    ),
  });
  return y;
}

export function generateCase(seed: number): Triple {
  const rand = xorshift(seed * 2654435761);
  const names = Object.keys(TEMPLATES) as TemplateName[];
  const docs: Doc[] = [];
  const files = 1 + Math.floor(rand() * 3);
  for (let f = 0; f < files; f++) {
    const perFile = rand() < 0.25 ? 2 : 1;
    for (let d = 0; d < perFile; d++) {
      const t = pick(rand, names);
      docs.push({ file: `f${f}.yaml`, y: TEMPLATES[t](rand, `r${f}${d}`) });
    }
  }
  if (rand() < 0.25) docs.push({ file: "kustomization.yaml", y: kustomization(rand) });
  const headers = new Set(docs.filter(() => rand() < 0.1).map((d) => d.file));

  const updated = docs.map((d) => ({ file: d.file, y: clone(d.y) }));
  for (const d of updated) if (rand() < 0.6) mutate(d.y, rand, "u");
  if (rand() < 0.15 && updated.length > 1) updated.splice(Math.floor(rand() * updated.length), 1);
  if (rand() < 0.15) updated.push({ file: "added.yaml", y: TEMPLATES[pick(rand, names)](rand, "added") });

  const local = docs.map((d) => ({ file: d.file, y: withMarks(d.y), edited: false }));
  for (const d of local) {
    if (rand() < 0.6) {
      mutate(d.y, rand, "l");
      d.edited = true;
    }
  }
  const editedFiles = new Set(local.filter((d) => d.edited).map((d) => d.file));
  const localFiles = renderFiles(local, headers);

  return {
    original: renderFiles(docs, headers),
    updated: renderFiles(updated, headers),
    edit: (fetched) => {
      const out = new Map(fetched);
      for (const f of editedFiles) out.set(f, localFiles[f]!);
      return out;
    },
  };
}

/** The triple as text, for a failure message. */
export function describeCase(seed: number): string {
  const t = generateCase(seed);
  const side = (name: string, files: Record<string, string>) =>
    Object.entries(files)
      .map(([p, c]) => `--- ${name} ${p}\n${c}`)
      .join("");
  const local = Object.fromEntries(t.edit(new Map(Object.entries(t.original))));
  return side("original", t.original) + side("updated", t.updated) + side("local", local);
}
