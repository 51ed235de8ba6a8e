/**
 * What a run works out once per apiVersion and kind of resource (the field specs that select it, where
 * its labels go), not once per resource: `compute` is called for the first resource of each pair, its
 * answer kept for the rest of the run.
 */
export function perKind<T>(
  compute: (apiVersion: string, kind: string) => T,
): (apiVersion: string, kind: string) => T {
  const byVersion = new Map<string, Map<string, T>>();
  return (apiVersion, kind) => {
    let byKind = byVersion.get(apiVersion);
    if (!byKind) {
      byKind = new Map();
      byVersion.set(apiVersion, byKind);
    }
    let found = byKind.get(kind);
    if (found === undefined) {
      found = compute(apiVersion, kind);
      byKind.set(kind, found);
    }
    return found;
  };
}
