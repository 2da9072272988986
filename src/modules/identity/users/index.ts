export { createUsers } from "./users.service.js";
export { findUserByEmail } from "./users.repository.js";
export * from "./roles.js";
