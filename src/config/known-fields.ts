import { z } from "zod";

/** The field names a schema accepts in the map at `path`, for "unknown field … did you mean …?". */
export function knownFields(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let current: z.ZodType | undefined = unwrap(schema);
  for (const segment of path) {
    if (current instanceof z.ZodObject)
      current = unwrap(current.shape[String(segment)] as z.ZodType | undefined);
    else if (current instanceof z.ZodArray) current = unwrap(current.element as z.ZodType);
    else return [];
  }
  return current instanceof z.ZodObject ? Object.keys(current.shape) : [];
}

function unwrap(schema: z.ZodType | undefined): z.ZodType | undefined {
  let s = schema;
  while (s instanceof z.ZodOptional || s instanceof z.ZodDefault || s instanceof z.ZodNullable) {
    s = s.unwrap() as z.ZodType;
  }
  return s;
}
