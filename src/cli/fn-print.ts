import type { FunctionResult } from "../fn/types.js";
import type { RenderEvent } from "../render/render.js";
import { printBlock, resultLine } from "../render/results.js";

/** kpt's duration form: "0s", "300ms", "1.2s" (rounded to 100ms). */
export function formatDuration(ms: number): string {
  const rounded = Math.round(ms / 100) * 100;
  if (rounded === 0) return "0s";
  if (rounded < 1000) return `${rounded}ms`;
  return `${Number((rounded / 1000).toFixed(1))}s`;
}

/**
 * Prints render progress to stderr as kpt does:
 *   Package "pkg/sub": \n[RUNNING] "image"\n[PASS] "image" in 0s\n\n
 */
export class ProgressPrinter {
  private ranInPackage = false;

  constructor(
    private readonly write: (text: string) => void,
    private readonly displayPath: (pkgPath: string) => string,
    private readonly truncate: boolean,
  ) {}

  on(event: RenderEvent): void {
    switch (event.type) {
      case "package":
        this.endPackage();
        this.write(`Package "${this.displayPath(event.path)}": \n`);
        return;
      case "running":
        this.ranInPackage = true;
        this.write(
          `[RUNNING] "${event.name}"${event.selected !== undefined ? ` on ${event.selected} resource(s)` : ""}\n`,
        );
        return;
      case "pass":
        this.write(`[PASS] "${event.name}" in ${formatDuration(event.ms)}\n`);
        this.results(event.results);
        this.stderr(event.stderr);
        return;
      case "fail":
        this.write(`[FAIL] "${event.name}" in ${formatDuration(event.ms)}\n`);
        this.results(event.results);
        this.stderr(event.stderr);
        if (event.exitCode !== undefined) this.write(`  Exit code: ${event.exitCode}\n\n`);
        this.ranInPackage = false;
        return;
    }
  }

  /** A blank line closes a package in which functions ran. */
  endPackage(): void {
    if (this.ranInPackage) this.write("\n");
    this.ranInPackage = false;
  }

  /** What a function wrote to stderr, one quoted line each, as kpt shows it. */
  private stderr(text: string | undefined): void {
    if (text) this.write(printBlock("Stderr", text.split("\n"), true, this.truncate));
  }

  private results(results: readonly FunctionResult[]): void {
    if (results.length === 0) return;
    this.write(printBlock("Results", results.map(resultLine), false, this.truncate));
  }
}
