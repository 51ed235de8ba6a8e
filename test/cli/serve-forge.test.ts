import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  rememberedForgePort,
  rememberedPort,
  rememberForgePort,
  rememberPort,
} from "../../src/cli/remembered-ports.js";

describe("the forge port a data folder remembers", () => {
  const dir = mkdtempSync(join(tmpdir(), "porchlight-serve-state-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const state = (text: string) => writeFileSync(join(dir, "serve.json"), text);

  it("is the port written last time, and none before anything was written", () => {
    expect(rememberedForgePort(dir, "serve")).toBeUndefined();
    rememberForgePort(dir, "http://127.0.0.1:41234");
    expect(rememberedForgePort(dir, "serve")).toBe(41234);
  });

  it("is kept when the API's port is remembered, and keeps the API's when the forge's is (porchlight forge seed)", () => {
    rememberForgePort(dir, "http://127.0.0.1:41234");
    rememberPort(dir, "apiPort", "https://127.0.0.1:41235");
    rememberForgePort(dir, "http://127.0.0.1:41236");
    expect([rememberedForgePort(dir, "forge"), rememberedPort(dir, "apiPort", "forge")]).toEqual([
      41236, 41235,
    ]);
  });

  it("is forgotten when it is no whole number, so the forge picks a new one", () => {
    state('{"forgePort": "41234"}');
    expect(rememberedForgePort(dir, "serve")).toBeUndefined();
    state("{}");
    expect(rememberedForgePort(dir, "serve")).toBeUndefined();
  });

  it("names the file, and what to do, when it holds no JSON object", () => {
    state("{");
    expect(() => rememberedForgePort(dir, "forge")).toThrow(
      `porchlight forge: ${join(dir, "serve.json")} is not valid JSON`,
    );
    for (const text of ["null", "[41234]", "41234"]) {
      state(text);
      expect(() => rememberedForgePort(dir, "serve")).toThrow(
        `porchlight serve: ${join(dir, "serve.json")} is not a JSON object; fix it or delete it (the forge then picks a new port)`,
      );
    }
  });
});
