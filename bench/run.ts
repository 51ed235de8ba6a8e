import { readdirSync } from "node:fs";
import { benchRender } from "./render.js";

/**
 * `npm run bench`: the render benchmark, then every other bench/<topic>.ts module that exports a
 * function named bench* (called with no arguments; an array it returns is printed as a table).
 * Options: --sizes=1000,10000 (render sizes), --no-kpt (skip the kpt anchor), --only=render|<topic>.
 */
const NOT_TOPICS = new Set([
  "run.ts",
  "render.ts",
  "render-package.ts",
  "format-file.ts",
  "cpu-profile.ts",
  "porch-iterative-serve.ts",
]);

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const opt = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const only = opt("only");
  const sizes = opt("sizes")
    ?.split(",")
    .map((s) => Number(s));
  if (!only || only === "render") await benchRender(sizes, !args.includes("--no-kpt"));
  const topics = readdirSync(import.meta.dirname)
    .filter((f) => f.endsWith(".ts") && !NOT_TOPICS.has(f) && !f.endsWith(".d.ts"))
    .sort();
  for (const file of topics) {
    const topic = file.slice(0, -3);
    if (only && only !== topic) continue;
    const mod = (await import(`./${file}`)) as Record<string, unknown>;
    for (const [name, fn] of Object.entries(mod)) {
      if (typeof fn !== "function" || !name.startsWith("bench")) continue;
      console.log(`\n== ${topic}: ${name}`);
      const out = await (fn as () => Promise<unknown>)();
      if (Array.isArray(out)) console.table(out);
    }
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
