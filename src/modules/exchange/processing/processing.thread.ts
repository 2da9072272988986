/**
 * Entry of the EDIFACT worker threads (see processing-runner.ts): each session is one upload's
 * `ProcessingRun`, its state kept here between the job's steps.
 */
import { serveThread } from "../../../platform/threads/thread-pool.js";
import type { Profile } from "../profile.js";
import { createProcessingRun, type Catalog, type ProcessingRun } from "./processing.rules.js";
import type { OutboundEnvelope } from "../../../edifact/index.js";
import { packBuffers } from "./processing-runner.js";

const runs = new Map<number, ProcessingRun>();
const runOf = (session: number): ProcessingRun => {
  const run = runs.get(session);
  if (!run) throw new Error("no analysis for this session");
  return run;
};

await serveThread(
  {
    analyse(session, args: { bytes: Uint8Array; profile: Profile }) {
      const run = createProcessingRun(args.bytes, args.profile);
      runs.set(session, run);
      return { result: run.summary() };
    },
    plan: (session, args: { catalog: Catalog; duplicate: boolean }) => ({
      result: runOf(session).plan(args.catalog, args.duplicate),
    }),
    build(session, envelopes: OutboundEnvelope[]) {
      const packed = packBuffers(runOf(session).build(envelopes));
      runs.delete(session);
      return { result: packed, transfer: [packed.buffer] };
    },
  },
  (session) => runs.delete(session),
);
