/**
 * Writes schema/porchlight.schema.json from the zod schema in src/config (run: npm run schema), then
 * formats it with biome so the committed file passes `biome check`.
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { configJsonSchemaText } from "../src/config/json-schema.js";

const target = fileURLToPath(new URL("../schema/porchlight.schema.json", import.meta.url));
writeFileSync(target, configJsonSchemaText());
execFileSync("npx", ["biome", "format", "--write", target], { stdio: "inherit" });
process.stdout.write(`wrote ${target}\n`);
