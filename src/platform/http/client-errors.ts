import type { Socket } from "node:net";
import type { FastifyBaseLogger } from "fastify";
import { reasonPhrases, type ErrorCode } from "@hanse/client/protocol";
import { headers } from "@hanse/client/protocol";
import { uuidv7 } from "../crypto/ids.js";
import type { FieldError } from "../errors/app-error.js";
import { closeLingering, isLingering } from "./lingering-close.js";
import { problemBody } from "./problem.js";

interface ClientErrorAnswer {
  code: ErrorCode;
  detail: string;
  errors?: FieldError[];
}

/**
 * Node's HTTP parser refuses a request before Fastify sees it (Node error codes, not messages).
 * Each refusal is answered with the problem of rules/contract §1 and a stable code.
 */
function answerFor(nodeCode: string | undefined): ClientErrorAnswer {
  switch (nodeCode) {
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return { code: "ERR_REQUEST_TIMEOUT", detail: "The request was not received in time." };
    case "HPE_HEADER_OVERFLOW":
      return { code: "ERR_HEADERS_TOO_LARGE", detail: "The request line and headers exceed 16 KiB." };
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return { code: "ERR_PAYLOAD_TOO_LARGE", detail: "The chunk extensions exceed the limit." };
    default:
      return {
        code: "ERR_VALIDATION",
        detail: "The request is not well-formed HTTP/1.1.",
        errors: [{ pointer: "", message: "malformed HTTP request" }],
      };
  }
}

/** The response to a request that never became one: bytes on the socket, then a lingering close. */
function rawProblem(answer: ClientErrorAnswer, correlationId: string): string {
  const body = JSON.stringify(problemBody(answer.code, correlationId, answer.detail, answer.errors));
  const status = String(problemBody(answer.code, correlationId).status);
  return (
    `HTTP/1.1 ${status} ${reasonPhrases[Number(status)] ?? "Error"}\r\n` +
    "Content-Type: application/problem+json; charset=utf-8\r\n" +
    `Content-Length: ${String(Buffer.byteLength(body))}\r\n` +
    `${headers.correlationId}: ${correlationId}\r\n` +
    "Connection: close\r\n\r\n" +
    body
  );
}

/** The response in progress on a socket (Node keeps it there), if any. */
const responseOn = (socket: Socket) => (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage;

/**
 * Fastify's `clientErrorHandler`: answers what Node's parser refused (malformed request, headers
 * over the limit, a request not received in time) as problem+json with a fresh correlation id,
 * never echoing the request. The log names the correlation id and Node's code only: the error
 * object carries the raw request bytes, credentials included.
 */
export function createClientErrorHandler(logger: FastifyBaseLogger) {
  return (error: NodeJS.ErrnoException, socket: Socket): void => {
    // A reset or a connection already answered (lingering): nobody is left to read an answer.
    if (error.code === "ECONNRESET" || socket.destroyed || isLingering(socket)) return;
    // Bytes of a response already went out: another status line would corrupt it.
    if (!socket.writable || responseOn(socket)?.headersSent) {
      socket.destroy();
      return;
    }
    const answer = answerFor(error.code);
    const correlationId = uuidv7();
    logger.info(
      { correlationId, nodeCode: error.code, errorCode: answer.code },
      "request refused by the HTTP parser",
    );
    socket.write(rawProblem(answer, correlationId));
    closeLingering(socket);
  };
}
