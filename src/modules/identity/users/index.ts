export { createUsers, type UserView } from "./users.service.js";
export { usersPath, usersRoutes } from "./users.routes.js";
export {
  activateInvitedUser,
  findInvitation,
  findUserByEmail,
  findUserPassword,
  findPasswordReset,
  insertUser,
  insertPasswordReset,
  usePasswordReset,
  updateUser,
  useInvitation,
} from "./users.repository.js";
export { newPasswordProblem } from "./password-policy.js";
export {
  AcceptInvitationBody,
  ChangePasswordBody,
  CreateUserBody,
  PasswordResetItem,
  UpdateUserBody,
  UsePasswordResetBody,
  UserItem,
} from "./users.schemas.js";
export * from "./roles.js";
