import type { PorchEnv } from "./repository.js";

/** One step of an operation, as its door shows it (rpkg: a spinner or a line; the API: nothing). */
interface Step {
  /** Advances a counted step by `n` (default 1); `detail` names what is being done now. */
  tick(n?: number, detail?: string): void;
  /** Ends the step as done; `note` is said after its label. */
  done(note?: string): void;
  /** Ends the step as failed. */
  fail(note?: string): void;
}

/** Where an operation reports its steps: the door turns them into output, or into nothing. */
interface Steps {
  step(label: string, total?: number): Step;
}

/** What an operation runs with: the engine's environment and the observer of its steps. */
export interface OpEnv extends PorchEnv {
  progress: Steps;
}
