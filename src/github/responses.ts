import { z } from "zod";
import { GitHubError } from "./errors.js";

/**
 * The fields of GitHub's REST responses porchlight reads, checked where they enter (the forge answers
 * the same shapes). A response without them is GitHub's (or a proxy's) fault, not the repository's: it
 * fails the call with a GitHubError naming the request and the field, where a cast would have carried
 * an `undefined` into a job. Only what porchlight reads is required; everything else passes.
 */
export const restPull = z.looseObject({
  number: z.number(),
  title: z.string(),
  body: z.string().nullish(),
  state: z.string(),
  merged: z.boolean().optional(),
  merged_at: z.string().nullish(),
  draft: z.boolean().optional(),
  head: z.looseObject({
    ref: z.string(),
    sha: z.string(),
    repo: z.looseObject({ full_name: z.string() }).nullable(),
  }),
  base: z.looseObject({ ref: z.string(), sha: z.string() }),
  labels: z.array(z.union([z.string(), z.looseObject({ name: z.string().optional() })])),
  user: z.looseObject({ login: z.string() }).nullable(),
  merge_commit_sha: z.string().nullable(),
  merged_by: z.looseObject({ login: z.string() }).nullish(),
  html_url: z.string(),
  created_at: z.string().optional(),
  updated_at: z.string().optional(),
  mergeable: z.boolean().nullish(),
});
export type RestPull = z.infer<typeof restPull>;

/** An issue's labels, as GitHub answers a labelling (all it has now). */
export const restLabels = z.array(z.looseObject({ name: z.string() }));

export const restRepository = z.looseObject({
  name: z.string(),
  full_name: z.string(),
  owner: z.looseObject({ login: z.string() }).nullish(),
  topics: z.array(z.string()).optional(),
  default_branch: z.string().optional(),
  clone_url: z.string(),
  archived: z.boolean().optional(),
  private: z.boolean().optional(),
});
export type RestRepository = z.infer<typeof restRepository>;

/**
 * A repository as `GET /repos/{owner}/{repo}` answers a person's token (the command line): its default
 * branch, and what the token may do there (GitHub's flags; a server that sends none grants read).
 */
export const restRepositoryForToken = restRepository.extend({
  default_branch: z.string(),
  permissions: z
    .object({
      admin: z.boolean().optional(),
      maintain: z.boolean().optional(),
      push: z.boolean().optional(),
      triage: z.boolean().optional(),
      pull: z.boolean().optional(),
    })
    .optional(),
});
export type RestPermissions = z.infer<typeof restRepositoryForToken>["permissions"];

/** The token's user (`GET /user`), as the command line signs commits with it. */
export const restUser = z.looseObject({
  login: z.string(),
  id: z.number(),
  name: z.string().nullish(),
  email: z.string().nullish(),
});

/** A review as `POST .../reviews` answers it: who submitted it. */
export const restSubmittedReview = z.looseObject({ user: z.looseObject({ login: z.string() }).nullish() });

/** The app itself (`GET /app`), as the bot's identity reads it; a server may leave either out. */
export const restApp = z.looseObject({ id: z.number().optional(), slug: z.string().optional() }).nullish();

/** An installation of the app (`GET /app/installations`, `GET /repos/{owner}/{repo}/installation`). */
export const restInstallation = z.looseObject({ id: z.number() });

export const restReviewState = z.enum(["APPROVED", "CHANGES_REQUESTED", "COMMENTED", "DISMISSED", "PENDING"]);

export const restCheckRunStatus = z.enum([
  "queued",
  "in_progress",
  "completed",
  "waiting",
  "requested",
  "pending",
]);

export const restCollaboratorPermission = z.looseObject({
  permission: z.string(),
  /** Names triage and maintain too (and a custom role's name). */
  role_name: z.string().optional(),
});

/** A repository's collaborator as GitHub lists them: their login and what they may do. */
export const restCollaborator = z.looseObject({
  login: z.string(),
  permissions: z
    .looseObject({
      admin: z.boolean().optional(),
      maintain: z.boolean().optional(),
      push: z.boolean().optional(),
    })
    .optional(),
  role_name: z.string().optional(),
});

/** `data` as `schema` reads it, or a GitHubError naming `what` and the first field that is wrong. */
export function parseResponse<S extends z.ZodType>(schema: S, data: unknown, what: string): z.infer<S> {
  const parsed = schema.safeParse(data);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const at = issue?.path.length ? issue.path.join(".") : "the response";
  throw new GitHubError(
    "server",
    `${what}: GitHub's answer is not what its API documents (${at}: ${issue?.message ?? "invalid"})`,
  );
}
