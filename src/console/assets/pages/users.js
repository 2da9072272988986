import { api } from "../api.js";
import { enumeration } from "../enumerations.js";
import { badge, formatTime, h } from "../dom.js";
import { can } from "../permissions.js";
import { attempt, field, formPanel, reloadableTable, select, showLinkOnce, statusSlot } from "../ui.js";

/** The roles, as the API declares them, least first. */
export const roles = () => [...enumeration("userRoles")].reverse();

/** What each role may do, as the role select explains it (rules/contract §7). */
const roleExplained = {
  viewer: "reads everything, changes nothing",
  admin: "runs the tenant, but no user management",
  owner: "everything, users and single sign-on included",
};
const roleOptions = () =>
  roles().map((role) => ({
    value: role,
    label: roleExplained[role] ? `${role} — ${roleExplained[role]}` : role,
  }));

/**
 * A one-time token as a link to the console's page that uses it: the token in the fragment
 * (`#/invitation/<token>`), which the browser never sends, so no server logs it.
 */
export const oneTimeLink = (page, token) =>
  `${location.origin}/console/#/${page}/${encodeURIComponent(token)}`;

/**
 * The tenant's users (admin.users): invite one (the invitation link shown once), change a role,
 * deactivate or reactivate, issue a password reset (its link shown once). What the signed-in
 * credential may not do is not offered.
 */
export function usersPage() {
  const slot = statusSlot();
  const issued = h("div", { "aria-live": "polite" });
  const mayChange = can("admin.users", "update");
  const mayReset = can("admin.users", "passwordReset");

  const change = (user, body, question) =>
    attempt(slot, async () => {
      if (question && !confirm(question)) return false;
      await api.patch(`/admin/users/${encodeURIComponent(user.id)}`, body);
      reload();
      return true;
    });

  const resetPassword = (user) =>
    attempt(slot, async () => {
      if (
        !confirm(
          `Issue a password reset for ${user.email}? The link works once, for a limited time; setting a ` +
            "new password with it ends every session of the user.",
        )
      )
        return;
      const reset = await api.post(`/admin/users/${encodeURIComponent(user.id)}/password-reset`);
      showLinkOnce(
        issued,
        `Password reset for ${user.email} issued (valid until ${formatTime(reset.expiresAt)}).`,
        "Give them this link now",
        oneTimeLink("password-reset", reset.token),
      );
    });

  const roleCell = (user) => {
    if (!mayChange || user.status === "deactivated") return user.role;
    const choice = h(
      "select",
      { "aria-label": `Role of ${user.email}` },
      roles().map((role) => h("option", { value: role, selected: role === user.role }, role)),
    );
    choice.addEventListener("change", () => {
      const role = choice.value;
      void change(user, { role }, `Make ${user.email} ${role}? It applies from their next request on.`).then(
        (changed) => {
          if (!changed) choice.value = user.role;
        },
      );
    });
    return choice;
  };

  const actionsCell = (user) => {
    const actions = [];
    if (mayChange && user.status !== "deactivated")
      actions.push(
        h(
          "button",
          {
            type: "button",
            class: "danger",
            onclick: () =>
              void change(
                user,
                { status: "deactivated" },
                `Deactivate ${user.email}? Their sessions end at once, they can no longer sign in (with a ` +
                  "password or single sign-on) and a pending invitation or password reset of theirs stops " +
                  "working. Access tokens they created keep working until revoked. Nothing is deleted.",
              ),
          },
          `Deactivate ${user.email}`,
        ),
      );
    if (mayChange && user.status === "deactivated")
      actions.push(
        h(
          "button",
          {
            type: "button",
            class: "secondary",
            onclick: () =>
              void change(
                user,
                { status: "active" },
                `Reactivate ${user.email}? They can sign in again (their ended sessions stay ended).`,
              ),
          },
          `Reactivate ${user.email}`,
        ),
      );
    if (mayReset && user.status === "active")
      actions.push(
        h(
          "button",
          { type: "button", class: "secondary", onclick: () => void resetPassword(user) },
          `Reset password of ${user.email}`,
        ),
      );
    return actions.length > 0 ? h("div", { class: "row" }, actions) : "—";
  };

  const { element: list, reload } = reloadableTable({
    caption: "Users",
    load: (cursor) => api.get("/admin/users", { cursor }),
    columns: [
      { label: "E-mail", cell: (u) => u.email },
      { label: "Name", cell: (u) => u.name },
      { label: "Role", cell: roleCell },
      { label: "Status", cell: (u) => badge(u.status) },
      { label: "Last sign-in", cell: (u) => formatTime(u.lastSignInAt) },
      ...(mayChange || mayReset ? [{ label: "Actions", cell: actionsCell }] : []),
    ],
  });

  const page = h("div", {}, h("h1", {}, "Users"), slot, issued);
  if (can("admin.users", "create")) {
    page.append(
      formPanel(
        "Invite a colleague",
        [
          field("E-mail", { name: "email", type: "email", required: true, maxlength: 320 }),
          field("Name", { name: "name", maxlength: 200 }),
          select("Role", "role", roleOptions(), { required: true }),
        ],
        "Invite",
        async (data, form) => {
          const name = String(data.get("name") ?? "").trim();
          const user = await api.post("/admin/users", {
            email: String(data.get("email")).trim(),
            role: String(data.get("role")),
            ...(name ? { name } : {}),
          });
          form.reset();
          showLinkOnce(
            issued,
            `${user.email} invited as ${user.role} (valid until ${formatTime(user.invitation.expiresAt)}).`,
            "Give them this invitation link now",
            oneTimeLink("invitation", user.invitation.token),
          );
          reload();
        },
      ),
    );
  }
  page.append(list);
  return page;
}
