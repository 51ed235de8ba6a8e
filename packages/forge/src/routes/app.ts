import { mintInstallationToken } from "../admin.js";
import { type Ctx, rateKey } from "../context.js";
import { ApiError, created, noContent, notFound, ok } from "../http.js";
import type { Router } from "../router.js";
import { appShape, installationShape } from "../shapes/app.js";
import { repoShape } from "../shapes/repo.js";
import { installationCovers } from "../state.js";
import type { DeliveryRec } from "../types.js";
import { paginate } from "./paginate.js";

function appOf(ctx: Ctx) {
  if (ctx.principal.kind !== "app") {
    throw new ApiError(401, "A JSON web token could not be decoded");
  }
  return ctx.principal.app;
}

function installationOfApp(ctx: Ctx, id: number) {
  const app = appOf(ctx);
  const inst = ctx.core.store.installation(id);
  if (!inst || inst.appId !== app.id) throw notFound();
  return inst;
}

function deliveryItem(d: DeliveryRec): Record<string, unknown> {
  return {
    id: d.id,
    guid: d.guid,
    delivered_at: d.deliveredAt,
    redelivery: d.redelivery,
    duration: d.duration,
    status: d.status,
    status_code: d.statusCode,
    event: d.event,
    action: d.action,
    installation_id: d.installationId,
    repository_id: d.repositoryId,
    throttled_at: null,
  };
}

/** `/app…` and `/installation…`: app identity, installations, tokens, hook deliveries. */
export function appRoutes(r: Router): void {
  r.add("GET", "/app", "jwt", (ctx) => ok(appShape(ctx.core, appOf(ctx))));

  r.add("GET", "/app/installations", "jwt", (ctx) => {
    const app = appOf(ctx);
    const list = ctx.core.store.data.installations.filter((i) => i.appId === app.id);
    return paginate(ctx, list, (i) => installationShape(ctx.core, i));
  });

  r.add("GET", "/app/installations/{installation_id}", "jwt", (ctx) =>
    ok(installationShape(ctx.core, installationOfApp(ctx, Number(ctx.params.installation_id)))),
  );

  r.add("POST", "/app/installations/{installation_id}/access_tokens", "jwt", (ctx) => {
    const inst = installationOfApp(ctx, Number(ctx.params.installation_id));
    const covered = ctx.core.store.installationRepos(inst);
    let narrowed: number[] | undefined;
    const names = ctx.body.repositories;
    const ids = ctx.body.repository_ids;
    if (Array.isArray(names) || Array.isArray(ids)) {
      narrowed = [];
      for (const n of Array.isArray(names) ? names : []) {
        const repo = covered.find((r) => r.name.toLowerCase() === String(n).toLowerCase());
        if (!repo)
          throw new ApiError(
            422,
            `There is at least one repository that does not exist or is not accessible to the parent installation.`,
          );
        narrowed.push(repo.id);
      }
      for (const id of Array.isArray(ids) ? ids : []) {
        if (!covered.some((r) => r.id === Number(id)))
          throw new ApiError(
            422,
            `There is at least one repository that does not exist or is not accessible to the parent installation.`,
          );
        narrowed.push(Number(id));
      }
    }
    const tok = mintInstallationToken(ctx.core, inst, narrowed);
    const app = ctx.core.store.app(inst.appId)!;
    return created({
      token: tok.token,
      expires_at: tok.expiresAt,
      permissions: app.permissions,
      repository_selection: narrowed ? "selected" : inst.repositorySelection,
      ...(narrowed
        ? { repositories: narrowed.map((id) => repoShape(ctx.core, ctx.core.store.repoById(id)!)) }
        : {}),
    });
  });

  r.add("GET", "/repos/{owner}/{repo}/installation", "jwt", (ctx) => {
    const app = appOf(ctx);
    const repo = ctx.core.store.repo(ctx.params.owner!, ctx.params.repo!);
    const inst =
      repo &&
      ctx.core.store.data.installations.find((i) => i.appId === app.id && installationCovers(i, repo));
    if (!inst) throw notFound();
    return ok(installationShape(ctx.core, inst));
  });

  for (const template of ["/orgs/{org}/installation", "/users/{username}/installation"]) {
    r.add("GET", template, "jwt", (ctx) => {
      const app = appOf(ctx);
      const login = (ctx.params.org ?? ctx.params.username ?? "").toLowerCase();
      const inst = ctx.core.store.data.installations.find(
        (i) => i.appId === app.id && i.accountLogin.toLowerCase() === login,
      );
      if (!inst) throw notFound();
      return ok(installationShape(ctx.core, inst));
    });
  }

  r.add("GET", "/installation/repositories", "installation", (ctx) => {
    if (ctx.principal.kind !== "installation") throw notFound();
    const { installation, token } = ctx.principal;
    const repos = ctx.core.store
      .installationRepos(installation)
      .filter((repo) => !token.repositoryIds || token.repositoryIds.includes(repo.id));
    return paginate(
      ctx,
      repos,
      (repo) => repoShape(ctx.core, repo),
      (page, total) => ({
        total_count: total,
        repository_selection: installation.repositorySelection,
        repositories: page,
      }),
    );
  });

  r.add("DELETE", "/installation/token", "installation", (ctx) => {
    if (ctx.principal.kind !== "installation") throw notFound();
    const t = ctx.principal.token;
    ctx.core.store.data.tokens = ctx.core.store.data.tokens.filter((x) => x !== t);
    return noContent();
  });

  r.add("GET", "/app/hook/deliveries", "jwt", (ctx) => {
    const app = appOf(ctx);
    const perPage = Math.min(100, Number(ctx.query.get("per_page")) || 30);
    const cursor = Number(ctx.query.get("cursor")) || Number.POSITIVE_INFINITY;
    const list = ctx.core.webhooks.deliveries.filter((d) => d.appId === app.id && d.id < cursor).reverse();
    const page = list.slice(0, perPage);
    const headers: Record<string, string> = {};
    if (list.length > perPage) {
      const u = new URL(ctx.url);
      u.searchParams.set("cursor", String(page.at(-1)!.id));
      headers.link = `<${u.toString()}>; rel="next"`;
    }
    return ok(page.map(deliveryItem), headers);
  });

  r.add("GET", "/app/hook/deliveries/{delivery_id}", "jwt", (ctx) => {
    const app = appOf(ctx);
    const d = ctx.core.webhooks.deliveries.find((x) => x.id === Number(ctx.params.delivery_id));
    if (!d || d.appId !== app.id) throw notFound();
    return ok({
      ...deliveryItem(d),
      url: app.webhookUrl ?? "",
      request: { headers: d.requestHeaders, payload: d.payload },
      response: { headers: d.responseHeaders, payload: d.responseBody },
    });
  });

  r.add("POST", "/app/hook/deliveries/{delivery_id}/attempts", "jwt", (ctx) => {
    const app = appOf(ctx);
    const d = ctx.core.webhooks.deliveries.find((x) => x.id === Number(ctx.params.delivery_id));
    if (!d || d.appId !== app.id) throw notFound();
    ctx.core.webhooks.redeliver(d.id);
    return { status: 202, body: {} };
  });

  r.add("GET", "/rate_limit", "token", (ctx) => {
    const rl = ctx.core.rateLimit.snapshot(rateKey(ctx.principal).key);
    const core = { limit: rl.limit, remaining: rl.remaining, reset: rl.reset, used: rl.used };
    const search = { limit: 30, remaining: 30, reset: rl.reset, used: 0 };
    return ok({ resources: { core, search, graphql: core }, rate: core });
  });
}
