import { type KeyStyle, m, q, s, type YMap, type YNode } from "./model.js";

/**
 * Resource templates for generated merge cases: kinds whose lists merge by key (Deployment, Service),
 * ConfigMaps with quoted keys and block scalars, a schemaless custom resource, a custom resource whose
 * merge keys come from schema comments, a CRD, and a Kustomization with generators.
 */

export type Rand = () => number;

/** xorshift32 from the state `start` (not 0): the same numbers in [0, 1) for the same start, on every machine. */
export function xorshift(start: number): Rand {
  let x = start >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 4294967296;
  };
}

export const pick = <T>(rand: Rand, list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;

function quoted(key: string, value: YNode | string, style: KeyStyle): [string, YNode | string, KeyStyle] {
  return [key, value, style];
}

function withKeyStyles(map: YMap, styles: [string, KeyStyle][]): YMap {
  for (const [k, st] of styles) {
    const e = map.entries.find((x) => x.key === k);
    if (e) e.keyStyle = st;
  }
  return map;
}

function meta(rand: Rand, name: string): YMap {
  const md = m(["name", name]);
  if (rand() < 0.3) md.entries.push({ key: "namespace", keyStyle: "plain", value: s("prod") });
  if (rand() < 0.7) md.entries.push({ key: "labels", keyStyle: "plain", value: m(["app", name]) });
  if (rand() < 0.5) {
    md.entries.push({
      key: "annotations",
      keyStyle: "plain",
      value: m(["example.com/owner", "team-a"], ["note", s("hello", pick(rand, ["plain", "double"]))]),
    });
  }
  return md;
}

function container(rand: Rand, name: string): YMap {
  const c = m(["name", name], ["image", `${name}:1.0`]);
  if (rand() < 0.4) c.entries.push({ key: "args", keyStyle: "plain", value: q("--a", "--b") });
  if (rand() < 0.5) {
    c.entries.push({
      key: "env",
      keyStyle: "plain",
      value: q(m(["name", "A"], ["value", "a"]), m(["name", "B"], ["value", s("2", "double")])),
    });
  }
  if (rand() < 0.5) {
    c.entries.push({ key: "ports", keyStyle: "plain", value: q(m(["containerPort", "8080"])) });
  }
  return c;
}

const deployment = (rand: Rand, name: string): YMap =>
  m(
    ["apiVersion", "apps/v1"],
    ["kind", "Deployment"],
    ["metadata", meta(rand, name)],
    [
      "spec",
      m(
        ["replicas", "1"],
        [
          "template",
          m(
            ["metadata", m(["labels", m(["app", name])])],
            [
              "spec",
              m([
                "containers",
                rand() < 0.5 ? q(container(rand, "app")) : q(container(rand, "app"), container(rand, "side")),
              ]),
            ],
          ),
        ],
      ),
    ],
  );

const service = (rand: Rand, name: string): YMap =>
  m(
    ["apiVersion", "v1"],
    ["kind", "Service"],
    ["metadata", meta(rand, name)],
    [
      "spec",
      m(
        ["selector", m(["app", name])],
        ["ports", q(m(["name", "http"], ["port", "80"]), m(["name", "https"], ["port", "443"]))],
      ),
    ],
  );

function configMap(rand: Rand, name: string): YMap {
  const data = m(
    ...[
      quoted("plain", "value", "plain"),
      quoted("app.properties", s("a=1\nb=2\n", "literal"), pick(rand, ["plain", "single", "double"])),
      quoted("x-y", s("010", "single"), pick(rand, ["plain", "double"])),
      quoted("flag", pick(rand, ["yes", "on", "true", "no"]), "plain"),
    ].map(([k, v]) => [k, v] as [string, YNode | string]),
  );
  withKeyStyles(data, [
    ["app.properties", rand() < 0.5 ? "single" : "plain"],
    ["x-y", rand() < 0.5 ? "double" : "plain"],
  ]);
  return m(["apiVersion", "v1"], ["kind", "ConfigMap"], ["metadata", meta(rand, name)], ["data", data]);
}

const widget = (rand: Rand, name: string): YMap =>
  m(
    ["apiVersion", "example.com/v1"],
    ["kind", "Widget"],
    ["metadata", meta(rand, name)],
    [
      "spec",
      m(
        ["size", "3"],
        ["tags", q("a", "b")],
        ["items", q(m(["name", "one"], ["v", "1"]), m(["name", "two"], ["v", "2"]))],
        ["config", m(["mode", "fast"], ["description", s("line one\nline two\n", "literal")])],
      ),
    ],
  );

/** A custom resource whose fields name their schema in comments, as kyaml reads them. */
function runner(rand: Rand, name: string): YMap {
  const spec = m(["containers", q(container(rand, "main"), container(rand, "helper"))]);
  const hosts = q(m(["host", "a.example.com"], ["port", "80"]), m(["host", "b.example.com"], ["port", "81"]));
  const doc = m(
    ["apiVersion", "example.com/v1"],
    ["kind", "Runner"],
    ["metadata", meta(rand, name)],
    ["spec", spec],
    ["hosts", hosts],
  );
  doc.entries[3]!.line = '{"$ref": "#/definitions/io.k8s.api.core.v1.PodSpec"}';
  doc.entries[4]!.line =
    '{"type": "array", "x-kubernetes-patch-merge-key": "host", "x-kubernetes-patch-strategy": "merge"}';
  return doc;
}

const crd = (rand: Rand, name: string): YMap =>
  m(
    ["apiVersion", "apiextensions.k8s.io/v1"],
    ["kind", "CustomResourceDefinition"],
    ["metadata", meta(rand, `${name}s.example.com`)],
    [
      "spec",
      m(
        ["group", "example.com"],
        ["names", m(["kind", "Widget"], ["plural", `${name}s`])],
        ["scope", "Namespaced"],
        [
          "versions",
          q(
            m(
              ["name", "v1"],
              ["served", "true"],
              ["storage", "true"],
              [
                "schema",
                m([
                  "openAPIV3Schema",
                  m(["type", "object"], ["properties", m(["spec", m(["type", "object"])])]),
                ]),
              ],
            ),
          ),
        ],
      ),
    ],
  );

export function kustomization(rand: Rand): YMap {
  const k = m(["apiVersion", "kustomize.config.k8s.io/v1beta1"], ["kind", "Kustomization"]);
  if (rand() < 0.3) k.entries.push({ key: "metadata", keyStyle: "plain", value: m(["name", "kust"]) });
  k.entries.push(
    { key: "resources", keyStyle: "plain", value: q("a.yaml", "b.yaml") },
    { key: "commonLabels", keyStyle: "plain", value: m(["app", "demo"]) },
    {
      key: "configMapGenerator",
      keyStyle: "plain",
      value: q(
        m(["name", "cm-one"], ["literals", q("a=1", "b=2")]),
        m(["name", "cm-two"], ["files", q("config.env")], ["behavior", "merge"]),
      ),
    },
    {
      key: "secretGenerator",
      keyStyle: "plain",
      value: q(m(["name", "sec"], ["literals", q("password=x")], ["type", "Opaque"])),
    },
  );
  return k;
}

export const TEMPLATES = { deployment, service, configMap, widget, runner, crd } as const;
export type TemplateName = keyof typeof TEMPLATES;
