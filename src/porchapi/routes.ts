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

export function parseRoute(pathname: string): Route {
  const parts = pathname.split("/").filter(Boolean).map(decodeURIComponent);
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
