import { describe, expect, it } from "vitest";
import { annotation, escapeData, escapeProperty } from "../../src/action/workflow-commands.js";

describe("workflow command lines", () => {
  it("prints a bare annotation", () => {
    expect(annotation("error", "render failed")).toBe("::error::render failed\n");
  });

  it("prints properties in order, skipping empty ones", () => {
    expect(annotation("warning", "m", { title: "porchlight", file: "apps/web/Kptfile", line: 3 })).toBe(
      "::warning title=porchlight,file=apps/web/Kptfile,line=3::m\n",
    );
    expect(annotation("notice", "m", { title: "" })).toBe("::notice::m\n");
  });

  it("keeps a multi-line message in one command", () => {
    expect(annotation("error", "a\nb\r\n::error::c 100%")).toBe("::error::a%0Ab%0D%0A::error::c 100%25\n");
  });

  it("escapes what separates properties only inside properties", () => {
    expect(escapeData("a:b,c")).toBe("a:b,c");
    expect(escapeProperty("a:b,c%\n")).toBe("a%3Ab%2Cc%25%0A");
  });
});
