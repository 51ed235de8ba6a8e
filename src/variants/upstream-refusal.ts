/**
 * Why fan-out does not read a variant's git upstream for it (docs/variants.md "Who may make the bot read
 * what"): the upstream is another, private repository, and one who may push the management repository's
 * variant files cannot read it — or who may push them cannot be told. Told by fan-out, written on its
 * dashboard issue (a hidden marker per variant, formatRefusalMarker), and read back by Porch's API for the
 * variant's status (parseRefusals), so that both say the same thing in the same words.
 */
export type UpstreamRefusal =
  | {
      kind: "unreadable";
      /** The upstream repository, `owner/name`. */
      upstream: string;
      /** The management repository whose variant files name it, `owner/name`. */
      management: string;
      /** A writer of the management repository who cannot read the upstream (the first found). */
      writer: string;
    }
  | {
      kind: "writers-unknown";
      upstream: string;
      management: string;
      /** Why GitHub would not list the management repository's writers. */
      error: string;
    };

/** Porch's API's reason for the variant's Ready (and Stalled) condition. */
export const UPSTREAM_NOT_ALLOWED = "UpstreamNotAllowed";

/** What was refused and why, in one sentence. */
export function refusalMessage(r: UpstreamRefusal): string {
  if (r.kind === "writers-unknown")
    return `who may push to ${r.management} cannot be read (${r.error}), so ${r.upstream}, a private repository, is not read for its variant files`;
  return `${r.upstream} is private and ${r.writer}, who may push the variant files of ${r.management}, cannot read it: a variant file makes porchlight read another repository only when everyone who may write the variant files may read it (or it is public)`;
}

/** What to do about it. */
export function refusalHint(r: UpstreamRefusal): string {
  const ways = `make ${r.upstream} public, or keep the variant in ${r.upstream}'s own variant files (the default management repository, whose writers read it)`;
  if (r.kind === "writers-unknown")
    return `fan-out's next run asks GitHub again who may push to ${r.management}; meanwhile ${ways}`;
  return `give ${r.writer} (and every other writer of ${r.management}) read access to ${r.upstream}, or ${ways}`;
}

const MARKER = /<!-- porchlight:refused (\{[^\n]*?\}) -->/g;

/**
 * The hidden marker of a variant refused its upstream, on the dashboard issue:
 * `<!-- porchlight:refused {"variant":"steal","kind":"unreadable",…} -->`. `>` is escaped in the JSON, so
 * no value ends the comment early.
 */
export function formatRefusalMarker(variant: string, r: UpstreamRefusal): string {
  return `<!-- porchlight:refused ${JSON.stringify({ variant, ...r }).replace(/>/g, "\\u003e")} -->`;
}

/** The refusals a dashboard body's markers record, by variant name (none when it has no marker). */
export function parseRefusals(body: string | null | undefined): Map<string, UpstreamRefusal> {
  const out = new Map<string, UpstreamRefusal>();
  for (const m of (body ?? "").matchAll(MARKER)) {
    let data: unknown;
    try {
      data = JSON.parse(m[1] ?? "");
    } catch {
      continue;
    }
    const refusal = asRefusal(data);
    if (refusal && !out.has(refusal.variant)) out.set(refusal.variant, refusal.refusal);
  }
  return out;
}

const str = (o: Record<string, unknown>, k: string) => (typeof o[k] === "string" ? o[k] : undefined);

function asRefusal(data: unknown): { variant: string; refusal: UpstreamRefusal } | undefined {
  if (typeof data !== "object" || data === null) return undefined;
  const o = data as Record<string, unknown>;
  const [variant, upstream, management] = [str(o, "variant"), str(o, "upstream"), str(o, "management")];
  if (!variant || !upstream || !management) return undefined;
  const writer = str(o, "writer");
  if (o.kind === "unreadable" && writer)
    return { variant, refusal: { kind: "unreadable", upstream, management, writer } };
  const error = str(o, "error");
  if (o.kind === "writers-unknown" && error !== undefined)
    return { variant, refusal: { kind: "writers-unknown", upstream, management, error } };
  return undefined;
}
