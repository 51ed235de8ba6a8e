import { describe, expect, it } from "vitest";
import { formatDocuments } from "../../src/kpt/format.js";
import { normalizeComments } from "../../src/kpt/format-comments.js";
import { parseYamlFile } from "../../src/kpt/yamlfile.js";

/**
 * Comment lines after a nested block, placed as yaml.v3 reads them (src/kpt/comment-runs.ts). Each
 * case: the input, and the bytes kpt v1.0.0-beta.56 wrote for it (`kpt pkg update` rewriting the file
 * unchanged, so one read and one write, no function trip).
 */
const CASES: [string, string, string][] = [
  [
    "a comment left of a nested block's end is its last entry's foot; one at the next key's column after a compact list is that key's head",
    `apiVersion: v1
kind: ConfigMap
metadata:
  name: n1
  extra:
    a: 'x'
  # foot of metadata
spec:
  items:
  - name: one
    v: 1
  # head of config
  config:
    mode: fast
`,
    `apiVersion: v1
kind: ConfigMap
metadata:
  name: n1
  extra:
    a: 'x'
    # foot of metadata
spec:
  items:
  - name: one
    v: 1
  # head of config
  config:
    mode: fast
`,
  ],
  [
    "a run cut by columns and blank lines: the first piece is the last entry's foot, a later one the foot of the block at its column, else of the entry before the next key",
    `apiVersion: v1
kind: A
metadata:
  name: n2
x:
  y:
    z: 1
   # c1
 # c2
d: 2
e:
  f:
    g: 1
  # c3

  # c4
h: 3
i:
  j:
    k: 1
    # c5

# c6
l: 4
m:
  n:
  - a
  - b
  # c7
  o: 1
p:
  q:
  - name: a
    v: 1
    # c8
  # c9
r:
  s:
    t:
      u: 1
    # c10
  # c11
# c12
v: 1
`,
    `apiVersion: v1
kind: A
metadata:
  name: n2
x:
  y:
    z: 1
    # c1
# c2

d: 2
e:
  f:
    g: 1
    # c3
# c4

h: 3
i:
  j:
    k: 1
    # c5
# c6
l: 4
m:
  n:
  - a
  - b
  # c7
  o: 1
p:
  q:
  - name: a
    v: 1
    # c8
  # c9
r:
  s:
    t:
      u: 1
      # c10
  # c11
# c12
v: 1
`,
  ],
  [
    "at the end of a document: a comment left of the innermost block goes to the block at its column",
    `apiVersion: v1
kind: A
metadata:
  name: n3
spec:
  template:
    spec:
      containers:
      - name: app
        ports:
        - containerPort: 8080
      # l1-41
`,
    `apiVersion: v1
kind: A
metadata:
  name: n3
spec:
  template:
    spec:
      containers:
      - name: app
        ports:
        - containerPort: 8080
      # l1-41
`,
  ],
  [
    "at the end of a document: a comment at a nested map's column is that map's foot",
    `apiVersion: v1
kind: B
metadata:
  name: n4
spec:
  a:
    b: 1
  # foot
`,
    `apiVersion: v1
kind: B
metadata:
  name: n4
spec:
  a:
    b: 1
  # foot
`,
  ],
  [
    "at the end of a document: a comment at column 0 after nested maps is the document's foot",
    `apiVersion: v1
kind: C
metadata:
  name: n5
spec:
  a:
    b: 1
# docfoot
`,
    `apiVersion: v1
kind: C
metadata:
  name: n5
spec:
  a:
    b: 1
# docfoot
`,
  ],
  [
    "at the end of a document: the last entry's foot, a blank line, then the document's foot",
    `apiVersion: v1
kind: D
metadata:
  name: n6
spec:
  a:
    b: 1
    # c1

# c2
`,
    `apiVersion: v1
kind: D
metadata:
  name: n6
spec:
  a:
    b: 1
    # c1

# c2
`,
  ],
  [
    "at the end of a document: a comment at column 0 after a nested map is the document's foot",
    `apiVersion: v1
kind: A
metadata:
  name: n7
data:
  flag: true
# l0-69
`,
    `apiVersion: v1
kind: A
metadata:
  name: n7
data:
  flag: true
# l0-69
`,
  ],
  [
    "at the end of a document: a comment after a list of maps at column 0 is the document's foot",
    `apiVersion: v1
kind: B
metadata:
  name: n8
hosts:
- host: a
  port: 80
# l0-84
`,
    `apiVersion: v1
kind: B
metadata:
  name: n8
hosts:
- host: a
  port: 80
# l0-84
`,
  ],
  [
    "at the end of a document: a comment at a map's column after a nested list goes to that map",
    `apiVersion: v1
kind: C
metadata:
  name: n9
spec:
  containers:
  - name: a
    env:
    - name: B
      value: "2"
  # u0-69
`,
    `apiVersion: v1
kind: C
metadata:
  name: n9
spec:
  containers:
  - name: a
    env:
    - name: B
      value: "2"
  # u0-69
`,
  ],
  [
    "a piece ended by a blank line: the foot of the block at its column, else of the entry before the next key; with no last value's foot, written at the innermost block",
    `apiVersion: v1
kind: A
metadata:
  name: x
e:
  f:
    g: 1
  # c3

h: 3
i:
  f:
    g: 1
  # c5

  j: 3
k:
  f:
    g: 1
 # c6

  # c7
l: 1
`,
    `apiVersion: v1
kind: A
metadata:
  name: x
e:
  f:
    g: 1
    # c3
h: 3
i:
  f:
    g: 1
  # c5

  j: 3
k:
  f:
    g: 1
    # c6
    # c7
l: 1
`,
  ],
];

function rewrite(text: string): string {
  const { docs } = parseYamlFile(text, "x.yaml");
  for (const d of docs) normalizeComments(d, text);
  return formatDocuments(docs);
}

describe("comments after a nested block go where yaml.v3 puts them", () => {
  it.each(CASES)("%s", (_name, input, kpt) => {
    expect(rewrite(input)).toBe(kpt);
  });
});
