/**
 * `rxmcp completion <bash | zsh>`: a script that completes rxmcp's commands and each command's
 * options in that shell, made from the same table the command line is parsed with (so an option
 * added there is completed too). File names are offered after `--config`.
 */
import { COMMAND_TABLE } from './args';
import type { CompletionShell, Flag } from './args';

const COMMANDS = Object.keys(COMMAND_TABLE) as Array<keyof typeof COMMAND_TABLE>;

/** Every spelling of every option of a command: `--config -c --http ...`. */
function spellings(flags: Readonly<Record<string, Flag>>): string[] {
  return Object.entries(flags).flatMap(([name, flag]) => [`--${name}`, ...(flag.alias ? [`-${flag.alias}`] : [])]);
}

function bash(): string {
  const cases = COMMANDS.map((command) => {
    const { flags } = COMMAND_TABLE[command];
    const valued = Object.entries(flags).filter(([, flag]) => flag.value);
    const files = valued.filter(([, flag]) => flag.takes === 'file');
    const others = valued.filter(([, flag]) => flag.takes !== 'file');
    const names = (list: Array<[string, Flag]>) =>
      list.flatMap(([name, flag]) => [`--${name}`, ...(flag.alias ? [`-${flag.alias}`] : [])]).join('|');
    const prev = [
      ...(files.length > 0 ? [`        ${names(files)}) COMPREPLY=($(compgen -f -- "$cur")); return ;;`] : []),
      ...(others.length > 0 ? [`        ${names(others)}) return ;;`] : []),
    ];
    const words = command === 'completion' ? ['bash', 'zsh', ...spellings(flags)] : spellings(flags);
    return [
      `    ${command})`,
      ...(prev.length > 0 ? ['      case "$prev" in', ...prev, '      esac'] : []),
      `      COMPREPLY=($(compgen -W "${words.join(' ')}" -- "$cur")) ;;`,
    ].join('\n');
  });
  return `# bash completion for rxmcp. Load it with: source <(rxmcp completion bash)
_rxmcp() {
  local cur prev
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev="\${COMP_WORDS[COMP_CWORD-1]}"
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W "${COMMANDS.join(' ')} help --help --version" -- "$cur"))
    return
  fi
  case "\${COMP_WORDS[1]}" in
${cases.join('\n')}
    help)
      COMPREPLY=($(compgen -W "${COMMANDS.join(' ')}" -- "$cur")) ;;
  esac
}
complete -F _rxmcp rxmcp
`;
}

/** A zsh `_arguments` spec of one option: `'(-c --config)'{-c,--config}'[the servers file]:file:_files'`. */
function zshOption(name: string, flag: Flag): string {
  const about = flag.about.replace(/[[\]':]/g, ' ');
  const action = !flag.value ? '' : flag.takes === 'file' ? `:${flag.takes}:_files` : `:${flag.takes ?? 'value'}: `;
  const repeat = name === 'header' ? '*' : '';
  if (!flag.alias) return `'${repeat}--${name}[${about}]${action}'`;
  const group = repeat ? '' : `'(-${flag.alias} --${name})'`;
  return `${group}${repeat ? `'*'` : ''}{-${flag.alias},--${name}}'[${about}]${action}'`;
}

function zsh(): string {
  const described = COMMANDS.map((command) => `    '${command}:${COMMAND_TABLE[command].about}'`);
  const cases = COMMANDS.map((command) => {
    const options = Object.entries(COMMAND_TABLE[command].flags).map(([name, flag]) => zshOption(name, flag));
    const positional =
      command === 'completion'
        ? [`'1:shell:(bash zsh)'`]
        : command === 'connect'
          ? [`'1:server URL:_urls'`]
          : command === 'bench'
            ? [`'*:target (a command line or URL):_urls'`]
            : [];
    return [
      `    ${command})`,
      `      _arguments -s \\`,
      ...[...options, ...positional].map((o) => `        ${o} \\`),
      '        ;;',
    ].join('\n');
  });
  return `#compdef rxmcp
# zsh completion for rxmcp. Load it with: source <(rxmcp completion zsh) (after compinit), or save it
# as _rxmcp in a folder of $fpath.
_rxmcp() {
  local -a commands
  commands=(
${described.join('\n')}
    'help:show help for rxmcp or a command'
  )
  if (( CURRENT == 2 )); then
    _describe -t commands 'rxmcp command' commands
    _arguments '(-h --help)'{-h,--help}'[show help]' '(-v --version)'{-v,--version}'[show the version]'
    return
  fi
  local command=\${words[2]}
  shift words
  (( CURRENT-- ))
  case $command in
${cases.join('\n')}
    help)
      _describe -t commands 'rxmcp command' commands ;;
  esac
}
if [ "$funcstack[1]" = "_rxmcp" ]; then
  _rxmcp "$@"
else
  compdef _rxmcp rxmcp
fi
`;
}

/** The completion script of `shell`, to print on stdout. */
export function completionScript(shell: CompletionShell): string {
  return shell === 'bash' ? bash() : zsh();
}
