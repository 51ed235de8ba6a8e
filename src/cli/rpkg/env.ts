import type { PorchEnv } from "../../porch/repository.js";
import type { CliIO } from "../io.js";
import type { Progress } from "../progress.js";

/** What every rpkg verb runs with: the engine's environment, and the door's output, progress and -v. */
export interface RpkgEnv extends PorchEnv {
  io: CliIO;
  progress: Progress;
  /** -v: hints after failures (PorchError.hint), besides progress. */
  verbose?: boolean;
  /**
   * Told each failure of a multi-name verb, typed, with the text it printed for it (the API, which runs
   * a verb for one name, answers with that text and the failure's kind).
   */
  onFailure?: (error: unknown, said: string) => void;
}
