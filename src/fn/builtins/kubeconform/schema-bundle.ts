import { gunzipSync } from "node:zlib";
import { BUNDLE_GZIP_BASE64 } from "./schemas/k8s-bundle.generated.js";

/**
 * The built-in Kubernetes schemas, in the compact form tools/generate-bundle.ts writes: each model's
 * property types as type strings (`string`, `number|int32`, `Array<V1Container>`,
 * `{ [key: string]: Quantity; }`, a model name, …) and required properties; each kind's model.
 */
export interface SchemaBundle {
  kubernetesVersion: string;
  /** `apiVersion/Kind` (e.g. `apps/v1/Deployment`, `v1/Pod`) → model name. */
  kinds: Record<string, string>;
  models: Record<string, { props: Record<string, string>; required?: string[] }>;
}

/** Decodes the bundle shipped with porchlight (a few milliseconds; callers keep the result). */
export function loadBundle(): SchemaBundle {
  return JSON.parse(gunzipSync(Buffer.from(BUNDLE_GZIP_BASE64, "base64")).toString("utf8")) as SchemaBundle;
}
