/**
 * GitHub's repository permission levels, lowest first: what the forge grants and answers. The forge
 * keeps its own words for them, as it keeps GitHub's other shapes, and imports nothing of the app
 * (docs/architecture.md); the app's own list (src/api/permission.ts) reads what GitHub, and so the
 * forge, answers, level by level (test/github/repo-contract.ts).
 */
const PERMISSION_LEVELS = ["none", "read", "triage", "write", "maintain", "admin"] as const;
export type Permission = (typeof PERMISSION_LEVELS)[number];

export function isPermission(value: string): value is Permission {
  return (PERMISSION_LEVELS as readonly string[]).includes(value);
}

/** Whether `have` allows what needs `need`, in GitHub's order of levels. */
export function atLeast(have: Permission, need: Permission): boolean {
  return PERMISSION_LEVELS.indexOf(have) >= PERMISSION_LEVELS.indexOf(need);
}
