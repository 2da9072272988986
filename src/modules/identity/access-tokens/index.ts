export { createAccessTokens, type AccessTokenView } from "./access-tokens.service.js";
export { accessTokenRoutes } from "./access-tokens.routes.js";
export { AccessTokenItem, CreateAccessTokenBody } from "./access-tokens.schemas.js";
