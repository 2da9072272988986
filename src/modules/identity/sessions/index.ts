export { createSessions } from "./sessions.service.js";
export { sessionRoutes } from "./sessions.routes.js";
