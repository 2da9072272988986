import { AppError } from "../../../platform/errors/app-error.js";

/** The administration's 404: the thing named in the path does not exist in the caller's tenant. */
export const notFound = (what: string) => new AppError("ERR_NOT_FOUND", `No such ${what}.`);

/** A 400 for a body that names something that does not exist in the caller's tenant. */
export const invalidReference = (pointer: string, message: string) =>
  new AppError("ERR_VALIDATION", "The request body refers to something that does not exist.", {
    errors: [{ pointer, message }],
  });

/** A 400 for a query value the route's schema cannot judge alone (a list of statuses, a range). */
export const invalidQuery = (pointer: string, message: string) =>
  new AppError("ERR_VALIDATION", "The request query is invalid.", { errors: [{ pointer, message }] });
