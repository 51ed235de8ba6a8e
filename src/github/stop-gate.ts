/**
 * The app's door to GitHub, shut at a stop that ran past its grace (docs/operations.md, "Stopping"):
 * from then on every REST call and every git command that reaches GitHub is refused, so a job the stop
 * abandons stops before its next write. A write already on its way lands whole or not at all (a push
 * is one ref update), and whatever the job left undone the next start's sweep does.
 */
export class StopGate {
  private why: string | undefined;

  /** Shuts the door for good; `why` is said in every refusal. */
  shut(why: string): void {
    this.why ??= why;
  }

  /** Throws AppStopping, naming `what` was refused, once the door is shut. */
  check(what: string): void {
    if (this.why !== undefined) throw new AppStopping(what, this.why);
  }
}

/** A call to GitHub refused because the app is stopping: the job is abandoned, not failed. */
export class AppStopping extends Error {
  constructor(what: string, why: string) {
    super(`${what} was not sent: ${why}; the next start's sweep does this job's work`);
    this.name = "AppStopping";
  }
}
