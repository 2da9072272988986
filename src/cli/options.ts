import { InvalidArgumentError } from "commander";

/** A commander option parser for a whole number in [min, max]; `what` names the option in the error. */
export const parseWhole = (what: string, min: number, max: number) => (value: string) => {
  const n = Number(value);
  if (!/^[0-9]{1,15}$/.test(value) || n < min || n > max) {
    throw new InvalidArgumentError(`${what}: a whole number from ${min} to ${max}`);
  }
  return n;
};
