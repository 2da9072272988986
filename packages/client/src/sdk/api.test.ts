import { describe, expectTypeOf, it } from "vitest";
import type { ResponseBody } from "./api.js";
import type { Connection, Delivery, Partner, ProfileRevision, Upload } from "./admin-collections.js";
import type {
  CreateTenantInput,
  LoginInput,
  ProvisioningStatus,
  Session,
  Tenant,
  TransitionRequestStatus,
} from "./types.js";

// Checked by `npm run typecheck` (tsc reads the test files): an operation id or status that the
// generated types do not have makes its alias `never`, and these lines fail to compile.
describe("the SDK's shapes are the generated API types", () => {
  it("names no operation or status the document lacks", () => {
    expectTypeOf<Tenant>().not.toBeNever();
    expectTypeOf<Tenant["status"]>().toEqualTypeOf<"provisioning" | "active" | "failed" | "suspended">();
    expectTypeOf<ProvisioningStatus>().not.toBeNever();
    expectTypeOf<CreateTenantInput>().not.toBeNever();
    expectTypeOf<Session>().not.toBeNever();
    expectTypeOf<LoginInput>().not.toBeNever();
    expectTypeOf<TransitionRequestStatus>().not.toBeNever();
    expectTypeOf<Partner>().not.toBeNever();
    expectTypeOf<Connection>().not.toBeNever();
    expectTypeOf<ProfileRevision>().not.toBeNever();
    expectTypeOf<Upload>().not.toBeNever();
    expectTypeOf<Delivery>().not.toBeNever();
    expectTypeOf<ResponseBody<"getTenant", 404>>().toBeNever();
  });
});
