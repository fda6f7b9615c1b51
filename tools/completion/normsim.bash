# bash completion for normsim. The subcommands and their options come from
# the binary's own --help, the names of shipped configs and kernels from
# `normsim list`: nothing here is a second copy of the CLI.
_normsim() {
  local cur prev words cword
  _init_completion 2>/dev/null || { cur=${COMP_WORDS[COMP_CWORD]}; prev=${COMP_WORDS[COMP_CWORD-1]}; words=("${COMP_WORDS[@]}"); cword=$COMP_CWORD; }
  local bin=${words[0]} sub="" w
  for w in "${words[@]:1:cword-1}"; do
    case $w in -*) ;; *) sub=$w; break ;; esac
  done
  _normsim_names() { "$bin" list "$1" 2>/dev/null | awk '{print $1}'; }
  if [ -z "$sub" ]; then
    COMPREPLY=($(compgen -W "$("$bin" --help 2>/dev/null | sed -n '/^Subcommands:/,$p' | awk 'NR>1{print $1}') -h --help --version -v -q" -- "$cur"))
    return
  fi
  case $prev in
    --arch) COMPREPLY=($(compgen -W "$(_normsim_names archs)" -- "$cur")); compopt -o default 2>/dev/null; return ;;
    --gpu) COMPREPLY=($(compgen -W "$(_normsim_names gpus)" -- "$cur")); compopt -o default 2>/dev/null; return ;;
    --study) COMPREPLY=($(compgen -W "$(_normsim_names studies)" -- "$cur")); compopt -o default 2>/dev/null; return ;;
    --workload) COMPREPLY=($(compgen -W "$(_normsim_names workloads)" -- "$cur")); compopt -o default 2>/dev/null; return ;;
    --kernel) COMPREPLY=($(compgen -W "$(_normsim_names kernels)" -- "$cur")); return ;;
    --path) COMPREPLY=($(compgen -W "sram-replay dram-reread partial-replay" -- "$cur")); return ;;
    --out|--trace|--synth-dir|--rtl-dir|--dot|-o) compopt -o default 2>/dev/null; COMPREPLY=(); return ;;
  esac
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$("$bin" "$sub" --help 2>/dev/null | grep -oE '(^|[ ,])--?[a-zA-Z][-a-zA-Z0-9]*' | tr -d ' ,')" -- "$cur"))
  elif [ "$sub" = list ]; then
    COMPREPLY=($(compgen -W "workloads archs gpus studies kernels" -- "$cur"))
  else
    COMPREPLY=($(compgen -W "$(_normsim_names workloads)" -- "$cur"))
    compopt -o default 2>/dev/null
  fi
}
complete -F _normsim normsim
