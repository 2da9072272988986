/** The Ed25519 keys that sign a tenant's grants: the key ring, rotation, and their administration. */
export { createKeyRing, jwksMaxAgeSeconds, type KeyRing } from "./signing-keys.js";
export { signingKeysAdmin } from "./signing-keys.routes.js";
export { signingKeySealedColumns } from "./signing-key-rotation.js";
