/**
 * Generates a kpt package of N resources (Deployments, Services and ConfigMaps, ten to a file, spread
 * over a root package and subpackages) whose root Kptfile runs the given pipeline.
 */
export function generatePackage(resources: number, pipeline: string): Map<string, Buffer> {
  const tree = new Map<string, Buffer>();
  const subpackages = Math.max(1, Math.min(10, Math.floor(resources / 100)));
  const perFile = 10;
  const files = Math.ceil(resources / perFile);
  tree.set("Kptfile", Buffer.from(kptfile("bench", pipeline)));
  for (let s = 0; s < subpackages; s++) tree.set(`sub${s}/Kptfile`, Buffer.from(kptfile(`sub${s}`, "")));
  let made = 0;
  for (let f = 0; f < files; f++) {
    const dir = f % (subpackages + 1) === 0 ? "" : `sub${(f % (subpackages + 1)) - 1}/`;
    const docs: string[] = [];
    for (let i = 0; i < perFile && made < resources; i++, made++) docs.push(resource(made));
    tree.set(`${dir}app-${f}.yaml`, Buffer.from(docs.join("---\n")));
  }
  return tree;
}

/**
 * The same package as a person might have written it: resource files indented four spaces a level,
 * which kpt's formatter writes back at two. A render must then read,
 * format and write every file.
 */
export function reindented(tree: Map<string, Buffer>): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const [path, bytes] of tree) {
    if (path.endsWith("Kptfile")) {
      out.set(path, bytes);
      continue;
    }
    const lines = bytes.toString("utf8").split("\n");
    // Every column doubled: a sequence entry's `- ` is followed by three spaces, its mapping's keys then
    // line up with the entry's next lines.
    const wider = lines.map((line) => {
      const indent = line.length - line.trimStart().length;
      const rest = line.slice(indent);
      return " ".repeat(indent * 2) + (rest.startsWith("- ") ? `-   ${rest.slice(2)}` : rest);
    });
    out.set(path, Buffer.from(wider.join("\n")));
  }
  return out;
}

function kptfile(name: string, pipeline: string): string {
  return `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: ${name}\n${pipeline}`;
}

function resource(i: number): string {
  switch (i % 3) {
    case 0:
      return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: app-${i}
  labels:
    app: app-${i}
spec:
  replicas: 2 # kpt-set: \${replicas}
  selector:
    matchLabels:
      app: app-${i}
  template:
    metadata:
      labels:
        app: app-${i}
    spec:
      containers:
      - name: main
        image: registry.example.com/app:1.0.${i % 7}
        args: ["--port=8080", "--verbose"]
        ports:
        - containerPort: 8080
        env:
        - name: MODE
          value: "production"
`;
    case 1:
      return `apiVersion: v1
kind: Service
metadata:
  name: svc-${i} # the service
spec:
  selector:
    app: app-${i - 1}
  ports:
  - port: 80
    targetPort: 8080
`;
    default:
      return `apiVersion: v1
kind: ConfigMap
metadata:
  name: config-${i}
data:
  log-level: info
  settings.json: |
    {"feature": true, "limit": ${i}}
`;
  }
}
