export { createSessions } from "./sessions.service.js";
export { sessionRoutes } from "./sessions.routes.js";
export { openSession, type OpenedSession } from "./open-session.js";
