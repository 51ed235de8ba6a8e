/** Kptfile annotation naming the channels a package's new revisions join: `stable` or `stable,beta`. */
export const CHANNELS_ANNOTATION = "porchlight.dev/channels";

/**
 * Annotations that describe the upstream package in its catalog, not a copy of it: a downstream made
 * from it (fan-out) leaves them out, so its own revisions join its own repository's default channels.
 */
export const UPSTREAM_ONLY_ANNOTATIONS: readonly string[] = [CHANNELS_ANNOTATION];
