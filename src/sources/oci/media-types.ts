/** The manifest and layer media types porchlight reads and writes (OCI image spec and Docker v2 schema 2). */

export const OCI_MANIFEST = "application/vnd.oci.image.manifest.v1+json";
const OCI_INDEX = "application/vnd.oci.image.index.v1+json";
const DOCKER_MANIFEST = "application/vnd.docker.distribution.manifest.v2+json";
const DOCKER_MANIFEST_LIST = "application/vnd.docker.distribution.manifest.list.v2+json";

/** Every manifest kind a pull accepts, in the order of preference sent in Accept. */
export const MANIFEST_TYPES = [OCI_MANIFEST, OCI_INDEX, DOCKER_MANIFEST, DOCKER_MANIFEST_LIST];

export const OCI_CONFIG = "application/vnd.oci.image.config.v1+json";
export const OCI_LAYER_TAR_GZIP = "application/vnd.oci.image.layer.v1.tar+gzip";

/** The annotation ORAS (and the OCI spec) give a layer holding one file. */
export const TITLE_ANNOTATION = "org.opencontainers.image.title";

export function isIndex(mediaType: string | undefined): boolean {
  return mediaType === OCI_INDEX || mediaType === DOCKER_MANIFEST_LIST;
}

interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  annotations?: Record<string, string>;
  platform?: { os?: string; architecture?: string };
  artifactType?: string;
}

export interface ImageManifest {
  schemaVersion: 2;
  mediaType?: string;
  artifactType?: string;
  config: Descriptor;
  layers: Descriptor[];
  annotations?: Record<string, string>;
}
