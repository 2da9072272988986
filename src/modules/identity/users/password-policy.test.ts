import { describe, expect, it } from "vitest";
import { newPasswordProblem, passwordLength } from "./password-policy.js";

describe("CONTRACT §7: a new password has at least 15 and at most 1024 characters, no composition rules", () => {
  it("refuses 14 characters and accepts 15, whatever they are made of", () => {
    expect(newPasswordProblem("a".repeat(14))).toBe("must be at least 15 characters");
    expect(newPasswordProblem("a".repeat(15))).toBeUndefined();
    expect(newPasswordProblem("correct horse battery staple")).toBeUndefined();
  });

  it("accepts 1024 characters and refuses 1025", () => {
    expect(newPasswordProblem("x".repeat(passwordLength.max))).toBeUndefined();
    expect(newPasswordProblem("x".repeat(passwordLength.max + 1))).toBe("must be at most 1024 characters");
  });

  it("counts characters, not UTF-16 units: 15 emoji are 15 characters, 14 are too few", () => {
    expect(newPasswordProblem("🔑".repeat(15))).toBeUndefined();
    expect(newPasswordProblem("🔑".repeat(14))).toBe("must be at least 15 characters");
  });
});
