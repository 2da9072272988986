import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface ReceivedRequest {
  headers: Record<string, string | string[] | undefined>;
  body: string;
  url: string;
}

/** What the receiver answers: a status and headers, or "hang" (never answers). */
export type ReceiverAnswer = { status: number; headers?: Record<string, string> } | "hang";

/**
 * A local HTTPS server with a certificate of its own (a fake at the process edge), for webhook
 * and adapter tests: its `caFile` goes into HANSE_WEBHOOK_CA_FILE.
 */
export interface HttpsReceiver {
  url: string;
  caFile: string;
  received: ReceivedRequest[];
  answer: (request: ReceivedRequest) => ReceiverAnswer | Promise<ReceiverAnswer>;
  close(): Promise<void>;
}

/**
 * The server's settings for delivering to `receiver` (webhooks, lifecycle adapters): its CA
 * trusted, private addresses allowed (it listens on 127.0.0.1; `allowPrivate: false` keeps the
 * address guard), and a timeout generous enough for a TLS handshake on a loaded 2-core machine.
 */
export function webhookReceiverEnv(
  receiver: Pick<HttpsReceiver, "caFile">,
  options: { allowPrivate?: boolean; timeoutMs?: number } = {},
): Record<string, string> {
  return {
    ...(options.allowPrivate === false ? {} : { HANSE_WEBHOOK_ALLOW_PRIVATE: "1" }),
    HANSE_WEBHOOK_CA_FILE: receiver.caFile,
    HANSE_WEBHOOK_TIMEOUT_MS: String(options.timeoutMs ?? 5000),
  };
}

/**
 * `dnsNames`: host names the certificate is valid for besides `localhost` and 127.0.0.1 (names a
 * test resolves to this receiver through a stub, so that only the address guard can stop a request).
 */
export async function startHttpsReceiver(path = "/hooks", dnsNames: string[] = []): Promise<HttpsReceiver> {
  const dir = await mkdtemp(join(tmpdir(), "hanse-receiver-"));
  const key = join(dir, "key.pem");
  const cert = join(dir, "cert.pem");
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-keyout",
      key,
      "-out",
      cert,
      "-days",
      "1",
      "-subj",
      "/CN=localhost",
      "-addext",
      `subjectAltName=${["IP:127.0.0.1", "DNS:localhost", ...dnsNames.map((name) => `DNS:${name}`)].join(",")}`,
    ],
    { stdio: "ignore" },
  );
  const hung: (() => void)[] = [];
  const receiver: HttpsReceiver = {
    url: "",
    caFile: cert,
    received: [],
    answer: () => ({ status: 204 }),
    async close() {
      for (const release of hung) release();
      server.closeAllConnections();
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
      await rm(dir, { recursive: true, force: true });
    },
  };
  const server: Server = createServer(
    { key: await readFile(key), cert: await readFile(cert) },
    (req, res) => {
      let body = "";
      req.setEncoding("utf8");
      req.on("data", (chunk: string) => (body += chunk));
      req.on("end", () => {
        const entry = { headers: req.headers, body, url: req.url ?? "" };
        receiver.received.push(entry);
        void Promise.resolve(receiver.answer(entry)).then((answer) => {
          if (answer === "hang") {
            hung.push(() => res.destroy());
            return;
          }
          if (!res.destroyed) res.writeHead(answer.status, answer.headers ?? {}).end();
        });
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiver.url = `https://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
  return receiver;
}
