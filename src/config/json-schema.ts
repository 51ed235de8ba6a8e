import { z } from "zod";
import { RepoConfigFileSchema } from "./schema.js";

const JSON_SCHEMA_ID = "https://porchlight.dev/schema/porchlight.schema.json";

/**
 * The JSON Schema of `.github/porchlight.yml`, generated from the zod schema (the single source of
 * truth) for editors. Checks that span fields (e.g. the default channel is one of the names) exist only
 * in zod; the JSON Schema is the shape, porchlight's own check is the authority.
 */
export function configJsonSchema(): Record<string, unknown> {
  const generated = z.toJSONSchema(RepoConfigFileSchema, { io: "input", target: "draft-2020-12" });
  const { $schema, ...rest } = generated;
  return { $schema, $id: JSON_SCHEMA_ID, title: "porchlight configuration", ...rest };
}

/** The committed file's exact text: two-space indented JSON with a final newline. */
export function configJsonSchemaText(): string {
  return `${JSON.stringify(configJsonSchema(), null, 2)}\n`;
}
