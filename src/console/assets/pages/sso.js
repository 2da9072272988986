import { api } from "../api.js";
import { formatTime, h, render } from "../dom.js";
import { hasScope } from "../permissions.js";
import { attempt, field, fieldsList, formPanel, select, statusSlot } from "../ui.js";
import { roles } from "./users.js";

/**
 * The tenant's single sign-on (GET, PUT, DELETE /admin/sso): users:read sees the settings,
 * users:write saves or removes them. The client secret is write-only: never shown, asked for on
 * every save.
 */
export function ssoPage() {
  const slot = statusSlot();
  const current = h("div", {}, h("p", {}, "Loading…"));
  const mayChange = hasScope("users:write");
  const editor = h("div");

  const show = () =>
    attempt(slot, async () => {
      let settings = null;
      try {
        settings = await api.get("/admin/sso");
      } catch (error) {
        if (error.status !== 404) throw error;
      }
      render(current, settings ? describe(settings) : h("p", {}, "Single sign-on is not set up."));
      if (mayChange) render(editor, form(settings));
    });

  const remove = () =>
    attempt(slot, async () => {
      if (
        !confirm(
          "Remove single sign-on? Signing in with the identity provider stops working at once; users " +
            "who have a password still sign in with it, sessions already open stay open.",
        )
      )
        return;
      await api.delete("/admin/sso");
      void show();
    });

  const describe = (settings) =>
    h(
      "section",
      { class: "panel", "aria-label": "Current settings" },
      fieldsList([
        ["Issuer", h("code", {}, settings.issuer)],
        ["Client id", h("code", {}, settings.clientId)],
        ["Client secret", "set (never shown)"],
        [
          "Automatic users",
          settings.autoCreate
            ? `${settings.autoCreate.role} for ${settings.autoCreate.emailDomains.join(", ")}`
            : "off: only existing users sign in",
        ],
        ["Changed", formatTime(settings.updatedAt)],
      ]),
      mayChange
        ? h(
            "button",
            { type: "button", class: "danger", onclick: () => void remove() },
            "Remove single sign-on",
          )
        : null,
    );

  const form = (settings) =>
    formPanel(
      settings ? "Change single sign-on" : "Set up single sign-on",
      [
        field("Issuer", {
          name: "issuer",
          type: "url",
          required: true,
          maxlength: 2048,
          value: settings?.issuer ?? "",
        }),
        field("Client id", {
          name: "clientId",
          required: true,
          maxlength: 512,
          value: settings?.clientId ?? "",
        }),
        field("Client secret", {
          name: "clientSecret",
          type: "password",
          required: true,
          maxlength: 4096,
          autocomplete: "off",
          placeholder: settings ? "enter it again to save" : "",
        }),
        autoCreateSelect(settings?.autoCreate?.role ?? ""),
        field("For e-mail domains", {
          name: "emailDomains",
          placeholder: "example.com, example.org",
          maxlength: 4000,
          value: settings?.autoCreate?.emailDomains.join(", ") ?? "",
        }),
      ],
      "Save single sign-on",
      async (data, element) => {
        const role = String(data.get("autoCreateRole") ?? "");
        const domains = String(data.get("emailDomains") ?? "")
          .split(/[\s,]+/)
          .filter(Boolean);
        await api.put("/admin/sso", {
          issuer: String(data.get("issuer")).trim(),
          clientId: String(data.get("clientId")).trim(),
          clientSecret: String(data.get("clientSecret")),
          autoCreate: role ? { role, emailDomains: domains } : null,
        });
        element.querySelector('[name="clientSecret"]').value = "";
        void show();
      },
    );

  const autoCreateSelect = (role) => {
    const control = select("Create users automatically", "autoCreateRole", [
      { value: "", label: "no" },
      ...roles().map((r) => ({ value: r, label: `yes, as ${r}` })),
    ]);
    control.querySelector("select").value = role;
    return control;
  };

  void show();
  return h(
    "div",
    {},
    h("h1", {}, "Single sign-on"),
    h(
      "p",
      { class: "muted" },
      "OpenID Connect: register Hanse at your identity provider as a web application with the redirect URI ",
      h("code", {}, `${location.origin}/api/v1/auth/sso/callback`),
      " (Hanse's public address, HANSE_PUBLIC_URL, then /api/v1/auth/sso/callback), then enter its issuer, client id and client secret here.",
    ),
    slot,
    current,
    editor,
  );
}
