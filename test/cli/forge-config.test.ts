import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Octokit } from "@octokit/rest";
import { parseFaultFlag, parseForgeConfig } from "@porchlight/forge";
import { afterAll, describe, expect, it } from "vitest";
import { forgeCommand } from "../../src/cli/forge.js";

const temp = mkdtempSync(join(tmpdir(), "porchlight-forge-config-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

const io = (sink: { out: string }) => ({
  stdout: (t: string) => {
    sink.out += t;
  },
  stderr: () => {},
  readStdin: async () => "",
  cwd: temp,
  env: {},
  isTTY: false,
});

describe("forge faults and rate limits from the command line and a config file", () => {
  it("porchlight forge --config FILE --fault … --rate-limit N applies them to the running forge", async () => {
    const config = join(temp, "forge.yaml");
    writeFileSync(
      config,
      [
        "faults:",
        '  - {route: "/repos/{owner}/{repo}/issues", method: POST, status: 502, times: 1}',
        "rateLimit:",
        "  secondary: {everyNthMutation: 1000, retryAfter: 2}",
        "",
      ].join("\n"),
    );
    const sink = { out: "" };
    const running = forgeCommand(
      [
        "--data",
        join(temp, "data"),
        "--port",
        "0",
        "--seed",
        "--config",
        config,
        "--fault",
        "GET /repos/{owner}/{repo}/labels status=503 times=1",
        "--rate-limit",
        "40",
      ],
      io(sink),
    );
    try {
      while (!sink.out.includes("listening on")) await new Promise((r) => setImmediate(r));
      const url = /listening on (\S+)/.exec(sink.out)?.[1] as string;
      const pat = /PAT: (\S+)/.exec(sink.out)?.[1];
      const rest = new Octokit({ baseUrl: `${url}/api/v3`, auth: pat });
      const repo = { owner: "acme", repo: "blueprints" };
      const first = await rest.repos.get(repo);
      expect(first.headers["x-ratelimit-limit"]).toBe("40");
      await expect(rest.issues.create({ ...repo, title: "a" })).rejects.toMatchObject({ status: 502 });
      await expect(rest.issues.create({ ...repo, title: "b" })).resolves.toMatchObject({ status: 201 });
      await expect(rest.issues.listLabelsForRepo(repo)).rejects.toMatchObject({ status: 503 });
      await expect(rest.issues.listLabelsForRepo(repo)).resolves.toMatchObject({ status: 200 });
    } finally {
      process.emit("SIGTERM");
      expect(await running).toBe(0);
    }
  });

  it("refuses a bad file or flag, naming the file, the field and what is allowed", async () => {
    expect(() => parseForgeConfig("faults:\n  - {route: /x, stauts: 500}\n", "forge.yaml")).toThrow(
      /forge\.yaml: faults\[0\]: Unrecognized key: "stauts"[\s\S]*known fields: faults\[\]\.route/,
    );
    expect(() => parseForgeConfig("rateLimit: {status: 500}\n", "forge.yaml")).toThrow(
      /forge\.yaml: rateLimit\.status: /,
    );
    expect(() => parseForgeConfig("faults: [\n", "forge.yaml")).toThrow(/forge\.yaml: not valid YAML/);
    expect(() => parseFaultFlag("POST /repos/{owner}/{repo}/pulls status=lots")).toThrow(
      /--fault "POST \/repos\/\{owner\}\/\{repo\}\/pulls status=lots": faults\[0\]\.status/,
    );
    expect(parseFaultFlag("post /repos/{owner}/{repo}/git/refs hang times=1")).toEqual({
      method: "POST",
      route: "/repos/{owner}/{repo}/git/refs",
      hang: true,
      times: 1,
    });
    const sink = { out: "" };
    await expect(
      forgeCommand(["--data", join(temp, "d2"), "--config", join(temp, "missing.yaml")], io(sink)),
    ).rejects.toThrow(/missing\.yaml: cannot read it \(ENOENT\)/);
  });
});
