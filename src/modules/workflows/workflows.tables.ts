import type { ColumnType } from "kysely";
import type { TransitionRequestStatus, WorkflowTransition } from "./workflow-rules.js";
import { tablesOf } from "../../platform/db/tables.js";

type Json<T> = ColumnType<T, string, string>;
type NullableJson<T> = ColumnType<T | null, string | null, string | null>;

export interface WorkflowDefinitionsTable {
  tenant_id: string;
  kind: string;
  states: Json<string[]>;
  initial_state: string;
  transitions: Json<WorkflowTransition[]>;
  created_at: Date;
  updated_at: Date;
}

export interface WorkflowEntitiesTable {
  tenant_id: string;
  id: string;
  kind: string;
  state: string;
  /** Starts at 1 and grows by one with every applied transition (optimistic concurrency). */
  version: number;
  attributes: Json<Record<string, unknown>>;
  created_at: Date;
  updated_at: Date;
}

export interface TransitionResult {
  fromState: string;
  toState: string;
}

export interface TransitionError {
  code: string;
  message: string;
}

export interface WorkflowTransitionRequestsTable {
  tenant_id: string;
  id: string;
  entity_kind: string;
  entity_id: string;
  transition: string;
  payload: Json<Record<string, unknown>>;
  status: TransitionRequestStatus;
  result: NullableJson<TransitionResult>;
  error: NullableJson<TransitionError>;
  /** The entity version this request produced; set exactly when it succeeded. */
  applied_version: number | null;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
}

export interface WorkflowLifecycleAdaptersTable {
  tenant_id: string;
  id: string;
  kind: string;
  url: string;
  /** The signing secret, encrypted at rest (sealed, see platform/crypto/sealed-secrets.ts). */
  secret: string;
  timeout_ms: number;
  max_attempts: number;
  created_at: Date;
}

export interface WorkflowTables {
  workflow_definitions: WorkflowDefinitionsTable;
  workflow_entities: WorkflowEntitiesTable;
  workflow_transition_requests: WorkflowTransitionRequestsTable;
  workflow_lifecycle_adapters: WorkflowLifecycleAdaptersTable;
}

/** A transaction over more tables seen as one over the workflows module's own (`tablesOf`). */
export const workflowTables = tablesOf<WorkflowTables>();

declare module "../../platform/db/tables.js" {
  // One part's tables in the whole database (`HanseTables`, declaration merging).
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface HanseTables extends WorkflowTables {}
}
