/** Records the forge keeps about everything that is not git content. Plain JSON, persisted whole. */

import type { Permission } from "./permission.js";

/** GitHub's permission levels, which the forge grants. */
export type { Permission };

export interface AppRec {
  id: number;
  slug: string;
  name: string;
  ownerLogin: string;
  clientId: string;
  publicKeyPem: string;
  /** Kept so `seed` can print where the key is; a real GitHub never keeps it. */
  privateKeyPem: string;
  webhookSecret: string;
  webhookUrl: string | null;
  hookId: number;
  botLogin: string;
  events: string[];
  permissions: Record<string, string>;
  createdAt: string;
}

export interface InstallationRec {
  id: number;
  appId: number;
  accountLogin: string;
  repositorySelection: "all" | "selected";
  repositoryIds: number[];
  createdAt: string;
  updatedAt: string;
}

export interface UserRec {
  id: number;
  login: string;
  type: "User" | "Organization" | "Bot";
  name: string | null;
  email: string | null;
  siteAdmin: boolean;
  createdAt: string;
}

export interface LabelRec {
  id: number;
  name: string;
  color: string;
  description: string | null;
  default: boolean;
}

export interface RepoRec {
  id: number;
  ownerLogin: string;
  name: string;
  private: boolean;
  description: string | null;
  defaultBranch: string;
  topics: string[];
  createdAt: string;
  updatedAt: string;
  pushedAt: string | null;
  labels: LabelRec[];
  collaborators: Record<string, Permission>;
  nextNumber: number;
  /** The repository this one was forked from (GitHub's `parent`); absent for a repository that is no fork. */
  forkOf?: number;
}

interface PullRec {
  headRef: string;
  headSha: string;
  headRepoId: number;
  baseRef: string;
  draft: boolean;
  merged: boolean;
  mergedAt: string | null;
  mergedByLogin: string | null;
  mergeCommitSha: string | null;
  maintainerCanModify: boolean;
  /** A merge request is under way: a second one is refused until it ends (GitHub merges a pull request once). */
  merging?: boolean;
}

export interface IssueRec {
  id: number;
  repoId: number;
  number: number;
  title: string;
  body: string | null;
  userLogin: string;
  state: "open" | "closed";
  stateReason: string | null;
  labels: string[];
  assignees: string[];
  locked: boolean;
  createdAt: string;
  updatedAt: string;
  closedAt: string | null;
  /** Present when the issue is a pull request (GitHub numbers both from one sequence). */
  pull?: PullRec;
  /** The id GitHub gives the pull request object itself (distinct from the issue id). */
  pullId?: number;
}

export interface CommentRec {
  id: number;
  repoId: number;
  number: number;
  userLogin: string;
  body: string;
  createdAt: string;
  updatedAt: string;
  appId: number | null;
}

export interface ReactionRec {
  id: number;
  /** `comment:<id>` or `issue:<id>`. */
  subject: string;
  userLogin: string;
  content: string;
  createdAt: string;
}

export interface ReviewRec {
  id: number;
  repoId: number;
  number: number;
  userLogin: string;
  body: string;
  state: "APPROVED" | "CHANGES_REQUESTED" | "COMMENTED" | "PENDING" | "DISMISSED";
  commitId: string;
  submittedAt: string | null;
}

export interface AnnotationRec {
  path: string;
  start_line: number;
  end_line: number;
  start_column: number | null;
  end_column: number | null;
  annotation_level: string;
  message: string;
  title: string | null;
  raw_details: string | null;
}

export interface CheckRunRec {
  id: number;
  repoId: number;
  appId: number;
  suiteId: number;
  headSha: string;
  name: string;
  status: string;
  conclusion: string | null;
  startedAt: string;
  completedAt: string | null;
  externalId: string;
  detailsUrl: string | null;
  output: { title: string | null; summary: string | null; text: string | null };
  annotations: AnnotationRec[];
}

export interface CheckSuiteRec {
  id: number;
  repoId: number;
  appId: number;
  headSha: string;
  headBranch: string | null;
  before: string | null;
  after: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface StatusRec {
  id: number;
  repoId: number;
  sha: string;
  state: "error" | "failure" | "pending" | "success";
  targetUrl: string | null;
  description: string | null;
  context: string;
  creatorLogin: string;
  createdAt: string;
  updatedAt: string;
}

export interface TokenRec {
  token: string;
  kind: "installation" | "pat";
  installationId?: number;
  login?: string;
  expiresAt: string | null;
  /** For installation tokens narrowed to some repositories. */
  repositoryIds?: number[];
}

export interface DeliveryRec {
  id: number;
  guid: string;
  appId: number;
  hookId: number;
  event: string;
  action: string | null;
  installationId: number | null;
  repositoryId: number | null;
  payload: Record<string, unknown>;
  requestHeaders: Record<string, string>;
  deliveredAt: string;
  redelivery: boolean;
  /** "pending" until sent; "OK" or the failure reason after. */
  status: string;
  statusCode: number;
  duration: number;
  responseBody: string;
  responseHeaders: Record<string, string>;
}

export interface ForgeData {
  seq: number;
  apps: AppRec[];
  installations: InstallationRec[];
  users: UserRec[];
  repos: RepoRec[];
  tokens: TokenRec[];
  issues: IssueRec[];
  comments: CommentRec[];
  reactions: ReactionRec[];
  reviews: ReviewRec[];
  checkRuns: CheckRunRec[];
  checkSuites: CheckSuiteRec[];
  statuses: StatusRec[];
  deliveries: DeliveryRec[];
}

export function emptyData(): ForgeData {
  return {
    seq: 1000,
    apps: [],
    installations: [],
    users: [],
    repos: [],
    tokens: [],
    issues: [],
    comments: [],
    reactions: [],
    reviews: [],
    checkRuns: [],
    checkSuites: [],
    statuses: [],
    deliveries: [],
  };
}
