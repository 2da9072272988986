// The console's shell: session, navigation from the published entrypoints, hash routes.
import { loadEnumerations } from "./enumerations.js";
import { api, currentSession, signOut } from "./api.js";
import { h, render } from "./dom.js";
import { errorBox } from "./ui.js";
import { can, hasScope, isUser, setEntrypoints, setTenant, setWhoami } from "./permissions.js";
import { signInPage } from "./pages/sign-in.js";
import { uploadsPage, uploadPage } from "./pages/uploads.js";
import { deliveriesPage } from "./pages/deliveries.js";
import { deliveryPage } from "./pages/delivery.js";
import { partnersPage } from "./pages/partners.js";
import { partnerPage } from "./pages/partner.js";
import { connectionsPage, connectionPage } from "./pages/connections.js";
import { apiKeysPage } from "./pages/api-keys.js";
import { auditEventPage, auditPage } from "./pages/audit.js";
import { tenantsPage } from "./pages/tenants.js";
import { entityPage, workflowsPage } from "./pages/workflows.js";
import { appPage, appsPage } from "./pages/apps.js";
import { serviceBindingsPage } from "./pages/service-bindings.js";
import { webhookPage, webhooksPage } from "./pages/webhooks.js";
import { usersPage } from "./pages/users.js";
import { ssoPage } from "./pages/sso.js";
import { accountPage } from "./pages/account.js";
import { invitationPage, oneTimePages, passwordResetPage } from "./pages/one-time.js";

const main = document.getElementById("main");
const nav = document.getElementById("nav");
const who = document.getElementById("who");

/**
 * Sections in menu order: each shown only when the credential may list its entrypoint (or, for
 * those without one, when `visible()` says so).
 */
const sections = [
  {
    path: "uploads",
    label: "Uploads",
    entrypoint: "admin.exchangeUploads",
    page: uploadsPage,
    detail: uploadPage,
  },
  {
    path: "deliveries",
    label: "Deliveries",
    entrypoint: "admin.exchangeDeliveries",
    page: deliveriesPage,
    detail: deliveryPage,
  },
  {
    path: "partners",
    label: "Partners",
    entrypoint: "admin.partners",
    page: partnersPage,
    detail: partnerPage,
  },
  {
    path: "connections",
    label: "Connections",
    entrypoint: "admin.connections",
    page: connectionsPage,
    detail: connectionPage,
  },
  { path: "api-keys", label: "API keys", entrypoint: "admin.apiKeys", page: apiKeysPage },
  {
    path: "audit",
    label: "Audit",
    entrypoint: "admin.auditEvents",
    page: auditPage,
    detail: auditEventPage,
  },
  {
    path: "workflows",
    label: "Workflows",
    entrypoint: "admin.entities",
    page: workflowsPage,
    detail: entityPage,
  },
  { path: "apps", label: "Apps", entrypoint: "admin.apps", page: appsPage, detail: appPage },
  {
    path: "service-bindings",
    label: "Service bindings",
    entrypoint: "admin.serviceBindings",
    page: serviceBindingsPage,
  },
  {
    path: "webhooks",
    label: "Webhooks",
    entrypoint: "admin.webhookSubscriptions",
    page: webhooksPage,
    detail: webhookPage,
  },
  { path: "tenants", label: "Tenants", entrypoint: "system.tenants", page: tenantsPage },
  { path: "users", label: "Users", entrypoint: "admin.users", page: usersPage },
  { path: "sso", label: "Single sign-on", visible: () => hasScope("users:read"), page: ssoPage },
  // A user's own password and sessions (an access token has neither).
  { path: "account", label: "Account", visible: isUser, page: accountPage },
];

function visibleSections() {
  return sections.filter((s) => (s.visible ? s.visible() : can(s.entrypoint, "list")));
}

/**
 * A one-time link's page (`#/invitation/<token>`, `#/password-reset/<token>`), which needs no
 * session. The token is taken out of the address at once (so it stays in no history entry) and
 * kept only by the page.
 */
function oneTimeRoute() {
  const [path, token] = location.hash.replace(/^#\/?/, "").split("/");
  if (!oneTimePages.includes(path)) return null;
  if (token) history.replaceState(null, "", `#/${path}`);
  return { path, token: token ? decodeURIComponent(token) : null };
}

function showOneTime({ path, token }) {
  window.removeEventListener("hashchange", route);
  render(nav);
  render(who);
  const signedIn = () => {
    history.replaceState(null, "", "/console/");
    void start();
  };
  render(
    main,
    path === "invitation"
      ? invitationPage(token, signedIn)
      : passwordResetPage(token, () => signInPage(signedIn)),
  );
  document.title = `${path === "invitation" ? "Invitation" : "New password"} · Hanse console`;
  main.focus();
}

async function start() {
  const oneTime = oneTimeRoute();
  if (oneTime) return showOneTime(oneTime);
  let session;
  try {
    session = await currentSession();
  } catch (error) {
    if (error.status === 401) return showSignIn();
    return render(main, errorBox(error));
  }
  try {
    const [{ entrypoints }] = await Promise.all([api.get("/profile/entrypoints"), loadEnumerations()]);
    setEntrypoints(entrypoints);
  } catch (error) {
    return render(main, errorBox(error));
  }
  const { principal, tenant } = session.whoami;
  setTenant(tenant);
  setWhoami(session.whoami);
  render(
    who,
    h("span", {}, `${principal.name}${principal.role ? ` (${principal.role})` : ""} · ${tenant.slug}`),
    h("button", { type: "button", onclick: () => void leave() }, "Sign out"),
  );
  window.addEventListener("hashchange", route);
  route();
}

function showSignIn() {
  render(nav);
  render(who);
  render(
    main,
    signInPage(() => void start()),
  );
}

async function leave() {
  try {
    await signOut();
  } finally {
    window.removeEventListener("hashchange", route);
    location.hash = "";
    showSignIn();
  }
}

function route() {
  const oneTime = oneTimeRoute();
  if (oneTime) return showOneTime(oneTime);
  const visible = visibleSections();
  const [path, ...ids] = location.hash
    .replace(/^#\/?/, "")
    .split("?")[0]
    .split("/")
    .filter(Boolean)
    .map(decodeURIComponent);
  const section = visible.find((s) => s.path === path) ?? visible[0];
  render(
    nav,
    h(
      "ul",
      {},
      visible.map((s) =>
        h("li", {}, h("a", { href: `#/${s.path}`, "aria-current": s === section ? "page" : null }, s.label)),
      ),
    ),
  );
  if (!section) return render(main, h("p", {}, "This credential may not use any part of the console."));
  const view = ids.length > 0 && section.detail ? section.detail(...ids) : section.page();
  render(main, view);
  document.title = `${section.label} · Hanse console`;
  main.focus();
}

void start();
