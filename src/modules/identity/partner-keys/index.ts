export { createPartnerKeys } from "./partner-keys.service.js";
