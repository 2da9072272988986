/** The partner's upload: its checks, its streaming into storage and its accept statement. */
export { backlogRefreshMs, type BacklogLimits } from "./inbox-backlog.js";
export { acceptUpload } from "./inbox.repository.js";
export { inboxRoutes } from "./inbox.routes.js";
export { createInboxService, type InboxService } from "./inbox.service.js";
