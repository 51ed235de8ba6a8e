/**
 * The generator of scripts/comments-diff.ts: packages of ConfigMaps with comment lines and blank lines
 * sprinkled between their lines, in the shapes that script documents.
 */
export const ALL_SHAPES = ["cols", "lists", "dash", "docs", "dedent"];

/** The files of one package for `seed` (a linear congruential generator: the same seed, the same files). */
export function generate(seedArg: number, shapes: ReadonlySet<string>): Map<string, string> {
  let seed = seedArg;
  const rnd = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  const pick = <T>(a: T[]): T => a[Math.floor(rnd() * a.length)]!;
  const list = (ip: number, depth: number): string[] => {
    const lines: string[] = [];
    const m = 1 + Math.floor(rnd() * 3);
    for (let j = 0; j < m; j++) {
      const r = rnd();
      const pad = " ".repeat(ip);
      if (r < 0.35 && depth < 4) {
        const sub = body(ip + 2, depth + 1);
        lines.push(`${pad}- ${sub[0]!.trimStart()}`, ...sub.slice(1));
      } else if (r < 0.5 && depth < 4 && shapes.has("lists")) {
        const sub = list(ip + 2, depth + 1);
        lines.push(`${pad}- ${sub[0]!.trimStart()}`, ...sub.slice(1));
      } else if (r < 0.55 && depth < 4 && shapes.has("dash")) {
        lines.push(`${pad}-`, ...body(ip + 2, depth + 1));
      } else lines.push(`${pad}- v${j}`);
    }
    return lines;
  };
  const body = (indent: number, depth: number): string[] => {
    const lines: string[] = [];
    const n = 1 + Math.floor(rnd() * 3);
    const pad = " ".repeat(indent);
    for (let i = 0; i < n; i++) {
      const r = rnd();
      if (depth < 3 && r < 0.3) lines.push(`${pad}k${i}:`, ...body(indent + 2, depth + 1));
      else if (depth < 3 && r < 0.5)
        lines.push(`${pad}l${i}:`, ...list(rnd() < 0.5 ? indent + 2 : indent, depth + 1));
      else lines.push(`${pad}s${i}: x${i}`);
    }
    return lines;
  };
  const doc = (name: string): string => {
    const lines = [
      "apiVersion: v1",
      "kind: ConfigMap",
      "metadata:",
      `  name: ${name}`,
      "data:",
      ...body(2, 1),
    ];
    const out: string[] = [];
    if (rnd() < 0.3 && shapes.has("docs")) out.push("# top", ...(rnd() < 0.5 ? [""] : []));
    lines.forEach((l, i) => {
      out.push(l);
      if (i < 4 || rnd() >= 0.3) return;
      const k = 1 + Math.floor(rnd() * 4);
      const next = lines[i + 1] ?? "";
      const a = Math.max(0, l.search(/\S/));
      const b = Math.max(0, next.search(/\S/));
      for (let j = 0; j < k; j++) {
        const col =
          // `dedent`: at the column of a block that closes before the next line (between the two)
          shapes.has("dedent") && a - b >= 4 && rnd() < 0.5
            ? b + 2 * (1 + Math.floor(rnd() * ((a - b) / 2 - 1)))
            : shapes.has("cols")
              ? pick([a, b, b, a + 2, Math.max(0, b - 2), Math.floor(rnd() * (Math.max(a, b) + 3))])
              : pick([a, b, b]);
        out.push(rnd() < 0.35 ? "" : `${" ".repeat(col)}# c${j}`);
      }
    });
    if (rnd() < 0.3 && shapes.has("docs")) out.push(...(rnd() < 0.5 ? [""] : []), "# end");
    return `${out.join("\n")}\n`;
  };
  const files = new Map<string, string>();
  for (let f = 0; f < 100; f++) {
    const n = rnd() < 0.3 && shapes.has("docs") ? 2 + Math.floor(rnd() * 2) : 1;
    const docs: string[] = [];
    for (let d = 0; d < n; d++) docs.push(doc(`c${f}-${d}`));
    files.set(`f${f}.yaml`, docs.join("---\n"));
  }
  return files;
}
