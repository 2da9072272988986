import { signIn, signInWithSso, signInWithToken } from "../api.js";
import { h } from "../dom.js";
import { attempt, field, statusSlot } from "../ui.js";

function signInForm(title, controls, submitLabel, send, done) {
  const slot = statusSlot();
  const id = `signin-${submitLabel.replace(/\W+/g, "-").toLowerCase()}`;
  const form = h(
    "form",
    { class: "panel", "aria-labelledby": id },
    h("h2", { id }, title),
    h("fieldset", {}, controls, h("button", { type: "submit" }, submitLabel)),
    slot,
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const data = new FormData(form);
    void attempt(slot, async () => {
      await send(data);
      done();
    });
  });
  return form;
}

/**
 * Tenant, e-mail and password (the console calls POST /api/v1/auth/sessions), the tenant's
 * identity provider (single sign-on), or an access token for credentials without a password,
 * such as the bootstrap administrator's.
 */
export function signInPage(done) {
  return h(
    "div",
    { class: "signin" },
    h("h1", {}, "Sign in"),
    signInForm(
      "With your account",
      [
        field("Tenant", { name: "tenant", autocomplete: "organization", required: true }),
        field("E-mail", { name: "email", type: "email", autocomplete: "username", required: true }),
        field("Password", {
          name: "password",
          type: "password",
          autocomplete: "current-password",
          required: true,
        }),
      ],
      "Sign in",
      (data) => signIn(String(data.get("tenant")), String(data.get("email")), String(data.get("password"))),
      done,
    ),
    signInForm(
      "With your identity provider",
      [field("Organisation", { name: "organisation", autocomplete: "organization", required: true })],
      "Sign in with SSO",
      (data) => signInWithSso(String(data.get("organisation"))),
      done,
    ),
    signInForm(
      "With an access token",
      [field("Access token", { name: "token", type: "password", autocomplete: "off", required: true })],
      "Sign in with token",
      (data) => signInWithToken(String(data.get("token"))),
      done,
    ),
  );
}
