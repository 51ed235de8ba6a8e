import { ApiError } from "./status.js";

/**
 * A request path of the API, parsed: discovery, OpenAPI, or a resource (`/apis/GROUP/VERSION[/namespaces/NS]
 * /RESOURCE[/NAME[/SUBRESOURCE]]`).
 */
export type Route =
  | { kind: "core"; version?: string }
  | { kind: "groups" }
  | { kind: "group"; group: string }
  | { kind: "resources"; group: string; version: string }
  | { kind: "openapi-v2" }
  | { kind: "openapi-v3-root" }
  | { kind: "openapi-v3"; group: string; version: string }
  | { kind: "version" }
  | { kind: "health" }
  | {
      kind: "object";
      group: string;
      version: string;
      namespace: string | undefined;
      resource: string;
      name: string | undefined;
      subresource: string | undefined;
    }
  | { kind: "unknown" };

/** The most segments a path of the API has: `/apis/GROUP/VERSION/namespaces/NS/RESOURCE/NAME/SUBRESOURCE`. */
const MAX_SEGMENTS = 8;
/** The longest segment: a Kubernetes object name (a DNS subdomain) is at most 253 characters. */
const MAX_SEGMENT = 253;

/**
 * The path's segments, decoded; a path no client of the API sends (bad percent-encoding, a control
 * character or a slash inside a name, more segments than any route has, a name longer than Kubernetes
 * allows) is a BadRequest that quotes the client's own input, before anything reads a store with it.
 */
function segmentsOf(pathname: string): string[] {
  const raw = pathname.split("/").filter(Boolean);
  if (raw.length > MAX_SEGMENTS)
    throw new ApiError(
      "BadRequest",
      `the request path has ${raw.length} segments; the API's paths have at most ${MAX_SEGMENTS} (/apis/GROUP/VERSION/namespaces/NAMESPACE/RESOURCE/NAME/SUBRESOURCE)`,
    );
  return raw.map((segment) => {
    let text: string;
    try {
      text = decodeURIComponent(segment);
    } catch {
      throw new ApiError(
        "BadRequest",
        `the request path's segment "${segment.slice(0, 64)}" is not valid percent-encoding (a % is followed by two hexadecimal digits of UTF-8)`,
      );
    }
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
    if (/[\u0000-\u001f\u007f/]/.test(text))
      throw new ApiError(
        "BadRequest",
        `the request path's segment ${JSON.stringify(text.slice(0, 64))} holds a control character or a slash, which no name of the API has`,
      );
    if (text.length > MAX_SEGMENT)
      throw new ApiError(
        "BadRequest",
        `the request path's segment "${text.slice(0, 64)}…" is ${text.length} characters long; a name has at most ${MAX_SEGMENT}`,
      );
    return text;
  });
}

export function parseRoute(pathname: string): Route {
  const parts = segmentsOf(pathname);
  const [first, second, third, fourth] = parts;
  if (parts.length === 1 && ["healthz", "livez", "readyz"].includes(first ?? "")) return { kind: "health" };
  if (parts.length === 1 && first === "version") return { kind: "version" };
  if (first === "api" && parts.length <= 2)
    return second ? { kind: "core", version: second } : { kind: "core" };
  // the core group's one resource: /api/v1/namespaces/NAME
  if (first === "api" && second && third && parts.length <= 4)
    return {
      kind: "object",
      group: "",
      version: second,
      namespace: undefined,
      resource: third,
      name: fourth,
      subresource: undefined,
    };
  if (first === "openapi") {
    if (second === "v2" && parts.length === 2) return { kind: "openapi-v2" };
    if (second === "v3" && parts.length === 2) return { kind: "openapi-v3-root" };
    if (second === "v3" && third === "api" && fourth && parts.length === 4)
      return { kind: "openapi-v3", group: "", version: fourth };
    if (second === "v3" && third === "apis" && fourth && parts[4] && parts.length === 5)
      return { kind: "openapi-v3", group: fourth, version: parts[4] };
    return { kind: "unknown" };
  }
  if (first !== "apis") return { kind: "unknown" };
  if (!second) return { kind: "groups" };
  if (!third) return { kind: "group", group: second };
  if (!fourth) return { kind: "resources", group: second, version: third };
  const rest = parts.slice(3);
  let namespace: string | undefined;
  if (rest[0] === "namespaces" && rest.length >= 3) {
    namespace = rest[1];
    rest.splice(0, 2);
  }
  const [resource, name, subresource, ...more] = rest;
  if (!resource || more.length > 0) return { kind: "unknown" };
  return { kind: "object", group: second, version: third, namespace, resource, name, subresource };
}
