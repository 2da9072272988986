import { api } from "../api.js";
import { formatTime, h, render } from "../dom.js";
import { attempt, field, formPanel, reloadableTable, statusSlot } from "../ui.js";

const methods = {
  password: "password",
  sso: "single sign-on",
  invitation: "invitation accepted",
  "password-reset": "password reset",
};

/**
 * The signed-in user's own account: change the password (POST /auth/password; the other sessions
 * end), and the user's sessions (GET /auth/sessions), the current one marked, each of which can be
 * ended (DELETE /auth/sessions/{id}; ending the current one signs this browser out).
 */
export function accountPage() {
  const slot = statusSlot();
  const changed = h("div", { "aria-live": "polite" });

  const end = (session) =>
    attempt(slot, async () => {
      const question = session.current
        ? "End this session? This browser is signed out."
        : `End the session started ${formatTime(session.createdAt)}? Whoever uses it is signed out at once.`;
      if (!confirm(question)) return;
      await api.delete(`/auth/sessions/${encodeURIComponent(session.id)}`);
      if (session.current) location.reload();
      else reload();
    });

  const { element: sessions, reload } = reloadableTable({
    caption: "My sessions",
    load: (cursor) => api.get("/auth/sessions", { cursor }),
    columns: [
      {
        label: "Started",
        cell: (s) => [formatTime(s.createdAt), s.current ? h("strong", {}, " (this session)") : null],
      },
      { label: "How", cell: (s) => methods[s.method] ?? s.method },
      { label: "Last used", cell: (s) => formatTime(s.lastUsedAt) },
      { label: "Expires", cell: (s) => formatTime(s.expiresAt) },
      {
        label: "End",
        cell: (s) =>
          h(
            "button",
            { type: "button", class: "danger", onclick: () => void end(s) },
            s.current ? "End this session" : `End session started ${formatTime(s.createdAt)}`,
          ),
      },
    ],
  });

  return h(
    "div",
    {},
    h("h1", {}, "Account"),
    slot,
    changed,
    formPanel(
      "Change my password",
      [
        field("Current password", {
          name: "currentPassword",
          type: "password",
          autocomplete: "current-password",
          required: true,
        }),
        // No length check here: the server's policy (at least 15 characters, not a common
        // password) is the one that counts, and its message is shown at the field.
        field("New password", {
          name: "newPassword",
          type: "password",
          autocomplete: "new-password",
          required: true,
        }),
      ],
      "Change password",
      async (data, form) => {
        await api.post("/auth/password", {
          currentPassword: String(data.get("currentPassword")),
          newPassword: String(data.get("newPassword")),
        });
        form.reset();
        render(
          changed,
          h("div", { class: "notice", role: "status" }, "Password changed. Your other sessions have ended."),
        );
        reload();
      },
    ),
    h("p", { class: "muted" }, "A new password has at least 15 characters; a sentence works well."),
    sessions,
  );
}
