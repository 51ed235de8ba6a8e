import { xorshift } from "./gen/resources.js";
import type { Triple } from "./kpt-oracle.js";

/** Seeded random (original, updated, local-edit) triples of Deployments, Services, ConfigMaps and CRs. */

interface Res {
  kind: "Deployment" | "Service" | "ConfigMap" | "Widget";
  name: string;
  replicas: number;
  image: string;
  containers: string[];
  env: string[];
  ports: number[];
  data: Record<string, string>;
  labels: Record<string, string>;
  items: string[];
  /** A plain scalar, often one YAML 1.1 reads as a bool. */
  flag: string;
}

function render(r: Res): string {
  const labels = Object.entries(r.labels)
    .map(([k, v]) => `    ${k}: ${v}\n`)
    .join("");
  const meta = `metadata:\n  name: ${r.name}\n${labels ? `  labels:\n${labels}` : ""}`;
  switch (r.kind) {
    case "Deployment":
      return (
        `apiVersion: apps/v1\nkind: Deployment\n${meta}spec:\n  replicas: ${r.replicas}\n  template:\n    spec:\n      containers:\n` +
        r.containers
          .map(
            (c, i) =>
              `      - name: ${c}\n        image: ${r.image}-${i}\n` +
              (r.env.length
                ? `        env:\n${r.env.map((e) => `        - name: ${e}\n          value: v${e}\n`).join("")}`
                : "") +
              (i === 0 && r.ports.length
                ? `        ports:\n${r.ports.map((p) => `        - containerPort: ${p}\n`).join("")}`
                : ""),
          )
          .join("")
      );
    case "Service":
      return `apiVersion: v1\nkind: Service\n${meta}spec:\n  ports:\n${r.ports.map((p) => `  - port: ${p}\n`).join("")}`;
    case "ConfigMap":
      return `apiVersion: v1\nkind: ConfigMap\n${meta}data:\n${Object.entries(r.data)
        .map(([k, v]) => `  ${k}: "${v}"\n`)
        .join("")}  flag: ${r.flag}\n`;
    default:
      return `apiVersion: example.com/v1\nkind: Widget\n${meta}spec:\n  size: ${r.replicas}\n  items:\n${r.items.map((i) => `  - name: ${i}\n`).join("")}`;
  }
}

function mutate(r: Res, rand: () => number, tag: string): Res {
  const c: Res = structuredClone(r);
  const pick = Math.floor(rand() * 8);
  if (pick === 0) c.replicas = 1 + Math.floor(rand() * 9);
  if (pick === 1) c.image = `img-${tag}`;
  if (pick === 2) c.labels[`l${tag}`] = tag;
  if (pick === 3) c.env = rand() < 0.5 ? [...c.env, `E${tag}`] : c.env.slice(1);
  if (pick === 4) c.ports = rand() < 0.5 ? [...c.ports, 9000 + Math.floor(rand() * 99)] : c.ports.slice(1);
  if (pick === 5) c.data = { ...c.data, [`k${tag}`]: tag };
  if (pick === 6) c.items = rand() < 0.5 ? [...c.items, `i${tag}`] : c.items.slice(1);
  if (pick === 7) c.flag = FLAGS[Math.floor(rand() * FLAGS.length)]!;
  return c;
}

const FLAGS = ["yes", "no", "on", "off", "true", "'on'", '"no"', "plain", "~"];

export function generateTriple(seed: number): Triple {
  const rand = xorshift(seed * 7919 + 17);
  const kinds: Res["kind"][] = ["Deployment", "Service", "ConfigMap", "Widget"];
  const n = 2 + Math.floor(rand() * 3);
  const base: Res[] = Array.from({ length: n }, (_, i) => ({
    kind: kinds[Math.floor(rand() * kinds.length)]!,
    name: `r${i}`,
    replicas: 1,
    image: "nginx",
    containers: rand() < 0.5 ? ["app"] : ["app", "side"],
    env: rand() < 0.5 ? [] : ["A", "B"],
    ports: [80],
    data: { a: "1" },
    labels: { app: "x" },
    items: ["one", "two"],
    flag: FLAGS[Math.floor(rand() * FLAGS.length)]!,
  }));
  const upd = base.map((r) => (rand() < 0.6 ? mutate(r, rand, "u") : r));
  if (rand() < 0.3) upd.pop();
  if (rand() < 0.3) upd.push({ ...base[0]!, name: "added-upstream" });
  const loc = base.map((r) => (rand() < 0.6 ? mutate(r, rand, "l") : r));
  const file = (rs: Res[]) => Object.fromEntries(rs.map((r) => [`${r.name}.yaml`, render(r)]));
  const localFiles = file(loc);
  return {
    original: file(base),
    updated: file(upd),
    edit: (fetched) => {
      const out = new Map(fetched);
      for (const [p, t] of Object.entries(localFiles)) {
        const got = fetched.get(p);
        if (!got || render(base.find((r) => `${r.name}.yaml` === p)!) === t) continue;
        // keep kpt's merge comment and annotation: edit the fetched text by applying the local version's body
        const header = got.split("\n").slice(0, 6).join("\n");
        void header;
        out.set(p, withMergeMarks(t, p.replace(".yaml", ""), kindOf(t)));
      }
      return out;
    },
  };
}

function kindOf(text: string): string {
  return /^kind: (\S+)/m.exec(text)?.[1] ?? "";
}

function withMergeMarks(text: string, name: string, kind: string): string {
  const group = kind === "Deployment" ? "apps" : kind === "Widget" ? "example.com" : "";
  return text
    .replace("metadata:\n", `metadata: # kpt-merge: /${name}\n`)
    .replace(
      /(metadata:.*\n {2}name: .*\n(?: {2}labels:\n(?: {4}.*\n)*)?)/,
      `$1  annotations:\n    internal.kpt.dev/upstream-identifier: '${group}|${kind}|default|${name}'\n`,
    );
}
