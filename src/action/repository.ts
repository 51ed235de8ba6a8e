import type { JobRequest } from "../app/run-job.js";

/** The repository's fields a job needs (clone URL, default branch), read with `GET /repos/{owner}/{repo}`. */
export async function readRepository(
  octokit: JobRequest["octokit"],
  repo: { owner: string; repo: string },
): Promise<JobRequest["repository"]> {
  const { data } = await octokit.request("GET /repos/{owner}/{repo}", { owner: repo.owner, repo: repo.repo });
  return data as JobRequest["repository"];
}
