import { describe, expect, it } from "vitest";
import { type Guardrail, guardrailName, guardrailsFor } from "../../src/config/index.js";

const everywhere: Guardrail = { image: "kubeconform:v0.1" };
const apps: Guardrail = { name: "apps-policy", image: "starlark:v0.5", packages: ["apps/**"] };
const directApps: Guardrail = { image: "gatekeeper:v0.2", packages: ["apps/*", "infra/dns"] };
const all = [everywhere, apps, directApps];

describe("guardrailsFor: which validators run on a package", () => {
  it.each([
    { pkg: "apps/web", expected: ["kubeconform:v0.1", "apps-policy", "gatekeeper:v0.2"] },
    { pkg: "apps/web/api", expected: ["kubeconform:v0.1", "apps-policy"] },
    { pkg: "infra/dns", expected: ["kubeconform:v0.1", "gatekeeper:v0.2"] },
    { pkg: "infra/net", expected: ["kubeconform:v0.1"] },
    { pkg: "apps", expected: ["kubeconform:v0.1"] },
  ])("$pkg gets $expected", ({ pkg, expected }) => {
    expect(guardrailsFor(pkg, all).map(guardrailName)).toEqual(expected);
  });
});
