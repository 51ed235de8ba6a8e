import type { Handler } from "./context.js";

/** How a route authenticates: an app JWT, an installation token, a token or PAT, or nothing. */
export type AuthMode = "jwt" | "installation" | "token" | "none";

export interface Route {
  method: string;
  /** GitHub's path template, e.g. `/repos/{owner}/{repo}/git/ref/{ref}`; used in the request log. */
  template: string;
  auth: AuthMode;
  handler: Handler;
  segments: Segment[];
}

type Segment = { literal: string } | { param: string; rest: "none" | "some" | "any" };

export interface Match {
  route: Route;
  params: Record<string, string>;
}

/**
 * Route templates to handlers. A trailing `{name+}` takes the rest of the path (one or more
 * segments, slashes kept: refs, content paths), `{name*}` also matches nothing.
 */
export class Router {
  readonly routes: Route[] = [];

  add(method: string, template: string, auth: AuthMode, handler: Handler): void {
    const segments = template
      .split("/")
      .filter(Boolean)
      .map((s): Segment => {
        const m = /^\{(\w+)([+*]?)\}$/.exec(s);
        if (!m) return { literal: s };
        return { param: m[1]!, rest: m[2] === "+" ? "some" : m[2] === "*" ? "any" : "none" };
      });
    this.routes.push({ method, template: template.replace(/[+*]\}/g, "}"), auth, handler, segments });
  }

  /** The route for a path, or `undefined`; `methodMismatch` tells 404 from 405 apart. */
  match(method: string, path: string): Match | { methodMismatch: true } | undefined {
    const raw = path.split("/").filter((s, i, all) => s !== "" || i === all.length - 1);
    if (raw[0] === "") raw.shift();
    let pathMatched = false;
    let best: Match | undefined;
    let bestScore = -1;
    for (const route of this.routes) {
      const params = matchSegments(route.segments, raw);
      if (!params) continue;
      if (route.method !== method) {
        pathMatched = true;
        continue;
      }
      // The most literal template wins (`/issues/comments` over `/issues/{issue_number}`).
      const score = route.segments.filter((s) => "literal" in s).length;
      if (score > bestScore) {
        best = { route, params };
        bestScore = score;
      }
    }
    if (best) return best;
    return pathMatched ? { methodMismatch: true } : undefined;
  }
}

function decode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function matchSegments(segments: Segment[], raw: string[]): Record<string, string> | undefined {
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i]!;
    if ("literal" in seg) {
      if (raw[i] !== seg.literal) return undefined;
      continue;
    }
    if (seg.rest !== "none") {
      const rest = raw.slice(i).filter(Boolean).map(decode).join("/");
      if (seg.rest === "some" && rest === "") return undefined;
      params[seg.param] = rest;
      return params;
    }
    const v = raw[i];
    if (v === undefined || v === "") return undefined;
    params[seg.param] = decode(v);
  }
  return raw.length === segments.length || (raw.length === segments.length + 1 && raw.at(-1) === "")
    ? params
    : undefined;
}
