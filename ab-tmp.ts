import { execFileSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { rpkgWorld } from "./test/cli/rpkg/world.js";

const w = await rpkgWorld();
const R = "--repository=acme/blueprints";
for (let i = 0; i < 3; i++) {
  await w.rpkg(w.alice, ["init", `app${i}`, "--workspace=one", R]);
  const p = await w.publish("acme/blueprints", `blueprints.app${i}.one`);
  if (p.code !== 0) throw new Error(p.stderr);
}
await w.rpkg(w.alice, ["init", "draft", "--workspace=d", R]);
const xdg = join(w.tmp, "xdg");
const run = (bin: string, env: Record<string, string | undefined>) => {
  const out = join(w.tmp, "time");
  execFileSync("/usr/bin/time", ["-o", out, "-f", "%e %U %S", process.execPath, bin, "rpkg", "get", R], {
    env: { ...process.env, GH_TOKEN: w.alice, PORCHLIGHT_API_URL: w.forge.apiUrl, XDG_CACHE_HOME: xdg, ...env },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const [wall, u, s] = readFileSync(out, "utf8").trim().split(/\s+/).map(Number) as number[];
  return { wall: wall ?? 0, cpu: (u ?? 0) + (s ?? 0) };
};
const rounds = Number(process.env.ROUNDS ?? 12);
const res: Record<string, { wall: number; cpu: number }[]> = {};
const add = (k: string, v: { wall: number; cpu: number }) => (res[k] ??= []).push(v);
for (let i = 0; i < rounds; i++) {
  for (const ca of [true, false]) {
    const env = ca ? {} : { NODE_EXTRA_CA_CERTS: undefined };
    const tag = ca ? "" : ", no CA";
    add(`main${tag}`, run("/tmp/rpkg-ab/main/bin/porchlight.js", env));
    rmSync(xdg, { recursive: true, force: true });
    add(`new cold${tag}`, run("/tmp/rpkg-ab/new/bin/porchlight.js", env));
    add(`new warm${tag}`, run("/tmp/rpkg-ab/new/bin/porchlight.js", env));
  }
}
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
for (const [k, v] of Object.entries(res))
  console.log(
    k.padEnd(18),
    "cpu min",
    Math.min(...v.map((x) => x.cpu)).toFixed(2),
    "med",
    med(v.map((x) => x.cpu)).toFixed(2),
    " wall min",
    Math.min(...v.map((x) => x.wall)).toFixed(2),
    "med",
    med(v.map((x) => x.wall)).toFixed(2),
  );
console.log("load", (await import("node:os")).loadavg().map((l) => l.toFixed(1)).join(" "));
await w.stop();
