import { Argument, Option, type Command } from "commander";
import type { OneTimeToken, User, UserRole } from "../sdk/users.js";
import { canPrompt, promptSecret, readSecret } from "./cli-io.js";
import {
  jsonOption,
  orDash,
  registerGet,
  registerItemAction,
  registerList,
  renderFields,
} from "./collection.js";
import { CliError, type Runtime } from "./runtime.js";

export const userRoles: readonly UserRole[] = ["owner", "admin", "viewer"];

const renderUser = (u: User) =>
  renderFields([
    ["ID", u.id],
    ["E-mail", u.email],
    ["Name", u.name],
    ["Role", u.role],
    ["Status", u.status],
    ["Created", u.createdAt],
    ["Last sign-in", orDash(u.lastSignInAt)],
  ]);

/** The lines that show a one-time token: once, labelled, with what to do with it. */
const renderToken = (what: string, token: OneTimeToken, handOver: string) =>
  [
    `${what}: ${token.token}`,
    `Expires:${" ".repeat(Math.max(1, what.length - 6))}${token.expiresAt}`,
    "",
    `This token is shown only now and cannot be read again. ${handOver}`,
  ].join("\n");

const acceptHint =
  "Hand it to the person, who accepts it with a password of their own (POST /api/v1/auth/invitations).";

/**
 * `hanse users list|show|invite|reinvite|set-role|deactivate|reactivate|reset-password` (the
 * published `admin.users`) and `hanse password change`. An invitation or reset token appears
 * once, in the answer of the command that issues it; no other command prints one.
 */
export function registerUsersCommands(program: Command, rt: Runtime): void {
  const users = rt
    .command(program, "users")
    .description("The tenant's users: invitations, roles, deactivation (admin.users)");
  registerList<User>(rt, users, {
    description: "List the tenant's users, oldest first (users:read)",
    empty: "No users.",
    columns: [
      ["ID", (u) => u.id],
      ["ROLE", (u) => u.role],
      ["STATUS", (u) => u.status],
      ["LAST SIGN-IN", (u) => orDash(u.lastSignInAt)],
      ["E-MAIL", (u) => u.email],
      ["NAME", (u) => u.name],
    ],
    fetch: (client, query) => client.users.list(query),
  });
  registerGet<User>(rt, users, {
    description: "Show one user (users:read)",
    argument: "user-id",
    fetch: (client, id) => client.users.get(id),
    render: renderUser,
  });

  jsonOption(rt.command(users, "invite"))
    .description("Invite a user (users:write); prints the one-time invitation token once")
    .requiredOption("--email <email>", "the person's e-mail address (unique in the tenant)")
    .addOption(new Option("--role <role>", "owner, admin or viewer").choices(userRoles).makeOptionMandatory())
    .option("--name <name>", "a display name (default: the e-mail address)")
    .action(
      rt.action(async (options: { email: string; role: UserRole; name?: string; json?: boolean }) => {
        const invited = await (
          await rt.client()
        ).users.invite({
          email: options.email,
          role: options.role,
          ...(options.name === undefined ? {} : { name: options.name }),
        });
        rt.emit(options.json, invited, () =>
          [
            `invited ${invited.email} as ${invited.role} (user ${invited.id})`,
            "",
            renderToken("Invitation token", invited.invitation, acceptHint),
          ].join("\n"),
        );
      }),
    );

  registerItemAction<OneTimeToken & { id: string }>(rt, users, {
    name: "reinvite",
    description:
      "Invite a user that has not accepted yet again (users:write): a new token, printed once; the earlier ones stop working",
    argument: "user-id",
    run: async (client, id) => ({ id, ...(await client.users.reissueInvitation(id)) }),
    render: (t) =>
      [`new invitation for user ${t.id}`, "", renderToken("Invitation token", t, acceptHint)].join("\n"),
  });

  jsonOption(rt.command(users, "set-role"))
    .description("Change a user's role (users:write); it applies from their next request on")
    .argument("<user-id>", "the user")
    .addArgument(new Argument("<role>", "owner, admin or viewer").choices(userRoles))
    .action(
      rt.action(async (id: string, role: UserRole, options: { json?: boolean }) => {
        const user = await (await rt.client()).users.update(id, { role });
        rt.emit(options.json, user, () => `user ${user.id} (${user.email}) is now ${user.role}`);
      }),
    );

  registerItemAction<User>(rt, users, {
    name: "deactivate",
    description: "Deactivate a user (users:write): their sessions end at once, their sign-ins are refused",
    argument: "user-id",
    run: (client, id) => client.users.update(id, { status: "deactivated" }),
    render: (u) => `deactivated user ${u.id} (${u.email}); their sessions have ended`,
  });
  registerItemAction<User>(rt, users, {
    name: "reactivate",
    description: "Let a deactivated user sign in again (users:write); ended sessions stay ended",
    argument: "user-id",
    run: (client, id) => client.users.update(id, { status: "active" }),
    render: (u) => `reactivated user ${u.id} (${u.email})`,
  });
  registerItemAction<OneTimeToken & { id: string }>(rt, users, {
    name: "reset-password",
    description: "Issue a one-use password reset for an active user (users:write); prints its token once",
    argument: "user-id",
    run: async (client, id) => ({ id, ...(await client.users.resetPassword(id)) }),
    render: (t) =>
      [
        `password reset for user ${t.id}`,
        "",
        renderToken(
          "Reset token",
          t,
          "Hand it to the user, who sets a new password with it (POST /api/v1/auth/password-resets); the old one works until then.",
        ),
      ].join("\n"),
  });

  const password = rt.command(program, "password").description("Your own password (a user session)");
  jsonOption(rt.command(password, "change"))
    .description(
      "Change your password: typed at the terminal without echo, or piped with --password-stdin " +
        "(current, then new, one a line), or HANSE_PASSWORD and HANSE_NEW_PASSWORD; your other sessions end",
    )
    .option("--password-stdin", "read the current and the new password from stdin, one a line")
    .action(
      rt.action(async (options: { passwordStdin?: boolean; json?: boolean }) => {
        const { currentPassword, newPassword } = await readPasswords(rt, options.passwordStdin ?? false);
        const client = await rt.client();
        await client.password.change({ currentPassword, newPassword });
        rt.emit(
          options.json,
          { changed: true },
          () => "Password changed. Your other sessions have ended; this one stays.",
        );
      }),
    );
}

/** The current and the new password, from stdin, the environment or the terminal; never argv. */
async function readPasswords(
  rt: Runtime,
  fromStdin: boolean,
): Promise<{ currentPassword: string; newPassword: string }> {
  const stdin = rt.io.stdin ?? process.stdin;
  let currentPassword: string | undefined;
  let newPassword: string | undefined;
  if (fromStdin) {
    const lines = (await readSecret(stdin)).split(/\r?\n/);
    if (lines.length !== 2) {
      throw new CliError("--password-stdin: give the current and the new password, one a line (two lines)");
    }
    [currentPassword, newPassword] = lines;
  } else if (rt.io.env.HANSE_PASSWORD !== undefined || rt.io.env.HANSE_NEW_PASSWORD !== undefined) {
    currentPassword = rt.io.env.HANSE_PASSWORD;
    newPassword = rt.io.env.HANSE_NEW_PASSWORD;
  } else if (canPrompt(stdin)) {
    currentPassword = await promptSecret(stdin, rt.io.stderr, "Current password: ");
    newPassword = await promptSecret(stdin, rt.io.stderr, "New password: ");
    const again = await promptSecret(stdin, rt.io.stderr, "New password again: ");
    if (again !== newPassword) throw new CliError("the two new passwords differ; nothing was changed");
  } else {
    throw new CliError(
      "no passwords: type them at a terminal, pipe them with --password-stdin (current, then new, one a line), " +
        "or set HANSE_PASSWORD and HANSE_NEW_PASSWORD",
    );
  }
  if (!currentPassword) throw new CliError("the current password is empty; nothing was changed");
  if (!newPassword) throw new CliError("the new password is empty; nothing was changed");
  return { currentPassword, newPassword };
}
