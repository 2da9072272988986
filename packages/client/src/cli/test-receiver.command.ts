import { readFile } from "node:fs/promises";
import type { Command } from "commander";
import { readSecret } from "./cli-io.js";
import { parseWhole } from "./options.js";
import { CliError, type Runtime } from "./runtime.js";

/** Exit code of `webhooks test-receiver` when a case did not pass (0 all passed, 1 usage error). */
export const receiverCheckFailedExitCode = 2;

/** The test event's tenant and app unless given: plainly not a real tenant's. */
export const testEventDefaults = {
  tenantId: "00000000-0000-0000-0000-000000000000",
  appId: "hanse-test-receiver",
} as const;

const webhookSecretPattern = /^whsec_[A-Za-z0-9+/]{16,}={0,2}$/;

/**
 * `hanse webhooks test-receiver URL`: checks an integrator's receiver from this machine, without a
 * Hanse server (webhook-receiver-check.ts). Exit codes: 0 every case passed, 1 usage error, 2 a
 * case did not pass.
 */
export function registerTestReceiverCommand(webhooks: Command, rt: Runtime): void {
  rt.command(webhooks, "test-receiver")
    .description(
      "Check your receiver before going live: a signed test event, a redelivery and an older sequence " +
        "(must be accepted), then forged, tampered, stale, future and unsigned requests (must be refused)",
    )
    .argument("<url>", "your receiver's URL (https)")
    .option("--secret <whsec>", "the subscription's secret (else HANSE_WEBHOOK_SECRET or --secret-stdin)")
    .option("--secret-stdin", "read the secret from stdin")
    .option("--ca-file <file>", "a PEM certificate or CA to trust besides the system's (a local test CA)")
    .option(
      "--insecure-http",
      "allow http:// to a receiver on this machine (loopback only; local development)",
    )
    .option(
      "--timeout-ms <ms>",
      "time limit of each request",
      parseWhole("--timeout-ms", 100, 120_000),
      10_000,
    )
    .option("--tenant-id <id>", "tenantId of the test event", testEventDefaults.tenantId)
    .option("--app-id <id>", "appId of the test event", testEventDefaults.appId)
    .option("--json", "machine-readable output")
    .action(
      rt.action(
        async (
          rawUrl: string,
          options: {
            secret?: string;
            secretStdin?: boolean;
            caFile?: string;
            insecureHttp?: boolean;
            timeoutMs: number;
            tenantId: string;
            appId: string;
            json?: boolean;
          },
        ) => {
          const secret = options.secretStdin
            ? (await readSecret(rt.io.stdin ?? process.stdin)).trim()
            : (options.secret ?? rt.io.env.HANSE_WEBHOOK_SECRET);
          if (secret === undefined || secret === "") {
            throw new CliError("no secret: give --secret, --secret-stdin or set HANSE_WEBHOOK_SECRET");
          }
          if (!webhookSecretPattern.test(secret)) {
            throw new CliError("the secret is not a Standard Webhooks secret (whsec_ followed by base64)");
          }
          // The check's HTTP client (undici) is loaded only for this command.
          const { checkReceiver, checkReceiverUrl, ReceiverUrlError, renderReceiverReport } =
            await import("./webhook-receiver-check.js");
          let url: URL;
          try {
            url = await checkReceiverUrl(rawUrl, options.insecureHttp === true);
          } catch (error) {
            if (error instanceof ReceiverUrlError) throw new CliError(error.message);
            throw error;
          }
          let ca: string | undefined;
          if (options.caFile !== undefined) {
            ca = await readFile(options.caFile, "utf8").catch(() => {
              throw new CliError(`cannot read the CA file ${options.caFile ?? ""}`);
            });
          }
          const report = await checkReceiver({
            url,
            secret,
            ca,
            timeoutMs: options.timeoutMs,
            tenantId: options.tenantId,
            appId: options.appId,
          });
          if (options.json) rt.printJson(report);
          else rt.print(renderReceiverReport(report));
          if (!report.passed) {
            const failed = report.cases.filter((c) => c.result !== "pass").length;
            throw new CliError(
              `the receiver did not pass ${failed} of ${report.cases.length} cases`,
              receiverCheckFailedExitCode,
            );
          }
        },
      ),
    );
}
