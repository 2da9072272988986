/**
 * The workflow rules: what a definition is, whether it is well formed, and which state a
 * transition leads to. No I/O; the service and the processor decide what to do with the answer.
 */

export interface WorkflowTransition {
  name: string;
  /** States the transition may start from. */
  from: string[];
  to: string;
}

export interface WorkflowDefinition {
  /** The entity kind this workflow belongs to, e.g. `product`. */
  kind: string;
  states: string[];
  initialState: string;
  transitions: WorkflowTransition[];
}

/**
 * The state `transition` leads to from `state`, or null when the definition does not allow it
 * (an unknown transition, or one that does not start from `state`).
 */
export function nextState(definition: WorkflowDefinition, state: string, transition: string): string | null {
  for (const candidate of definition.transitions) {
    if (candidate.name === transition && candidate.from.includes(state)) return candidate.to;
  }
  return null;
}

/** Transitions that may start from `state`, by name (what a client could ask for next). */
export function allowedTransitions(definition: WorkflowDefinition, state: string): string[] {
  return [...new Set(definition.transitions.filter((t) => t.from.includes(state)).map((t) => t.name))];
}

/** Problems of a definition as JSON pointers into it; empty when it is well formed. */
export function definitionProblems(definition: WorkflowDefinition): { pointer: string; message: string }[] {
  const problems: { pointer: string; message: string }[] = [];
  const states = new Set(definition.states);
  if (states.size !== definition.states.length) {
    problems.push({ pointer: "/states", message: "states must be unique" });
  }
  if (!states.has(definition.initialState)) {
    problems.push({ pointer: "/initialState", message: "the initial state is not one of the states" });
  }
  definition.transitions.forEach((transition, i) => {
    transition.from.forEach((from, j) => {
      if (!states.has(from)) {
        problems.push({ pointer: `/transitions/${i}/from/${j}`, message: "unknown state" });
      }
    });
    if (!states.has(transition.to)) {
      problems.push({ pointer: `/transitions/${i}/to`, message: "unknown state" });
    }
    // Two transitions of one name from one state would make the outcome ambiguous.
    definition.transitions.slice(0, i).forEach((earlier) => {
      if (earlier.name === transition.name && earlier.from.some((s) => transition.from.includes(s))) {
        problems.push({
          pointer: `/transitions/${i}`,
          message: "a transition of this name already starts from one of these states",
        });
      }
    });
  });
  return problems;
}

/**
 * The `product` workflow every tenant gets at provisioning (rules/contract §6). `reject` sends an entity
 * back to `draft` both from `in_review` and from `approved` (approval can be withdrawn until the
 * product is published); published products are only retired.
 */
export const productWorkflow: WorkflowDefinition = {
  kind: "product",
  states: ["draft", "in_review", "approved", "published", "retired"],
  initialState: "draft",
  transitions: [
    { name: "submit", from: ["draft"], to: "in_review" },
    { name: "approve", from: ["in_review"], to: "approved" },
    { name: "reject", from: ["in_review", "approved"], to: "draft" },
    { name: "publish", from: ["approved"], to: "published" },
    { name: "retire", from: ["published"], to: "retired" },
  ],
};

export const defaultDefinitions: readonly WorkflowDefinition[] = [productWorkflow];

/** Request states of rules/contract §6; succeeded and failed are terminal. */
export type TransitionRequestStatus = "pending" | "processing" | "succeeded" | "failed";

/** Every request state, in lifecycle order. */
export const transitionRequestStatuses: readonly TransitionRequestStatus[] = [
  "pending",
  "processing",
  "succeeded",
  "failed",
];

export const isTerminal = (status: TransitionRequestStatus): boolean =>
  status === "succeeded" || status === "failed";

/** Stable outcome codes of a failed transition request (business outcomes, not HTTP errors). */
export const transitionErrorCodes = {
  entityNotFound: "ERR_WORKFLOW_ENTITY_NOT_FOUND",
  notAllowed: "ERR_WORKFLOW_TRANSITION_NOT_ALLOWED",
  conflict: "ERR_WORKFLOW_CONFLICT",
  adapterRejected: "ERR_WORKFLOW_ADAPTER_REJECTED",
  adapterUnavailable: "ERR_WORKFLOW_ADAPTER_UNAVAILABLE",
  internal: "ERR_INTERNAL",
} as const;

export type TransitionErrorCode = (typeof transitionErrorCodes)[keyof typeof transitionErrorCodes];
