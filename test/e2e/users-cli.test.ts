// remote mode: in-process only: HANSE_SSO_ALLOW_INSECURE of its own (the test identity provider on 127.0.0.1)
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Capture, createCliRunner } from "../support/cli-runner.js";
import { provisionTenant, type ProvisionedTenant } from "../support/fixtures.js";
import { startTestIssuer, type TestIssuer } from "../support/oidc-issuer.js";
import { bearer, createTestApp, type TestApp } from "../support/test-app.js";
import { acceptInvitation, addUser, type UserBody } from "../support/users.js";

/**
 * Issue 32 through the `hanse` CLI against a real server: `users …`, `password change` and
 * `sso show|set|remove`, each with its effect checked over HTTP, and bad input: a clear message,
 * exit code 1, nothing created or changed. One-time tokens are printed once; passwords and the
 * client secret are never taken from the command line and never printed.
 */
let t: TestApp;
let idp: TestIssuer;
let baseUrl: string;
let tenant: ProvisionedTenant;
let token = "";
const { hanse } = createCliRunner(() => ({
  HANSE_URL: baseUrl,
  HANSE_TOKEN: token,
  HANSE_CLI_CONFIG: "/nonexistent/credentials.json",
}));

beforeAll(async () => {
  idp = await startTestIssuer();
  t = await createTestApp({ env: { HANSE_SSO_ALLOW_INSECURE: "1" } });
  baseUrl = await t.app.listen({ port: 0, host: "127.0.0.1" });
  tenant = await provisionTenant(t);
  token = tenant.token;
});
afterAll(async () => {
  await t.close();
  await idp.close();
});

const listUsers = async () => {
  const answer = await t.inject({
    method: "GET",
    url: "/api/v1/admin/users?limit=100",
    headers: bearer(tenant.token),
  });
  return answer.json<{ items: UserBody[] }>().items;
};
const userOf = async (id: string) =>
  (
    await t.inject({ method: "GET", url: `/api/v1/admin/users/${id}`, headers: bearer(tenant.token) })
  ).json<UserBody>();
const signIn = (email: string, password: string) =>
  t.inject({
    method: "POST",
    url: "/api/v1/auth/sessions",
    payload: { tenant: tenant.slug, email, password },
  });
const occurrences = (text: string, part: string) => text.split(part).length - 1;

/** `hanse …` with a terminal as stdin: `typed` arrives as keystrokes once the command reads. */
async function hanseAtTerminal(args: string[], typed: string) {
  const stdin = Object.assign(new PassThrough(), {
    isTTY: true,
    rawModes: [] as boolean[],
    setRawMode(raw: boolean) {
      this.rawModes.push(raw);
      return this;
    },
  });
  stdin.write(typed);
  const run = await hanse(args, { stdin, stderr: new Capture(true) });
  return { ...run, rawModes: stdin.rawModes };
}

describe("hanse users (admin.users)", () => {
  it("invite prints the user and its one-time invitation token once, which the person accepts; --json has the invitation", async () => {
    token = tenant.token;
    const run = await hanse([
      "users",
      "invite",
      "--email",
      "cli-ops@example.test",
      "--role",
      "viewer",
      "--name",
      "CLI Ops",
    ]);
    expect(run.exitCode, run.err).toBe(0);
    expect(run.out).toMatch(/^invited cli-ops@example\.test as viewer \(user [0-9a-f-]{36}\)/);
    const invitation = /Invitation token: (hanse_it_\S+)/.exec(run.out)?.[1] ?? "";
    expect(occurrences(run.out, invitation)).toBe(1);
    expect(run.out).toMatch(/Expires: +\d{4}-\d\d-\d\dT/);
    expect(run.out).toContain("shown only now");
    const accepted = await acceptInvitation(t, {
      token: invitation,
      password: "the cli ops long passphrase",
    });
    expect(accepted.statusCode, accepted.body).toBe(201);

    const json = await hanse([
      "users",
      "invite",
      "--email",
      "cli-json@example.test",
      "--role",
      "admin",
      "--json",
    ]);
    expect(json.exitCode, json.err).toBe(0);
    expect(JSON.parse(json.out)).toMatchObject({
      email: "cli-json@example.test",
      role: "admin",
      status: "invited",
      invitation: {
        token: expect.stringMatching(/^hanse_it_/) as unknown,
        expiresAt: expect.any(String) as unknown,
      },
    });
  });

  it("invite with bad input exits 1 with a clear message and creates nothing", async () => {
    token = tenant.token;
    const before = (await listUsers()).length;
    const badRole = await hanse(["users", "invite", "--email", "x@example.test", "--role", "superuser"]);
    expect(badRole.exitCode).toBe(1);
    expect(badRole.err).toMatch(/--role <role>.*superuser.*owner, admin, viewer/s);
    const noRole = await hanse(["users", "invite", "--email", "x@example.test"]);
    expect(noRole.exitCode).toBe(1);
    expect(noRole.err).toContain("--role");
    const noEmail = await hanse(["users", "invite", "--role", "viewer"]);
    expect(noEmail.exitCode).toBe(1);
    expect(noEmail.err).toContain("--email");
    const badEmail = await hanse(["users", "invite", "--email", "not an address", "--role", "viewer"]);
    expect(badEmail.exitCode).toBe(1);
    expect(badEmail.err).toContain("ERR_VALIDATION");
    expect(badEmail.err).toContain("/email");
    const taken = await hanse(["users", "invite", "--email", "CLI-OPS@example.test", "--role", "viewer"]);
    expect(taken.exitCode).toBe(1);
    expect(taken.err).toContain("ERR_CONFLICT");
    expect((await listUsers()).length).toBe(before);
    // A viewer's session is not published the invite action: refused before any request.
    const viewer = await addUser(t, tenant, "viewer");
    token = viewer.token;
    const denied = await hanse(["users", "invite", "--email", "y@example.test", "--role", "viewer"]);
    expect(denied.exitCode).toBe(1);
    expect(denied.err).toContain("not available");
    token = tenant.token;
    expect((await listUsers()).length).toBe(before + 1);
  });

  it("list shows the users (never a token) with --limit, --order and --json; show shows one; an unknown id exits 1", async () => {
    token = tenant.token;
    const listed = await hanse(["users", "list"]);
    expect(listed.exitCode, listed.err).toBe(0);
    expect(listed.out).toMatch(/^ID\s+ROLE\s+STATUS\s+LAST SIGN-IN\s+E-MAIL\s+NAME/);
    expect(listed.out).toContain(tenant.email);
    expect(listed.out).not.toContain("hanse_it_");
    const page = JSON.parse(
      (await hanse(["users", "list", "--limit", "1", "--order", "desc", "--json"])).out,
    ) as {
      items: UserBody[];
      meta: { hasMore: boolean; nextCursor: string };
    };
    expect(page.items).toHaveLength(1);
    expect(page.meta.hasMore).toBe(true);
    const next = await hanse([
      "users",
      "list",
      "--limit",
      "1",
      "--order",
      "desc",
      "--cursor",
      page.meta.nextCursor,
    ]);
    expect(next.exitCode, next.err).toBe(0);
    expect(next.out).not.toContain(page.items[0]?.id ?? "-");
    const badLimit = await hanse(["users", "list", "--limit", "0"]);
    expect(badLimit.exitCode).toBe(1);
    expect(badLimit.err).toContain("--limit");

    const me = (await listUsers()).find((u) => u.email === tenant.email);
    const shown = await hanse(["users", "show", me?.id ?? ""]);
    expect(shown.exitCode, shown.err).toBe(0);
    expect(shown.out).toMatch(/Role:\s+owner/);
    expect(shown.out).toMatch(/Status:\s+active/);
    const unknown = await hanse(["users", "show", "0190a0a0-0000-7000-8000-000000000000"]);
    expect(unknown.exitCode).toBe(1);
    expect(unknown.err).toContain("ERR_NOT_FOUND");
  });

  it("set-role, deactivate and reactivate change the user; a bad role or the last owner exits 1 and changes nothing", async () => {
    token = tenant.token;
    const member = await addUser(t, tenant, "viewer");
    const role = await hanse(["users", "set-role", member.id, "admin"]);
    expect(role.exitCode, role.err).toBe(0);
    expect(role.out).toContain(`user ${member.id} (${member.email}) is now admin`);
    expect((await userOf(member.id)).role).toBe("admin");
    const bad = await hanse(["users", "set-role", member.id, "root"]);
    expect(bad.exitCode).toBe(1);
    expect(bad.err).toMatch(/root.*owner, admin, viewer/s);
    expect((await userOf(member.id)).role).toBe("admin");

    const deactivated = await hanse(["users", "deactivate", member.id]);
    expect(deactivated.exitCode, deactivated.err).toBe(0);
    expect(deactivated.out).toContain("their sessions have ended");
    const whoami = await t.inject({
      method: "GET",
      url: "/api/v1/profile/whoami",
      headers: bearer(member.token),
    });
    expect(whoami.statusCode).toBe(401);
    const reactivated = await hanse(["users", "reactivate", member.id, "--json"]);
    expect(reactivated.exitCode, reactivated.err).toBe(0);
    expect(JSON.parse(reactivated.out)).toMatchObject({ id: member.id, status: "active" });

    const me = (await listUsers()).find((u) => u.email === tenant.email);
    const last = await hanse(["users", "set-role", me?.id ?? "", "viewer"]);
    expect(last.exitCode).toBe(1);
    expect(last.err).toContain("ERR_CONFLICT");
    expect((await userOf(me?.id ?? "")).role).toBe("owner");
  });

  it("reset-password prints a one-use reset token once; an invited user exits 1 with ERR_CONFLICT", async () => {
    token = tenant.token;
    const member = await addUser(t, tenant, "viewer");
    const run = await hanse(["users", "reset-password", member.id]);
    expect(run.exitCode, run.err).toBe(0);
    const reset = /Reset token: (hanse_rt_\S+)/.exec(run.out)?.[1] ?? "";
    expect(occurrences(run.out, reset)).toBe(1);
    const used = await t.inject({
      method: "POST",
      url: "/api/v1/auth/password-resets",
      payload: { token: reset, password: "a passphrase after the cli reset" },
    });
    expect(used.statusCode, used.body).toBe(204);
    expect((await signIn(member.email, "a passphrase after the cli reset")).statusCode).toBe(201);

    const invited = JSON.parse(
      (
        await hanse([
          "users",
          "invite",
          "--email",
          "never-accepted@example.test",
          "--role",
          "viewer",
          "--json",
        ])
      ).out,
    ) as { id: string };
    const refused = await hanse(["users", "reset-password", invited.id]);
    expect(refused.exitCode).toBe(1);
    expect(refused.err).toContain("ERR_CONFLICT");
    expect(refused.out).toBe("");
  });

  it("reinvite prints a new invitation token once and the earlier one stops working; an active user exits 1", async () => {
    token = tenant.token;
    const first = JSON.parse(
      (await hanse(["users", "invite", "--email", "reinvited@example.test", "--role", "viewer", "--json"]))
        .out,
    ) as { id: string; invitation: { token: string } };
    const run = await hanse(["users", "reinvite", first.id]);
    expect(run.exitCode, run.err).toBe(0);
    const fresh = /Invitation token: (hanse_it_\S+)/.exec(run.out)?.[1] ?? "";
    expect(fresh).not.toBe(first.invitation.token);
    expect(occurrences(run.out, fresh)).toBe(1);
    const password = "the reinvited long passphrase";
    expect((await acceptInvitation(t, { token: first.invitation.token, password })).statusCode).toBe(401);
    expect((await acceptInvitation(t, { token: fresh, password })).statusCode).toBe(201);
    const again = await hanse(["users", "reinvite", first.id]);
    expect(again.exitCode).toBe(1);
    expect(again.err).toContain("ERR_CONFLICT");
  });
});

describe("hanse password change (auth.password)", () => {
  it("--password-stdin takes the current and the new password, one a line; the new one signs in", async () => {
    const member = await addUser(t, tenant, "viewer");
    token = member.token;
    const run = await hanse(["password", "change", "--password-stdin"], {
      stdin: `${member.password}\nthe new passphrase from stdin\n`,
    });
    expect(run.exitCode, run.err).toBe(0);
    expect(run.out).toContain("Password changed");
    expect(run.out + run.err).not.toContain("the new passphrase from stdin");
    expect((await signIn(member.email, "the new passphrase from stdin")).statusCode).toBe(201);
  });

  it("HANSE_PASSWORD and HANSE_NEW_PASSWORD work too; a wrong current password exits 1 at /currentPassword and changes nothing", async () => {
    const member = await addUser(t, tenant, "viewer");
    token = member.token;
    const wrong = await hanse(["password", "change"], {
      env: { HANSE_PASSWORD: "not the password at all", HANSE_NEW_PASSWORD: "another long passphrase" },
    });
    expect(wrong.exitCode).toBe(1);
    expect(wrong.err).toContain("/currentPassword");
    expect(wrong.err).not.toContain("not the password at all");
    expect((await signIn(member.email, member.password)).statusCode).toBe(201);
    const weak = await hanse(["password", "change"], {
      env: { HANSE_PASSWORD: member.password, HANSE_NEW_PASSWORD: "short" },
    });
    expect(weak.exitCode).toBe(1);
    expect(weak.err).toContain("/newPassword");
    const ok = await hanse(["password", "change", "--json"], {
      env: { HANSE_PASSWORD: member.password, HANSE_NEW_PASSWORD: "another long passphrase" },
    });
    expect(ok.exitCode, ok.err).toBe(0);
    expect(JSON.parse(ok.out)).toEqual({ changed: true });
    expect((await signIn(member.email, "another long passphrase")).statusCode).toBe(201);
  });

  it("at a terminal it asks without echo (raw mode, then restored) and twice for the new one; a mismatch changes nothing", async () => {
    const member = await addUser(t, tenant, "viewer");
    token = member.token;
    const differ = await hanseAtTerminal(
      ["password", "change"],
      `${member.password}\rthe typed new passphrase\rthe typed new passphrasE\r`,
    );
    expect(differ.exitCode).toBe(1);
    expect(differ.err).toContain("the two new passwords differ");
    expect((await signIn(member.email, member.password)).statusCode).toBe(201);

    const run = await hanseAtTerminal(
      ["password", "change"],
      `${member.password}\rthe typed new passphrasX\u007fe\rthe typed new passphrase\r`,
    );
    expect(run.exitCode, run.err).toBe(0);
    expect(run.err).toContain("Current password: ");
    expect(run.err).toContain("New password again: ");
    expect(run.err + run.out).not.toContain("passphrase");
    expect(run.rawModes).toEqual([true, false, true, false, true, false]);
    expect((await signIn(member.email, "the typed new passphrase")).statusCode).toBe(201);
  });

  it("without a source of passwords, or with one line on stdin, it exits 1 with what to do; an access token is 403", async () => {
    const member = await addUser(t, tenant, "viewer");
    token = member.token;
    const none = await hanse(["password", "change"]);
    expect(none.exitCode).toBe(1);
    expect(none.err).toContain("--password-stdin");
    const oneLine = await hanse(["password", "change", "--password-stdin"], {
      stdin: `${member.password}\n`,
    });
    expect(oneLine.exitCode).toBe(1);
    expect(oneLine.err).toContain("two lines");
    expect(oneLine.err).not.toContain(member.password);
    expect((await signIn(member.email, member.password)).statusCode).toBe(201);
    // A password never goes on the command line: there is no option for it.
    const argv = await hanse(["password", "change", "--new-password", "x"]);
    expect(argv.exitCode).toBe(1);
    expect(argv.err).toContain("unknown option");

    token = (
      await t.inject({
        method: "POST",
        url: "/api/v1/admin/access-tokens",
        headers: bearer(tenant.token),
        payload: { name: "cli", scopes: ["admin:read"] },
      })
    ).json<{ token: string }>().token;
    const denied = await hanse(["password", "change"], {
      env: { HANSE_PASSWORD: "whatever it is", HANSE_NEW_PASSWORD: "a long new passphrase" },
    });
    expect(denied.exitCode).toBe(1);
    expect(denied.err).toContain("ERR_FORBIDDEN");
  });
});

describe("hanse sso (admin.sso)", () => {
  it("set with --client-secret-stdin saves it (never printing the secret); show shows it; remove turns it off", async () => {
    const other = await provisionTenant(t);
    token = other.token;
    const missing = await hanse(["sso", "show"]);
    expect(missing.exitCode).toBe(1);
    expect(missing.err).toContain("ERR_NOT_FOUND");
    const set = await hanse(
      [
        "sso",
        "set",
        "--issuer",
        idp.issuer,
        "--client-id",
        idp.clientId,
        "--client-secret-stdin",
        "--auto-create-role",
        "viewer",
        "--auto-create-domain",
        "acme.example",
        "--auto-create-domain",
        "Acme.Example.org",
      ],
      { stdin: `${idp.clientSecret}\n` },
    );
    expect(set.exitCode, set.err).toBe(0);
    expect(set.out).toMatch(/Auto-create:\s+viewer for acme\.example, acme\.example\.org/);
    expect(set.out + set.err).not.toContain(idp.clientSecret);
    const shown = await hanse(["sso", "show"]);
    expect(shown.exitCode, shown.err).toBe(0);
    expect(shown.out).toMatch(new RegExp(`Issuer:\\s+${idp.issuer}`));
    expect(shown.out).toMatch(/Client secret:\s+\(set; never shown\)/);
    const json = JSON.parse((await hanse(["sso", "show", "--json"])).out) as Record<string, unknown>;
    expect(Object.keys(json).sort()).toEqual(["autoCreate", "clientId", "issuer", "updatedAt"]);

    const replaced = await hanse(
      ["sso", "set", "--issuer", idp.issuer, "--client-id", idp.clientId, "--no-auto-create", "--json"],
      { env: { HANSE_SSO_CLIENT_SECRET: idp.clientSecret } },
    );
    expect(replaced.exitCode, replaced.err).toBe(0);
    expect(JSON.parse(replaced.out)).toMatchObject({ autoCreate: null });

    const removed = await hanse(["sso", "remove"]);
    expect(removed.exitCode, removed.err).toBe(0);
    expect(removed.out).toContain("single sign-on removed");
    expect((await hanse(["sso", "show"])).exitCode).toBe(1);
    const again = await hanse(["sso", "remove"]);
    expect(again.exitCode).toBe(1);
    expect(again.err).toContain("ERR_NOT_FOUND");
  });

  it("set at a terminal asks for the client secret without echo", async () => {
    const other = await provisionTenant(t);
    token = other.token;
    const run = await hanseAtTerminal(
      ["sso", "set", "--issuer", idp.issuer, "--client-id", idp.clientId, "--no-auto-create"],
      `${idp.clientSecret}\r`,
    );
    expect(run.exitCode, run.err).toBe(0);
    expect(run.err).toContain("Client secret: ");
    expect(run.err + run.out).not.toContain(idp.clientSecret);
    expect(run.rawModes).toEqual([true, false]);
  });

  it("bad input exits 1 with a clear message and saves nothing", async () => {
    const other = await provisionTenant(t);
    token = other.token;
    const base = ["sso", "set", "--issuer", idp.issuer, "--client-id", idp.clientId];
    const env = { env: { HANSE_SSO_CLIENT_SECRET: idp.clientSecret } };
    const cases: [string[], string][] = [
      [base, "--no-auto-create"],
      [[...base, "--no-auto-create", "--auto-create-role", "viewer"], "cannot go with"],
      [[...base, "--auto-create-role", "viewer"], "at least one --auto-create-domain"],
      [[...base, "--auto-create-domain", "acme.example"], "needs --auto-create-role"],
      [
        [...base, "--auto-create-role", "god", "--auto-create-domain", "acme.example"],
        "owner, admin, viewer",
      ],
      [["sso", "set", "--client-id", "x", "--no-auto-create"], "--issuer"],
      [
        ["sso", "set", "--issuer", "http://127.0.0.1:9/none", "--client-id", "x", "--no-auto-create"],
        "/issuer",
      ],
      [[...base, "--client-secret", "s", "--no-auto-create"], "unknown option"],
    ];
    for (const [args, message] of cases) {
      const run = await hanse(args, env);
      expect(run.exitCode, args.join(" ")).toBe(1);
      expect(run.err, args.join(" ")).toContain(message);
    }
    const noSecret = await hanse([...base, "--no-auto-create"]);
    expect(noSecret.exitCode).toBe(1);
    expect(noSecret.err).toContain("no client secret");
    const shown = await hanse(["sso", "show"]);
    expect(shown.exitCode).toBe(1);
    expect(shown.err).toContain("ERR_NOT_FOUND");
  });
});
