import { describe, expect, it } from "vitest";
import { execFile } from "../../../src/fn/starlark/interp.js";
import { jsonModule } from "../../../src/fn/starlark/modules/json.js";
import { fromBytes } from "../../../src/fn/starlark/utf8.js";
import { repr } from "../../../src/fn/starlark/values/repr.js";
import { KPT_DIALECT, starlarkCases } from "./helpers.js";

function run(src: string): string {
  try {
    const { globals } = execFile(`load("encoding/json.star", "json")\n${src}`, new Map(), {
      name: "t.star",
      dialect: KPT_DIALECT,
      load: () => new Map([["json", jsonModule()]]),
    });
    return fromBytes(repr(globals.get("x")!));
  } catch (e) {
    return `error: ${(e as Error).message}`;
  }
}

describe("load('encoding/json.star', 'json'): go.starlark.net/lib/json", () => {
  it.each(starlarkCases("json.yaml"))("%s", (_name, src, want) => {
    expect(run(src)).toBe(want);
  });
});
