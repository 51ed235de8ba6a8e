import { z } from "zod";
import { SourceError } from "../errors.js";

/**
 * The JSON porchlight reads from registries, credential helpers and Docker's config file, checked where
 * it enters: only the fields read, liberally (unknown fields pass), so that a document of the wrong
 * shape is refused naming the field, not read as something it is not.
 */

/** The OCI digest grammar (`algorithm:encoded`): a digest goes into a request's path. */
const digest = z.string().regex(/^[a-z0-9]+(?:[+._-][a-z0-9]+)*:[a-zA-Z0-9=_-]+$/, "not a digest");

const descriptor = z.object({
  mediaType: z.string().default(""),
  digest,
  annotations: z.record(z.string(), z.string()).optional(),
  platform: z.object({ os: z.string().optional(), architecture: z.string().optional() }).optional(),
});

/** An image manifest, as a pull reads it: its layers. */
export const manifestLayers = z.object({
  layers: z
    .array(descriptor)
    .nullish()
    .transform((l) => l ?? []),
});

/** An image index (or Docker manifest list), as a pull reads it: the manifests it lists. */
export const indexManifests = z.object({
  manifests: z
    .array(descriptor)
    .nullish()
    .transform((m) => m ?? []),
});

export type ReadDescriptor = z.output<typeof descriptor>;
export type ReadManifest = z.output<typeof manifestLayers>;

/** The `mediaType` a manifest may declare of itself. */
export const declaredMediaType = z.object({ mediaType: z.string().optional().catch(undefined) });

/** A page of `/v2/<name>/tags/list`. */
export const tagsPage = z.object({ tags: z.array(z.string()).nullish() });

/** The distribution spec's error body; anything else answered is not shown (it may be a service's own page). */
export const registryErrors = z.object({
  errors: z.array(z.object({ code: z.string().optional(), message: z.string().optional() })).optional(),
});

/** A token service's answer to a Bearer challenge (Docker's token spec names it `token`, OAuth `access_token`). */
export const tokenAnswer = z.object({ token: z.string().optional(), access_token: z.string().optional() });

/** What `docker-credential-<helper> get` prints. */
export const helperCredentials = z.object({ Username: z.string().optional(), Secret: z.string().optional() });

/** Docker's `config.json`, the parts a pull reads. */
export const dockerConfig = z.object({
  auths: z
    .record(
      z.string(),
      z.object({
        auth: z.string().optional(),
        username: z.string().optional(),
        password: z.string().optional(),
      }),
    )
    .optional(),
  credHelpers: z.record(z.string(), z.string()).optional(),
  credsStore: z.string().optional(),
});

export type DockerConfig = z.output<typeof dockerConfig>;

/** `text` parsed as JSON, or undefined where it is not JSON. */
export function parseJsonOr(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * `text` parsed as JSON and read through `schema`; anything else a SourceError starting with `what`
 * (the document), naming the first field that is wrong.
 */
export function readJson<T>(schema: z.ZodType<T>, text: string, what: string): T {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new SourceError(`${what}: not valid JSON (${(err as Error).message})`);
  }
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue?.path.join(".") || "(document)";
  throw new SourceError(`${what}: ${field}: ${issue?.message ?? "not the expected shape"}`);
}
