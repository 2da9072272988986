/**
 * undici and jose, loaded on first use: together they cost a CLI start three times a bare
 * `node -e ''` (docs/benchmarks.md "CLI start"), and `hanse --help` or a command that fails on its
 * options needs neither. Each is imported once per process.
 */
let undiciModule: Promise<typeof import("undici")> | undefined;
let joseModule: Promise<typeof import("jose")> | undefined;

export const loadUndici = (): Promise<typeof import("undici")> => (undiciModule ??= import("undici"));
export const loadJose = (): Promise<typeof import("jose")> => (joseModule ??= import("jose"));
