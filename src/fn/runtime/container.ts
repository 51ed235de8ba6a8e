import { spawnSync } from "node:child_process";
import type { ResourceList } from "../types.js";
import { FunctionError } from "../types.js";
import { processResult } from "./exec.js";
import { runProcess } from "./process.js";
import type { FunctionRunner, FunctionSpec, RunOptions, RunOutput } from "./types.js";
import { writeResourceList } from "./wire.js";

export type ContainerEngine = "docker" | "podman";

/** The first engine whose daemon answers `<engine> info`, or undefined. */
export function detectEngine(preferred?: string): ContainerEngine | undefined {
  const candidates: ContainerEngine[] = preferred === "podman" ? ["podman", "docker"] : ["docker", "podman"];
  for (const engine of candidates) {
    const r = spawnSync(engine, ["info"], { stdio: "ignore", timeout: 20_000 });
    if (r.status === 0) return engine;
  }
  return undefined;
}

/**
 * Runs `image:` functions that are not builtins in a container (docker or podman), with no network and
 * the ResourceList on stdin, as kpt does. Fails with a clear message when no engine is running.
 */
export class ContainerRunner implements FunctionRunner {
  readonly kind = "container";
  private engine: ContainerEngine | undefined | null = null;

  constructor(
    private readonly detect: () => ContainerEngine | undefined = () => detectEngine(),
    private readonly allowNetwork = false,
    /** Why the engine may not pull an image (the operator's egress policy), or undefined when it may. */
    private readonly imageCheck?: (image: string) => Promise<string | undefined>,
  ) {}

  async run(fn: FunctionSpec, input: ResourceList, options: RunOptions): Promise<RunOutput> {
    if (!fn.image) throw new FunctionError("container runner called without an image");
    if (this.engine === null) this.engine = this.detect();
    const engine = this.engine;
    if (!engine) {
      throw new FunctionError(
        `cannot run container function "${fn.image}": no container engine is available ` +
          "(`docker info` and `podman info` both failed: docker or podman must be installed and running); " +
          "use a builtin function or an exec function (--allow-exec) instead",
      );
    }
    const refused = await this.imageCheck?.(fn.image);
    if (refused) throw new FunctionError(refused);
    const network = this.allowNetwork ? [] : ["--network", "none"];
    const args = [
      "run",
      "--rm",
      "-i",
      ...network,
      "--user",
      "nobody",
      "--security-opt=no-new-privileges",
      fn.image,
    ];
    const outcome = await runProcess(fn.image, engine, args, writeResourceList(input), options);
    return processResult(fn.image, outcome);
  }
}
