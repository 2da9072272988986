import { describe, expect, it } from "vitest";
import { allowedTransitions, definitionProblems, nextState, productWorkflow } from "./workflow-rules.js";

describe("nextState", () => {
  it("follows the product workflow", () => {
    expect(nextState(productWorkflow, "draft", "submit")).toBe("in_review");
    expect(nextState(productWorkflow, "in_review", "approve")).toBe("approved");
    expect(nextState(productWorkflow, "in_review", "reject")).toBe("draft");
    expect(nextState(productWorkflow, "approved", "reject")).toBe("draft");
    expect(nextState(productWorkflow, "approved", "publish")).toBe("published");
    expect(nextState(productWorkflow, "published", "retire")).toBe("retired");
  });

  it("refuses what the definition does not allow", () => {
    expect(nextState(productWorkflow, "draft", "publish")).toBeNull();
    expect(nextState(productWorkflow, "published", "reject")).toBeNull();
    expect(nextState(productWorkflow, "retired", "submit")).toBeNull();
    expect(nextState(productWorkflow, "draft", "no_such")).toBeNull();
    expect(nextState(productWorkflow, "no_such_state", "submit")).toBeNull();
  });

  it("lists the transitions of a state", () => {
    expect(allowedTransitions(productWorkflow, "approved").sort()).toEqual(["publish", "reject"]);
    expect(allowedTransitions(productWorkflow, "retired")).toEqual([]);
  });
});

describe("definitionProblems", () => {
  it("accepts the product workflow", () => {
    expect(definitionProblems(productWorkflow)).toEqual([]);
  });

  it("reports unknown states, a bad initial state, duplicates and ambiguous transitions", () => {
    const problems = definitionProblems({
      kind: "x",
      states: ["a", "b", "a"],
      initialState: "c",
      transitions: [
        { name: "go", from: ["a"], to: "b" },
        { name: "go", from: ["a", "z"], to: "q" },
      ],
    });
    expect(problems.map((p) => p.pointer).sort()).toEqual(
      ["/initialState", "/states", "/transitions/1", "/transitions/1/from/1", "/transitions/1/to"].sort(),
    );
  });
});
