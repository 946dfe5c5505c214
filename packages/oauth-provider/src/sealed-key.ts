import { createSealer, type Sealer } from "@portcullis/core";

/** Key material as `secret` takes it: text (UTF-8) or bytes. */
export type KeyMaterial = string | Uint8Array;

/**
 * Seals and opens the provider's private keys for the store: the core's sealer (AES-256-GCM
 * under a key derived from the host's `secret`, the first seals and every one opens) for the
 * purpose "portcullis oauth signing key v1" unless another `info` names another purpose (the
 * consent requests' ids). A stolen table of sealed keys signs nothing without the secret.
 */
export const createKeySealer = (
  secrets: readonly KeyMaterial[],
  info = "portcullis oauth signing key v1",
): Sealer => createSealer(secrets, info);

export type KeySealer = Sealer;
