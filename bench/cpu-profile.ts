/** A V8 CPU profile as `node --cpu-prof` writes it. */
export interface CpuProfile {
  nodes: {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
    children?: number[];
  }[];
  /** Microseconds on the monotonic clock (as `process.hrtime` reads it, divided by 1,000). */
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Where a frame's code lives: `src/<dir>`, a package of node_modules, node's own, or V8's. */
function placeOf(url: string, name: string): string {
  if (url === "") return name.startsWith("(") ? name : "(native)";
  const src = /\/src\/(.+)\/[^/]+$/.exec(url) ?? /\/src\/([^/]+)$/.exec(url);
  if (src && !url.includes("node_modules")) return `src/${src[1]}`;
  if (ownBuild(url)) return "dist/bundle (the project's build)";
  const mod = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (mod) return mod[1]!;
  if (url.startsWith("node:")) return "node";
  return url;
}

/** Whether a frame is the project's own code: its sources (tsx), or the build's bundle (BOT_E2E_APP=built). */
function ownCode(url: string): boolean {
  return (/\/src\//.test(url) || ownBuild(url)) && !url.includes("node_modules");
}

function ownBuild(url: string): boolean {
  return /\/dist\/bundle\/[^/]+\.c?js$/.test(url);
}

/** A project function's name and where it is: its source file, or the bundle's chunk and line. */
function ownKey(f: CpuProfile["nodes"][number]["callFrame"]): string {
  const name = f.functionName || "(anonymous)";
  if (ownBuild(f.url)) return `${name} ${f.url.replace(/^.*\/dist\/bundle\//, "")}:${f.lineNumber + 1}`;
  return `${name} ${f.url.replace(/^.*\/src\//, "src/")}`;
}

/**
 * The samples of `profile` between `window` (µs, monotonic) broken down: milliseconds of self time by
 * where the code lives, and the project's functions by inclusive time (a function and what it called),
 * as text for the bench's output. Idle samples are left out.
 */
export function profileBreakdown(profile: CpuProfile, window: [number, number], top = 22): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let total = 0;
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i] ?? 0;
    if (t < window[0] || t > window[1]) continue;
    const dt = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    const leaf = byId.get(profile.samples[i]!)!;
    if (leaf.callFrame.functionName === "(idle)") continue;
    total += dt;
    const place = placeOf(leaf.callFrame.url, leaf.callFrame.functionName);
    self.set(place, (self.get(place) ?? 0) + dt);
    const seen = new Set<string>();
    for (let id: number | undefined = leaf.id; id !== undefined; id = parent.get(id)) {
      const f = byId.get(id)!.callFrame;
      if (!ownCode(f.url)) continue;
      const key = ownKey(f);
      if (seen.has(key)) continue;
      seen.add(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + dt);
    }
  }
  const lines = [
    `  ${Math.round(total)} ms on the main thread (idle left out)`,
    "  self time by where the code lives:",
  ];
  const sorted = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]);
  for (const [k, v] of sorted(self).slice(0, 14))
    lines.push(`    ${String(Math.round(v)).padStart(6)} ms ${pct(v, total)}  ${k}`);
  lines.push("  the project's functions, inclusive (with what they call):");
  for (const [k, v] of sorted(inclusive).slice(0, top))
    lines.push(`    ${String(Math.round(v)).padStart(6)} ms ${pct(v, total)}  ${k}`);
  return lines.join("\n");
}

function pct(v: number, total: number): string {
  return `${String(Math.round((100 * v) / (total || 1))).padStart(3)} %`;
}
