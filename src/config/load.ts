import { CONFIG_PATH, type ConfigProblem } from "./problem.js";
import { type RepoConfig, resolveConfig } from "./resolve.js";
import type { RepoConfigFile } from "./schema.js";

interface FileId {
  owner: string;
  repo: string;
  path: string;
}

/**
 * Reads a file of a repository at its default branch: its text, or undefined when the file (or the
 * repository, to this token) does not exist. Anything else it cannot do it throws, saying why.
 */
export type ReadConfigFile = (file: FileId) => Promise<string | undefined>;

export type LoadedConfig = { ok: true; config: RepoConfig } | { ok: false; problems: ConfigProblem[] };

/** How many files an `_extends` chain may name before it is refused as too long (or a loop). */
const MAX_EXTENDS = 5;

/**
 * The repository's configuration, as probot's config loader finds it: the repository's own
 * `.github/porchlight.yml`, else its organisation's (`OWNER/.github`), then each file it `_extends`,
 * the later ones being defaults. Each file is read once and parsed with its own name, so every problem
 * names its file, line and column. Nothing is dropped: a file that cannot be read, does not parse,
 * breaks the schema or extends a file that is not there makes the whole configuration a problem, and
 * the repository's jobs stop until it is fixed (an extended file never stands in for a broken one).
 */
export async function loadRepoConfig(
  read: ReadConfigFile,
  repo: { owner: string; repo: string },
  /** The repository's default branch, to name in its own files' problems. */
  opts: { ref?: string } = {},
): Promise<LoadedConfig> {
  const own: FileId = { ...repo, path: CONFIG_PATH };
  const name = (f: FileId) =>
    f.owner === repo.owner && f.repo === repo.repo ? f.path : `${f.owner}/${f.repo}:${f.path}`;
  const unreadable = (f: FileId, message: string): LoadedConfig => ({
    ok: false,
    problems: [
      { file: name(f), ref: undefined, line: 1, column: 1, endLine: 1, endColumn: 1, field: "", message },
    ],
  });
  const tryRead = async (f: FileId): Promise<{ text: string | undefined } | { error: string }> => {
    try {
      return { text: await read(f) };
    } catch (e) {
      return { error: e instanceof Error ? e.message : String(e) };
    }
  };
  const cannot = (error: string) =>
    `cannot be read (${error}); porchlight does nothing on this repository until it can, and tries again at the next event or sweep`;

  // The organisation's file is asked for beside the repository's own, not after it: a job or a command
  // waits one round trip for its configuration, not two. Its answer counts only where the repository
  // has no file of its own (most have neither; a conditional request of the same file again is free).
  const org: FileId | undefined =
    repo.repo === ".github" ? undefined : { owner: repo.owner, repo: ".github", path: CONFIG_PATH };
  const ownRead = tryRead(own);
  const orgRead = org && tryRead(org);
  let file = own;
  let got = await ownRead;
  if ("error" in got) return unreadable(own, cannot(got.error));
  if (got.text === undefined) {
    if (!org || !orgRead) return { ok: true, config: resolveConfig(undefined, undefined) };
    file = org;
    got = await orgRead;
    if ("error" in got) return unreadable(file, cannot(got.error));
    if (got.text === undefined) return { ok: true, config: resolveConfig(undefined, undefined) };
  }
  // the parser and its schema, loaded only for a file there is (most repositories have none)
  const { extendsTarget, parseRepoConfig } = await import("./parse.js");
  const files: RepoConfigFile[] = [];
  const seen: FileId[] = [];
  for (let text: string | undefined = got.text; ; ) {
    seen.push(file);
    const mine = file.owner === repo.owner && file.repo === repo.repo;
    const parsed = parseRepoConfig(text, {
      path: name(file),
      ...(mine && opts.ref ? { ref: opts.ref } : {}),
    });
    if (!parsed.ok) return { ok: false, problems: parsed.problems };
    files.push(parsed.config);
    if (parsed.extends === undefined) break;
    const from = file;
    file = extendsTarget(parsed.extends, repo.owner);
    if (seen.some((f) => f.owner === file.owner && f.repo === file.repo && f.path === file.path))
      return unreadable(from, `_extends: ${parsed.extends} names a file already in this chain (a loop)`);
    if (seen.length >= MAX_EXTENDS)
      return unreadable(
        from,
        `_extends: more than ${MAX_EXTENDS} files extend one another; shorten the chain`,
      );
    const next = await tryRead(file);
    if ("error" in next)
      return unreadable(from, `_extends: ${parsed.extends}: ${name(file)} ${cannot(next.error)}`);
    if (next.text === undefined)
      return unreadable(
        from,
        `_extends: ${parsed.extends}: ${name(file)} does not exist (or this app cannot see it); fix the name or remove \`_extends\``,
      );
    text = next.text;
  }
  // files[0] is the repository's own file (or the organisation's when it has none); later files are
  // what it extends, so they are the defaults, the last one the most basic.
  const [first, ...defaults] = files;
  const base = defaults
    .reverse()
    .reduce<RepoConfigFile | undefined>((acc, f) => ({ ...(acc ?? {}), ...f }), undefined);
  return { ok: true, config: resolveConfig(base, first) };
}
