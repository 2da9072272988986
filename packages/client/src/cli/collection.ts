import type { Command } from "commander";
import type { HanseClient } from "../sdk/client.js";
import type { ListQuery } from "../sdk/published-call.js";
import type { Page } from "../sdk/types.js";
import { parseOrder, parseWhole } from "./options.js";
import type { Runtime } from "./runtime.js";
import { renderColumns } from "./table.js";

/** One column of a list: its header and the cell of an item. */
export type Column<T> = readonly [header: string, cell: (item: T) => string];

/** A filter option of a list and the query parameter the route takes for it. */
export interface Filter {
  /** `--name <value>`, or `--name` alone: a switch that sends `query=true`. */
  flags: string;
  description: string;
  query: string;
}

/** `--partner <partner-id>`: the lists of the exchange that the routes narrow by `partnerId`. */
export const partnerFilter = (what: string): Filter => ({
  flags: "--partner <partner-id>",
  description: `only the ${what} of this partner`,
  query: "partnerId",
});

export interface ListSpec<T> {
  description: string;
  /** What the list shows when there is nothing: "No partners." */
  empty: string;
  columns: readonly Column<T>[];
  filters?: readonly Filter[];
  /** False for a list in a fixed order (the audit trail): no `--order`. */
  ordered?: boolean;
  /** The positional arguments before the options, e.g. `<connection>`. */
  argument?: { name: string; description: string };
  fetch(client: HanseClient, query: ListQuery, argument: string | undefined): Promise<Page<T>>;
}

export const jsonOption = (command: Command): Command =>
  command.option("--json", "one JSON document on stdout");

/** `Label:  value` lines, aligned. */
export function renderFields(fields: readonly (readonly [string, string])[]): string {
  const width = Math.max(...fields.map(([label]) => label.length)) + 2;
  return fields.map(([label, value]) => `${`${label}:`.padEnd(width)}${value}`).join("\n");
}

export const orDash = (value: string | number | null | undefined): string =>
  value === null || value === undefined || value === "" ? "-" : String(value);

/** The shell-quoted words that call this command again (`hanse revisions list <id>`), for hints. */
function commandLine(command: Command, args: readonly string[]): string {
  const names: string[] = [];
  for (let c: Command | null = command; c; c = c.parent) names.unshift(c.name());
  const quote = (arg: string) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`);
  return [...names, ...args.map(quote)].join(" ");
}

interface ListOptions {
  limit?: number;
  cursor?: string;
  all?: boolean;
  json?: boolean;
  order?: "asc" | "desc";
  [filter: string]: unknown;
}

/**
 * `list`: one page (`--limit`, `--cursor` from the previous page's `nextCursor`) or `--all` pages,
 * with the filters the route supports; a table, or the page as JSON (`{items, meta}`).
 */
export function registerList<T>(rt: Runtime, parent: Command, spec: ListSpec<T>): Command {
  const command = jsonOption(rt.command(parent, "list"))
    .option("--limit <n>", "page size, 1–100", parseWhole("--limit", 1, 100))
    .option("--cursor <cursor>", "continue after a previous page (its nextCursor)")
    .option("--all", "read every page")
    .description(spec.description);
  if (spec.ordered !== false) {
    command.option("--order <order>", "asc (oldest first, the default) or desc (newest first)", parseOrder);
  }
  if (spec.argument) command.argument(`<${spec.argument.name}>`, spec.argument.description);
  for (const filter of spec.filters ?? []) command.option(filter.flags, filter.description);
  return command.action(
    rt.action(async (...args: unknown[]) => {
      const argument = spec.argument ? (args[0] as string) : undefined;
      const options = args[spec.argument ? 1 : 0] as ListOptions;
      const self = args.at(-1) as Command;
      const filters: Record<string, string | undefined> = {};
      // The next page is asked for with the same filters (cursors are bound to them).
      const again: string[] = argument === undefined ? [] : [argument];
      for (const filter of spec.filters ?? []) {
        const option = self.options.find((candidate) => candidate.flags === filter.flags);
        const value = option ? options[option.attributeName()] : undefined;
        if (value === true && option?.long !== undefined) {
          filters[filter.query] = "true";
          again.push(option.long);
          continue;
        }
        if (typeof value !== "string" || option?.long === undefined) continue;
        filters[filter.query] = value;
        again.push(option.long, value);
      }
      // Cursors are bound to the order too.
      if (options.order !== undefined) {
        filters.order = options.order;
        again.push("--order", options.order);
      }
      const client = await rt.client();
      let page: Page<T>;
      if (options.all) {
        const items: T[] = [];
        let cursor = options.cursor;
        do {
          const next = await spec.fetch(
            client,
            { ...filters, limit: options.limit ?? 100, cursor },
            argument,
          );
          items.push(...next.items);
          cursor = next.meta.hasMore && next.meta.nextCursor !== null ? next.meta.nextCursor : undefined;
        } while (cursor !== undefined);
        page = { items, meta: { hasMore: false, nextCursor: null } };
      } else {
        page = await spec.fetch(
          client,
          { ...filters, limit: options.limit, cursor: options.cursor },
          argument,
        );
      }
      rt.emit(options.json, page, () => {
        const lines = [
          page.items.length === 0
            ? spec.empty
            : renderColumns([
                spec.columns.map(([header]) => header),
                ...page.items.map((item) => spec.columns.map(([, cell]) => cell(item))),
              ]),
        ];
        if (page.meta.hasMore && page.meta.nextCursor !== null) {
          lines.push(`More: ${commandLine(self, again)} --cursor '${page.meta.nextCursor}'`);
        }
        return lines.join("\n");
      });
    }),
  );
}

/** `get <id>` (alias `show`): one item as labelled fields, or as JSON. */
export const registerGet = <T>(
  rt: Runtime,
  parent: Command,
  spec: {
    description: string;
    argument: string;
    fetch(client: HanseClient, id: string): Promise<T>;
    render(item: T): string;
  },
): Command =>
  registerItemAction(rt, parent, {
    ...spec,
    name: "get",
    run: (client, id) => spec.fetch(client, id),
  }).alias("show");

/** An action on one item (`revoke <id>`, `requeue <id>`): what it did, or the answer as JSON. */
export function registerItemAction<T>(
  rt: Runtime,
  parent: Command,
  spec: {
    name: string;
    description: string;
    argument: string;
    run(client: HanseClient, id: string): Promise<T>;
    render(item: T): string;
  },
): Command {
  return jsonOption(rt.command(parent, spec.name))
    .description(spec.description)
    .argument(`<${spec.argument}>`, `the ${spec.argument}`)
    .action(
      rt.action(async (id: string, options: { json?: boolean }) => {
        const item = await spec.run(await rt.client(), id);
        rt.emit(options.json, item, () => spec.render(item));
      }),
    );
}

/** A comma-separated list option (`--scopes a,b`). */
export const commaList = (value: string): string[] =>
  value
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");
