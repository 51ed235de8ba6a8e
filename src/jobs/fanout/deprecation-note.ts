import { type Catalog, deprecation, findPackage } from "../../catalog/index.js";

/**
 * What the upstream catalog deprecates of a fan-out pull request's upstream — the package, the channel it
 * follows, the revision the downstream is on, the revision it brings — as a note for the pull request, so
 * the people who merge it see it (operator-registry shows `olm.deprecations` to a subscription's users the
 * same way). Undefined when nothing of it is deprecated.
 */
export function deprecationNote(
  catalog: Catalog | undefined,
  input: { package: string; channel?: string; from?: string; to: string },
): string | undefined {
  const pkg = catalog && findPackage(catalog, input.package);
  if (!pkg) return undefined;
  const lines: string[] = [];
  const add = (what: string, found: { deprecated?: string }) => {
    if (found.deprecated) lines.push(`- ${what}: ${found.deprecated}`);
  };
  add(`the package \`${input.package}\``, deprecation(pkg, { schema: "olm.package" }));
  if (input.channel)
    add(`channel \`${input.channel}\``, deprecation(pkg, { schema: "olm.channel", name: input.channel }));
  if (input.from && input.from !== input.to)
    add(
      `${input.from}, which this package is on now`,
      deprecation(pkg, { schema: "olm.bundle", name: input.from }),
    );
  add(
    `${input.to}, which this pull request brings`,
    deprecation(pkg, { schema: "olm.bundle", name: input.to }),
  );
  return lines.length ? `**Deprecated upstream**, as its catalog says:\n${lines.join("\n")}` : undefined;
}
