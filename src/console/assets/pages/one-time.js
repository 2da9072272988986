import { acceptInvitation, usePasswordReset } from "../api.js";
import { h, render } from "../dom.js";
import { field, formPanel } from "../ui.js";

/** The pages that a one-time link opens, without a session: `#/invitation/<token>`, `#/password-reset/<token>`. */
export const oneTimePages = ["invitation", "password-reset"];

const passwordHint = () =>
  h(
    "p",
    { class: "muted" },
    "At least 15 characters, no other rules: a sentence you remember works well. Very common passwords are refused.",
  );

const missingToken = () =>
  h(
    "div",
    { class: "alert", role: "alert" },
    "This link is incomplete. Open the link you were given again, exactly as it was.",
  );

const newPasswordField = () =>
  field("New password", { name: "password", type: "password", autocomplete: "new-password", required: true });

/**
 * Accepting an invitation: the new user's password, then the console signs in with the session
 * it answers (`done`). The token comes from the link's fragment, never the query string.
 */
export function invitationPage(token, done) {
  return h(
    "div",
    { class: "signin" },
    h("h1", {}, "Accept your invitation"),
    token
      ? [
          passwordHint(),
          formPanel("Choose your password", [newPasswordField()], "Accept invitation", async (data) => {
            await acceptInvitation(token, String(data.get("password")));
            done();
          }),
        ]
      : missingToken(),
  );
}

/** Setting a new password with a reset link; then the user signs in (`signIn` draws that page). */
export function passwordResetPage(token, signIn) {
  const page = h("div", { class: "signin" }, h("h1", {}, "Set a new password"));
  if (!token) {
    page.append(missingToken());
    return page;
  }
  page.append(
    passwordHint(),
    formPanel("Your new password", [newPasswordField()], "Set password", async (data) => {
      await usePasswordReset(token, String(data.get("password")));
      render(
        page,
        h(
          "div",
          { class: "notice", role: "status" },
          "Your new password is set, and every session you had has ended. Sign in with it below.",
        ),
        signIn(),
      );
    }),
  );
  return page;
}
