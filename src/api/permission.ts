/**
 * The shared words of repository access (GitHub's permission levels, who acts), on the floor every
 * layer may import: src/api imports nothing of the project (docs/architecture.md).
 */
/**
 * GitHub's repository permission levels, lowest first. A collaborator's `role_name` uses all of them;
 * the older `permission` field only none, read, write and admin, which fit the same order.
 */
export const PERMISSION_LEVELS = ["none", "read", "triage", "write", "maintain", "admin"] as const;
export type Permission = (typeof PERMISSION_LEVELS)[number];

/** Someone acting on a repository: their login and their permission there. */
export interface Actor {
  login: string;
  permission: Permission;
}

export function isPermission(value: string): value is Permission {
  return (PERMISSION_LEVELS as readonly string[]).includes(value);
}

/** Whether someone with `actual` permission may do what needs `required`. */
export function hasPermission(actual: Permission, required: Permission): boolean {
  return PERMISSION_LEVELS.indexOf(actual) >= PERMISSION_LEVELS.indexOf(required);
}

/** Reads GitHub's value (`role_name` or `permission`); anything unknown counts as none. */
export function toPermission(value: string | null | undefined): Permission {
  const v = (value ?? "none").toLowerCase();
  return isPermission(v) ? v : "none";
}
