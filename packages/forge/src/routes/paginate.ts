import type { Ctx } from "../context.js";
import { ok, type Reply } from "../http.js";

/** `per_page` (default 30, max 100) and `page` from the query, as GitHub reads them. */
function pageParams(ctx: Ctx): { perPage: number; page: number } {
  const perPage = Math.min(100, Math.max(1, Number(ctx.query.get("per_page")) || 30));
  const page = Math.max(1, Number(ctx.query.get("page")) || 1);
  return { perPage, page };
}

/** The `Link` header GitHub sends on a paginated list (empty when there is one page). */
function linkHeader(ctx: Ctx, page: number, lastPage: number): string | undefined {
  if (lastPage <= 1) return undefined;
  const at = (p: number) => {
    const u = new URL(ctx.url);
    u.searchParams.set("page", String(p));
    return `<${u.toString()}>`;
  };
  const links: string[] = [];
  if (page > 1) links.push(`${at(page - 1)}; rel="prev"`);
  if (page < lastPage) links.push(`${at(page + 1)}; rel="next"`, `${at(lastPage)}; rel="last"`);
  if (page > 1) links.push(`${at(1)}; rel="first"`);
  return links.join(", ");
}

/** One page of `items`, with GitHub's Link header; `wrap` builds an envelope (`{total_count, …}`). */
export function paginate<T>(
  ctx: Ctx,
  items: T[],
  map: (item: T) => unknown = (x) => x,
  wrap?: (page: unknown[], total: number) => unknown,
): Reply {
  const { perPage, page } = pageParams(ctx);
  const lastPage = Math.max(1, Math.ceil(items.length / perPage));
  const slice = items.slice((page - 1) * perPage, page * perPage).map(map);
  const link = linkHeader(ctx, page, lastPage);
  return ok(wrap ? wrap(slice, items.length) : slice, link ? { link } : undefined);
}
