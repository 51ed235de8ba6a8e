import { parseDocument } from "yaml";
import { z } from "zod";
import { SourceError } from "../errors.js";
import type { CredentialLookup, Credentials } from "./credentials.js";

/**
 * The bot's registry credentials when it serves several owners: named by the operator, each for one
 * registry and for the repositories (owner/name globs) allowed to use it, in a file the app's
 * environment names (`PORCHLIGHT_REGISTRY_CREDENTIALS`). Each entry holds a login as a Docker
 * config.json's `auths` entry does (`auth`: base64 of `user:password`, or `username` and `password`).
 * A repository reaches a registry with the credential its `.github/porchlight.yml` names under
 * `registries:`, if the operator allows it that one, else with the first the operator allows it for
 * that registry, else anonymously: never with a credential meant for another repository.
 */

const name = z
  .string()
  .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, "a credential's name is lowercase letters, digits and '-'");

const entrySchema = z
  .strictObject({
    registry: z
      .string()
      .min(1)
      .regex(/^[^/\s]+$/, "must be a registry host (such as ghcr.io or localhost:5000), without a path"),
    auth: z.string().optional(),
    username: z.string().optional(),
    password: z.string().optional(),
    repositories: z
      .array(
        z.string().regex(/^[^/\s]+\/[^/\s]+$/, "must be an owner/name glob such as acme/* or acme/deploy-*"),
      )
      .min(1, "name the repositories allowed to use it (owner/name globs such as acme/*)"),
  })
  .refine((e) => e.auth !== undefined || e.username !== undefined, {
    message: "give the login: auth (base64 of user:password) or username and password",
  });

const fileSchema = z.strictObject({ credentials: z.record(name, entrySchema) });

export interface OperatorCredential {
  name: string;
  registry: string;
  login: Credentials;
  repositories: readonly string[];
}

/** A glob over `owner/name`: `*` matches within one segment; case-insensitive, as GitHub's names are. */
export function globMatch(glob: string, repository: string): boolean {
  const pattern = glob
    .split("*")
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
    .join("[^/]*");
  return new RegExp(`^${pattern}$`, "i").test(repository);
}

export class OperatorCredentials {
  constructor(readonly entries: readonly OperatorCredential[]) {}

  /** Parses the operator's file; a problem names the file, the field and what to write. */
  static parse(text: string, file: string): OperatorCredentials {
    const doc = parseDocument(text);
    if (doc.errors.length > 0) {
      throw new SourceError(`${file}: not valid YAML: ${doc.errors[0]?.message}`);
    }
    const parsed = fileSchema.safeParse(doc.toJS() ?? {});
    if (!parsed.success) {
      const issue = parsed.error.issues[0] as z.core.$ZodIssue;
      const field = issue.path.map(String).join(".");
      throw new SourceError(`${file}: ${field || "the file"}: ${issue.message}`);
    }
    const entries = Object.entries(parsed.data.credentials).map(([key, e]) => ({
      name: key,
      registry: e.registry,
      login:
        e.auth !== undefined
          ? decode(e.auth, file, key)
          : { username: e.username ?? "", password: e.password ?? "" },
      repositories: e.repositories,
    }));
    return new OperatorCredentials(entries);
  }

  /**
   * Why `repository` may not use the credential `name` for `registry`, or undefined when it may. The
   * message names the field of the repository's configuration (`registries.<registry>`).
   */
  refusal(repository: string, registry: string, name: string): string | undefined {
    const field = `registries.${registry}`;
    const entry = this.entries.find((e) => e.name === name);
    if (!entry) {
      const known = this.entries.filter((e) => e.registry === registry).map((e) => e.name);
      return `${field}: the app's operator defines no registry credential "${name}"${known.length ? ` (for ${registry}: ${known.join(", ")})` : ` for ${registry}`}; ask them to add it, or remove the field`;
    }
    if (entry.registry !== registry) {
      return `${field}: the credential "${name}" is for ${entry.registry}, not ${registry}`;
    }
    if (!entry.repositories.some((g) => globMatch(g, repository))) {
      return `${field}: the app's operator does not allow ${repository} to use the credential "${name}" (it is for ${entry.repositories.join(", ")}); ask them to allow it, or name another`;
    }
    return undefined;
  }

  /**
   * The lookup `repository` reaches registries with: for each registry the credential its configuration
   * names there (`named`), refused with the field when not allowed; else the first one allowed to it.
   */
  lookupFor(repository: string, named: Readonly<Record<string, string>> = {}): CredentialLookup {
    return async (registry) => {
      const wanted = named[registry];
      if (wanted !== undefined) {
        const refused = this.refusal(repository, registry, wanted);
        if (refused) throw new SourceError(`.github/porchlight.yml of ${repository}: ${refused}`);
        return this.entries.find((e) => e.name === wanted)?.login;
      }
      return this.entries.find(
        (e) => e.registry === registry && e.repositories.some((g) => globMatch(g, repository)),
      )?.login;
    };
  }
}

function decode(auth: string, file: string, key: string): Credentials {
  const text = Buffer.from(auth, "base64").toString("utf8");
  const colon = text.indexOf(":");
  if (colon < 0) throw new SourceError(`${file}: credentials.${key}.auth: is not base64 of "user:password"`);
  return { username: text.slice(0, colon), password: text.slice(colon + 1) };
}
