import { fail } from "../errors.js";
import type { Value } from "./core.js";
import { StarDict } from "./dict.js";

/**
 * A dict a script may hold but not read: for `ctx.open_api`, which the catalog function fills with
 * kyaml's embedded Kubernetes OpenAPI schema and porchlight does not ship. A lookup fails with `why`
 * instead of a puzzling "key not in dict".
 */
export class UnavailableDict extends StarDict {
  constructor(private readonly why: string) {
    super();
    this.freeze();
  }
  override get(_k: Value): Value | undefined {
    return fail(this.why);
  }
  override has(_k: Value): boolean {
    return fail(this.why);
  }
}
