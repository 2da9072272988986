import { describe, expect, it } from "vitest";
import { commonPasswordCount, newPasswordProblem, passwordLength } from "./password-policy.js";

describe("rules/contract §7: a new password has at least 15 and at most 1024 characters, no composition rules", () => {
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

describe("rules/contract §7: a new password is not one of the most common passwords", () => {
  it("ships a list of at least 10,000 and refuses its long entries in any case, exactly", () => {
    expect(commonPasswordCount).toBeGreaterThanOrEqual(10_000);
    const refusal = "is one of the most common passwords; choose another";
    expect(newPasswordProblem("1qaz2wsx3edc4rfv")).toBe(refusal);
    expect(newPasswordProblem("PasswordPassword")).toBe(refusal);
    expect(newPasswordProblem("QWERTYUIOP12345")).toBe(refusal);
    // Exact matches only: a listed password inside a longer one is fine.
    expect(newPasswordProblem("1qaz2wsx3edc4rfv and more")).toBeUndefined();
    expect(newPasswordProblem(" passwordpassword")).toBeUndefined();
  });
});
