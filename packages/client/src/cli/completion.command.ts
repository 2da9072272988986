import { InvalidArgumentError, type Command } from "commander";
import type { Runtime } from "./runtime.js";

/** A command of the tree: its path (`/partners/list`) and what may follow it. */
interface Node {
  path: string;
  words: { word: string; description: string }[];
}

/** Every command of the program with its subcommands and options, in a stable order. */
function walk(command: Command, path = ""): Node[] {
  const words = [
    ...command.commands.flatMap((sub) =>
      [sub.name(), ...sub.aliases()].map((word) => ({ word, description: sub.description() })),
    ),
    ...command.options.flatMap((option) =>
      option.long === undefined ? [] : [{ word: option.long, description: option.description }],
    ),
  ];
  return [
    { path, words },
    ...command.commands.flatMap((sub) =>
      [sub.name(), ...sub.aliases()].flatMap((name) => walk(sub, `${path}/${name}`)),
    ),
  ];
}

/** The command path so far: only words that name a subcommand of where it stands count (option values do not). */
const transitions = (nodes: readonly Node[]) =>
  nodes.filter((node) => node.path !== "").map((node) => node.path);

function bashScript(nodes: readonly Node[]): string {
  const cases = nodes
    .map((node) => `    "${node.path}") words="${node.words.map((w) => w.word).join(" ")}" ;;`)
    .join("\n");
  return `# bash completion for hanse: source <(hanse completion bash)
_hanse() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" path="" word i words=""
  for ((i = 1; i < COMP_CWORD; i++)); do
    word="\${COMP_WORDS[i]}"
    case "$path/$word" in
      ${transitions(nodes)
        .map((path) => `"${path}"`)
        .join("|")}) path="$path/$word" ;;
    esac
  done
  case "$path" in
${cases}
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o default -F _hanse hanse
`;
}

/** `word:description` for `_describe`, single-quoted; a colon inside either is escaped. */
const zshItem = (word: string, description: string) =>
  `'${[word, description].map((part) => part.replaceAll("'", "'\\''").replaceAll(":", "\\:")).join(":")}'`;

function zshScript(nodes: readonly Node[]): string {
  const cases = nodes
    .map(
      (node) =>
        `    (${node.path === "" ? "''" : `"${node.path}"`}) items=(${node.words
          .map((w) => zshItem(w.word, w.description))
          .join(" ")}) ;;`,
    )
    .join("\n");
  return `#compdef hanse
# zsh completion for hanse: source <(hanse completion zsh), or save it as _hanse in your $fpath
_hanse() {
  local cmdpath="" word i
  local -a items
  for ((i = 2; i < CURRENT; i++)); do
    word="\${words[i]}"
    case "$cmdpath/$word" in
      (${transitions(nodes)
        .map((path) => `"${path}"`)
        .join("|")}) cmdpath="$cmdpath/$word" ;;
    esac
  done
  case "$cmdpath" in
${cases}
  esac
  _describe -t commands hanse items
}
if (( $+functions[compdef] )); then compdef _hanse hanse; fi
`;
}

const shells = { bash: bashScript, zsh: zshScript } as const;

/** `hanse completion bash|zsh`: a completion script of this CLI's commands and options. */
export function registerCompletionCommand(program: Command, rt: Runtime): void {
  rt.command(program, "completion")
    .description("Print a shell completion script: source <(hanse completion bash) or … zsh")
    .argument("<shell>", "bash or zsh", (value: string) => {
      if (value !== "bash" && value !== "zsh") throw new InvalidArgumentError("bash or zsh");
      return value;
    })
    .option("--json", "the script in a JSON document ({shell, script})")
    .action((shell: keyof typeof shells, options: { json?: boolean }) => {
      const script = shells[shell](walk(program));
      rt.emit(options.json, { shell, script }, () => script);
    });
}
