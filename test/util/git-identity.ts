/** Who commits in a test's git repositories: set in git's environment, so no user configuration is needed. */
export const GIT_IDENTITY = {
  GIT_AUTHOR_NAME: "a",
  GIT_AUTHOR_EMAIL: "a@x",
  GIT_COMMITTER_NAME: "a",
  GIT_COMMITTER_EMAIL: "a@x",
} as const;
